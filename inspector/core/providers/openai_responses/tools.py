"""The Responses API's tool-definition shape, both ways: written (requests) and read (a
request's tools, to validate calls against).

Read: ``{"type": "function", "name", "description", "parameters", "strict"}`` (a function tool
with its name at the top and no ``function`` object) proves it. Anything else is not its shape.
"""

from __future__ import annotations

from typing import Any

from inspector.core.base.provider import PROVES, ToolDefinition, ToolShape
from inspector.core.providers.wire.requests import function


def written(neutral: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``{"type": "function", "name", "description"?, "parameters", "strict": false}``."""
    out = []
    for tool in neutral:
        name, desc, schema = function(tool)
        described = {"description": desc} if desc else {}
        out.append({"type": "function", "name": name, **described, "parameters": schema,
                    "strict": False})  # fmt: skip
    return out


def read(entry: dict[str, Any], label: str, listed_as: str) -> ToolShape | None:
    """See the module docstring."""
    if entry.get("type") != "function" or isinstance(entry.get("function"), dict):
        return None
    if "name" not in entry:
        return None
    found = ToolDefinition(label, entry.get("name"), entry.get("description"),
                           entry.get("parameters"))  # fmt: skip
    return ToolShape(PROVES, (found,))
