"""Anthropic's tool-definition shape, both ways: written (requests) and read (a request's
tools, to validate calls against).

Read: ``{"name", "description", "input_schema"}`` (untyped, or ``"type": "custom"``) proves it;
so does a date-versioned built-in client tool (``{"type": "bash_20250124", "name": "bash"}``),
kept as a tool without a schema because the model calls it by name. Anything else is not its
shape.
"""

from __future__ import annotations

from typing import Any

from inspector.core.base.provider import PROVES, ToolDefinition, ToolShape
from inspector.core.providers.wire.requests import function, function_tools


def written(neutral: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``{"name", "description"?, "input_schema"}``."""
    out = []
    for tool in function_tools(neutral):
        name, desc, schema = function(tool)
        described = {"description": desc} if desc else {}
        out.append({"name": name, **described, "input_schema": schema})
    return out


def read(entry: dict[str, Any], label: str, listed_as: str) -> ToolShape | None:
    """See the module docstring."""
    kind = entry.get("type")
    if "input_schema" in entry and (kind is None or kind == "custom"):
        found = ToolDefinition(label, entry.get("name"), entry.get("description"),
                               entry.get("input_schema"))  # fmt: skip
        return ToolShape(PROVES, (found,))
    name = entry.get("name")
    if isinstance(kind, str) and isinstance(name, str) and name and builtin(kind):
        return ToolShape(PROVES, (ToolDefinition(label, name, None, None),))
    return None


def builtin(kind: str) -> bool:
    """Anthropic's versioned client tools: ``bash_20250124``, ``text_editor_20250728`` …"""
    head, _, date = kind.rpartition("_")
    return bool(head) and len(date) == 8 and date.isdigit()
