"""The public Python API: open a capture, HAR or body; analyze it under settings; read its
calls, verdicts, quirks and what each client library makes of it; serve it as a provider.

Everything a script or a test needs is here; the names below are stable (``tests/test_api.py``
holds them, ``docs/api.md`` documents them). It sits above ``inspector.core`` and
``inspector.net`` (import-linter's "api above core and net" contract): nothing under them
imports it.

Invariants:
- Reading never changes the capture: :func:`analyze` under other settings gives another
  :class:`Result` over the same bytes.
- :func:`serve` and :func:`serve_async` leave nothing behind when their block ends (the
  listener, every connection and, for :func:`serve`, its thread are gone).
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from inspector.core.analysis.session import Analysis
from inspector.core.base.settings import AUTO, DEFAULT_EMPTY_ID, DEFAULT_MODE, Settings
from inspector.core.capture.reader import load as _load_file
from inspector.core.capture.reader import load_bytes
from inspector.core.capture.records import Capture
from inspector.core.providers import REGISTRY
from inspector.core.quirks.detect import Quirk
from inspector.core.reports.clients import ClientsVerdict, clients_verdict
from inspector.core.reports.exitcodes import session_status
from inspector.core.reports.gate import header_settings
from inspector.core.verdicts.judge import CallVerdict
from inspector.core.verdicts.tools import ToolRegistry
from inspector.net.serve.plan import Speed
from inspector.net.serve.server import CaptureServer

__all__ = [
    "Call",
    "Capture",
    "CaptureServer",
    "ClientsVerdict",
    "Result",
    "analyze",
    "load",
    "load_body",
    "serve",
    "serve_async",
]

Source = Capture | str | os.PathLike[str]


def load(path: str | os.PathLike[str], *, entry: int | None = None) -> Capture:
    """A capture (``.jsonl``), a raw response body, or one LLM session of a HAR (``entry``:
    the HAR entry it starts at; default the first). Raises ``InspectorError`` (one line)."""
    from inspector.core.replay.harsessions import is_har_file, load_sessions

    if is_har_file(path):
        sessions = load_sessions(path)
        if not sessions.sessions:
            from inspector.core.capture.format import CaptureError

            raise CaptureError(sessions.none_reason(), path=str(path))
        chosen = sessions.pick(entry) if entry is not None else sessions.sessions[0]
        return chosen.capture
    if entry is not None:
        from inspector.core.base.errors import InspectorError

        raise InspectorError(f"{path}: entry picks a session of a HAR file; this is none")
    return _load_file(path)


def load_body(data: bytes, name: str = "<bytes>") -> Capture:
    """A capture from bytes: a capture file's text or a raw response body."""
    return load_bytes(data, name)


@dataclass(frozen=True)
class Call:
    """One tool call of the final attempt as the inspector assembled it, judged."""

    index: Any
    id: Any
    """As received: a string, or None/"" when the stream gave none."""
    name: Any
    arguments: str
    kind: str
    """The call's :class:`~inspector.core.base.kinds.CallKind` value (function, custom …)."""
    problems: tuple[str, ...]
    """Problem codes (``invalid_json``, ``schema_violation`` …); empty when valid."""

    @property
    def valid(self) -> bool:
        return not self.problems


@dataclass
class Result:
    """A capture analyzed under settings. ``analysis`` is the core's whole judgement, for
    what this summary does not say."""

    capture: Capture
    analysis: Analysis
    settings: Settings
    _clients: list[ClientsVerdict] = field(default_factory=list, repr=False)

    @property
    def dialect(self) -> str | None:
        return self.analysis.dialect

    @property
    def verdicts(self) -> list[CallVerdict]:
        """The final attempt's verdicts, in call order."""
        return list(self.analysis.final.verdicts)

    @cached_property
    def calls(self) -> list[Call]:
        """The final attempt's calls (id-only orphans left out, as the assistant turn does)."""
        return [
            Call(
                v.call.index,
                v.call.id,
                v.call.name,
                v.call.arguments,
                str(v.call.kind),
                tuple(p.code for p in v.problems),
            )
            for v in self.verdicts
            if not v.orphan
        ]

    @property
    def quirks(self) -> list[Quirk]:
        """Every attempt's quirks, attempt by attempt."""
        return [q for r in self.analysis.rounds for view in r.attempts for q in view.quirks]

    @property
    def quirk_codes(self) -> list[str]:
        """The distinct quirk codes, in order of first sight."""
        return list(dict.fromkeys(q.code for q in self.quirks))

    @property
    def clients(self) -> ClientsVerdict:
        """What each client library's replica makes of the session (run once, on first read)."""
        if not self._clients:
            self._clients.append(clients_verdict(self.analysis))
        return self._clients[0]

    @property
    def exit_code(self) -> int:
        """What ``toolcall-inspector analyze`` would exit with (0 fine, 1 a failure)."""
        return session_status(self.analysis).code


def analyze(
    source: Source,
    *,
    dialect: str = AUTO,
    validation: str = DEFAULT_MODE,
    empty_id: str = DEFAULT_EMPTY_ID,
    tools: str | os.PathLike[str] | Sequence[Any] | None = None,
    entry: int | None = None,
) -> Result:
    """Analyze a capture (or a path :func:`load` reads) under settings, as ``analyze`` does:
    the capture's header settings apply where these are left at their defaults. ``tools``: a
    file or a list of definitions (any provider's shape)."""
    capture = source if isinstance(source, Capture) else load(source, entry=entry)
    settings = Settings.from_strings(
        dialect=dialect, validation=validation, empty_id=empty_id, providers=REGISTRY
    )
    settings = header_settings(capture, settings, REGISTRY)
    registry = None
    if isinstance(tools, (str, os.PathLike)):
        registry = ToolRegistry.from_file(os.fspath(tools), REGISTRY)
    elif tools is not None:
        registry = ToolRegistry.from_definitions(list(tools), REGISTRY)
    analysis = Analysis.from_capture(capture, settings, registry, providers=REGISTRY)
    return Result(capture, analysis, settings)


@asynccontextmanager
async def serve_async(
    capture: Source, *, speed: Speed = None, host: str = "127.0.0.1", port: int = 0
) -> AsyncIterator[CaptureServer]:
    """Serve ``capture`` on the running loop for the block: ``server.url`` is its base URL;
    ``speed`` None sends without waiting, 1.0 at the recorded pace."""
    server = CaptureServer(_capture(capture), speed=speed, host=host, port=port)
    await server.start()
    try:
        yield server
    finally:
        await server.stop()


@contextmanager
def serve(
    capture: Source, *, speed: Speed = None, host: str = "127.0.0.1", port: int = 0
) -> Iterator[CaptureServer]:
    """As :func:`serve_async`, on a loop of its own in a thread: for synchronous code (a
    plain test, a script). The thread is joined when the block ends."""
    server = CaptureServer(_capture(capture), speed=speed, host=host, port=port)
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, name="inspector-serve", daemon=True)
    thread.start()
    try:
        asyncio.run_coroutine_threadsafe(server.start(), loop).result()
        yield server
    finally:
        try:
            asyncio.run_coroutine_threadsafe(server.stop(), loop).result()
        finally:
            loop.call_soon_threadsafe(loop.stop)
            thread.join()
            loop.close()


def _capture(source: Source) -> Capture:
    return source if isinstance(source, Capture) else load(source)
