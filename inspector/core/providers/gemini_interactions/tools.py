"""The Interactions API's tool-definition shape, both ways: written (requests) and read (a
request's tools, to validate calls against).

Written: ``{"type": "function", "name", "description"?, "parameters"}`` (JSON Schema as it is).

Read: that function shape is the Responses API's too, which proves it and reads it alike (so
it is never claimed twice: not read here). What only Google's Interactions tools are is the
typed built-in entry, ``{"type": "google_search"}``, ``code_execution``, ``url_context``,
``google_maps``, ``file_search``, ``computer_use``, ``mcp_server``: proved, and read as nothing
(there is no function to validate; the provider runs them).
"""

from __future__ import annotations

from typing import Any, Final

from inspector.core.base.provider import PROVES, ToolShape
from inspector.core.providers.wire.requests import function, function_tools

BUILT_IN: Final = frozenset(
    {
        "google_search", "code_execution", "url_context", "google_maps", "file_search",
        "computer_use", "mcp_server",
    }
)  # fmt: skip
"""The ``type`` of its built-in tools."""


def written(neutral: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``{"type": "function", "name", "description"?, "parameters"}``."""
    out = []
    for tool in function_tools(neutral):
        name, desc, schema = function(tool)
        described = {"description": desc} if desc else {}
        out.append({"type": "function", "name": name, **described, "parameters": schema})
    return out


def read(entry: dict[str, Any], label: str, listed_as: str) -> ToolShape | None:
    """See the module docstring."""
    kind = entry.get("type")
    if isinstance(kind, str) and kind in BUILT_IN:
        return ToolShape(PROVES, ())
    return None
