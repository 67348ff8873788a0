"""Hot-path validation of raw JSON Schema dicts that agrees with ``jsonschema``.

Tools whose input or output schema is a plain JSON Schema mapping are validated on every
call, and ``jsonschema`` needs ~30 µs even for a two-field object. ``SchemaValidator``
compiles the schema once into nested closures for a keyword subset whose semantics are
mirrored exactly (``_HANDLERS``), and keeps ``jsonschema`` as the authority:

* the closures say *valid*: that is the answer (they are exact for plain JSON values);
* they say *invalid*, meet a value they do not judge (anything but ``dict``, ``list``,
  ``str``, ``int``, ``float``, ``bool``, ``None``), or the schema uses a keyword outside
  the subset: ``jsonschema`` runs and its errors are reported.

A defect in the closures can therefore only ever accept too much; the differential
tests in ``tests/host/test_jsonschema_fast.py`` check them against ``jsonschema`` both ways.
Drafts 6, 7, 2019-09 and 2020-12 (the default) are compiled; older drafts always use
``jsonschema``.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import islice
from typing import Any, Final, NamedTuple

Check = Callable[[Any], bool]
"""A compiled (sub)schema: ``True`` when the instance is valid."""
Prune = Callable[[Any], Any]
"""Returns its argument unchanged, or a copy without undeclared keys."""
_Sub = tuple[Check, frozenset[type]]
"""A child check, and the instance types it accepts without being called."""
Handler = Callable[["_Compiler", "_Parts", str, Any, Mapping[str, Any]], None]

_NONE: Final = type(None)
_PLAIN: Final[frozenset[type]] = frozenset({dict, list, str, int, float, bool, _NONE})
_TYPES: Final[Mapping[str, frozenset[type]]] = {
    "object": frozenset({dict}),
    "array": frozenset({list}),
    "string": frozenset({str}),
    "boolean": frozenset({bool}),
    "null": frozenset({_NONE}),
    "number": frozenset({int, float}),
    "integer": frozenset({int}),
}
# Keywords that change how references resolve; jsonschema has no validator for them.
_META: Final = frozenset(
    {"$id", "$schema", "$anchor", "$dynamicAnchor", "$recursiveAnchor", "$vocabulary"}
)
_ROOT_META: Final = frozenset({"$id", "$schema"})
_NO_TYPES: Final[frozenset[type]] = frozenset()
_SCAN_PROPS: Final = 12  # above this many properties, walk the instance's keys instead


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

    __slots__ = ("_check", "_cls", "_prune", "_reference", "_schema")

    def __init__(self, schema: Mapping[str, Any], *, drop_undeclared: bool = False) -> None:
        self._schema = schema
        self._cls = _validator_class(schema)
        draft = _draft(self._cls)
        self._check = None if draft is None else _compile(schema, draft)
        self._prune = _compile_prune(schema, draft) if drop_undeclared and draft else None
        self._reference: Any = None

    @property
    def is_compiled(self) -> bool:
        """Whether the fast path exists (``False``: every call runs ``jsonschema``)."""
        return self._check is not None

    def validate(self, instance: Any) -> Any:
        """Return the instance (a pruned copy when ``drop_undeclared`` and something was
        dropped; never mutate the input) or raise ``SchemaValidationError``."""
        check = self._check
        if check is not None:
            try:
                valid = check(instance)
            except Exception:  # _Bail, or a value jsonschema may choke on too: it decides
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
            reference = self._reference = self._cls(self._schema)
        found = [Issue(tuple(e.absolute_path), e.message) for e in reference.iter_errors(instance)]
        return tuple(sorted(found, key=_issue_key))


def _issue_key(issue: Issue) -> tuple[Any, ...]:
    # Paths mix ints and strings, which do not compare: rank ints first, numerically.
    path = tuple((0, p, "") if isinstance(p, int) else (1, 0, str(p)) for p in issue.path)
    return (path, issue.message)


# -- drafts ----------------------------------------------------------------------------------
class _Draft(NamedTuple):
    """What differs between the compiled drafts, for the keywords we compile."""

    keywords: frozenset[str]  # keywords jsonschema acts on; the others are annotations
    prefix_items: bool  # 2020-12: ``items`` applies after ``prefixItems``
    ref_siblings: bool  # 2019-09+: keywords beside ``$ref`` apply too


def _validator_class(schema: Mapping[str, Any]) -> Any:
    # Deferred: jsonschema is slow to import. No stubs ship with it.
    from jsonschema import validators  # type: ignore[import-untyped, unused-ignore]

    return validators.validator_for(schema, default=validators.Draft202012Validator)


def _draft(cls: Any) -> _Draft | None:
    from jsonschema import validators  # type: ignore[import-untyped, unused-ignore]

    rules = {
        validators.Draft202012Validator: (True, True),
        validators.Draft201909Validator: (False, True),
        validators.Draft7Validator: (False, False),
        validators.Draft6Validator: (False, False),
    }.get(cls)
    if rules is None:
        return None
    # ``format`` is annotation-only: validators are built without a format checker.
    return _Draft(frozenset(cls.VALIDATORS) - {"format"}, *rules)


def _keywords(schema: Mapping[str, Any], draft: _Draft, at_root: bool) -> list[tuple[str, Any]]:
    """The (keyword, value) pairs jsonschema acts on, in schema order."""
    if "$ref" in schema and not draft.ref_siblings:
        return [("$ref", schema["$ref"])]
    for key in _META.intersection(schema):
        if not (at_root and key in _ROOT_META):
            raise _Unsupported(key)
    return [(k, v) for k, v in schema.items() if k in draft.keywords]


def _resolve(root: Mapping[str, Any], ref: Any) -> tuple[Any, bool]:
    """The target of a local ref (``#``, ``#/$defs/x``, ``#/definitions/x``), and
    whether it is the root. Anything else (remote, anchors, deeper pointers) is refused."""
    if ref == "#":
        return root, True
    if not isinstance(ref, str) or "%" in ref or re.search("~[^01]|~$", ref):
        raise _Unsupported(ref)
    parts = ref.split("/")
    if len(parts) != 3 or parts[0] != "#" or parts[1] not in ("$defs", "definitions"):
        raise _Unsupported(ref)
    defs = root.get(parts[1])
    name = parts[2].replace("~1", "/").replace("~0", "~")
    if not isinstance(defs, Mapping) or name not in defs:
        raise _Unsupported(ref)
    return defs[name], False


# -- compiling -------------------------------------------------------------------------------
class _Unsupported(Exception):
    """The schema needs something the closures do not mirror: use jsonschema for it."""


class _Bail(Exception):
    """The instance holds a value the closures do not judge: ask jsonschema."""


def _compile(schema: Mapping[str, Any], draft: _Draft) -> Check | None:
    try:
        return _Compiler(schema, draft).node(schema, at_root=True) or _always
    except _Unsupported:
        return None


class _Compiler:
    """Turns schema nodes into checks; ``$ref`` targets are compiled once, via cells."""

    def __init__(self, root: Mapping[str, Any], draft: _Draft) -> None:
        self.root = root
        self.draft = draft
        self.cells: dict[str, list[Check]] = {}
        self.types: dict[Check, tuple[frozenset[type], bool]] = {}  # the type-only checks

    def node(self, schema: Any, *, at_root: bool = False) -> Check | None:
        """The check for one (sub)schema; ``None`` when it accepts everything."""
        if schema is True or schema is False:
            return None if schema else _never
        if not isinstance(schema, dict):
            raise _Unsupported(schema)
        parts = _Parts()
        for key, value in _keywords(schema, self.draft, at_root):
            handler = _HANDLERS.get(key)
            if handler is None:
                raise _Unsupported(key)
            handler(self, parts, key, value, schema)
        return parts.build(self)

    def sub(self, schema: Any) -> _Sub:
        """A child check with the instance types it accepts without being called."""
        check = self.node(schema)
        if check is None:
            return _ANYTHING
        return check, self.types.get(check, (_NO_TYPES, False))[0]

    def many(self, schemas: Any) -> list[Check | None]:
        if not isinstance(schemas, list):
            raise _Unsupported(schemas)
        return [self.node(each) for each in schemas]

    def type_only(self, allowed: frozenset[type], float_int: bool) -> Check:
        check = _type_check(allowed, float_int)
        self.types[check] = (allowed, float_int)
        return check

    def ref(self, ref: Any) -> Check:
        # Cycles are fine: the cell is filled once compiling ends, before any call.
        target, is_root = _resolve(self.root, ref)
        cell = self.cells.get(ref)
        if cell is None:
            cell = self.cells[ref] = [_never]
            cell[0] = self.node(target, at_root=is_root) or _always
        return lambda instance: cell[0](instance)


class _Parts:
    """What one schema node asks of each kind of instance, gathered before fusing."""

    def __init__(self) -> None:
        self.allowed: frozenset[type] = _PLAIN
        self.float_int = False  # "integer" also admits floats with an integral value
        self.props: dict[str, _Sub] = {}
        self.extra: _Sub | bool = True  # additionalProperties; False forbids
        self.required: tuple[str, ...] = ()
        self.prefix: tuple[_Sub, ...] = ()
        self.items: _Sub | bool = True
        self.objs: list[Check] = []
        self.arrs: list[Check] = []
        self.strs: list[Check] = []
        self.nums: list[Check] = []
        self.anys: list[Check] = []

    def build(self, c: _Compiler) -> Check | None:
        objs = [each for each in (self._object(),) if each] + self.objs
        arrs = [each for each in (self._array(),) if each] + self.arrs
        anys, kinds = tuple(self.anys), objs or arrs or self.strs or self.nums
        if not (kinds or anys):
            return None if self.allowed is _PLAIN else c.type_only(self.allowed, self.float_int)
        if self.allowed is _PLAIN and not kinds:
            return anys[0] if len(anys) == 1 else _all_of(anys)
        if not (self.float_int or anys or self.strs or self.nums):
            # Exactly one object (or array) check: it does its own type gate.
            if self.allowed == _TYPES["object"] and not (arrs or self.objs):
                return self._object(gate=True)
            if self.allowed == _TYPES["array"] and not (objs or self.arrs):
                return self._array(gate=True)
        by_type = {
            dict: (*objs, *anys),
            list: (*arrs, *anys),
            str: (*self.strs, *anys),
            int: (*self.nums, *anys),
            float: (*self.nums, *anys),
            bool: anys,
            _NONE: anys,
        }
        return _node_check(self.allowed, self.float_int, by_type)

    def _object(self, *, gate: bool = False) -> Check | None:
        props, required = self.props, self.required
        extra = True if self.extra == _ANYTHING else self.extra
        if not gate and extra is True and all(sub == _ANYTHING for sub in props.values()):
            return _required_check(required) if required else None
        if len(props) > _SCAN_PROPS:
            return _object_by_keys(props, extra, required, gate)
        return _object_by_props(props, extra, required, gate)

    def _array(self, *, gate: bool = False) -> Check | None:
        items = True if self.items == _ANYTHING else self.items
        if not gate and items is True and all(sub == _ANYTHING for sub in self.prefix):
            return None
        return _array_check(self.prefix, items, gate)


def _type_check(allowed: frozenset[type], float_int: bool) -> Check:
    def check(x: Any) -> bool:
        t = type(x)
        if t in allowed:
            return True
        if float_int and t is float:
            return bool(x.is_integer())
        if t in _PLAIN:
            return False
        raise _Bail

    return check


def _mismatch(x: Any) -> bool:
    """A type gate failed: plain values are invalid, others are for jsonschema to judge."""
    if type(x) in _PLAIN:
        return False
    raise _Bail


def _node_check(
    allowed: frozenset[type], float_int: bool, by_type: dict[type, tuple[Check, ...]]
) -> Check:
    # Hot: one closure per schema node, so the type gate and the loop are inlined here.
    def check(x: Any) -> bool:
        t = type(x)
        if t not in allowed and not (float_int and t is float and x.is_integer()):
            return _mismatch(x)
        for each in by_type[t]:  # noqa: SIM110 - hot: all() would allocate a generator
            if not each(x):
                return False
        return True

    return check


def _required_check(required: tuple[str, ...]) -> Check:
    def check(x: Any) -> bool:
        for key in required:  # noqa: SIM110 - hot: all() would allocate a generator
            if key not in x:
                return False
        return True

    return check


def _object_by_props(
    props: dict[str, _Sub], extra: _Sub | bool, required: tuple[str, ...], gate: bool
) -> Check:
    """The object keywords fused, walking the declared properties (few of them)."""
    entries = tuple((key, sub, quick) for key, (sub, quick) in props.items())
    must = frozenset(required)
    others = tuple(key for key in required if key not in props)
    forbid = extra is False
    rest = None if isinstance(extra, bool) else extra

    def check(x: Any) -> bool:
        # Hot: the usual tool input; ``quick`` spares a call for type-only properties.
        if gate and type(x) is not dict:
            return _mismatch(x)
        seen = 0
        for key, sub, quick in entries:
            if key in x:
                seen += 1
                value = x[key]
                if type(value) not in quick and not sub(value):
                    return False
            elif key in must:
                return False
        if seen != len(x) and (forbid or (rest is not None and not _extras_valid(x, props, rest))):
            return False
        for key in others:  # noqa: SIM110 - hot: all() would allocate a generator
            if key not in x:
                return False
        return True

    return check


def _object_by_keys(
    props: dict[str, _Sub], extra: _Sub | bool, required: tuple[str, ...], gate: bool
) -> Check:
    """The object keywords fused, walking the instance (many declared properties)."""
    get = props.get
    forbid = extra is False
    rest = None if isinstance(extra, bool) else extra

    def check(x: Any) -> bool:
        if gate and type(x) is not dict:
            return _mismatch(x)
        for key in required:
            if key not in x:
                return False
        for key, value in x.items():
            entry = get(key, rest)
            if entry is None:
                if forbid:
                    return False
            elif type(value) not in entry[1] and not entry[0](value):
                return False
        return True

    return check


def _extras_valid(x: dict[Any, Any], props: dict[str, _Sub], extra: _Sub) -> bool:
    sub, quick = extra
    for key, value in x.items():
        if key not in props and type(value) not in quick and not sub(value):
            return False
    return True


def _array_check(prefix: tuple[_Sub, ...], items: _Sub | bool, gate: bool) -> Check:
    start = len(prefix)
    rest = None if isinstance(items, bool) else items

    def check(x: Any) -> bool:
        if gate and type(x) is not list:
            return _mismatch(x)
        for (sub, quick), value in zip(prefix, x, strict=False):
            if type(value) not in quick and not sub(value):
                return False
        if items is False:
            return len(x) <= start
        if rest is not None:
            sub, quick = rest
            for value in islice(x, start, None) if start else x:
                if type(value) not in quick and not sub(value):
                    return False
        return True

    return check


def _all_of(checks: tuple[Check, ...]) -> Check:
    def check(x: Any) -> bool:
        for each in checks:  # noqa: SIM110 - hot: all() would allocate a generator
            if not each(x):
                return False
        return True

    return check


def _always(_x: Any) -> bool:
    return True


def _never(_x: Any) -> bool:
    return False


_ANYTHING: Final[_Sub] = (_always, _PLAIN)


def _undeclared(_x: Any) -> bool:  # a sentinel for property lookups, never called
    return False


# -- keywords --------------------------------------------------------------------------------
def _number(value: Any, *, positive: bool = False) -> int | float:
    if type(value) not in (int, float) or (positive and not value > 0):
        raise _Unsupported(value)
    return value  # type: ignore[no-any-return]


def _kw_type(c: _Compiler, parts: _Parts, key: str, value: Any, schema: Any) -> None:
    names = [value] if isinstance(value, str) else value
    if not isinstance(names, list) or not all(type(n) is str and n in _TYPES for n in names):
        raise _Unsupported(value)  # jsonschema raises UnknownType at validation time
    parts.allowed = frozenset(t for n in names for t in _TYPES[n])
    parts.float_int = "integer" in names


def _kw_properties(c: _Compiler, parts: _Parts, key: str, value: Any, schema: Any) -> None:
    if not isinstance(value, dict):
        raise _Unsupported(value)
    parts.props = {name: c.sub(sub) for name, sub in value.items()}


def _kw_additional(c: _Compiler, parts: _Parts, key: str, value: Any, schema: Any) -> None:
    parts.extra = value if isinstance(value, bool) else c.sub(value)


def _kw_required(c: _Compiler, parts: _Parts, key: str, value: Any, schema: Any) -> None:
    if not isinstance(value, list) or not all(type(n) is str for n in value):
        raise _Unsupported(value)
    parts.required = tuple(value)


def _kw_items(c: _Compiler, parts: _Parts, key: str, value: Any, schema: Any) -> None:
    if isinstance(value, list):
        raise _Unsupported(value)  # tuple validation (drafts before 2020-12)
    parts.items = value if isinstance(value, bool) else c.sub(value)


def _kw_prefix_items(c: _Compiler, parts: _Parts, key: str, value: Any, schema: Any) -> None:
    if not isinstance(value, list):
        raise _Unsupported(value)
    parts.prefix = tuple(c.sub(each) for each in value)


def _kw_enum(c: _Compiler, parts: _Parts, key: str, value: Any, schema: Any) -> None:
    members = [value] if key == "const" else value
    if not isinstance(members, list) or not all(_is_plain(m) for m in members):
        raise _Unsupported(value)
    parts.anys.append(_enum_check(members))


_BOUND_FAILS: Final[Mapping[str, Callable[[Any, Any], bool]]] = {
    "minimum": operator.lt,
    "maximum": operator.gt,
    "exclusiveMinimum": operator.le,
    "exclusiveMaximum": operator.ge,
}


def _kw_bound(c: _Compiler, parts: _Parts, key: str, value: Any, schema: Any) -> None:
    # ``not fails`` rather than the converse comparison: NaN passes, as in jsonschema.
    limit, fails = _number(value), _BOUND_FAILS[key]
    parts.nums.append(lambda x: not fails(x, limit))


def _kw_multiple_of(c: _Compiler, parts: _Parts, key: str, value: Any, schema: Any) -> None:
    parts.nums.append(_multiple_of(_number(value, positive=True)))


_SIZES: Final[Mapping[str, tuple[str, Callable[[Any, Any], bool]]]] = {
    "minLength": ("strs", operator.lt),
    "maxLength": ("strs", operator.gt),
    "minItems": ("arrs", operator.lt),
    "maxItems": ("arrs", operator.gt),
    "minProperties": ("objs", operator.lt),
    "maxProperties": ("objs", operator.gt),
}


def _kw_size(c: _Compiler, parts: _Parts, key: str, value: Any, schema: Any) -> None:
    kind, fails = _SIZES[key]
    limit = _number(value)
    getattr(parts, kind).append(lambda x: not fails(len(x), limit))


def _kw_pattern(c: _Compiler, parts: _Parts, key: str, value: Any, schema: Any) -> None:
    if not isinstance(value, str):
        raise _Unsupported(value)
    try:
        search = re.compile(value).search  # the same cache-free regex as ``re.search``
    except re.error as exc:
        raise _Unsupported(value) from exc
    parts.strs.append(lambda x: search(x) is not None)


def _kw_unique(c: _Compiler, parts: _Parts, key: str, value: Any, schema: Any) -> None:
    if not isinstance(value, bool):
        raise _Unsupported(value)
    if value:
        parts.arrs.append(_uniq)


def _kw_all_of(c: _Compiler, parts: _Parts, key: str, value: Any, schema: Any) -> None:
    checks = tuple(each for each in c.many(value) if each is not None)
    if checks:
        parts.anys.append(checks[0] if len(checks) == 1 else _all_of(checks))


def _kw_any_of(c: _Compiler, parts: _Parts, key: str, value: Any, schema: Any) -> None:
    checks = c.many(value)
    if None in checks:
        return  # one branch accepts everything
    branches = tuple(each for each in checks if each is not None)
    types = [c.types.get(each) for each in branches]
    if branches and all(types):  # e.g. Optional[int]: one type check, no calls
        allowed = frozenset(t for pair in types if pair for t in pair[0])
        parts.anys.append(c.type_only(allowed, any(pair and pair[1] for pair in types)))
        return

    def check(x: Any) -> bool:
        return any(each(x) for each in branches)

    parts.anys.append(check)


def _kw_one_of(c: _Compiler, parts: _Parts, key: str, value: Any, schema: Any) -> None:
    branches = tuple(each or _always for each in c.many(value))

    def check(x: Any) -> bool:
        matched = False
        for each in branches:
            if each(x):
                if matched:
                    return False
                matched = True
        return matched

    parts.anys.append(check)


def _kw_not(c: _Compiler, parts: _Parts, key: str, value: Any, schema: Any) -> None:
    inner = c.node(value)
    parts.anys.append(_never if inner is None else lambda x: not inner(x))


def _kw_ref(c: _Compiler, parts: _Parts, key: str, value: Any, schema: Any) -> None:
    parts.anys.append(c.ref(value))


_HANDLERS: Final[Mapping[str, Handler]] = {
    "type": _kw_type,
    "properties": _kw_properties,
    "additionalProperties": _kw_additional,
    "required": _kw_required,
    "items": _kw_items,
    "prefixItems": _kw_prefix_items,
    "enum": _kw_enum,
    "const": _kw_enum,
    "multipleOf": _kw_multiple_of,
    "pattern": _kw_pattern,
    "uniqueItems": _kw_unique,
    "allOf": _kw_all_of,
    "anyOf": _kw_any_of,
    "oneOf": _kw_one_of,
    "not": _kw_not,
    "$ref": _kw_ref,
    **dict.fromkeys(_BOUND_FAILS, _kw_bound),
    **dict.fromkeys(_SIZES, _kw_size),
}


def _multiple_of(divisor: int | float) -> Check:
    # jsonschema's arithmetic, step for step, so float rounding agrees too.
    if isinstance(divisor, float):

        def check(x: Any) -> bool:
            quotient = x / divisor
            try:
                return bool(int(quotient) == quotient)
            except OverflowError:
                return (Fraction(x) / Fraction(divisor)).denominator == 1

        return check
    return lambda x: not x % divisor


# -- equality (jsonschema._utils semantics: True != 1, 1 == 1.0) -----------------------------
def _is_plain(value: Any) -> bool:
    t = type(value)
    if t is list:
        return all(_is_plain(v) for v in value)
    if t is dict:
        return all(type(k) is str and _is_plain(v) for k, v in value.items())
    return t in _PLAIN


def _enum_check(members: list[Any]) -> Check:
    strs = frozenset(m for m in members if type(m) is str)
    numbers = frozenset(m for m in members if type(m) in (int, float))
    bools = frozenset(m for m in members if type(m) is bool)
    has_none = any(m is None for m in members)
    nested = tuple(m for m in members if type(m) in (list, dict))

    def check(x: Any) -> bool:
        t = type(x)
        if t is str:
            return x in strs
        if t is int or t is float:
            return x in numbers
        if t is bool:
            return x in bools
        if x is None:
            return has_none
        if t is list or t is dict:
            return any(_equal(m, x) for m in nested)
        raise _Bail

    return check


_TRUE, _FALSE = object(), object()


def _unbool(element: Any) -> Any:
    if element is True:
        return _TRUE
    if element is False:
        return _FALSE
    return element


def _equal(one: Any, two: Any) -> bool:
    if one is two:
        return True
    if isinstance(one, str) or isinstance(two, str):
        return bool(one == two)
    if isinstance(one, Sequence) and isinstance(two, Sequence):
        return len(one) == len(two) and all(_equal(i, j) for i, j in zip(one, two, strict=True))
    if isinstance(one, Mapping) and isinstance(two, Mapping):
        return len(one) == len(two) and all(
            key in two and _equal(value, two[key]) for key, value in one.items()
        )
    return bool(_unbool(one) == _unbool(two))


def _uniq(container: list[Any]) -> bool:
    """jsonschema's ``uniq``, quirks included: when the items sort, only neighbours are
    compared, so ``[[1], [True], [1]]`` counts as unique there, and must here."""
    try:
        ordered = sorted(_unbool(each) for each in container)
        for one, two in zip(ordered, islice(ordered, 1, None), strict=False):
            if _equal(one, two):
                return False
    except (NotImplementedError, TypeError):
        seen: list[Any] = []
        for each in map(_unbool, container):
            if any(_equal(earlier, each) for earlier in seen):
                return False
            seen.append(each)
    return True


# -- pruning ---------------------------------------------------------------------------------
# Keywords a node may have and still be pruned: none of them can declare a property or
# be broken by dropping one (``minProperties``, ``not``, ``enum``, applicators could).
_PRUNE_SAFE: Final = (
    frozenset({"type", "properties", "required", "additionalProperties", "maxProperties"})
    | {"items", "prefixItems", "additionalItems", "minItems", "maxItems"}
    | {"minLength", "maxLength", "pattern", "multipleOf", *_BOUND_FAILS}
)


def _compile_prune(schema: Mapping[str, Any], draft: _Draft) -> Prune | None:
    return _Pruner(schema, draft).node(schema, at_root=True)


class _Pruner:
    """Builds the ``drop_undeclared`` copier; nodes it cannot judge are left untouched."""

    def __init__(self, root: Mapping[str, Any], draft: _Draft) -> None:
        self.root = root
        self.draft = draft
        self.cells: dict[str, list[Prune]] = {}

    def node(self, schema: Any, *, at_root: bool = False) -> Prune | None:
        if not isinstance(schema, dict):
            return None
        try:
            keys = {key for key, _ in _keywords(schema, self.draft, at_root)}
        except _Unsupported:
            return None
        if "$ref" in keys:
            return self.ref(schema["$ref"]) if keys == {"$ref"} else None
        if not keys <= _PRUNE_SAFE:
            return None
        return _chain(self.object(schema), self.array(schema))

    def object(self, schema: Mapping[str, Any]) -> Prune | None:
        props = schema.get("properties")
        if not isinstance(props, dict):
            return None
        children = {k: p for k, sub in props.items() if (p := self.node(sub)) is not None}
        keep: frozenset[Any] | None = None
        if "additionalProperties" not in schema:
            # ``required`` names count as declared: dropping one would break the schema.
            required = schema.get("required")
            keep = frozenset(props).union(required if isinstance(required, list) else ())
        if keep is None and not children:
            return None
        return _prune_object(keep, children)

    def array(self, schema: Mapping[str, Any]) -> Prune | None:
        items, prefix = schema.get("items"), schema.get("prefixItems")
        if not self.draft.prefix_items:
            items, prefix = (None, items) if isinstance(items, list) else (items, None)
        heads = tuple(self.node(s) for s in prefix) if isinstance(prefix, list) else ()
        rest = self.node(items)
        if rest is None and all(h is None for h in heads):
            return None
        return _prune_array(heads, rest)

    def ref(self, ref: Any) -> Prune | None:
        try:
            target, is_root = _resolve(self.root, ref)
        except _Unsupported:
            return None
        cell = self.cells.get(ref)
        if cell is None:
            cell = self.cells[ref] = [_identity]
            cell[0] = self.node(target, at_root=is_root) or _identity
        return lambda instance: cell[0](instance)


def _identity(x: Any) -> Any:
    return x


def _chain(first: Prune | None, second: Prune | None) -> Prune | None:
    if first is None or second is None:
        return first or second
    return lambda x: second(first(x))


def _prune_object(keep: frozenset[Any] | None, children: dict[str, Prune]) -> Prune:
    def prune(x: Any) -> Any:
        if not isinstance(x, dict):
            return x
        changed, out = False, {}
        for key, value in x.items():
            if keep is not None and key not in keep:
                changed = True
                continue
            child = children.get(key)
            new = value if child is None else child(value)
            changed = changed or new is not value
            out[key] = new
        return out if changed else x

    return prune


def _prune_array(heads: tuple[Prune | None, ...], rest: Prune | None) -> Prune:
    def prune(x: Any) -> Any:
        if not isinstance(x, list):
            return x
        out = [_prune_at(heads, rest, i, value) for i, value in enumerate(x)]
        return out if any(n is not o for n, o in zip(out, x, strict=True)) else x

    return prune


def _prune_at(heads: tuple[Prune | None, ...], rest: Prune | None, i: int, value: Any) -> Any:
    child = heads[i] if i < len(heads) else rest
    return value if child is None else child(value)
