"""Chat Completions' tool-definition shape, both ways: written (requests: the neutral shape is
its own) and read (a request's tools, to validate calls against).

Read: ``{"type": "function", "function": {"name", "description", "parameters"}}`` proves it; a
function tool with neither a ``function`` object nor a ``name`` is a Chat tool missing its
function (a warning). A bare declaration in a body's legacy ``functions`` list is likely its
(its ``parameters`` taken as they are). Anything else is not its shape.
"""

from __future__ import annotations

import copy
from typing import Any

from inspector.core.base.provider import LIKELY, PROVES, ToolDefinition, ToolShape
from inspector.core.providers.wire.requests import function_tools

LEGACY = "functions"
"""The request body's list of legacy function declarations (``function_call`` era)."""


def written(neutral: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Neutral function tools in its shape: a copy, as they are. A neutral custom tool is
    left out: this dialect reads no custom call (only Responses declares them)."""
    return copy.deepcopy(function_tools(neutral))


def read(entry: dict[str, Any], label: str, listed_as: str) -> ToolShape | None:
    """See the module docstring."""
    kind = entry.get("type")
    if kind == "function":
        fn = entry.get("function")
        if isinstance(fn, dict):
            return ToolShape(PROVES, (_definition(label, fn),))
        if "name" not in entry:  # with a name at the top it is a Responses tool
            return ToolShape(PROVES, (f"{label}: function tool without a name",))
        return None
    if listed_as == LEGACY and kind is None and "name" in entry:
        return ToolShape(LIKELY, (_definition(label, entry),))
    return None


def _definition(label: str, fn: dict[str, Any]) -> ToolDefinition:
    return ToolDefinition(label, fn.get("name"), fn.get("description"), fn.get("parameters"))
