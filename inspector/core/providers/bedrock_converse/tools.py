"""Bedrock Converse's tool-definition shape, both ways: written (a request's
``toolConfig.tools``) and read (a tools list, to validate calls against).

Read: ``{"toolSpec": {"name", "description"?, "inputSchema": {"json": schema}}}`` proves it;
a ``{"cachePoint": …}`` entry is part of its shape and declares no tool. Anything else is not
its shape. A request body's list sits under ``toolConfig``: hand the inspector that object
(``{"tools": […]}``).
"""

from __future__ import annotations

from typing import Any

from inspector.core.base.provider import PROVES, ToolDefinition, ToolShape
from inspector.core.providers.wire.requests import function, function_tools


def written(neutral: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``{"toolSpec": {"name", "description"?, "inputSchema": {"json"}}}`` per tool."""
    out = []
    for tool in function_tools(neutral):
        name, desc, schema = function(tool)
        described = {"description": desc} if desc else {}
        out.append({"toolSpec": {"name": name, **described, "inputSchema": {"json": schema}}})
    return out


def read(entry: dict[str, Any], label: str, listed_as: str) -> ToolShape | None:
    """See the module docstring."""
    spec = entry.get("toolSpec")
    if isinstance(spec, dict):
        schema = spec.get("inputSchema")
        has_json = isinstance(schema, dict) and "json" in schema
        json_schema = schema.get("json") if isinstance(schema, dict) else None
        found: tuple[ToolDefinition | str, ...] = (
            ToolDefinition(f"{label}.toolSpec", spec.get("name"), spec.get("description"),
                           json_schema),
        )  # fmt: skip
        if not has_json:
            found += (f"{label}.toolSpec: no inputSchema.json; its calls are not checked",)
        return ToolShape(PROVES, found)
    if set(entry) == {"cachePoint"}:
        return ToolShape(PROVES, ())
    return None
