"""Tool definitions in any provider's shape, with one cached JSON Schema validator per tool.

Accepted input (see :meth:`ToolRegistry.from_definitions`): a list of tools in any provider's
shape (mixed lists are fine), a whole request body whose ``tools`` (and legacy ``functions``)
are used, one tool object, or nothing at all. Which shape an entry is in, and what it
declares, each provider of the lookup handed in says for its own
(:meth:`~inspector.core.base.provider.Provider.tool_shape`); this module names none. The rule
is the sniffer's: the one provider that proves the entry is its, else the only one that finds
it likely; an entry several providers claim alike is skipped with a warning.

Invariants:
- Building a registry never raises: an entry that is not a tool definition, or a schema that
  is not valid JSON Schema, becomes a line in :attr:`ToolRegistry.warnings`. A tool whose
  schema is invalid keeps ``schema_error`` set, has no ``required`` names and no validator, so
  it can never fail a call on schema grounds.
- Non-function tools (``{"type": "web_search"}``, Gemini ``googleSearch`` …) are skipped
  silently: a typed entry no provider reads, or one a provider reads as nothing. A tool a
  provider reads without a schema (Anthropic's built-in ``bash_20250124``) is kept, because
  the model does call it by name.
- A provider's own schema form is converted to JSON Schema by that provider (Gemini's
  OpenAPI ``parameters``); :attr:`ToolSpec.schema` holds the converted schema, the one calls
  are validated against.
- Schemas are checked with :mod:`inspector.core.verdicts.schemas`: the validator class comes from
  ``$schema`` (else Draft 2020-12) and ``$ref`` is resolved offline only, so a reference to
  another document is a schema error. Each tool's validator is built once, on first use, and
  cached.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from os import PathLike
from pathlib import Path
from typing import Any, Final

import orjson
from jsonschema.protocols import Validator

from inspector.core.base.errors import InspectorError
from inspector.core.base.provider import LIKELY, PROVES, Providers, ToolShape
from inspector.core.verdicts.schemas import DEFAULT_VALIDATOR as DEFAULT_VALIDATOR
from inspector.core.verdicts.schemas import _build_validator, json_kind, one_line
from inspector.core.verdicts.schemas import schema_problem as schema_problem
from inspector.core.verdicts.schemas import validator_class as validator_class

_LISTS: Final = ("tools", "functions")
"""The keys of a request body that list tool definitions (``functions``: OpenAI's legacy)."""
_BODY_KEYS: Final = frozenset({"model", "messages", "input", "contents", "system"})
"""Keys that make an object a request body (one without tools says nothing about tools)."""


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
    """Which definition shape it came in: the name of the provider that read it."""
    schema_error: str | None = None
    """Why the schema is not usable (one readable line), or None when it is."""
    required: tuple[str, ...] = ()
    """Top-level required property names; empty when there are none or the schema is invalid."""
    format: Any = field(default=None, hash=False)
    """A custom tool's declared input format (its input is then never JSON); None for a
    function tool."""


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
            first = self._specs.get(spec.name)
            if first is not None:
                if (first.schema, first.format) != (spec.schema, spec.format):
                    self.warnings.append(f"tool {spec.name!r} is defined more than once; the "
                                         "first definition is used")  # fmt: skip
                continue  # the same definition restated (a Responses namespace lists it too)
            self._specs[spec.name] = spec

    @classmethod
    def from_definitions(cls, obj: Any, providers: Providers) -> ToolRegistry:
        """A registry from tool definitions in the shapes of ``providers`` (see the module
        docstring).

        Never raises: anything unrecognised becomes a warning.
        """
        specs: list[ToolSpec] = []
        warnings: list[str] = []
        for label, entry, listed_as in _entries(obj, warnings, providers):
            _parse_entry(label, entry, listed_as, providers, specs, warnings)
        return cls(specs, warnings)

    @classmethod
    def from_file(cls, path: str | PathLike[str], providers: Providers) -> ToolRegistry:
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
        return cls.from_definitions(data, providers)

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


def _entries(obj: Any, warnings: list[str], providers: Providers) -> list[tuple[str, Any, str]]:
    """(label, entry, the body's list it sits in, "" for none) for every candidate tool entry
    in ``obj``."""
    if obj is None:
        return []
    if isinstance(obj, list):
        return [(f"tools[{i}]", e, "") for i, e in enumerate(obj)]
    if isinstance(obj, dict):
        if obj.keys() & set(_LISTS):
            out: list[tuple[str, Any, str]] = []
            for key in _LISTS:
                listed = obj.get(key)
                if isinstance(listed, list):
                    out += [(f"{key}[{i}]", e, key) for i, e in enumerate(listed)]
                elif listed is not None:
                    warnings.append(f"{key}: expected a list, got {json_kind(listed)}")
            return out
        if _is_tool_like(obj, providers):
            return [("tools[0]", obj, "")]
        if not obj or obj.keys() & _BODY_KEYS:
            return []  # a request body without tools: no tools, nothing to warn about
        warnings.append("not a list of tool definitions or a request body with 'tools'")
        return []
    warnings.append(f"tool definitions must be a list or an object, not {json_kind(obj)}")
    return []


def _is_tool_like(obj: dict[str, Any], providers: Providers) -> bool:
    """One tool object rather than a body: typed, named, or read by some provider."""
    keyed = "type" in obj or "name" in obj or "function" in obj
    return keyed or bool(_claims(obj, "tools[0]", "", providers))


def _claims(
    entry: dict[str, Any], label: str, listed_as: str, providers: Providers
) -> list[tuple[str, ToolShape]]:
    """(provider name, what it reads) for each provider whose shape ``entry`` may be in."""
    out = []
    for name in providers.names():
        shape = providers.get(name).tool_shape(entry, label, listed_as)
        if shape is not None:
            out.append((name, shape))
    return out


def _parse_entry(
    label: str,
    entry: Any,
    listed_as: str,
    providers: Providers,
    specs: list[ToolSpec],
    warnings: list[str],
) -> None:
    if not isinstance(entry, dict):
        warnings.append(f"{label}: not a tool definition ({json_kind(entry)})")
        return
    read = _claims(entry, label, listed_as, providers)
    proving = [r for r in read if r[1].recognition == PROVES]
    chosen = proving or [r for r in read if r[1].recognition == LIKELY]
    if len(chosen) == 1:
        name, shape = chosen[0]
        for found in shape.found:
            if isinstance(found, str):
                warnings.append(found)
            else:
                _add(found.label, found.name, found.description, found.schema, name, specs,
                     warnings, found.format)  # fmt: skip
    elif chosen:
        names = ", ".join(n for n, _ in chosen)
        warnings.append(f"{label}: a tool definition in more than one shape ({names}); skipped")
    elif not isinstance(entry.get("type"), str):
        warnings.append(f"{label}: not a tool definition")
    # else a typed tool no provider reads (web search, code interpreter, MCP …): skipped


def _add(
    label: str,
    name: Any,
    description: Any,
    schema: Any,
    shape: str,
    specs: list[ToolSpec],
    warnings: list[str],
    format: Any = None,
) -> None:
    if not isinstance(name, str) or not name:
        warnings.append(f"{label}: tool without a name")
        return
    spec, more = make_spec(name, description, schema, shape)
    if format is not None:
        spec = replace(spec, format=format)
    specs.append(spec)
    warnings.extend(more)


# --- small helpers ------------------------------------------------------------------------


def _skipped(name: str, error: str) -> str:
    return f"tool {name!r}: schema is not valid JSON Schema ({error}); validation is skipped for it"
