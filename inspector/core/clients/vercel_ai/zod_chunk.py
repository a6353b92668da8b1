"""The zod schema ``@ai-sdk/openai-compatible`` 3.0.92 checks every streamed chunk against,
and the ``TypeValidationError`` it reports when a chunk fails.

Follows ``src/chat/openai-compatible-chat-language-model.ts`` (``chunkBaseSchema``, the
chunk schema ``z.union([chunkBaseSchema, errorSchema])``), ``src/openai-compatible-error.ts``
(``openaiCompatibleErrorDataSchema``), zod 4's issues (``invalid_type``, ``invalid_value``,
``invalid_union``) and ``TypeValidationError`` in ``@ai-sdk/provider``.

Invariants:
- :func:`check_chunk` takes a chunk as :func:`~.v8_json.parse` gives it and returns what zod
  returns (the chunk; for a chunk that only fits the error schema, ``{"error": {...}}`` with
  the error's known keys), or raises :class:`~inspector.core.clients.base.ClientRaised`
  ``TypeValidationError`` worded as the SDK words it:
  ``Type validation failed: Value: <JSON.stringify(chunk)>.`` and
  ``Error message: <zod's issues, JSON.stringify(issues, null, 2)>``.
- Issues follow zod: every field of an option is checked in the schema's order (all issues
  kept); a union that fails lists each option's issues with paths relative to it; a nullish
  field takes ``null`` or a missing key.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from inspector.core.clients.base import ClientRaised
from inspector.core.clients.vercel_ai.v8_json import stringify

Schema = tuple[Any, ...]
"""``("string"|"number"|"any",)``, ``("enum", values)``, ``("object", loose, fields)``,
``("array", item)``, ``("union", options)``; fields are ``(key, schema, nullish)``."""

_STR: Final = ("string",)
_NUM: Final = ("number",)


def _obj(*fields: tuple[str, Schema, bool], loose: bool = False) -> Schema:
    return ("object", loose, fields)


def _opt(key: str, schema: Schema) -> tuple[str, Schema, bool]:
    return (key, schema, True)


_TOOL_CALL: Final = _obj(
    _opt("index", _NUM),
    _opt("id", _STR),
    ("function", _obj(_opt("name", _STR), _opt("arguments", _STR)), False),
    _opt("extra_content", _obj(_opt("google", _obj(_opt("thought_signature", _STR))))),
)
_DELTA: Final = _obj(
    _opt("role", ("enum", ("assistant", ""))),
    _opt("content", ("union", (_STR, ("array", _obj(("type", _STR, False), loose=True))))),
    _opt("refusal", ("any",)),
    _opt("reasoning_content", _STR),
    _opt("reasoning", _STR),
    _opt("tool_calls", ("array", _TOOL_CALL)),
)
_USAGE: Final = _obj(
    _opt("prompt_tokens", _NUM),
    _opt("completion_tokens", _NUM),
    _opt("total_tokens", _NUM),
    _opt("prompt_tokens_details", _obj(_opt("cached_tokens", _NUM), loose=True)),
    _opt(
        "completion_tokens_details",
        _obj(
            _opt("reasoning_tokens", _NUM),
            _opt("accepted_prediction_tokens", _NUM),
            _opt("rejected_prediction_tokens", _NUM),
            loose=True,
        ),
    ),
    loose=True,
)
CHUNK: Final = _obj(
    _opt("id", _STR),
    _opt("created", _NUM),
    _opt("model", _STR),
    ("choices", ("array", _obj(_opt("delta", _DELTA), _opt("finish_reason", _STR))), False),
    _opt("usage", _USAGE),
    loose=True,
)
ERROR: Final = _obj(
    (
        "error",
        _obj(
            ("message", _STR, False),
            _opt("type", _STR),
            _opt("param", ("any",)),
            _opt("code", ("union", (_STR, _NUM))),
        ),
        False,
    )
)
_MISSING: Final = object()


def _received(value: Any) -> str:
    if value is _MISSING:
        return "undefined"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, str):
        return "string"
    if isinstance(value, int | float):
        return "number"
    return "array" if isinstance(value, list) else "object"


def _type_issue(expected: str, path: list[Any], value: Any) -> dict[str, Any]:
    message = f"Invalid input: expected {expected}, received {_received(value)}"
    return {"expected": expected, "code": "invalid_type", "path": path, "message": message}


def issues(schema: Schema, value: Any, path: list[Any]) -> list[dict[str, Any]]:
    """zod's issues for ``value`` against ``schema`` at ``path`` (empty when it fits)."""
    kind = schema[0]
    if kind == "any":
        return []
    if kind in ("string", "number"):
        fits = isinstance(value, str) if kind == "string" else _is_number(value)
        return [] if fits else [_type_issue(kind, path, value)]
    if kind == "enum":
        if value in schema[1] and isinstance(value, str):
            return []
        shown = "|".join(stringify(v) for v in schema[1])
        message = f"Invalid option: expected one of {shown}"
        return [{"code": "invalid_value", "values": list(schema[1]), "path": path,
                 "message": message}]  # fmt: skip
    if kind == "array":
        if not isinstance(value, list):
            return [_type_issue("array", path, value)]
        return [i for n, item in enumerate(value) for i in issues(schema[1], item, [*path, n])]
    if kind == "union":
        per_option = [issues(option, value, []) for option in schema[1]]
        if any(not found for found in per_option):
            return []
        return [{"code": "invalid_union", "errors": per_option, "path": path,
                 "message": "Invalid input"}]  # fmt: skip
    if not isinstance(value, dict):
        return [_type_issue("object", path, value)]
    out: list[dict[str, Any]] = []
    for key, field, nullish in schema[2]:
        got = value.get(key, _MISSING)
        if nullish and (got is None or got is _MISSING):
            continue
        out += issues(field, got, [*path, key])
    return out


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def fits(schema: Schema, value: Any) -> bool:
    """Whether ``value`` fits ``schema``: ``issues(schema, value, path) == []``, without
    gathering the issues."""
    kind = schema[0]
    if kind == "any":
        return True
    if kind == "string":
        return isinstance(value, str)
    if kind == "number":
        return _is_number(value)
    if kind == "enum":
        return value in schema[1] and isinstance(value, str)
    if kind == "array":
        return isinstance(value, list) and all(fits(schema[1], item) for item in value)
    if kind == "union":
        return any(fits(option, value) for option in schema[1])
    if not isinstance(value, dict):
        return False
    for key, field, nullish in schema[2]:
        got = value.get(key, _MISSING)
        if not (nullish and (got is None or got is _MISSING)) and not fits(field, got):
            return False
    return True


def compiled(schema: Schema) -> Callable[[Any], bool]:
    """:func:`fits` for one schema, worked out once: a checker per schema node (no dispatch
    on the node's kind for every value)."""
    kind = schema[0]
    if kind == "any":
        return lambda value: True
    if kind == "string":
        return lambda value: isinstance(value, str)
    if kind == "number":
        return _is_number
    if kind == "enum":
        options = schema[1]
        return lambda value: value in options and isinstance(value, str)
    if kind == "array":
        item = compiled(schema[1])
        return lambda value: isinstance(value, list) and all(map(item, value))
    if kind == "union":
        checks = [compiled(option) for option in schema[1]]
        return lambda value: any(check(value) for check in checks)
    fields = [(key, compiled(field), nullish) for key, field, nullish in schema[2]]

    def fits_object(value: Any) -> bool:
        if not isinstance(value, dict):
            return False
        for key, check, nullish in fields:
            got = value.get(key, _MISSING)
            if not (nullish and (got is None or got is _MISSING)) and not check(got):
                return False
        return True

    return fits_object


_CHUNK_FITS: Final = compiled(CHUNK)


def check_chunk(chunk: Any) -> Any:
    """What zod makes of a parsed chunk (see the module's invariants)."""
    if _CHUNK_FITS(chunk):
        return chunk
    as_chunk = issues(CHUNK, chunk, [])
    if not as_chunk:
        return chunk
    as_error = issues(ERROR, chunk, [])
    if not as_error:
        error = chunk["error"]
        return {"error": {k: error[k] for k in ("message", "type", "param", "code") if k in error}}
    union = [{"code": "invalid_union", "errors": [as_chunk, as_error], "path": [],
              "message": "Invalid input"}]  # fmt: skip
    message = (
        f"Type validation failed: Value: {stringify(chunk)}.\nError message: {stringify(union, 2)}"
    )
    raise ClientRaised("TypeValidationError", message)
