"""Hot-path validation of raw JSON Schema dicts that agrees with ``jsonschema``.

Tools whose input or output schema is a plain JSON Schema mapping are validated on every
call, and ``jsonschema`` is slow even for a two-field object (``bench/DECISIONS.md``,
and W3's ``floor-b``). ``SchemaValidator``
compiles the schema once into nested closures for a keyword subset whose semantics are
mirrored exactly (``_keywords.HANDLERS``), and keeps ``jsonschema`` as the authority:

* the closures say *valid*: that is the answer (they are exact for plain JSON values);
* they say *invalid*, meet a value they do not judge (anything but ``dict``, ``list``,
  ``str``, ``int``, ``float``, ``bool``, ``None``), or the schema uses a keyword outside
  the subset: ``jsonschema`` runs and its errors are reported.

A defect in the closures can therefore only ever accept too much; the differential
tests in ``tests/host/schema/test_jsonschema_fast.py`` check them against ``jsonschema`` both ways.
Drafts 6, 7, 2019-09 and 2020-12 (the default) are compiled; older drafts always use
``jsonschema``.

The parts, one job each: ``_drafts`` (draft rules, local ``$ref``), ``_compile`` (schema
→ closures, over a table of keyword handlers), ``_keywords`` (that table: one handler per
keyword), ``_checks`` (the closures),
``_equality`` (jsonschema's ``enum``/``uniqueItems`` equality), ``_prune``
(``drop_undeclared``), ``_bounded`` (jsonschema with its pattern keywords matched in
bounded time, as the closures match them).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tooldeck.host.schema.jsonschema_fast._bounded import bounded
from tooldeck.host.schema.jsonschema_fast._compile import compile_schema
from tooldeck.host.schema.jsonschema_fast._drafts import draft_for, validator_class
from tooldeck.host.schema.jsonschema_fast._keywords import HANDLERS
from tooldeck.host.schema.jsonschema_fast._prune import compile_prune
from tooldeck.host.schema.patterns import has_slow_patterns, pattern_budget

__all__ = ["Issue", "SchemaValidationError", "SchemaValidator"]


@dataclass(frozen=True, slots=True)
class Issue:
    """One violation: where in the instance, and ``jsonschema``'s message for it."""

    path: tuple[str | int, ...]
    message: str


class SchemaValidationError(Exception):
    """The instance does not match the schema; ``issues`` holds every violation, sorted."""

    def __init__(self, issues: tuple[Issue, ...]) -> None:
        super().__init__(issues)
        self.issues = issues

    def __str__(self) -> str:
        first = self.issues[0]
        where = "/".join(str(part) for part in first.path) or "root"
        more = f" (and {len(self.issues) - 1} more)" if len(self.issues) > 1 else ""
        return f"at {where}: {first.message}{more}"


class SchemaValidator:
    """Validate instances against one JSON Schema; compiled once, reused for every call."""

    __slots__ = ("_bounded", "_check", "_cls", "_prune", "_reference", "_schema")

    def __init__(self, schema: Mapping[str, Any], *, drop_undeclared: bool = False) -> None:
        self._schema = schema
        self._cls = validator_class(schema)
        draft = draft_for(self._cls)
        self._check = None if draft is None else compile_schema(schema, draft, HANDLERS)
        self._prune = compile_prune(schema, draft) if drop_undeclared and draft else None
        self._reference: Any = None
        # Only the patterns RE2 cannot run draw on a budget; without one, none is set up.
        self._bounded = has_slow_patterns(schema)

    @property
    def is_compiled(self) -> bool:
        """Whether the fast path exists (``False``: every call runs ``jsonschema``)."""
        return self._check is not None

    def validate(self, instance: Any) -> Any:
        """Return the instance (a pruned copy when ``drop_undeclared`` and something was
        dropped; never mutate the input) or raise ``SchemaValidationError``.

        Patterns are matched in bounded time (``host.schema.patterns``): a value whose
        match runs out of time is one of the issues."""
        if not self._bounded:
            return self._validate(instance)
        with pattern_budget():
            return self._validate(instance)

    def _validate(self, instance: Any) -> Any:
        check = self._check
        if check is not None:
            try:
                valid = check(instance)
            except Exception:  # Bail, or a value jsonschema may choke on too: it decides
                valid = False
            if valid:
                return instance if self._prune is None else self._prune(instance)
        return self._validate_slow(instance)

    def _validate_slow(self, instance: Any) -> Any:
        issues = self._issues(instance)
        if issues:
            raise SchemaValidationError(issues)
        # The closures rejected what jsonschema accepts: jsonschema is the reference.
        return instance if self._prune is None else self._prune(instance)

    def _issues(self, instance: Any) -> tuple[Issue, ...]:
        reference = self._reference
        if reference is None:
            reference = self._reference = bounded(self._cls)(self._schema)
        found = [Issue(tuple(e.absolute_path), e.message) for e in reference.iter_errors(instance)]
        return tuple(sorted(found, key=_issue_key))


def _issue_key(issue: Issue) -> tuple[Any, ...]:
    # Paths mix ints and strings, which do not compare: rank ints first, numerically.
    path = tuple((0, p, "") if isinstance(p, int) else (1, 0, str(p)) for p in issue.path)
    return (path, issue.message)
