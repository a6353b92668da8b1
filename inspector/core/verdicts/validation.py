"""Tool-call validation before execution: is an assembled call fit to execute?

The validation modes (from "validating streamed tool calls before execution", see
docs/glossary.md):

============  ===================================================================================
off           only the legacy empty-required-arguments condition
structural    name present, not truncated, arguments decode to a JSON object carrying every
              top-level required property (default; property types are left to the tool)
strict        structural plus full JSON Schema validation with the tool's cached validator
============  ===================================================================================

Invariants:
- Blank arguments (empty or whitespace only) count as ``{}`` in every mode.
- A tool whose schema is not valid JSON Schema never fails a call on schema grounds (no
  missing_required, schema_violation or empty_required_arguments for it); JSON and object
  checks still apply because they do not depend on the schema.
- An unknown tool is only a problem when tools are known (a non-empty registry).
- Pure and deterministic: the same inputs give the same problems in the same order
  (name, truncation, JSON, required, then schema violations sorted by instance path).
  Validators come from the registry's cache; nothing is built per call.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final, Protocol

import orjson
from jsonschema.exceptions import ValidationError

from inspector.core.base.settings import DEFAULT_MODE, ValidationMode, validation_mode
from inspector.core.verdicts.schemas import json_kind, json_pointer, json_type, one_line
from inspector.core.verdicts.tools import ToolRegistry, ToolSpec

_MAX_LINE: Final = 300


class Code:
    """Problem codes (plain strings)."""

    INVALID_JSON: Final = "invalid_json"
    NOT_AN_OBJECT: Final = "not_an_object"
    MISSING_REQUIRED: Final = "missing_required"
    SCHEMA_VIOLATION: Final = "schema_violation"
    UNKNOWN_TOOL: Final = "unknown_tool"
    MISSING_NAME: Final = "missing_name"
    TRUNCATED: Final = "truncated"
    EMPTY_REQUIRED_ARGUMENTS: Final = "empty_required_arguments"
    DROPPED_FRAGMENTS: Final = "dropped_fragments"
    """Fragments meant for the call that the empty-id policy could not place in it: its
    arguments are not the ones sent (``literal`` looking a ``""`` id up as an id)."""


class JsonErrorLike(Protocol):
    """What the JSON progress tracker reports about arguments that cannot be JSON."""

    @property
    def offset(self) -> int: ...
    @property
    def reason(self) -> str: ...


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a call."""

    code: str
    """One of :class:`Code`'s values."""
    message: str
    """One readable line."""
    pointer: str | None = None
    """JSON pointer into the arguments for schema_violation (``""`` is the root)."""
    offset: int | None = None
    """Byte offset (UTF-8) into the arguments for invalid_json."""
    detail: dict[str, Any] | None = field(default=None, hash=False)
    """Structured extras: ``{"missing": [...]}``, ``{"validator": "type", "expected": ...}``."""

    def to_json(self) -> dict[str, Any]:
        """``code`` and ``message``, plus ``pointer``/``offset``/``detail`` when set."""
        out: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.pointer is not None:
            out["pointer"] = self.pointer
        if self.offset is not None:
            out["offset"] = self.offset
        if self.detail is not None:
            out["detail"] = self.detail
        return out


def validate_call(
    name: str | None,
    arguments: str,
    registry: ToolRegistry | None,
    mode: ValidationMode = DEFAULT_MODE,
    *,
    truncated: bool = False,
    json_error: JsonErrorLike | Callable[[], JsonErrorLike | None] | None = None,
) -> list[Problem]:
    """Every problem with one assembled call under ``mode`` (empty list: fit to execute).

    ``truncated`` says the stream ended before the call closed. ``json_error``, when the caller
    has one from the JSON progress tracker (or a function that works it out, called only if
    the arguments do not parse), supplies the message and offset of an invalid_json problem
    (orjson still decides whether the arguments are JSON at all).
    Raises ValueError for an unknown mode.
    """
    mode = validation_mode(mode)  # callers outside the type checker may pass any string
    if mode == "off":
        if matches_empty_required_condition(name, arguments, registry):
            return [_empty_required(name, registry)]
        return []

    problems: list[Problem] = []
    has_name = isinstance(name, str) and name != ""
    spec: ToolSpec | None = None
    if not has_name:
        problems.append(Problem(Code.MISSING_NAME, "the call has no tool name"))
    elif registry is not None:
        assert isinstance(name, str)
        spec = registry.get(name)
        if spec is None and len(registry) > 0:
            problems.append(_unknown_tool(name, registry))
    if truncated:
        problems.append(Problem(Code.TRUNCATED, "the stream ended before this call was complete"))

    value, problem = _decode(arguments, json_error)
    if problem is not None:
        problems.append(problem)
        return problems
    if not isinstance(value, dict):
        kind = json_kind(value)
        problems.append(
            Problem(
                Code.NOT_AN_OBJECT,
                f"arguments are {kind}, not an object",
                detail={"type": json_type(value)},
            )
        )
        return problems

    if spec is None or spec.schema_error is not None:
        return problems
    missing = [r for r in spec.required if r not in value]
    if missing:
        problems.append(_missing_required(missing))
    if mode == "strict" and registry is not None:
        problems.extend(_schema_violations(registry, spec.name, value))
    return problems


def matches_empty_required_condition(
    name: str | None, arguments: str, registry: ToolRegistry | None
) -> bool:
    """The legacy condition: blank or empty-object arguments for a tool that requires some.

    True only for a known tool with a valid schema whose top level has required properties,
    called with arguments that are blank or decode to exactly ``{}``.
    """
    if registry is None or not isinstance(name, str) or not name:
        return False
    spec = registry.get(name)
    if spec is None or spec.schema_error is not None or not spec.required:
        return False
    if not isinstance(arguments, str) or not arguments.strip():
        return True
    try:
        value = orjson.loads(arguments)
    except orjson.JSONDecodeError:
        return False
    return isinstance(value, dict) and not value


# --- pieces -------------------------------------------------------------------------------


def _decode(
    arguments: str, json_error: JsonErrorLike | Callable[[], JsonErrorLike | None] | None
) -> tuple[Any, Problem | None]:
    """The decoded arguments (blank → ``{}``), or an invalid_json problem."""
    if not arguments.strip():
        return {}, None
    try:
        return orjson.loads(arguments), None
    except orjson.JSONDecodeError as exc:
        if callable(json_error):
            json_error = json_error()
        if json_error is not None:
            offset, reason = json_error.offset, json_error.reason
        else:
            offset = _byte_offset(arguments, exc.pos)
            reason = exc.msg
        where = "" if f"byte {offset}" in reason else f" (at byte {offset})"
        return None, Problem(
            Code.INVALID_JSON,
            _one_line(f"arguments are not valid JSON: {reason}{where}"),
            offset=offset,
        )


def _byte_offset(text: str, char_pos: int) -> int:
    """orjson reports a character position; the inspector speaks in UTF-8 bytes."""
    pos = max(0, min(char_pos, len(text)))
    return len(text[:pos].encode("utf-8", "surrogatepass"))


def _empty_required(name: str | None, registry: ToolRegistry | None) -> Problem:
    spec = registry.get(name) if registry is not None and name else None
    required = list(spec.required) if spec is not None else []
    return Problem(
        Code.EMPTY_REQUIRED_ARGUMENTS,
        _one_line(f"arguments are empty but the tool requires {_quoted(required)}"),
        detail={"missing": required},
    )


def _unknown_tool(name: str, registry: ToolRegistry) -> Problem:
    names = registry.names()
    close = difflib.get_close_matches(name, names, n=1)
    detail: dict[str, Any] = {"name": name}
    message = f"unknown tool {name!r}"
    if close:
        detail["suggestion"] = close[0]
        message += f" (did you mean {close[0]!r}?)"
    else:
        message += f"; {len(names)} tool{'s' if len(names) != 1 else ''} defined"
    return Problem(Code.UNKNOWN_TOOL, _one_line(message), detail=detail)


def _missing_required(missing: list[str]) -> Problem:
    noun = "argument" if len(missing) == 1 else "arguments"
    return Problem(
        Code.MISSING_REQUIRED,
        _one_line(f"missing required {noun} {_quoted(missing)}"),
        detail={"missing": missing},
    )


def _schema_violations(registry: ToolRegistry, name: str, value: dict[str, Any]) -> list[Problem]:
    validator = registry.validator(name)
    if validator is None:
        return []
    try:
        errors = [
            e
            for e in validator.iter_errors(value)
            # missing_required already reports the schema's own top-level "required".
            if not (e.validator == "required" and list(e.absolute_schema_path) == ["required"])
        ]
    except Exception:
        # The schema passed check_schema but cannot be applied (say, a $ref the pre-check could
        # not see). A schema fault never fails a call.
        return []
    errors.sort(key=_error_key)
    return [_violation(e) for e in errors]


def _error_key(error: ValidationError) -> tuple[Any, ...]:
    return (
        tuple(_path_key(p) for p in error.absolute_path),
        tuple(str(p) for p in error.absolute_schema_path),
        error.message,
    )


def _path_key(part: str | int) -> tuple[int, int, str]:
    return (0, part, "") if isinstance(part, int) else (1, 0, part)


def _violation(error: ValidationError) -> Problem:
    pointer = json_pointer(error.absolute_path)
    return Problem(
        Code.SCHEMA_VIOLATION,
        _one_line(f"{pointer or '(root)'}: {error.message}"),
        pointer=pointer,
        detail={
            "validator": error.validator,
            "expected": error.validator_value,
            "schema_path": json_pointer(error.absolute_schema_path),
        },
    )


def _quoted(names: list[str]) -> str:
    return ", ".join(repr(n) for n in names)


def _one_line(text: str) -> str:
    return one_line(text, _MAX_LINE)
