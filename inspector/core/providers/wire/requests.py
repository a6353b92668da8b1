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


def as_list(value: Any) -> list[Any]:
    """A body field that should hold a list, as a new list (empty when it holds none)."""
    return list(value) if isinstance(value, list) else []


def args_text(arguments: str) -> str:
    """Arguments as a continuation echoes them: blank becomes ``{}``."""
    return arguments if arguments.strip() else "{}"
