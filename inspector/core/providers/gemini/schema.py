"""Gemini's tool schemas: JSON Schema written as Gemini's OpenAPI subset (for its requests).

Invariant: a conversion never modifies its input; what it keeps is a copy.
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
