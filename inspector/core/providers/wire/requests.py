"""The neutral request pieces every dialect builds its request and continuation from: the
messages' system text, a neutral (OpenAI chat) tool's parts, a body's lists.

Invariant: pure; what a caller hands in is never changed (a schema is a copy).
"""

from __future__ import annotations

import copy
from typing import Any

import orjson

_dumps = orjson.dumps


def text_of(content: Any) -> str:
    """A message's content as text (non-string content as its JSON)."""
    return content if isinstance(content, str) else _dumps(content).decode()


def split_system(messages: list[dict[str, Any]]) -> tuple[str, list[dict[str, Any]]]:
    """(the system messages' text joined by blank lines, the other messages)."""
    system = "\n\n".join(text_of(m.get("content")) for m in messages if m.get("role") == "system")
    return system, [m for m in messages if m.get("role") != "system"]


def function(tool: dict[str, Any]) -> tuple[str, str | None, dict[str, Any]]:
    """(name, description, parameters schema) of a neutral tool; the schema is a copy, an
    empty object schema when the tool declares none."""
    fn = tool["function"]
    params = fn.get("parameters")
    schema = (
        copy.deepcopy(params) if isinstance(params, dict) else {"type": "object", "properties": {}}
    )
    return fn["name"], fn.get("description"), schema


def function_tools(neutral: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The neutral tools that are function tools (``{"type": "function", "function": {…}}``):
    what a dialect without custom tools writes. A neutral custom tool (Chat Completions'
    ``{"type": "custom", "custom": {"name", "description", "format"}}``) is written only by
    the dialects that declare custom tools."""
    return [t for t in neutral if isinstance(t.get("function"), dict)]


def custom_parts(tool: dict[str, Any]) -> tuple[str, str | None, dict[str, Any] | None] | None:
    """(name, description, format as Chat writes it) of a neutral custom tool; None for any
    other tool."""
    custom = tool.get("custom")
    if tool.get("type") != "custom" or not isinstance(custom, dict):
        return None
    fmt = custom.get("format")
    return custom["name"], custom.get("description"), copy.deepcopy(fmt) if fmt else None


def as_list(value: Any) -> list[Any]:
    """A body field that should hold a list, as a new list (empty when it holds none)."""
    return list(value) if isinstance(value, list) else []


def args_text(arguments: str) -> str:
    """Arguments as a continuation echoes them: blank becomes ``{}``."""
    return arguments if arguments.strip() else "{}"
