"""Whether a resource, a resource template or a prompt can be registered, and the key
it is registered under.

Apart from ``features.py`` (the entries and keys every catalog holds) because only a
plugin that adds a resource or a prompt needs these checks, the URI patterns they
compile and the ``Resource`` and ``Prompt`` values: a catalog of tools alone never
loads them (``tests/host/test_startup.py``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from tooldeck._prompt import Prompt, PromptArgument
from tooldeck._resource import Resource, ResourceTemplate
from tooldeck.host.registry import names

_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:\S*")
_EXPRESSION = re.compile(r"\{([^{}]*)\}")
_VARIABLE = re.compile(r"\+?([A-Za-z0-9_]+)")
_MIME = re.compile(r"[\w.+-]+/[\w.+-]+(\s*;.*)?")
MAX_URI = 2048


def template_variables(template: str) -> tuple[str, ...]:
    """The variable names of a URI template, in order (``{+name}`` counts as ``name``)."""
    found = []
    for expression in _EXPRESSION.findall(template):
        matched = _VARIABLE.fullmatch(expression)
        if matched:
            found.append(matched.group(1))
    return tuple(found)


def resource_problem(resource: object) -> str | None:
    """Why ``resource`` cannot be registered, or ``None``."""
    if isinstance(resource, Resource):
        return _uri_problem(resource.uri) or _common_problem(resource)
    if isinstance(resource, ResourceTemplate):
        return _template_problem(resource) or _common_problem(resource)
    return f"expected a Resource or ResourceTemplate, got {type(resource).__name__}"


def _uri_problem(uri: object) -> str | None:
    if not isinstance(uri, str):
        return f"uri must be a string, got {type(uri).__name__}"
    if not (len(uri) <= MAX_URI and _SCHEME.fullmatch(uri)):
        return f"uri {uri!r} must be an absolute URI (scheme:...) without spaces"
    if "{" in uri or "}" in uri:
        return f"uri {uri!r} holds a template expression: register a ResourceTemplate"
    return None


def _template_problem(template: ResourceTemplate) -> str | None:
    text = template.uri_template
    if not isinstance(text, str):
        return f"uri_template must be a string, got {type(text).__name__}"
    if not (len(text) <= MAX_URI and _SCHEME.fullmatch(text)):
        return f"uri_template {text!r} must be an absolute URI template without spaces"
    expressions = _EXPRESSION.findall(text)
    if not expressions:
        return f"uri_template {text!r} has no {{variable}}: register a Resource"
    if _EXPRESSION.sub("", text).count("{") or _EXPRESSION.sub("", text).count("}"):
        return f"uri_template {text!r} has an unbalanced brace"
    for expression in expressions:
        if not _VARIABLE.fullmatch(expression):
            return (
                f"uri_template {text!r}: {{{expression}}} is not supported "
                "(use {name} for one path segment or {+name} for any text)"
            )
    variables = template_variables(text)
    if len(set(variables)) != len(variables):
        return f"uri_template {text!r} names a variable twice"
    complete = template.complete
    if complete is not None:
        if not isinstance(complete, Mapping):
            return f"complete must map variable names to values, got {type(complete).__name__}"
        unknown = sorted(set(complete) - set(variables))
        if unknown:
            return f"complete names {', '.join(map(repr, unknown))}, not variables of {text!r}"
    return None


def _common_problem(resource: Resource | ResourceTemplate) -> str | None:
    if not (isinstance(resource.name, str) and resource.name.strip()):
        return "name must be a non-empty string"
    if resource.description is not None and not isinstance(resource.description, str):
        return f"description must be a string or None, got {type(resource.description).__name__}"
    mime = resource.mime_type
    if mime is not None and not (isinstance(mime, str) and _MIME.fullmatch(mime)):
        return f"mime_type must be a MIME type such as 'text/plain', got {mime!r}"
    if not callable(resource.read):
        return f"read must be callable, got {type(resource.read).__name__}"
    permission = resource.permission
    if permission is not None and not (isinstance(permission, str) and permission.strip()):
        return "permission must be a non-empty string or None"
    return None


def prompt_problem(prompt: object) -> str | None:
    """Why ``prompt`` cannot be registered, or ``None``."""
    if not isinstance(prompt, Prompt):
        return f"expected a Prompt, got {type(prompt).__name__}"
    problem = names.name_problem(prompt.name, prompt.namespace, True)
    if problem is not None:
        return problem
    if not (isinstance(prompt.description, str) and prompt.description.strip()):
        return "description must be a non-empty string"
    if not callable(prompt.render):
        return f"render must be callable, got {type(prompt.render).__name__}"
    if isinstance(prompt.arguments, str | bytes) or not hasattr(prompt.arguments, "__iter__"):
        return "arguments must be a sequence of PromptArgument"
    seen: set[str] = set()
    for argument in prompt.arguments:
        problem = _argument_problem(argument, seen)
        if problem is not None:
            return problem
    return None


def _argument_problem(argument: object, seen: set[str]) -> str | None:
    if not isinstance(argument, PromptArgument):
        return f"arguments must be PromptArgument values, got {type(argument).__name__}"
    if not (isinstance(argument.name, str) and argument.name.strip()):
        return "an argument's name must be a non-empty string"
    if argument.name in seen:
        return f"argument {argument.name!r} is named twice"
    seen.add(argument.name)
    if argument.description is not None and not isinstance(argument.description, str):
        return f"argument {argument.name!r}: description must be a string or None"
    return None


def prompt_name(prompt: Prompt) -> str:
    """The name clients list and get the prompt by (the effective name, as for tools)."""
    return names.effective_name(prompt.name, prompt.namespace)


def resource_uri(resource: Resource | ResourceTemplate) -> str:
    """The URI (or URI template) the resource is registered under."""
    return resource.uri if isinstance(resource, Resource) else resource.uri_template
