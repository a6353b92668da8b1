"""Tool definitions in any provider's shape, with one cached JSON Schema validator per tool.

Accepted input (see :meth:`ToolRegistry.from_definitions`): a list of tools in any of the four
shapes below (mixed lists are fine), a whole request body whose ``tools`` is used, Gemini's
``[{"functionDeclarations": [...]}]``, or nothing at all.

==================  =========================================================================
shape               wire form
==================  =========================================================================
openai-chat         ``{"type": "function", "function": {"name", "description", "parameters"}}``
openai-responses    ``{"type": "function", "name", "description", "parameters", "strict"}``
anthropic           ``{"name", "description", "input_schema"}``
gemini              ``{"functionDeclarations": [{"name", "description", "parameters" |
                    "parametersJsonSchema"}]}`` (a bare declaration is accepted too)
==================  =========================================================================

Invariants:
- Building a registry never raises: an entry that is not a tool definition, or a schema that
  is not valid JSON Schema, becomes a line in :attr:`ToolRegistry.warnings`. A tool whose
  schema is invalid keeps ``schema_error`` set, has no ``required`` names and no validator, so
  it can never fail a call on schema grounds.
- Non-function tools (``{"type": "web_search"}``, Gemini ``googleSearch`` …) are skipped
  silently. Anthropic's date-versioned built-in tools (``{"type": "bash_20250124", "name":
  "bash"}``) are kept as schema-less tools, because the model does call them by name.
- Gemini's OpenAPI-style ``parameters`` are converted to JSON Schema (``"OBJECT"`` →
  ``"object"``, ``nullable`` → a ``"null"`` type); :attr:`ToolSpec.schema` holds the converted
  schema, the one calls are validated against.
- Schemas are checked with :mod:`inspector.core.verdicts.schemas`: the validator class comes from
  ``$schema`` (else Draft 2020-12) and ``$ref`` is resolved offline only, so a reference to
  another document is a schema error. Each tool's validator is built once, on first use, and
  cached.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from os import PathLike
from pathlib import Path
from typing import Any, Final

import orjson
from jsonschema.protocols import Validator

from inspector.core.base.errors import InspectorError
from inspector.core.verdicts.schemas import DEFAULT_VALIDATOR as DEFAULT_VALIDATOR
from inspector.core.verdicts.schemas import _build_validator, json_kind, one_line
from inspector.core.verdicts.schemas import gemini_to_json_schema as gemini_to_json_schema
from inspector.core.verdicts.schemas import schema_problem as schema_problem
from inspector.core.verdicts.schemas import validator_class as validator_class

OPENAI_CHAT: Final = "openai-chat"
OPENAI_RESPONSES: Final = "openai-responses"
ANTHROPIC: Final = "anthropic"
GEMINI: Final = "gemini"

_GEMINI_DECLS: Final = ("functionDeclarations", "function_declarations")
_GEMINI_JSON_SCHEMA: Final = ("parametersJsonSchema", "parameters_json_schema")
_GEMINI_OTHER_TOOLS: Final = frozenset(
    {
        "googleSearch", "google_search", "googleSearchRetrieval", "google_search_retrieval",
        "codeExecution", "code_execution", "urlContext", "url_context", "computerUse",
        "computer_use", "fileSearch", "file_search", "googleMaps", "google_maps", "retrieval",
        "enterpriseWebSearch", "enterprise_web_search",
    }
)  # fmt: skip
"""Keys of Gemini tool entries that are not function declarations (skipped silently)."""


class ToolsError(InspectorError):
    """Tool definitions could not be loaded at all (unreadable file, not JSON, wrong shape)."""


@dataclass(frozen=True)
class ToolSpec:
    """One tool as the provider was told about it, reduced to what validation needs."""

    name: str
    """The function name calls must use."""
    description: str | None
    """The tool's description, None when it has none (or it is not a string)."""
    schema: dict[str, Any] | None = field(hash=False)
    """The parameters JSON Schema (Gemini's OpenAPI form already converted), or None when the
    tool declares no parameters."""
    shape: str
    """Which definition shape it came in: openai-chat, openai-responses, anthropic, gemini."""
    schema_error: str | None = None
    """Why the schema is not usable (one readable line), or None when it is."""
    required: tuple[str, ...] = ()
    """Top-level required property names; empty when there are none or the schema is invalid."""


def make_spec(name: str, description: Any, schema: Any, shape: str) -> tuple[ToolSpec, list[str]]:
    """Build a :class:`ToolSpec`, checking its schema; returns the spec and any warnings.

    ``schema`` is the parameters value exactly as found (already converted for Gemini); a value
    that is neither None nor a JSON object is a schema error.
    """
    warnings: list[str] = []
    desc = description if isinstance(description, str) else None
    if schema is None:
        return ToolSpec(name, desc, None, shape), warnings
    if not isinstance(schema, dict):
        not_object = f"parameters must be a JSON object, not {json_kind(schema)}"
        warnings.append(_skipped(name, not_object))
        return ToolSpec(name, desc, None, shape, schema_error=not_object), warnings
    cls, unknown_dialect = validator_class(schema)
    if unknown_dialect:
        warnings.append(
            f"tool {name!r}: unknown $schema {one_line(repr(schema['$schema']))}; "
            "validating it as Draft 2020-12"
        )
    error = schema_problem(schema, cls)
    if error is not None:
        warnings.append(_skipped(name, error))
        return ToolSpec(name, desc, schema, shape, schema_error=error), warnings
    req = schema.get("required")
    required = tuple(r for r in req if isinstance(r, str)) if isinstance(req, list) else ()
    return ToolSpec(name, desc, schema, shape, required=required), warnings


class ToolRegistry:
    """The tools of one request, by name, with their warnings and cached validators."""

    def __init__(self, specs: Iterable[ToolSpec] = (), warnings: Iterable[str] = ()) -> None:
        self._specs: dict[str, ToolSpec] = {}
        self.warnings: list[str] = list(warnings)
        """Readable lines about definitions that were skipped or cannot be validated against."""
        self._validators: dict[str, Validator] = {}
        for spec in specs:
            if spec.name in self._specs:
                self.warnings.append(
                    f"tool {spec.name!r} is defined more than once; the first definition is used"
                )
                continue
            self._specs[spec.name] = spec

    @classmethod
    def from_definitions(cls, obj: Any) -> ToolRegistry:
        """A registry from tool definitions in any shape (see the module docstring).

        Never raises: anything unrecognised becomes a warning.
        """
        specs: list[ToolSpec] = []
        warnings: list[str] = []
        for label, entry, default_shape in _entries(obj, warnings):
            _parse_entry(label, entry, default_shape, specs, warnings)
        return cls(specs, warnings)

    @classmethod
    def from_file(cls, path: str | PathLike[str]) -> ToolRegistry:
        """A registry from a JSON file; raises :class:`ToolsError` (one line) when unusable."""
        where = str(path)
        try:
            raw = Path(path).read_bytes()
        except OSError as exc:
            raise ToolsError(
                f"cannot read tools file {where}: {exc.strerror or type(exc).__name__}"
            ) from exc
        if raw.startswith(b"\xef\xbb\xbf"):
            raw = raw[3:]
        try:
            data = orjson.loads(raw)
        except orjson.JSONDecodeError as exc:
            raise ToolsError(f"tools file {where} is not valid JSON: {one_line(str(exc))}") from exc
        if not isinstance(data, list | dict):
            raise ToolsError(
                f"tools file {where} holds {json_kind(data)}; expected a list of tool "
                "definitions or a request body with 'tools'"
            )
        return cls.from_definitions(data)

    def get(self, name: str) -> ToolSpec | None:
        """The tool called ``name``, or None."""
        return self._specs.get(name)

    def names(self) -> tuple[str, ...]:
        """Tool names in definition order."""
        return tuple(self._specs)

    def validator(self, name: str) -> Validator | None:
        """The tool's JSON Schema validator, built on first use and cached.

        None for an unknown tool, a tool without parameters, or one whose schema is invalid.
        """
        cached = self._validators.get(name)
        if cached is not None:
            return cached
        spec = self._specs.get(name)
        if spec is None or spec.schema is None or spec.schema_error is not None:
            return None
        built = _build_validator(spec.schema)
        self._validators[name] = built
        return built

    def __len__(self) -> int:
        return len(self._specs)

    def __iter__(self) -> Iterator[ToolSpec]:
        return iter(list(self._specs.values()))

    def __contains__(self, name: object) -> bool:
        return name in self._specs

    def __repr__(self) -> str:
        return f"ToolRegistry({list(self._specs)!r}, warnings={len(self.warnings)})"


# --- parsing ------------------------------------------------------------------------------


def _entries(obj: Any, warnings: list[str]) -> list[tuple[str, Any, str | None]]:
    """(label, entry, default shape) for every candidate tool entry in ``obj``."""
    if obj is None:
        return []
    if isinstance(obj, list):
        return [(f"tools[{i}]", e, None) for i, e in enumerate(obj)]
    if isinstance(obj, dict):
        if "tools" in obj or "functions" in obj:
            out: list[tuple[str, Any, str | None]] = []
            tools = obj.get("tools")
            if isinstance(tools, list):
                out += [(f"tools[{i}]", e, None) for i, e in enumerate(tools)]
            elif tools is not None:
                warnings.append(f"tools: expected a list, got {json_kind(tools)}")
            functions = obj.get("functions")  # OpenAI Chat's legacy function calling
            if isinstance(functions, list):
                out += [(f"functions[{i}]", e, OPENAI_CHAT) for i, e in enumerate(functions)]
            elif functions is not None:
                warnings.append(f"functions: expected a list, got {json_kind(functions)}")
            return out
        if _is_tool_like(obj):
            return [("tools[0]", obj, None)]
        if not obj or obj.keys() & {"model", "messages", "input", "contents", "system"}:
            return []  # a request body without tools: no tools, nothing to warn about
        warnings.append("not a list of tool definitions or a request body with 'tools'")
        return []
    warnings.append(f"tool definitions must be a list or an object, not {json_kind(obj)}")
    return []


def _is_tool_like(obj: dict[str, Any]) -> bool:
    return (
        "type" in obj
        or "name" in obj
        or "function" in obj
        or any(k in obj for k in _GEMINI_DECLS)
        or bool(obj.keys() & _GEMINI_OTHER_TOOLS)
    )


def _parse_entry(
    label: str,
    entry: Any,
    default_shape: str | None,
    specs: list[ToolSpec],
    warnings: list[str],
) -> None:
    if not isinstance(entry, dict):
        warnings.append(f"{label}: not a tool definition ({json_kind(entry)})")
        return
    decl_key = next((k for k in _GEMINI_DECLS if k in entry), None)
    if decl_key is not None:
        decls = entry[decl_key]
        if not isinstance(decls, list):
            warnings.append(f"{label}.{decl_key}: expected a list, got {json_kind(decls)}")
            return
        for j, decl in enumerate(decls):
            _parse_declaration(f"{label}.{decl_key}[{j}]", decl, GEMINI, specs, warnings)
        return
    kind = entry.get("type")
    if kind == "function":
        fn = entry.get("function")
        if isinstance(fn, dict):
            _add(label, fn.get("name"), fn.get("description"), fn.get("parameters"),
                 OPENAI_CHAT, specs, warnings)  # fmt: skip
        elif "name" in entry:
            _add(label, entry.get("name"), entry.get("description"), entry.get("parameters"),
                 OPENAI_RESPONSES, specs, warnings)  # fmt: skip
        else:
            warnings.append(f"{label}: function tool without a name")
        return
    if "input_schema" in entry and (kind is None or kind == "custom"):
        _add(label, entry.get("name"), entry.get("description"), entry.get("input_schema"),
             ANTHROPIC, specs, warnings)  # fmt: skip
        return
    if isinstance(kind, str):
        name = entry.get("name")
        if isinstance(name, str) and name and _is_anthropic_builtin(kind):
            specs.append(ToolSpec(name, None, None, ANTHROPIC))
        return  # a non-function tool (web search, code interpreter, MCP …): skipped silently
    if kind is None and "name" in entry:
        _parse_declaration(label, entry, default_shape or GEMINI, specs, warnings)
        return
    if kind is None and entry.keys() & _GEMINI_OTHER_TOOLS:
        return  # Gemini's built-in tools
    warnings.append(f"{label}: not a tool definition")


def _parse_declaration(
    label: str, decl: Any, shape: str, specs: list[ToolSpec], warnings: list[str]
) -> None:
    """A bare function declaration: Gemini's, or OpenAI Chat's legacy ``functions`` entry."""
    if not isinstance(decl, dict):
        warnings.append(f"{label}: not a function declaration ({json_kind(decl)})")
        return
    json_key = next((k for k in _GEMINI_JSON_SCHEMA if k in decl), None)
    if json_key is not None:
        schema = decl[json_key]
    elif shape == GEMINI and isinstance(decl.get("parameters"), dict):
        schema = gemini_to_json_schema(decl["parameters"])
    else:
        schema = decl.get("parameters")
    _add(label, decl.get("name"), decl.get("description"), schema, shape, specs, warnings)


def _add(
    label: str,
    name: Any,
    description: Any,
    schema: Any,
    shape: str,
    specs: list[ToolSpec],
    warnings: list[str],
) -> None:
    if not isinstance(name, str) or not name:
        warnings.append(f"{label}: tool without a name")
        return
    spec, more = make_spec(name, description, schema, shape)
    specs.append(spec)
    warnings.extend(more)


def _is_anthropic_builtin(kind: str) -> bool:
    """Anthropic's versioned client tools: ``bash_20250124``, ``text_editor_20250728`` …"""
    head, _, date = kind.rpartition("_")
    return bool(head) and len(date) == 8 and date.isdigit()


# --- small helpers ------------------------------------------------------------------------


def _skipped(name: str, error: str) -> str:
    return f"tool {name!r}: schema is not valid JSON Schema ({error}); validation is skipped for it"
