"""``unevaluatedProperties`` for ``_bounded``, with ``patternProperties`` matched in
bounded time.

``jsonschema`` decides which keys a schema evaluated by walking ``$ref``, the
applicators and ``if``/``then``/``else``, and matches each ``patternProperties`` key with
Python's ``re``: a foreign pattern such as ``^(a+)+$`` would backtrack on the event loop.
This walk follows the same rules (Draft 2020-12; Draft 2019-09 where it differs:
``$recursiveRef``, and its reading of ``properties``/``additionalProperties``) and
matches through ``compile_pattern``. A key that cannot be matched in time is reported as
an issue of its own, never counted as unevaluated.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

from tooldeck.host.schema.patterns import PatternError, PatternTimeout, compile_pattern


def unevaluated_properties(legacy: bool) -> Callable[[Any, Any, Any, Any], Iterator[Any]]:
    """The ``unevaluatedProperties`` keyword of Draft 2020-12 (of 2019-09 if ``legacy``)."""

    def keyword(validator: Any, extra: Any, instance: Any, schema: Any) -> Iterator[Any]:
        if validator.is_type(instance, "object"):
            yield from _unevaluated(validator, extra, instance, schema, legacy)

    return keyword


def _unevaluated(
    validator: Any, extra: Any, instance: Mapping[str, Any], schema: Any, legacy: bool
) -> Iterator[Any]:
    from jsonschema._utils import extras_msg  # type: ignore[import-untyped, unused-ignore]
    from jsonschema.exceptions import ValidationError  # type: ignore[import-untyped, unused-ignore]

    walk = _Walk(instance, legacy=legacy)
    walk.schema(validator, schema)
    yield from (ValidationError(problem) for problem in walk.problems)
    left = [
        key
        for key in instance
        if key not in walk.keys and key not in walk.unmatched
        and any(True for _ in validator.descend(instance[key], extra, path=key, schema_path=key))
    ]  # fmt: skip
    if not left:
        return
    if extra is False:
        message = "Unevaluated properties are not allowed (%s %s unexpected)"
        yield ValidationError(message % extras_msg(sorted(left, key=str)))
    else:
        message = (
            "Unevaluated properties are not valid under the given schema "
            "(%s %s unevaluated and invalid)"
        )
        yield ValidationError(message % extras_msg(left))


class _Walk:
    """The keys of one object instance that a schema (and what it applies) evaluated."""

    def __init__(self, instance: Mapping[str, Any], *, legacy: bool) -> None:
        self.instance = instance
        self.legacy = legacy
        self.keys: set[str] = set()
        self.unmatched: set[str] = set()
        self.problems: list[str] = []

    def schema(self, validator: Any, schema: Any) -> None:
        if validator.is_type(schema, "boolean"):
            return
        self._refs(validator, schema)
        self._properties(validator, schema)
        self._patterns(schema.get("patternProperties"))
        for key, subschema in schema.get("dependentSchemas", {}).items():
            if key in self.instance:
                self.schema(validator, subschema)
        for keyword in ("allOf", "oneOf", "anyOf"):
            for subschema in schema.get(keyword, ()):
                if _valid(validator.descend(self.instance, subschema)):
                    self.schema(validator, subschema)
        if "if" in schema:
            if validator.evolve(schema=schema["if"]).is_valid(self.instance):
                self.schema(validator, schema["if"])
                if "then" in schema:
                    self.schema(validator, schema["then"])
            elif "else" in schema:
                self.schema(validator, schema["else"])

    def _refs(self, validator: Any, schema: Any) -> None:
        targets = []
        if (ref := schema.get("$ref")) is not None:
            targets.append(validator._resolver.lookup(ref))
        if not self.legacy and (dynamic := schema.get("$dynamicRef")) is not None:
            targets.append(validator._resolver.lookup(dynamic))
        if self.legacy and "$recursiveRef" in schema:
            from referencing.jsonschema import lookup_recursive_ref

            targets.append(lookup_recursive_ref(validator._resolver))
        for target in targets:
            inner = validator.evolve(schema=target.contents, _resolver=target.resolver)
            self.schema(inner, target.contents)

    def _properties(self, validator: Any, schema: Any) -> None:
        if self.legacy:  # 2019-09: true takes every key, an object the keys it names
            for keyword in ("properties", "additionalProperties", "unevaluatedProperties"):
                value = schema.get(keyword)
                if value is True:
                    self.keys.update(self.instance)
                elif validator.is_type(value, "object"):
                    self.keys.update(key for key in value if key in self.instance)
            return
        properties = schema.get("properties")
        if validator.is_type(properties, "object"):
            self.keys.update(key for key in properties if key in self.instance)
        for keyword in ("additionalProperties", "unevaluatedProperties"):
            subschema = schema.get(keyword)
            if subschema is not None:
                self.keys.update(
                    key
                    for key, value in self.instance.items()
                    if _valid(validator.descend(value, subschema))
                )

    def _patterns(self, patterns: Any) -> None:
        for source in patterns or ():
            for key in self.instance:
                if key in self.keys or key in self.unmatched:
                    continue
                try:
                    if compile_pattern(source).search(key):
                        self.keys.add(key)
                except (PatternTimeout, PatternError) as exc:
                    self.unmatched.add(key)
                    self.problems.append(f"the key {key!r} {exc}")


def _valid(errors: Iterator[Any]) -> bool:
    return next(errors, None) is None
