"""Built-in demo tools a tool loop can run anywhere, and the registry that holds them.

=================  ==========================================================================
get_weather        fake, deterministic weather for a city (the tool loop's ``{output, title,
                   metadata}`` shape)
get_time           the current time in an IANA time zone (the shaped result too)
search_files       lines matching a text in files matching a glob, confined to
                   ``resources/sample-files`` (a plain JSON result)
sleep              waits ``seconds`` (capped) to make streaming-dispatch overlap visible
fail               always raises: shows a handler error fed back as a tool error
=================  ==========================================================================

Invariants:
- Nothing here runs a shell, writes a file, or reads outside the sample folder: a pattern with
  ``..``, an absolute path or a drive is refused, and every match is resolved and checked to
  lie inside the folder (symlinks cannot lead out).
- :meth:`ToolBox.call` is the only way a handler runs: it refuses unknown and disabled tools
  (:class:`UnknownTool`, :class:`ToolDisabled`), waits a "slow" tool's added delay first, and
  lets a handler's own exception through for the loop to turn into a tool error.
- Definitions are the neutral OpenAI chat shape scenarios use (``{"type": "function",
  "function": {...}}``); disabled tools are not offered.
"""

from __future__ import annotations

import asyncio
import fnmatch
import hashlib
import inspect
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath
from typing import Any, Final
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from inspector.core.base.resources import resource

SLEEP_CAP: Final = 10.0
"""The most ``sleep`` ever waits, whatever it is asked."""
MAX_MATCHES: Final = 20

Handler = Callable[[dict[str, Any]], Any | Awaitable[Any]]


class UnknownTool(LookupError):
    """The model called a tool the registry does not have."""


class ToolDisabled(LookupError):
    """The model called a tool the user disabled."""


@dataclass
class Tool:
    """One tool: its definition and its handler (sync or async, given the parsed arguments)."""

    name: str
    description: str
    parameters: dict[str, Any]
    """The arguments' JSON Schema."""
    handler: Handler
    slow: float = 0.0
    """Seconds added before the handler runs (the user marked the tool "slow")."""
    enabled: bool = True

    def definition(self) -> dict[str, Any]:
        """The neutral (OpenAI chat) tool definition."""
        return {"type": "function", "function": {"name": self.name,
                "description": self.description, "parameters": self.parameters}}  # fmt: skip


@dataclass
class ToolBox:
    """The tools a loop may run, by name, in definition order."""

    tools: dict[str, Tool] = field(default_factory=dict)

    @classmethod
    def builtin(cls, *, root: Path | None = None, sleep_cap: float = SLEEP_CAP) -> ToolBox:
        """The five built-in demo tools (see the module docstring); ``root``: the folder
        ``search_files`` is confined to (default: :func:`sample_files`)."""
        box = cls()
        for tool in _builtins(root if root is not None else sample_files(), sleep_cap):
            box.add(tool)
        return box

    def add(self, tool: Tool) -> None:
        """Add (or replace) a tool."""
        self.tools[tool.name] = tool

    def get(self, name: str) -> Tool | None:
        """The tool called ``name``, enabled or not."""
        return self.tools.get(name)

    def names(self) -> list[str]:
        """Every tool's name, in order."""
        return list(self.tools)

    def disable(self, name: str, disabled: bool = True) -> None:
        """Stop offering (and running) ``name``; KeyError when there is no such tool."""
        self.tools[name].enabled = not disabled

    def set_slow(self, name: str, seconds: float) -> None:
        """Add ``seconds`` before ``name``'s handler runs (0: not slow)."""
        if seconds < 0:
            raise ValueError("a delay cannot be negative")
        self.tools[name].slow = seconds

    def configure(self, options: Mapping[str, Any]) -> None:
        """Apply a scenario's ``loop`` options: ``{"disabled": [names], "slow": {name: s}}``;
        ValueError (one line, naming the known tools) for a tool that does not exist or a
        delay that is not a non-negative number."""
        try:
            for name in options.get("disabled") or []:
                self.disable(str(name))
            for name, seconds in dict(options.get("slow") or {}).items():
                self.set_slow(str(name), float(seconds))
        except KeyError as exc:
            raise ValueError(
                f"loop options name no tool {exc.args[0]!r} (known: {', '.join(self.tools)})"
            ) from None
        except TypeError as exc:
            raise ValueError(f"loop options are not understood: {exc}") from None

    def offered(self, definitions: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
        """A scenario's tool ``definitions`` minus those disabled here (a disabled tool is
        not offered to the model at all)."""
        off = {n for n, t in self.tools.items() if not t.enabled}
        return [d for d in definitions
                if (d.get("function") or d.get("custom") or {}).get("name") not in off]  # fmt: skip

    def definitions(self, names: Sequence[str] | None = None) -> list[dict[str, Any]]:
        """Definitions of the enabled tools (``names``: just those, in that order)."""
        chosen = [self.tools[n] for n in names] if names is not None else self.tools.values()
        return [t.definition() for t in chosen if t.enabled]

    async def call(self, name: str, arguments: dict[str, Any]) -> Any:
        """Run ``name`` with ``arguments`` (see the module docstring for what is refused)."""
        tool = self.tools.get(name)
        if tool is None:
            raise UnknownTool(f"no tool named {name!r} (known: {', '.join(self.tools) or 'none'})")
        if not tool.enabled:
            raise ToolDisabled(f"the tool {name!r} is disabled")
        if tool.slow > 0:
            await asyncio.sleep(tool.slow)
        value = tool.handler(arguments)
        if inspect.isawaitable(value):
            value = await value
        return value


# -- the built-in handlers -----------------------------------------------------------------

_CONDITIONS: Final = ("sunny", "partly cloudy", "overcast", "light rain", "windy", "foggy")


def weather(args: dict[str, Any]) -> dict[str, Any]:
    """Fake weather, the same for the same city every time."""
    city = str(args.get("city") or args.get("location") or "Paris")
    unit = "fahrenheit" if args.get("unit") == "fahrenheit" else "celsius"
    digest = hashlib.sha256(city.lower().encode()).digest()
    celsius = 5 + digest[0] % 25
    temperature = celsius if unit == "celsius" else round(celsius * 9 / 5 + 32)
    conditions = _CONDITIONS[digest[1] % len(_CONDITIONS)]
    sign = "°C" if unit == "celsius" else "°F"
    return {"output": f"{city}: {temperature} {sign}, {conditions}",
            "title": f"Weather in {city}",
            "metadata": {"city": city, "temperature": temperature, "unit": unit,
                         "conditions": conditions, "fake": True}}  # fmt: skip


def clock(args: dict[str, Any]) -> dict[str, Any]:
    """The current time in ``timezone`` (UTC when it is missing or unknown)."""
    name = str(args.get("timezone") or "UTC")
    try:
        zone: Any = ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        name, zone = "UTC", UTC
    now = datetime.now(zone)
    return {"output": now.isoformat(timespec="seconds"), "title": f"Time in {name}",
            "metadata": {"timezone": name, "utc_offset": now.strftime("%z")}}  # fmt: skip


def _safe_pattern(pattern: str) -> str:
    p = pattern.replace("\\", "/")
    if not p or p.startswith("/") or ":" in p or ".." in PurePosixPath(p).parts:
        raise ValueError(f"pattern {pattern!r} refused: it must stay inside the sample folder")
    return p


def search_files(root: Path, args: dict[str, Any]) -> list[dict[str, Any]]:
    """Lines containing ``query`` (any line when empty) in files under ``root`` matching
    ``pattern`` (a glob on the relative path or the file name)."""
    pattern = _safe_pattern(str(args.get("pattern") or "*"))
    query = str(args.get("query") or "").lower()
    base = root.resolve()
    out: list[dict[str, Any]] = []
    for path in sorted(base.rglob("*")):
        real = path.resolve()
        if not path.is_file() or not real.is_relative_to(base):
            continue
        rel = real.relative_to(base).as_posix()
        if not (fnmatch.fnmatch(rel, pattern) or fnmatch.fnmatch(path.name, pattern)):
            continue
        for n, line in enumerate(real.read_text("utf-8", "replace").splitlines(), 1):
            if query in line.lower():
                out.append({"path": rel, "line": n, "text": line.strip()})
                if len(out) >= MAX_MATCHES:
                    return out
    return out


async def sleep(cap: float, args: dict[str, Any]) -> dict[str, Any]:
    """Wait ``seconds`` (at most ``cap``)."""
    asked = args.get("seconds", 1)
    number = isinstance(asked, int | float) and not isinstance(asked, bool)
    seconds = float(asked) if number else 1.0
    slept = min(max(seconds, 0.0), cap)
    await asyncio.sleep(slept)
    return {"output": f"slept {slept:g} s", "title": "sleep",
            "metadata": {"requested": asked, "slept": slept}}  # fmt: skip


def fail(args: dict[str, Any]) -> Any:
    """Always raises (a handler error the loop must survive)."""
    raise RuntimeError(f"the fail tool always fails (reason: {args.get('reason', 'none')})")


def _builtins(root: Path, cap: float) -> Iterable[Tool]:
    obj = "object"
    yield Tool("get_weather", "Current weather for a city (fake data).",
               {"type": obj, "properties": {
                   "city": {"type": "string", "description": "City name, e.g. Paris"},
                   "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}},
                "required": ["city"]}, weather)  # fmt: skip
    yield Tool("get_time", "The current local time in an IANA time zone.",
               {"type": obj, "properties": {"timezone": {"type": "string",
                "description": "e.g. Europe/Paris"}}, "required": ["timezone"]},
               clock)  # fmt: skip
    yield Tool("search_files", "Search the sample notes: lines containing a text in files "
               "matching a glob.",
               {"type": obj, "properties": {
                   "pattern": {"type": "string", "description": "a glob, e.g. *.md"},
                   "query": {"type": "string", "description": "text to look for"}},
                "required": ["pattern"]},
               lambda args: search_files(root, args))  # fmt: skip
    yield Tool("sleep", f"Wait a number of seconds (at most {cap:g}).",
               {"type": obj, "properties": {"seconds": {"type": "number", "minimum": 0,
                "maximum": 60}}, "required": ["seconds"]},
               lambda args: sleep(cap, args))  # fmt: skip
    yield Tool(
        "fail",
        "A tool that always fails (to see a tool error fed back).",
        {"type": obj, "properties": {"reason": {"type": "string"}}},
        fail,
    )


def sample_files() -> Path:
    """The shipped folder the demo's file search is confined to (``resources/sample-files``)."""
    return resource("sample-files")


def scenario_options(name_or_path: str, folder: Path | None = None) -> dict[str, Any]:
    """A scenario file's ``loop`` options (``{"disabled": [...], "slow": {...}}``), or {}.

    The scenario loader ignores the key, so a scenario stays a plain request everywhere else.
    """
    import orjson

    path = Path(name_or_path)
    if name_or_path.endswith(".json") or path.is_file():
        candidates = [path]
    else:
        candidates = sorted((folder or resource("scenarios")).glob("*.json"))
    for candidate in candidates:
        try:
            obj = orjson.loads(candidate.read_bytes())
        except (OSError, orjson.JSONDecodeError):
            continue
        if not isinstance(obj, dict):
            continue
        if candidate is path or (obj.get("name") or candidate.stem) == name_or_path:
            options = obj.get("loop")
            return dict(options) if isinstance(options, dict) else {}
    return {}
