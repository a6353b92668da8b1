"""What a file is before it is judged: a stream or not (the stream-or-not gate), and which
dialect its capture header names.

Invariants:
- The gate applies to raw bodies only: a file with a valid capture header is always a stream
  (an empty or interrupted capture is judged, and says so; see :mod:`.exitcodes`).
- It is decided on the first :data:`GATE_BYTES` of the body (the whole body when smaller) and
  needs one of two kinds of evidence: an event, or the first bytes, that some registered
  provider recognises (at least as likely its own), or
  server-sent-event framing (at least half the non-blank lines are ``data:``/``event:``/
  ``id:``/``retry:`` fields or ``:`` comments). A body framed as SSE whose JSON no dialect
  knows is a stream of an unrecognised dialect, not "not a stream"; so is a body of
  keep-alive comments only.
- Deciding reads no more than :data:`GATE_BYTES` and never raises: any bytes get an answer.
- A stream no provider recognises is of an "unknown dialect" (:func:`unknown_dialect`), never
  read as another's: with the dialect ``auto``, an attempt that is no failed request (HTTP
  status < 400) and whose first :data:`~inspector.core.providers.sniff.SNIFF_LIMIT` events no
  provider recognises (with its content type and request URL) is refused, saying what was seen.
  Not unknown: a forced dialect, a dialect the capture header names or the request URL proves,
  an empty or keep-alive-only body (an "empty stream", judged as such).
"""

from __future__ import annotations

import re
from typing import Final

import orjson

from inspector.core.base.errors import InspectorError
from inspector.core.base.model import EventKind, SSEEvent
from inspector.core.base.provider import Head, Providers
from inspector.core.base.settings import AUTO, Settings
from inspector.core.capture.records import Attempt, Capture
from inspector.core.events.sse import SSE
from inspector.core.providers import REGISTRY
from inspector.core.providers.sniff import SNIFF_LIMIT, recognise, recognised

GATE_BYTES: Final = 1 << 20
"""How much of a raw body the gate reads (1 MiB)."""

_SSE_LINE = re.compile(rb"(?:data|event|id|retry)(?::|$)|:")
_LINES = re.compile(rb"\r\n|\r|\n")
_BOM: Final = b"\xef\xbb\xbf"


class NotAStream(InspectorError):
    """A raw body in which no event of any dialect is recognised; ``str()`` is one line,
    ``not a stream: PATH: what it looks like …``."""


def not_a_stream(
    capture: Capture, name: str | None = None, providers: Providers = REGISTRY
) -> str | None:
    """Why ``capture`` (a raw body) is not a stream, as one line, or None when it is one or
    is a capture file. ``name`` (default: the capture's path) goes into the line; the events
    are those ``providers`` recognise."""
    if capture.kind != "raw-sse" or not capture.attempts:
        return None
    body = capture.attempts[0].body
    head = body[:GATE_BYTES]
    if _framed(head) or _recognised(head, providers, whole=len(body) <= GATE_BYTES):
        return None
    where = name or capture.path or "<bytes>"
    scope = "in it" if len(body) <= GATE_BYTES else "in its first 1 MiB"
    return (
        f"not a stream: {where}: {_looks_like(head)}, no server-sent event of any dialect {scope}"
    )


class UnknownDialect(InspectorError):
    """A stream no provider recognises; ``str()`` is one line, ``unknown dialect: PATH: what was
    seen …``."""


UNKNOWN: Final = "unknown dialect"
"""How a refused stream's line starts (the window's notice and ``analyze`` alike)."""


def unknown_dialect(
    capture: Capture, dialect: str, name: str | None = None, providers: Providers = REGISTRY
) -> str | None:
    """Why ``capture`` is of a dialect no provider recognises, as one line (see the module
    docstring), or None when its dialect is known, forced (``dialect`` is not ``auto``), or
    nothing was received to recognise."""
    if dialect != AUTO:
        return None
    named = capture.meta.get("dialect")
    if isinstance(named, str) and named in providers.names():
        return None
    where = name or capture.path or "<bytes>"
    several = len(capture.attempts) > 1
    for attempt in capture.attempts:
        seen = _unrecognised(attempt, providers)
        if seen is not None:
            place = f"attempt {attempt.number}: " if several else ""
            return f"{UNKNOWN}: {where}: {place}no provider recognises this stream ({seen})"
    return None


def check_dialect(
    capture: Capture, dialect: str, name: str | None = None, providers: Providers = REGISTRY
) -> None:
    """Raise :class:`UnknownDialect` when :func:`unknown_dialect` gives a reason (``analyze``
    adds how to force one)."""
    reason = unknown_dialect(capture, dialect, name, providers)
    if reason is not None:
        raise UnknownDialect(f"{reason}; --dialect NAME reads it as one")


def url_settings(capture: Capture, settings: Settings, providers: Providers) -> Settings:
    """``settings`` with the dialect the first attempt's request URL proves, when the dialect is
    ``auto`` and the header names none (a URL is evidence: a dialect read from it counts as
    recognised); otherwise ``settings`` unchanged."""
    if settings.dialect != AUTO or isinstance(capture.meta.get("dialect"), str):
        return settings
    url = _url(capture.attempts[0]) if capture.attempts else None
    found = recognise(providers, Head(), None, url) if url else None
    return Settings(found.name, settings.validation, settings.empty_id) if found else settings


def _url(attempt: Attempt) -> str | None:
    request = attempt.request or {}
    url = request.get("url")
    return url if isinstance(url, str) else None


def _content_type(attempt: Attempt) -> str | None:
    headers = (attempt.response or {}).get("headers") or {}
    if not isinstance(headers, dict):
        return None
    for key, value in headers.items():
        if str(key).lower() == "content-type":
            return str(value)
    return None


def _head_bytes(attempt: Attempt) -> bytes:
    """The attempt's first :data:`GATE_BYTES` (or fewer), without joining the rest."""
    parts: list[bytes] = []
    size = 0
    for _, data in attempt.chunks:
        parts.append(data)
        size += len(data)
        if size >= GATE_BYTES:
            break
    return b"".join(parts)[:GATE_BYTES]


def _unrecognised(attempt: Attempt, providers: Providers) -> str | None:
    """What was seen of an attempt no provider recognises (its content type and first
    event), or None: recognised, a failed request, or no event to recognise."""
    status = attempt.status
    if status is not None and status >= 400:
        return None
    url = _url(attempt)
    ctype = _content_type(attempt)
    if url is not None and recognise(providers, Head(), ctype, url) is not None:
        return None
    data = _head_bytes(attempt)
    decoder = SSE.decoder()
    events = decoder.feed(data)
    events += decoder.close()
    head: list[SSEEvent] = []
    looked = Head(head, data)
    first = None
    seen = 0
    for ev in events:
        head.append(ev)
        if ev.kind != EventKind.EVENT:
            continue
        first = first or ev
        if recognise(providers, looked, ctype, url) is not None:
            return None
        seen += 1
        if seen >= SNIFF_LIMIT:
            break
    if first is None:  # empty, or keep-alives only: an empty stream, judged as such
        return None
    said = f"content type {ctype}" if ctype else "no content type recorded"
    named = f"event {first.event!r}, " if first.event != "message" else ""
    data_text = " ".join(first.data.split())
    clip = data_text if len(data_text) <= 80 else data_text[:79] + "…"
    return f"{said}; first event: {named}data {clip!r}"


def check_stream(
    capture: Capture, name: str | None = None, providers: Providers = REGISTRY
) -> None:
    """Raise :class:`NotAStream` when :func:`not_a_stream` gives a reason."""
    reason = not_a_stream(capture, name, providers)
    if reason is not None:
        raise NotAStream(reason)


def header_settings(
    capture: Capture, settings: Settings, providers: Providers, *, warn: bool = True
) -> Settings:
    """``settings`` with the dialect the capture's header names when the dialect is ``auto``
    and the header names a known provider (a capture interrupted before its first event still
    reads as what it recorded); otherwise ``settings`` unchanged. A name no provider has
    (``"klingon"``) adds a warning to the capture's (once): the dialect is sniffed instead.
    (A ``meta`` or ``dialect`` of the wrong type is warned about when the file is read.)
    ``warn=False``: the same settings, the capture left as it is (a guess made while it is
    still being read)."""
    named = capture.meta.get("dialect")
    if settings.dialect != AUTO or not isinstance(named, str):
        return settings
    if named not in providers.names():
        known = ", ".join(providers.names())
        warning = (
            f"the capture header names dialect {named[:40]!r}, which is none of {known}; "
            "the dialect is sniffed from the stream"
        )
        if warn and warning not in capture.warnings:
            capture.warnings.append(warning)
        return settings
    return Settings(named, settings.validation, settings.empty_id)


def _framed(head: bytes) -> bool:
    """At least half the non-blank lines are SSE fields or comments (and there is one)."""
    head = head.removeprefix(_BOM)
    sse = other = 0
    for line in _LINES.split(head):
        if not line.strip():
            continue
        if _SSE_LINE.match(line):
            sse += 1
        else:
            other += 1
    return sse > 0 and sse >= other


def _recognised(head: bytes, providers: Providers, *, whole: bool) -> bool:
    """A provider recognises the body's first bytes (a framing of its own: Bedrock's frames
    or JSON lines), or some event in ``head`` (framed as SSE, the default)."""
    if recognised(providers, Head((), head[:4096])):
        return True
    decoder = SSE.decoder()
    events = decoder.feed(head)
    if whole:
        events += decoder.close()
    return any(ev.kind == EventKind.EVENT and recognised(providers, Head((ev,))) for ev in events)


def _ndjson(text: bytes) -> bool:
    """The first lines of ``text`` (up to 8 whole ones) are each one JSON value, and there are
    at least two."""
    lines = [line for line in _LINES.split(text)[:-1] if line.strip()][:8]
    if len(lines) < 2:
        return False
    try:
        for line in lines:
            orjson.loads(line)
    except orjson.JSONDecodeError:
        return False
    return True


def _looks_like(head: bytes) -> str:
    """What the body seems to be, in a few words."""
    text = head.removeprefix(_BOM).lstrip()
    if not text:
        return "a blank body"
    if b"\x00" in head[:4096]:
        return "binary data"
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.start < len(head) - 4:  # not just a character cut at the 1 MiB mark
            return "binary data (not UTF-8 text)"
    if text[:1] == b"<":
        return "an HTML or XML document"
    if text[:1] in (b"{", b"["):
        try:
            doc = orjson.loads(head)
        except orjson.JSONDecodeError:
            return "newline-delimited JSON (NDJSON)" if _ndjson(text) else "JSON-like text"
        if isinstance(doc, dict) and "error" in doc:
            return "a JSON error body (an HTTP error response saved as the body?)"
        if isinstance(doc, dict) and isinstance(doc.get("log"), dict):
            return "a HAR file (read through a pipe: give its path, FILE.har, to open it)"
        return "a JSON document"
    return "plain text"
