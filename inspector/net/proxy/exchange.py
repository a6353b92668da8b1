"""One request through the proxy, as it is listed, and the session that records an LLM one.

An :class:`Exchange` is what the proxy's list shows (the CLI's lines, the window's session
list): method, path, model, status, size, dialect and, for an LLM exchange, its
:class:`ProxySession`, whose Analysis is judged like any live session's (views, reports and
the client replicas read it the same way). Nothing here holds a credential: the path is
listed with its secrets redacted and the session records only redacted copies.

Invariants:
- An exchange is ``ended`` once the agent has had its last byte (or was cut off) and its
  recording has closed and its clients were judged (in a worker thread); its ``status`` is
  the upstream's (502 when the proxy answered for an upstream that did not).
- The verdict is a word of :mod:`inspector.core.reports.words` (the final attempt's), shown
  with :func:`~inspector.core.reports.words.label`; a forwarded-only request has none.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field

from inspector.core.analysis.continuation import StreamPosition
from inspector.core.analysis.rounds import AGENT_LEFT, ToolEvent
from inspector.core.analysis.session import Analysis, AttemptView
from inspector.core.capture.redaction import mask_secrets
from inspector.core.reports import words
from inspector.core.reports.clients import clients_verdict

from ..errors import one_line
from ..runner import SessionRunner
from .relay import AgentLeft, Ending

NOTE_CHARS = 160
"""A note is clipped to this many characters in a listed line (its whole text stays)."""


class ProxySession(SessionRunner):
    """An LLM request the agent sent through the proxy: a plain one-round session whose
    bytes come from the upstream through the relay (never retried: the agent decides).

    Its capture is closed (flushed and synced to disk) in a worker thread: an fsync takes
    milliseconds to tens of them, and on the loop it would hold up every other stream the
    proxy relays. Nothing else writes to the capture by then: the session has ended."""

    task_name = "toolcall-inspector proxied session"
    chunks = 0
    """Chunks of the body fed so far (where an ``agent_left`` event is placed)."""

    def chunk_fed(self, view: AttemptView, data: bytes, t: float) -> None:
        self.chunks += 1

    def complete(self) -> bool:
        """Was the provider's end marker (or final finish) read? (:attr:`StreamState.complete`)"""
        attempts = self.analysis.attempts
        return bool(attempts) and attempts[-1].state.complete

    def agent_left(self, marker: AgentLeft) -> None:
        """The agent hung up here: record an ``agent_left`` event at this point of the body
        (what follows was drained for the recording only), then show it to the Analysis."""
        attempts = self.analysis.attempts
        if not attempts:
            return
        view = attempts[-1]
        t = self.clock() - self.started_at
        pos = StreamPosition(t, self.chunks, len(view.state.events), view.state.ended)
        data = {"relayed": marker.relayed, "position": pos.to_json()}
        if self.writer is not None:
            self.writer.event(view.number, t, AGENT_LEFT, data)
        if view.source is not None:
            view.source.events.append({"type": "event", "attempt": view.number, "t": t,
                                       "kind": AGENT_LEFT, "data": data})  # fmt: skip
        self.analysis.add_event(ToolEvent(AGENT_LEFT, view.number, t, data))
        self.notify()

    async def finishing(self) -> None:
        """Close the capture in a worker thread (the runner's own close then does nothing)."""
        if self.writer is not None and not self.writer.closed:
            await asyncio.to_thread(self.writer.close)


@dataclass(eq=False)
class Exchange:
    """One request through the proxy (see the module docstring)."""

    number: int
    """1-based, in arrival order, per proxy."""
    method: str
    path: str
    """Path and query as the agent sent them, credentials redacted."""
    dialect: str | None = None
    """The provider whose endpoint this is; None for a request that is only forwarded."""
    model: str | None = None
    started: float = field(default_factory=time.time)
    """Wall-clock time of arrival."""
    status: int | None = None
    size: int = 0
    """Response body bytes relayed to the agent."""
    ending: Ending = Ending.OPEN
    drained: int = 0
    """Body bytes read from the upstream after the agent left (recorded, never sent)."""
    ended: bool = False
    session: ProxySession | None = None
    """The recording session of an LLM exchange (None while forwarding only)."""
    secrets: tuple[str, ...] = field(default=(), repr=False)
    """The request's credentials: masked in the model, the note and the line."""
    _breaks: list[str] | None = field(default=None, init=False, repr=False)
    _note: str | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        if self.model is not None:
            self.model = mask_secrets(self.model, self.secrets)

    @property
    def note(self) -> str | None:
        """Why the exchange went wrong, in one line (no answer, cut off, not recorded), or
        None; credentials masked (it may quote an upstream that echoed the key)."""
        return self._note

    @note.setter
    def note(self, text: str | None) -> None:
        self._note = None if text is None else mask_secrets(text, self.secrets)

    @property
    def recorded(self) -> bool:
        """Is this an LLM exchange with a recording session?"""
        return self.session is not None

    @property
    def analysis(self) -> Analysis | None:
        """The session's Analysis, fed as the body arrives."""
        return self.session.analysis if self.session is not None else None

    @property
    def capture_path(self) -> str | None:
        """The capture file, once the session has one on disk."""
        session = self.session
        if session is None or session.capture_path is None or not session.capture_path.exists():
            return None
        return str(session.capture_path)

    @property
    def calls(self) -> int | None:
        """Tool calls of the final attempt (orphans left out); None when not judged."""
        a = self.analysis
        if a is None or not a.attempts:
            return None
        return sum(1 for v in a.attempts[-1].verdicts if not v.orphan)

    @property
    def verdict(self) -> str | None:
        """The final attempt's word (``streaming`` while its body arrives), or None."""
        a = self.analysis
        if a is None or not a.attempts:
            return "streaming" if self.recorded and not self.ended else None
        view = a.attempts[-1]
        records = a.records
        record = records[-1] if records else None
        return words.attempt_word(view, record, a.capture)

    @property
    def breaks(self) -> list[str]:
        """Once the exchange has ended: the client replicas its stream breaks, each as
        ``name (word)``; [] while it streams, for a forwarded request, or when every client
        gets the inspector's calls. Never computed here: the proxy judges the clients in a
        worker thread (:meth:`judge_clients`) before it says the exchange has ended, so that
        reading a line never runs a replica on the thread that serves agents."""
        return self._breaks or [] if self.ended else []

    def judge_clients(self) -> None:
        """Run the client replicas over the finished stream (milliseconds to seconds: a
        replica costs tens of microseconds per event); called once, off the event loop, when
        nothing feeds the Analysis any more."""
        a = self.analysis
        if a is None or not a.attempts or self._breaks is not None:
            return
        verdict = clients_verdict(a)
        self._breaks = [f"{name} ({verdict.words[name]})" for name in verdict.broken]

    def line(self) -> str:
        """The CLI's line: time, method, path, model, status, then calls and verdict for an
        LLM exchange or the size for another; the note, when there is one."""
        clock = time.strftime("%H:%M:%S", time.localtime(self.started))
        status = str(self.status) if self.status is not None else "---"
        parts = [clock, self.method, self.path, self.model or "-", status]
        if self.recorded:
            calls = self.calls
            parts.append(f"{calls if calls is not None else 0} call{'' if calls == 1 else 's'}")
            verdict = self.verdict
            parts.append(words.label(verdict) if verdict else "-")
            breaks = self.breaks
            if breaks:
                count = f"{len(breaks)} client{'s' if len(breaks) != 1 else ''}"
                parts.append(f"✗ breaks {count}: {', '.join(breaks)}")
        else:
            parts.append(human_size(self.size))
        line = "  ".join(parts)
        line = f"{line}  ({one_line(self.note, NOTE_CHARS)})" if self.note else line
        return mask_secrets(line, self.secrets)


def human_size(size: int) -> str:
    """``812 B``, ``14.2 KiB``, ``3.1 MiB``."""
    if size < 1024:
        return f"{size} B"
    if size < 1024 * 1024:
        return f"{size / 1024:.1f} KiB"
    return f"{size / (1024 * 1024):.1f} MiB"
