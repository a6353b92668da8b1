"""Gemini's tool schemas, both ways: JSON Schema written as Gemini's OpenAPI subset (for its
requests, :func:`gemini_schema`), and its OpenAPI ``parameters`` read as JSON Schema (to
validate calls against, :func:`to_json_schema`).

Invariants:
- A conversion never modifies its input; what it keeps is a copy.
- :func:`to_json_schema` walks schema positions only (``properties`` values, ``items``,
  ``anyOf`` …), never data such as ``enum`` or ``default``.
"""

from __future__ import annotations

import copy
from typing import Any, Final

_SCHEMA_KEYS: Final = frozenset({
    "format", "title", "description", "nullable", "enum", "maxItems", "minItems",
    "minProperties", "maxProperties", "minLength", "maxLength", "pattern", "example",
    "propertyOrdering", "default", "minimum", "maximum", "required",
})  # fmt: skip


def gemini_schema(schema: Any) -> Any:
    """JSON Schema → Gemini's OpenAPI subset: upper-case types, ``null`` as ``nullable``."""
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    t = schema.get("type")
    if isinstance(t, list):
        rest = [x for x in t if x != "null"]
        if len(rest) < len(t):
            out["nullable"] = True
        t = rest[0] if len(rest) == 1 else None
    if isinstance(t, str):
        out["type"] = t.upper()
    for key, value in schema.items():
        if key == "properties" and isinstance(value, dict):
            out[key] = {k: gemini_schema(v) for k, v in value.items()}
        elif key == "items":
            out[key] = gemini_schema(value)
        elif key == "anyOf" and isinstance(value, list):
            out[key] = [gemini_schema(v) for v in value]
        elif key in _SCHEMA_KEYS:
            out[key] = copy.deepcopy(value)
    return out


def to_json_schema(schema: Any) -> Any:
    """Convert Gemini's OpenAPI-style Schema to JSON Schema, without touching the input.

    Type names are lowercased (``TYPE_UNSPECIFIED`` is dropped) and ``nullable: true`` adds a
    ``"null"`` type (and ``None`` to an ``enum``). Only schema positions are walked
    (``properties`` values, ``items``, ``anyOf``…), never data such as ``enum`` or ``default``.
    """
    if not isinstance(schema, dict):
        return copy.deepcopy(schema)
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "type" and isinstance(value, str):
            if value.upper() != "TYPE_UNSPECIFIED":
                out[key] = value.lower()
        elif key == "type" and isinstance(value, list):
            out[key] = [v.lower() if isinstance(v, str) else v for v in value]
        elif key in ("properties", "patternProperties", "$defs", "definitions") and isinstance(
            value, dict
        ):
            out[key] = {k: to_json_schema(v) for k, v in value.items()}
        elif key in ("items", "additionalProperties", "not") and isinstance(value, dict):
            out[key] = to_json_schema(value)
        elif key in ("anyOf", "oneOf", "allOf", "prefixItems") and isinstance(value, list):
            out[key] = [to_json_schema(v) for v in value]
        else:
            out[key] = copy.deepcopy(value)
    if out.get("nullable") is True:
        del out["nullable"]
        t = out.get("type")
        if isinstance(t, str) and t != "null":
            out["type"] = [t, "null"]
        elif isinstance(t, list) and "null" not in t:
            out["type"] = [*t, "null"]
        enum = out.get("enum")
        if isinstance(enum, list) and None not in enum:
            out["enum"] = [*enum, None]
    return out
