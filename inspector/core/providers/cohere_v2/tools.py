"""Cohere's tool-definition shape, both ways: written (requests) and read (a request's tools,
to validate calls against).

Written: v2 chat takes the OpenAI Chat shape (``{"type": "function", "function": {"name",
"description", "parameters"}}``), a copy of the neutral tools.

Read: that shape is Chat Completions' and proved by it (read there, never claimed twice). What
only Cohere writes is the v1 shape, ``{"name", "description", "parameter_definitions":
{NAME: {"type", "description", "required"}}}``: that proves it, its parameters converted to a
JSON Schema object (types as Cohere spells them: ``str``, ``int``, ``float``, ``bool``,
``List[str]`` … mapped to JSON types; an unknown type leaves the property untyped).
"""

from __future__ import annotations

import copy
from typing import Any, Final

from inspector.core.base.provider import PROVES, ToolDefinition, ToolShape
from inspector.core.providers.wire.requests import function_tools

V1_PARAMETERS: Final = "parameter_definitions"

_TYPES: Final = {
    "str": "string", "string": "string", "int": "integer", "integer": "integer",
    "float": "number", "number": "number", "bool": "boolean", "boolean": "boolean",
    "dict": "object", "object": "object", "list": "array", "array": "array",
}  # fmt: skip


def written(neutral: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Neutral function tools in its (v2) shape: a copy, as they are (it has no custom
    tools)."""
    return copy.deepcopy(function_tools(neutral))


def read(entry: dict[str, Any], label: str, listed_as: str) -> ToolShape | None:
    """See the module docstring."""
    params = entry.get(V1_PARAMETERS)
    if V1_PARAMETERS not in entry or "function" in entry:
        return None
    if not isinstance(params, dict):
        found: tuple[ToolDefinition | str, ...] = (f"{label}: {V1_PARAMETERS} is not an object",)
        return ToolShape(PROVES, found)
    schema = v1_schema(params)
    return ToolShape(
        PROVES, (ToolDefinition(label, entry.get("name"), entry.get("description"), schema),)
    )


def v1_schema(params: dict[str, Any]) -> dict[str, Any]:
    """A v1 ``parameter_definitions`` object as a JSON Schema object."""
    properties: dict[str, Any] = {}
    required: list[str] = []
    for name, spec in params.items():
        prop: dict[str, Any] = {}
        if isinstance(spec, dict):
            kind = spec.get("type")
            if isinstance(kind, str):
                base = kind.split("[", 1)[0].strip().lower()
                if base in _TYPES:
                    prop["type"] = _TYPES[base]
            if isinstance(spec.get("description"), str):
                prop["description"] = spec["description"]
            if spec.get("required") is True:
                required.append(str(name))
        properties[str(name)] = prop
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    return schema
