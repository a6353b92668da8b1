"""Plausible tool arguments generated from a tool's JSON Schema, deterministically.

Invariants:
- Pure: the same schema, property name and ``variant`` always give the same value.
- Every ``required`` property is present; optional ones are added in declared order while the
  object has fewer than :data:`MAX_PROPERTIES` properties.
- Values satisfy the usual keywords: ``const``, ``enum`` (first value), ``default``, ``type``
  (also Gemini's upper-case types and lists like ``["string", "null"]``), ``minimum`` /
  ``maximum``, ``minLength`` / ``maxLength``, ``minItems``, ``format``; ``anyOf`` / ``oneOf``
  take their first non-null branch and ``allOf`` its first branch; local ``$ref``\\ s
  (``#/$defs/…``, ``#/definitions/…``) are followed. ``pattern`` is not honoured.
- Strings are chosen by property name (``location`` -> "Paris", ``path`` -> "README.md" …);
  ``variant`` picks another plausible value so parallel calls of one tool differ.
- Never raises on odd schemas: anything unusable yields ``{}`` or a placeholder string, and
  recursion stops at depth :data:`MAX_DEPTH`.
"""

from __future__ import annotations

import re
from typing import Any

MAX_PROPERTIES = 3
"""Optional properties are added until an object has this many."""
MAX_DEPTH = 5

# (name words, values by variant): the first entry whose word appears in the property name wins.
_BY_NAME: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = (
    (("location", "city", "place", "destination", "town"), ("Paris", "Tokyo", "Lima")),
    (
        ("file_path", "filepath", "path", "file", "filename"),
        ("README.md", "pyproject.toml", "docs/index.md"),
    ),
    (("pattern", "glob"), ("*.md", "*.py", "**/*.toml")),
    (
        ("query", "q", "search", "question", "prompt", "keywords"),
        ("weather in Paris", "weather in Tokyo", "weather in Lima"),
    ),
    (("command", "cmd", "shell", "script"), ("ls -la", "pwd", "git status")),
    (
        ("url", "uri", "link", "href"),
        ("https://example.com/", "https://example.org/", "https://example.net/"),
    ),
    (("directory", "dir", "folder", "cwd"), (".", "src", "docs")),
    (("unit", "units"), ("celsius", "fahrenheit", "kelvin")),
    (("country",), ("FR", "JP", "PE")),
    (("timezone", "tz"), ("Europe/Paris", "Asia/Tokyo", "America/Lima")),
    (("language", "lang", "locale"), ("en", "fr", "ja")),
    (("email", "mail"), ("demo@example.com", "ops@example.com", "dev@example.com")),
    (("date", "day"), ("2025-01-01", "2025-01-02", "2025-01-03")),
    (("time",), ("12:00", "13:00", "14:00")),
    (
        ("content", "text", "body", "message", "note", "description"),
        ("Hello from the demo provider", "Second note", "Third note"),
    ),
    (("title", "subject"), ("Demo", "Second demo", "Third demo")),
    (("name", "user", "username", "author"), ("demo", "alice", "bob")),
    (("symbol", "ticker"), ("ACME", "INIT", "DEMO")),
    (("id", "key"), ("1", "2", "3")),
)

_FORMATS = {
    "date": "2025-01-01",
    "date-time": "2025-01-01T12:00:00Z",
    "time": "12:00:00",
    "email": "demo@example.com",
    "uri": "https://example.com/",
    "url": "https://example.com/",
    "uuid": "00000000-0000-4000-8000-000000000001",
    "ipv4": "127.0.0.1",
    "hostname": "example.com",
}

_SPLIT = re.compile(r"[_\-\s]+|(?<=[a-z0-9])(?=[A-Z])")


def generate(schema: Any, variant: int = 0) -> dict[str, Any]:
    """Arguments for a tool whose parameters are ``schema`` (an object schema, or nothing)."""
    if not isinstance(schema, dict):
        return {}
    value = _value("", schema, variant, schema, 0)
    return value if isinstance(value, dict) else {}


def _resolve(schema: dict[str, Any], root: dict[str, Any]) -> dict[str, Any]:
    ref = schema.get("$ref")
    for _ in range(MAX_DEPTH):
        if not isinstance(ref, str) or not ref.startswith("#/"):
            return schema
        node: Any = root
        for part in ref[2:].split("/"):
            node = node.get(part) if isinstance(node, dict) else None
        if not isinstance(node, dict):
            return schema
        schema = {**node, **{k: v for k, v in schema.items() if k != "$ref"}}
        ref = node.get("$ref")
    return schema


def _type(schema: dict[str, Any]) -> str:
    t = schema.get("type")
    if isinstance(t, list):
        t = next((x for x in t if isinstance(x, str) and x.lower() != "null"), None)
    if isinstance(t, str):
        return t.lower()
    if "properties" in schema:
        return "object"
    if "items" in schema:
        return "array"
    return "string"


def _value(name: str, schema: Any, variant: int, root: dict[str, Any], depth: int) -> Any:
    if not isinstance(schema, dict) or depth > MAX_DEPTH:
        return _string(name, {}, variant)
    schema = _resolve(schema, root)
    if "const" in schema:
        return schema["const"]
    enum = schema.get("enum")
    if isinstance(enum, list) and enum:
        return enum[0]
    if "default" in schema and schema["default"] is not None:
        return schema["default"]
    for key in ("anyOf", "oneOf", "allOf"):
        branches = schema.get(key)
        if isinstance(branches, list) and branches:
            real = [b for b in branches if not (isinstance(b, dict) and b.get("type") == "null")]
            return _value(name, (real or branches)[0], variant, root, depth + 1)
    t = _type(schema)
    if t == "object":
        return _object(schema, variant, root, depth)
    if t == "array":
        items = schema.get("items", {})
        count = min(max(int(schema.get("minItems", 1) or 1), 1), 3)
        return [_value(name, items, variant + i, root, depth + 1) for i in range(count)]
    if t in ("integer", "number"):
        return _number(schema, t)
    if t == "boolean":
        return True
    if t == "null":
        return None
    return _string(name, schema, variant)


def _object(schema: dict[str, Any], variant: int, root: dict[str, Any], depth: int) -> Any:
    props = schema.get("properties")
    if not isinstance(props, dict):
        return {}
    required = [r for r in schema.get("required", []) if isinstance(r, str) and r in props]
    chosen = list(required)
    for key in props:
        if len(chosen) >= MAX_PROPERTIES:
            break
        if key not in chosen:
            chosen.append(key)
    order = [k for k in props if k in chosen]  # declared order reads naturally
    return {k: _value(k, props[k], variant, root, depth + 1) for k in order}


def _number(schema: dict[str, Any], t: str) -> int | float:
    value: int | float = 1
    low = schema.get("minimum", schema.get("exclusiveMinimum"))
    high = schema.get("maximum", schema.get("exclusiveMaximum"))
    if isinstance(low, int | float) and not isinstance(low, bool) and value <= low:
        value = low + (1 if "exclusiveMinimum" in schema and "minimum" not in schema else 0)
    if isinstance(high, int | float) and not isinstance(high, bool) and value > high:
        value = high
    return int(value) if t == "integer" else value


def _string(name: str, schema: dict[str, Any], variant: int) -> str:
    fmt = schema.get("format")
    if isinstance(fmt, str) and fmt in _FORMATS:
        return _FORMATS[fmt]
    words = [w.lower() for w in _SPLIT.split(name) if w]
    joined = "_".join(words)
    value = None
    for keys, values in _BY_NAME:
        if joined in keys or any(w in keys for w in words):
            value = values[variant % len(values)]
            break
    if value is None:
        value = "example" if variant == 0 else f"example {variant + 1}"
    low = schema.get("minLength")
    if isinstance(low, int) and len(value) < low:
        value = value + "x" * (low - len(value))
    high = schema.get("maxLength")
    if isinstance(high, int) and high >= 0 and len(value) > high:
        value = value[:high]
    return value
