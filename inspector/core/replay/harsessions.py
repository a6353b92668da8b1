"""A HAR file's LLM sessions: which entries are requests to an LLM, in which dialect, and the
capture each one opens as (for the window's picker, ``open`` and ``analyze``).

Invariants:
- An entry is an LLM request when it is a POST and its URL is one a provider streams from
  (``…/chat/completions``, ``…/responses``, ``…/messages``, ``:streamGenerateContent``), its
  response body holds events some dialect recognises, or its request body has ``messages``
  or ``contents``. Everything else (pages, scripts, preflight ``OPTIONS``, ``/models``,
  embeddings) is hidden, and counted.
- The dialect comes from the response's events when they prove one, else from the URL; the
  capture's header names it, so ``analyze`` reads the body in it.
- A session that cannot be shown says why in ``problem``, one line, never an empty view: the
  exporter left the body out (:attr:`HarEntry.missing`), or the response is no stream (a
  non-streaming reply, status below 400, holds the whole answer at once). A failed request
  (status 400 and up) is shown as one, like a live session's.
- A HAR this tool wrote gives back its own sessions (retries and chunk times included).
- Numbers are HAR entry numbers (1-based positions in ``log.entries``): the same in the
  picker, ``analyze --entry N`` and every message, whatever is hidden.
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass
from typing import Final
from urllib.parse import unquote

from inspector.core.base.model import EventKind
from inspector.core.base.provider import Head
from inspector.core.capture.format import CaptureError
from inspector.core.capture.har import Har, HarEntry, looks_like_har, read_har
from inspector.core.capture.harcapture import foreign_capture, own_captures
from inspector.core.capture.reader import read_file
from inspector.core.capture.records import Capture
from inspector.core.events.sse import SSE
from inspector.core.providers import REGISTRY, sniff, sniff_url
from inspector.core.providers.sniff import recognise

SNIFF_BYTES: Final = 1 << 20
"""How much of a response body is decoded to tell a stream and its dialect (1 MiB)."""
REQUEST_KEYS: Final = ("messages", "contents")
"""A POST whose JSON body has one of these is an LLM request whatever its URL."""
_MODEL_IN_PATH: Final = re.compile(r"/models?/([^/:]+)")
"""Gemini's ``/models/NAME:method``, Bedrock's ``/model/NAME/converse-stream``."""


@dataclass(frozen=True)
class HarSession:
    """One LLM session of a HAR: its first entry, what the picker lists, and its capture."""

    entry: int
    """The HAR entry number (1-based) of its first request."""
    method: str
    path: str
    model: str
    status: int | None
    dialect: str | None
    streamed: bool
    """Its response is an event stream (some event in it was read)."""
    problem: str | None
    """Why it cannot be shown (one line), or None."""
    capture: Capture
    attempts: int = 1
    missing: bool = False
    """The exporter left the response body out (``problem`` says why)."""

    @property
    def label(self) -> str:
        """``entry 3 · POST /v1/chat/completions · gpt-4o · 200 · openai-chat``."""
        parts = [f"entry {self.entry}", f"{self.method} {self.path}", self.model or "(no model)"]
        parts += [str(self.status or "no response"), self.dialect or "dialect?"]
        if self.attempts > 1:
            parts.append(f"{self.attempts} attempts")
        return " · ".join(parts)


@dataclass
class HarSessions:
    """The LLM sessions of one HAR file, and what else it holds."""

    name: str
    har: Har
    sessions: list[HarSession]
    hidden: int
    """Entries that are no LLM request (or could not be read): not listed."""

    @property
    def summary(self) -> str:
        """``3 LLM sessions among 42 entries (39 others hidden)``."""
        n = len(self.sessions)
        total = self.har.total
        return (
            f"{n} LLM session{'s' * (n != 1)} among {total} entr{'ies' if total != 1 else 'y'}"
            f" ({self.hidden} other{'s' * (self.hidden != 1)} hidden)"
        )

    def none_reason(self) -> str:
        """Why there is nothing to open (no session at all), one line."""
        what = f"no LLM request among its {self.har.total} entries"
        skipped = len(self.har.warnings)
        if skipped:
            what += f" ({skipped} unreadable: {self.har.warnings[0]})"
        return f"{what} (a streaming POST to …/chat/completions, /responses, /messages or …)"

    def pick(self, entry: int) -> HarSession:
        """The session whose first entry is ``entry``; CaptureError naming the choices."""
        for session in self.sessions:
            if session.entry == entry:
                return session
        choices = ", ".join(str(s.entry) for s in self.sessions) or "none"
        found = next((e for e in self.har.entries if e.index == entry), None)
        if found is not None:
            what = f"entry {entry} ({found.method} {found.path}) is no LLM session"
        else:
            what = f"there is no readable entry {entry} (the HAR has {self.har.total})"
        raise CaptureError(f"{what}; its LLM sessions: entries {choices}", path=self.name)


def is_har_file(path: str | os.PathLike[str]) -> bool:
    """Does ``path`` hold a HAR (by its first bytes, or its .har/.zhar name)? False when it
    cannot be read (the reader then says why). A pipe (``analyze <(cat f)``) or a device is
    never read here, only named: a byte read to look would be lost to the reader."""
    name = os.fspath(path)
    try:
        if not stat.S_ISREG(os.stat(name).st_mode):
            return name.lower().endswith((".har", ".zhar"))
        with open(name, "rb") as f:
            head = f.read(4096)
    except OSError:
        return False
    return looks_like_har(head, name)


def load_sessions(path: str | os.PathLike[str]) -> HarSessions:
    """The LLM sessions of the HAR file at ``path``; CaptureError (one line) when it is none."""
    name = os.fspath(path)
    return read_sessions(read_file(name), name)


def read_sessions(data: bytes, name: str) -> HarSessions:
    """The LLM sessions of the HAR ``data`` (file ``name``)."""
    har = read_har(data, name)
    sessions: list[HarSession] = []
    used = 0
    if har.own is not None:
        for entries, capture in own_captures(har):
            sessions.append(_own_session(entries, capture))
            used += len(entries)
    else:
        for entry in har.entries:
            session = _foreign_session(har, entry)
            if session is not None:
                sessions.append(session)
                used += 1
    for capture in (s.capture for s in sessions):
        capture.path = name
        capture.warnings[:0] = har.warnings
    return HarSessions(name, har, sessions, har.total - used)


def _own_session(entries: list[HarEntry], capture: Capture) -> HarSession:
    first = entries[0]
    dialect = capture.meta.get("dialect")
    model = capture.meta.get("model")
    return HarSession(
        entry=first.index,
        method=first.method,
        path=first.path,
        model=model if isinstance(model, str) else _model(first),
        status=entries[-1].status or None,
        dialect=dialect if isinstance(dialect, str) else _read(first)[1] or sniff_url(first.url),
        streamed=True,
        problem=None,
        capture=capture,
        attempts=len(capture.attempts),
    )


def _foreign_session(har: Har, entry: HarEntry) -> HarSession | None:
    if entry.method.upper() != "POST":
        return None
    streamed, from_body = _read(entry)
    from_url = sniff_url(entry.url)
    shaped = isinstance(entry.request_json, dict) and any(
        k in entry.request_json for k in REQUEST_KEYS
    )
    if not (from_body or from_url or shaped):
        return None
    dialect = from_body or from_url
    model = _model(entry)
    meta: dict[str, object] = {"source": "HAR", "exporter": har.exporter, "entry": entry.index}
    meta.update(url=entry.url, model=model)
    if dialect is not None:
        meta["dialect"] = dialect
    return HarSession(
        entry=entry.index,
        method=entry.method,
        path=entry.path,
        model=model,
        status=entry.status or None,
        dialect=dialect,
        streamed=streamed or "event-stream" in entry.mime,
        problem=_problem(entry, streamed),
        capture=foreign_capture(har, entry, meta),
        missing=entry.body is None,
    )


def _read(entry: HarEntry) -> tuple[bool, str | None]:
    """(does the response body hold events, the dialect they prove or None)."""
    if not entry.body:
        return False, None
    framed = recognise(REGISTRY, Head((), entry.body[:4096]), entry.mime or None)
    if framed is not None and framed.framing.name != SSE.name:  # a framing of its own
        return True, framed.name
    decoder = SSE.decoder()  # the default framing: a HAR's streams are server-sent events
    events = decoder.feed(entry.body[:SNIFF_BYTES])
    if len(entry.body) <= SNIFF_BYTES:
        events += decoder.close()
    streamed = any(ev.kind == EventKind.EVENT for ev in events)
    return streamed, sniff(events) if streamed else None


def _problem(entry: HarEntry, streamed: bool) -> str | None:
    if entry.body is None:
        return f"HAR entry {entry.index}: {entry.missing}"
    if streamed or not entry.body or entry.status >= 400:
        return None
    mime = entry.mime or "no content type"
    return (
        f"HAR entry {entry.index} is a non-streaming response ({mime}, {len(entry.body)} "
        "bytes): its body holds the whole answer at once, not a stream whose tool calls "
        "the inspector can follow (ask for stream: true)"
    )


def _model(entry: HarEntry) -> str:
    body = entry.request_json
    model = body.get("model") if isinstance(body, dict) else None
    if isinstance(model, str):
        return model
    found = _MODEL_IN_PATH.search(entry.path)
    return unquote(found.group(1)) if found else ""
