"""JSON Schema helpers for tool parameters: dialect choice and schema checks.

Invariants:
- Pure: no Qt, no network, no I/O. ``$ref`` is resolved offline only (the schema itself and
  the JSON Schema metaschemas): a reference to another document is a schema problem, never a
  fetch.
- The validator class comes from ``$schema`` when the schema names a known dialect, else
  :data:`DEFAULT_VALIDATOR` (Draft 2020-12).
- :func:`schema_problem` reports an unusable schema as one readable line (at most 240
  characters) instead of raising.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Final, cast

import orjson
import referencing
import referencing.exceptions
import referencing.jsonschema
from jsonschema.exceptions import SchemaError
from jsonschema.protocols import Validator
from jsonschema.validators import Draft202012Validator, validator_for
from jsonschema_specifications import REGISTRY as _METASCHEMAS

DEFAULT_VALIDATOR: Final[type[Validator]] = Draft202012Validator
"""The validator class for schemas without a (known) ``$schema``."""

_DATA_KEYWORDS: Final = frozenset({"const", "enum", "default", "examples", "example"})
_SCHEMA_MAPS: Final = frozenset(
    {"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"}
)
_MAX_LINE: Final = 240
_Spec = referencing.Specification[referencing.jsonschema.Schema]


def validator_class(schema: Mapping[str, Any]) -> tuple[type[Validator], bool]:
    """The validator class for ``schema`` and whether its ``$schema`` was unrecognised.

    A ``$schema`` that is not a string falls back to the default too; check_schema then
    reports it.
    """
    dialect = schema.get("$schema")
    if dialect is None or not isinstance(dialect, str):
        return DEFAULT_VALIDATOR, False
    # default=None makes validator_for return None for an unknown dialect instead of warning.
    found = cast(Any, validator_for)(schema, default=None)
    if found is None:
        return DEFAULT_VALIDATOR, True
    return cast(type[Validator], found), False


_PROBLEMS: dict[tuple[type[Validator], bytes], str | None] = {}
"""Schema problems already worked out, by validator class and the schema's canonical JSON
(a request often gives many tools the same parameters; the metaschema check costs ms)."""
_PROBLEMS_KEPT: Final = 256
_UNKNOWN: Final = object()


def schema_problem(schema: dict[str, Any], cls: type[Validator]) -> str | None:
    """One readable line saying why ``schema`` is unusable with ``cls``, or None when it is fine.

    Runs the class's check_schema, then checks that every ``$ref`` resolves offline; the
    answer is remembered by the schema's canonical JSON text (a pure function of it).
    """
    try:
        text = orjson.dumps(schema, option=orjson.OPT_SORT_KEYS)
    except TypeError:  # not plain JSON (a non-string key, …): no memo
        return _problem(schema, cls)
    if b"null" in text:  # JSON null, or a float orjson writes so (NaN): not told apart
        return _problem(schema, cls)
    key = (cls, text)
    kept = _PROBLEMS.get(key, _UNKNOWN)  # one look-up: another thread may clear the memo
    if kept is not _UNKNOWN:
        return kept  # type: ignore[return-value]
    problem = _problem(schema, cls)
    if len(_PROBLEMS) >= _PROBLEMS_KEPT:
        _PROBLEMS.clear()
    _PROBLEMS[key] = problem
    return problem


def _problem(schema: dict[str, Any], cls: type[Validator]) -> str | None:
    try:
        cls.check_schema(schema)
    except SchemaError as exc:  # check_schema already raises the best-matching error
        where = json_pointer(exc.absolute_path)
        return one_line(f"{exc.message} (at {where or 'the schema root'})")
    except Exception as exc:  # a schema odd enough to break the metaschema check itself
        return one_line(f"{type(exc).__name__}: {exc}")
    return _unresolvable_ref(schema, cls)


def _build_validator(schema: dict[str, Any]) -> Validator:
    """A validator for an already-checked schema, resolving ``$ref`` offline only."""
    cls, _ = validator_class(schema)
    # An explicit (empty) registry replaces jsonschema's default one, which would fetch remote
    # $refs over the network; the metaschemas are still combined in by jsonschema.
    return cls(schema, registry=referencing.Registry())


# --- $ref pre-check -----------------------------------------------------------------------


def _unresolvable_ref(schema: dict[str, Any], cls: type[Validator]) -> str | None:
    """A line about the first ``$ref`` that cannot be resolved offline, or None.

    Skipped (None) when a subschema sets its own id, since relative references would then need
    a base URI per subschema; validation still never fails a call over such a reference.
    """
    dialect = cls.META_SCHEMA.get("$schema", "")
    spec = referencing.jsonschema.specification_with(
        dialect, default=referencing.jsonschema.DRAFT202012
    )
    refs: list[str] = []
    if not _collect_refs(schema, spec, refs, root=True) or not refs:
        return None
    resolver = _METASCHEMAS.resolver_with_root(spec.create_resource(schema))
    for ref in refs:
        try:
            resolver.lookup(ref)
        except referencing.exceptions.Unresolvable:
            if ref.startswith("#"):
                return one_line(f"$ref {ref!r} points to nothing in the schema")
            return one_line(f"$ref {ref!r} cannot be resolved (other documents are not fetched)")
        except Exception as exc:
            return one_line(f"$ref {ref!r} cannot be resolved: {exc}")
    return None


def _collect_refs(node: Any, spec: _Spec, refs: list[str], *, root: bool) -> bool:
    """Gather ``$ref`` strings from schema positions; False when a subschema has its own id."""
    if isinstance(node, list):
        return all(_collect_refs(n, spec, refs, root=False) for n in node)
    if not isinstance(node, dict):
        return True
    if not root and spec.id_of(node):
        return False
    for key, value in node.items():
        if key == "$ref" and isinstance(value, str):
            refs.append(value)
        elif key in _DATA_KEYWORDS:
            continue
        elif key in _SCHEMA_MAPS and isinstance(value, dict):
            if not all(_collect_refs(v, spec, refs, root=False) for v in value.values()):
                return False
        elif isinstance(value, dict | list) and not _collect_refs(value, spec, refs, root=False):
            return False
    return True


# --- small helpers ------------------------------------------------------------------------


def json_pointer(path: Iterable[Any]) -> str:
    """RFC 6901 JSON pointer for a jsonschema path ("" for the root)."""
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in path)


def one_line(text: str, limit: int = _MAX_LINE) -> str:
    """``text`` on one line, at most ``limit`` characters (cut with an ellipsis)."""
    line = " ".join(text.splitlines()).strip()
    return line if len(line) <= limit else line[: limit - 1] + "…"


def json_type(value: Any) -> str:
    """The JSON type name of a decoded value: "null", "boolean", "number", "string", "array"
    or "object"."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list | tuple):
        return "array"
    return "object"


def json_kind(value: Any) -> str:
    """How a decoded JSON value reads in a message: "a JSON array", "JSON null" …"""
    kind = json_type(value)
    return "JSON null" if kind == "null" else f"a JSON {kind}"
