"""The Responses API's tool-definition shape, both ways: written (requests) and read (a
request's tools, to validate calls against).

Read: ``{"type": "function", "name", "description", "parameters", "strict"}`` (a function tool
with its name at the top and no ``function`` object) proves it; so do a custom tool
``{"type": "custom", "name", "description", "format"}`` (free-form input: its ``format`` is kept
for the input check) and a ``{"type": "namespace", "name", "tools": [...]}`` whose function and
custom tools are read as if listed at the top (a call to one names the tool, its
``namespace`` rides beside). Anything else is not its shape.
"""

from __future__ import annotations

from typing import Any

from inspector.core.base.provider import PROVES, ToolDefinition, ToolShape
from inspector.core.providers.wire.requests import custom_parts, function


def written(neutral: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``{"type": "function", "name", "description"?, "parameters", "strict": false}``; a
    neutral custom tool (Chat's ``{"type": "custom", "custom": {…}}``) as ``{"type":
    "custom", "name", "description"?, "format"?}``, its grammar format flattened
    (``{"type": "grammar", "syntax", "definition"}``, as the Responses API takes it)."""
    out = []
    for tool in neutral:
        custom = custom_parts(tool)
        if custom is not None:
            out.append(_custom(*custom))
            continue
        name, desc, schema = function(tool)
        described = {"description": desc} if desc else {}
        out.append({"type": "function", "name": name, **described, "parameters": schema,
                    "strict": False})  # fmt: skip
    return out


def _custom(name: str, desc: str | None, fmt: dict[str, Any] | None) -> dict[str, Any]:
    described = {"description": desc} if desc else {}
    if fmt is not None and fmt.get("type") == "grammar" and isinstance(fmt.get("grammar"), dict):
        fmt = {"type": "grammar", **fmt["grammar"]}
    return {"type": "custom", "name": name, **described, **({"format": fmt} if fmt else {})}


def read(entry: dict[str, Any], label: str, listed_as: str) -> ToolShape | None:
    """See the module docstring."""
    t = entry.get("type")
    if t == "namespace" and isinstance(entry.get("tools"), list):
        found: list[ToolDefinition | str] = []
        for i, inner in enumerate(entry["tools"]):
            got = _one(inner, f"{label}.tools[{i}]") if isinstance(inner, dict) else None
            if got is None:
                found.append(f"{label}.tools[{i}]: not a function or custom tool; skipped")
            else:
                found.append(got)
        return ToolShape(PROVES, tuple(found))
    one = _one(entry, label)
    return ToolShape(PROVES, (one,)) if one is not None else None


def _one(entry: dict[str, Any], label: str) -> ToolDefinition | None:
    t = entry.get("type")
    if "name" not in entry:
        return None
    if t == "custom" and "input_schema" not in entry:  # Anthropic's custom tools have one
        fmt = entry.get("format")
        return ToolDefinition(label, entry.get("name"), entry.get("description"), None,
                              fmt if fmt is not None else {"type": "text"})  # fmt: skip
    if t != "function" or isinstance(entry.get("function"), dict):
        return None
    return ToolDefinition(label, entry.get("name"), entry.get("description"),
                          entry.get("parameters"))  # fmt: skip
