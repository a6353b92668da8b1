"""Gemini's tool-definition shape, both ways: written (requests: declarations with OpenAPI
schemas) and read (a request's tools, to validate calls against).

Read: a ``{"functionDeclarations": […]}`` tool (or ``function_declarations``) proves it, each
declaration's ``parametersJsonSchema`` taken as it is and its OpenAPI ``parameters`` converted
to JSON Schema. Only likely its: a bare declaration (untyped, named) in a body's ``tools`` or a
bare list (other shapes' tools have names too), and an untyped entry of its built-in tools
(``googleSearch``, ``codeExecution`` …: read as nothing, there is no function to validate).
"""

from __future__ import annotations

from typing import Any, Final

from inspector.core.base.provider import LIKELY, PROVES, ToolDefinition, ToolShape
from inspector.core.providers.gemini.schema import gemini_schema, to_json_schema
from inspector.core.providers.wire.requests import function, function_tools
from inspector.core.verdicts.schemas import json_kind

DECLARATIONS: Final = ("functionDeclarations", "function_declarations")
JSON_SCHEMA: Final = ("parametersJsonSchema", "parameters_json_schema")
OTHER_TOOLS: Final = frozenset(
    {
        "googleSearch", "google_search", "googleSearchRetrieval", "google_search_retrieval",
        "codeExecution", "code_execution", "urlContext", "url_context", "computerUse",
        "computer_use", "fileSearch", "file_search", "googleMaps", "google_maps", "retrieval",
        "enterpriseWebSearch", "enterprise_web_search",
    }
)  # fmt: skip
"""Keys of Gemini tool entries that are not function declarations (read as nothing)."""
OWN_LISTS: Final = ("", "tools")
"""Where its tools sit: a request body's ``tools``, or a bare list."""


def written(neutral: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One ``{"functionDeclarations": […]}`` (none without tools); an OBJECT without
    properties is rejected, so zero-argument tools leave ``parameters`` out."""
    decls = []
    for tool in function_tools(neutral):
        name, desc, schema = function(tool)
        described = {"description": desc} if desc else {}
        params = {"parameters": gemini_schema(schema)} if schema.get("properties") else {}
        decls.append({"name": name, **described, **params})
    return [{"functionDeclarations": decls}] if decls else []


def read(entry: dict[str, Any], label: str, listed_as: str) -> ToolShape | None:
    """See the module docstring."""
    key = next((k for k in DECLARATIONS if k in entry), None)
    if key is not None:
        decls = entry[key]
        if not isinstance(decls, list):
            return ToolShape(PROVES, (f"{label}.{key}: expected a list, got {json_kind(decls)}",))
        found = tuple(_declaration(f"{label}.{key}[{j}]", d) for j, d in enumerate(decls))
        return ToolShape(PROVES, found)
    if entry.get("type") is not None:
        return None
    if "name" in entry:  # a declaration: one in another list is another shape's
        return ToolShape(LIKELY, (_declaration(label, entry),)) if listed_as in OWN_LISTS else None
    if entry.keys() & OTHER_TOOLS:
        return ToolShape(LIKELY)
    return None


def _declaration(label: str, decl: Any) -> ToolDefinition | str:
    """A function declaration, its schema as JSON Schema; a warning when it is none."""
    if not isinstance(decl, dict):
        return f"{label}: not a function declaration ({json_kind(decl)})"
    key = next((k for k in JSON_SCHEMA if k in decl), None)
    if key is not None:
        schema = decl[key]
    elif isinstance(decl.get("parameters"), dict):
        schema = to_json_schema(decl["parameters"])
    else:
        schema = decl.get("parameters")
    return ToolDefinition(label, decl.get("name"), decl.get("description"), schema)
