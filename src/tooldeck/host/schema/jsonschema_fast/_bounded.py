"""``jsonschema`` with its pattern keywords matched by ``host.schema.patterns``.

``jsonschema`` matches ``pattern``, ``patternProperties`` and the ``additionalProperties``
and ``unevaluatedProperties`` that depend on them with Python's ``re``, which backtracks
without bound. The classes made here replace those four keywords (the last one in
``_evaluated``) with versions that match through
``compile_pattern`` (linear RE2, or the time-bounded engine) and word their errors as
``jsonschema`` does, so the reference and the compiled closures judge patterns alike.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from functools import cache
from typing import Any

from tooldeck.host.schema.jsonschema_fast._evaluated import unevaluated_properties
from tooldeck.host.schema.patterns import PatternError, PatternTimeout, compile_pattern


@cache
def bounded(cls: Any) -> Any:
    """``cls`` (a jsonschema validator class) with bounded pattern keywords."""
    from jsonschema import validators  # type: ignore[import-untyped, unused-ignore]

    replaced = {
        "pattern": _pattern,
        "patternProperties": _pattern_properties,
        "additionalProperties": _additional_properties,
        "unevaluatedProperties": unevaluated_properties("2019-09" in cls.META_SCHEMA["$schema"]),
    }
    mine = {key: rule for key, rule in replaced.items() if key in cls.VALIDATORS}
    return validators.extend(cls, mine)  # type: ignore[no-untyped-call]


def _error(message: str) -> Any:
    from jsonschema.exceptions import ValidationError  # type: ignore[import-untyped, unused-ignore]

    return ValidationError(message)


def _matches(source: str, text: str) -> bool:
    return compile_pattern(source).search(text)


def _pattern(validator: Any, source: Any, instance: Any, schema: Any) -> Iterator[Any]:
    if not validator.is_type(instance, "string"):
        return
    try:
        if not _matches(source, instance):
            yield _error(f"{instance!r} does not match {source!r}")
    except (PatternTimeout, PatternError) as exc:
        yield _error(str(exc))


def _pattern_properties(
    validator: Any, patterns: Mapping[str, Any], instance: Any, schema: Any
) -> Iterator[Any]:
    if not validator.is_type(instance, "object"):
        return
    for source, subschema in patterns.items():
        for key, value in instance.items():
            try:
                hit = _matches(source, key)
            except (PatternTimeout, PatternError) as exc:
                yield _error(f"the key {key!r} {exc}")
                continue
            if hit:
                yield from validator.descend(value, subschema, path=key, schema_path=source)


def _additional_properties(validator: Any, extra: Any, instance: Any, schema: Any) -> Iterator[Any]:
    if not validator.is_type(instance, "object"):
        return
    extras, problems = _extras(instance, schema)
    yield from (_error(problem) for problem in problems)
    if validator.is_type(extra, "object"):
        for key in extras:
            yield from validator.descend(instance[key], extra, path=key)
    elif not extra and extras:
        if "patternProperties" in schema:
            verb = "does" if len(extras) == 1 else "do"
            joined = ", ".join(repr(each) for each in sorted(extras))
            patterns = ", ".join(repr(each) for each in sorted(schema["patternProperties"]))
            yield _error(f"{joined} {verb} not match any of the regexes: {patterns}")
        else:
            from jsonschema._utils import extras_msg  # type: ignore[import-untyped, unused-ignore]

            message = "Additional properties are not allowed (%s %s unexpected)"
            yield _error(message % extras_msg(sorted(extras, key=str)))


def _extras(instance: Mapping[str, Any], schema: Any) -> tuple[set[str], list[str]]:
    """The keys neither ``properties`` nor ``patternProperties`` cover, and the keys that
    could not be matched in time (reported, never counted as extra)."""
    properties = schema.get("properties", {})
    sources = list(schema.get("patternProperties", {}))
    extras: set[str] = set()
    problems: list[str] = []
    for key in instance:
        if key in properties:
            continue
        try:
            if not any(_matches(source, key) for source in sources):
                extras.add(key)
        except (PatternTimeout, PatternError) as exc:
            problems.append(f"the key {key!r} {exc}")
    return extras, problems
