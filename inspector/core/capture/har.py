"""HAR 1.2 files (HTTP Archive: what Chrome and Firefox DevTools, mitmproxy, Charles and
Proxyman save) read into checked entries, each request and response as it can be used.

A HAR is one JSON document, ``{"log": {"version", "creator", "entries": [...]}}``; each entry
holds one request and its response, the body whole in ``response.content.text`` (base64 when
``content.encoding`` says so). Turning entries into captures is
:mod:`inspector.core.capture.harcapture`'s; which entries are LLM requests is decided above
the capture layer (:mod:`inspector.core.replay.harsessions`), where the providers are known.

Invariants:
- Lenient where tools differ, strict where it matters: a document that is not JSON, has no
  ``log`` object or no ``log.entries`` list is a CaptureError (one line); an entry without a
  request method and URL, or a response status, is skipped with a warning naming it; every
  other field is optional and read only where its type allows (``redirectURL: null``, null
  timings, headers of numbers: all seen in real files).
- Secrets never leave an entry: headers, the URL and the request body are redacted here, by
  the one rule (:mod:`inspector.core.capture.redaction`), with the key itself found in the
  entry's own secret headers and URL parameters (``Authorization: Bearer KEY`` makes KEY
  redacted wherever else it shows). Response bodies are evidence and stay as received.
- A body the exporter left out is never an empty body: ``body`` is None and ``missing`` says,
  in one line, which exporter left it out and why that tool does so
  (:mod:`inspector.core.capture.harbody`).
- ``_``-prefixed custom fields are read only from files this tool wrote (the HAR spec's rule):
  ``own`` and ``chunks`` are None for every other creator.
- A BOM is skipped (the spec asks readers to); a ``.zhar`` (zlib, as mitmproxy writes it) is
  inflated up to :data:`MAX_INFLATED` bytes.
"""

from __future__ import annotations

import gc
import json
import re
import zlib
from dataclasses import dataclass, field
from typing import Any, Final
from urllib.parse import urlsplit

import orjson

from inspector.core.capture.format import TOOL, CaptureError
from inspector.core.capture.harbody import found_secrets, post_data, response_body
from inspector.core.capture.redaction import mask_secrets, redact_headers, redact_url

MAX_INFLATED: Final = 1 << 30
"""A ``.zhar`` is inflated up to 1 GiB; beyond that it is refused (a zip bomb, or no HAR)."""
MAX_RATIO: Final = 100
"""…and to at most this many times its own size once past :data:`RATIO_FLOOR` (a HAR's JSON
deflates some 5-20x; a bomb 1000x): refused as soon as it inflates past either limit."""
RATIO_FLOOR: Final = 64 << 20
INFLATE_STEP: Final = 4 << 20
"""Bytes inflated per step: a bomb is stopped within one step of its limit."""
_HAR_START: Final = re.compile(rb'\A(?:\xef\xbb\xbf)?\s*\{\s*"log"\s*:')
EXPORTERS: Final = {
    "WebInspector": "Chrome DevTools",
    "Firefox": "Firefox DevTools",
    "Charles Proxy": "Charles",
    TOOL: "toolcall-inspector",
}
"""``log.creator.name`` -> the tool's usual name (others: the creator name as written;
mitmproxy writes ``mitmproxy`` or ``mitmproxy exporthar``)."""


@dataclass
class HarEntry:
    """One request and its response, checked and redacted."""

    index: int
    """1-based position in ``log.entries`` (stable: hidden entries keep their numbers)."""
    method: str
    url: str
    """The URL, redacted."""
    request_headers: dict[str, str]
    request_body: dict[str, Any]
    """The capture request record's body fields: ``{"body": …}`` (JSON value, text or None),
    plus ``body_b64`` for a body that is not UTF-8."""
    status: int
    response_headers: dict[str, str]
    mime: str
    """``response.content.mimeType`` (or the Content-Type header), "" when neither."""
    body: bytes | None
    """The response body as received; None when the exporter left it out."""
    missing: str | None = None
    """Why ``body`` is None, one line naming the exporter."""
    started: str = ""
    """``startedDateTime`` as written."""
    wait: float = 0.0
    """Seconds from the request to the response headers (the entry's timings), 0 if unknown."""
    time: float = 0.0
    """Seconds the whole exchange took (``time``), 0 if unknown."""
    error: str | None = None
    """The exporter's note that the request failed (Chrome's and mitmproxy's ``_error``)."""
    chunks: list[tuple[float, int]] | None = None
    """This tool's ``_chunks``: (seconds since the request, size in bytes) per chunk."""
    own: dict[str, Any] | None = None
    """This tool's ``_inspector`` record of the attempt (session, number, end, events)."""

    @property
    def path(self) -> str:
        """The URL's path (no query)."""
        try:
            return urlsplit(self.url).path or "/"
        except ValueError:
            return self.url

    @property
    def request_json(self) -> Any:
        """The request body as parsed JSON, or None."""
        body = self.request_body.get("body")
        return body if isinstance(body, dict | list) else None


@dataclass
class Har:
    """A HAR file's entries, read."""

    name: str
    creator: str
    """``log.creator.name`` (and version) as written."""
    exporter: str
    """The tool that wrote it, by its usual name ("Chrome DevTools", "mitmproxy" …)."""
    entries: list[HarEntry]
    total: int
    """Entries in the file, the skipped ones included."""
    warnings: list[str] = field(default_factory=list)
    own: dict[str, Any] | None = None
    """This tool's ``log._inspector`` (the sessions' headers), when this tool wrote the file."""


def looks_like_har(data: bytes, name: str = "") -> bool:
    """Is ``data`` (or its first few KiB) a HAR? By content (``{"log":`` first), or by a
    ``.har``/``.zhar`` name when the content is no capture (which would name its format)."""
    if _HAR_START.match(data[:4096]):
        return True
    lower = name.lower()
    if lower.endswith(".zhar"):
        return True
    return lower.endswith(".har") and b'"toolcall-inspector-capture"' not in data[:4096]


def read_har(data: bytes, name: str) -> Har:
    """The entries of the HAR ``data`` (file ``name``); CaptureError (one line) when it is no
    HAR at all. Entries that cannot be used are skipped with a warning.

    The cyclic collector is paused meanwhile (as it was found): the document and the entries
    make no cycle, and its full passes over them, more of them at each pass, cost a third of
    reading a 20,000-entry HAR, growing faster than the file."""
    paused = gc.isenabled()
    gc.disable()
    try:
        return _read_har(data, name)
    finally:
        if paused:
            gc.enable()


def _read_har(data: bytes, name: str) -> Har:
    doc = _document(data, name)
    log = doc.get("log") if isinstance(doc, dict) else None
    if not isinstance(log, dict):
        raise CaptureError("not a HAR file: no 'log' object at the top", path=name)
    raw_entries = log.get("entries")
    if not isinstance(raw_entries, list):
        raise CaptureError("not a HAR file: 'log.entries' is no list", path=name)
    creator = _object(log.get("creator"))
    cname, cversion = _text(creator.get("name")), _text(creator.get("version"))
    own = cname == TOOL
    exporter = EXPORTERS.get(cname) or cname or "the exporter"
    har = Har(name, f"{cname} {cversion}".strip(), exporter, [], len(raw_entries))
    version = log.get("version")
    if isinstance(version, str) and version and not version.startswith("1."):
        har.warnings.append(f"HAR version {version!r} is not 1.x; read as 1.2")
    if own and isinstance(log.get("_inspector"), dict):
        har.own = log["_inspector"]
    for i, raw in enumerate(raw_entries, 1):
        try:
            har.entries.append(_entry(i, raw, exporter, own))
        except CaptureError as exc:
            har.warnings.append(f"HAR entry {i}: {exc.reason}; skipped")
    return har


def _inflate(data: bytes, name: str) -> bytes:
    """A ``.zhar``'s JSON, inflated a step at a time: refused (CaptureError) as soon as it
    passes :data:`MAX_INFLATED` or :data:`MAX_RATIO` times the file (past the floor)."""
    limit = min(MAX_INFLATED, max(RATIO_FLOOR, MAX_RATIO * len(data)))
    inflater = zlib.decompressobj()
    pieces: list[bytes] = []
    size, pending = 0, data
    try:
        while True:
            piece = inflater.decompress(pending, INFLATE_STEP)
            pieces.append(piece)
            size += len(piece)
            if size > limit:
                shown = f"{limit >> 20} MiB" if limit >= 1 << 20 else f"{limit} bytes"
                raise CaptureError(f"the .zhar inflates to more than {shown}", path=name)
            pending = inflater.unconsumed_tail
            if not pending:
                rest = inflater.flush()
                if size + len(rest) > limit:
                    raise CaptureError(f"the .zhar inflates to more than {limit} bytes", path=name)
                pieces.append(rest)
                break
    except zlib.error:
        raise CaptureError("not a HAR file: the .zhar is not zlib data", path=name) from None
    if not inflater.eof:
        raise CaptureError("the .zhar is cut off (its zlib data does not end)", path=name)
    return b"".join(pieces)


def _document(data: bytes, name: str) -> Any:
    """The JSON document (a BOM skipped, a ``.zhar`` inflated); CaptureError when it is none."""
    if data[:1] == b"\x78" and name.lower().endswith(".zhar"):
        data = _inflate(data, name)
    data = data.removeprefix(b"\xef\xbb\xbf")
    if not data.strip():
        raise CaptureError("empty file", path=name)
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:
        pass
    try:  # the standard library accepts lone surrogates (which DevTools may write) and
        return json.loads(data)  # says where the JSON breaks
    except UnicodeDecodeError:
        raise CaptureError("not a HAR file: not UTF-8 text", path=name) from None
    except json.JSONDecodeError as exc:
        where = f" (line {exc.lineno}, column {exc.colno})"
        raise CaptureError(f"not a HAR file: not valid JSON{where}", path=name) from None
    except (ValueError, RecursionError):
        raise CaptureError("not a HAR file: not valid JSON", path=name) from None


def _object(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _entry(index: int, raw: Any, exporter: str, own: bool) -> HarEntry:
    if not isinstance(raw, dict):
        raise CaptureError("is no object")
    req, resp = raw.get("request"), raw.get("response")
    if not isinstance(req, dict) or not isinstance(req.get("method"), str):
        raise CaptureError("has no request method")
    url = req.get("url")
    if not isinstance(url, str) or not url:
        raise CaptureError("has no request URL")
    resp = resp if isinstance(resp, dict) else {}
    status = resp.get("status", 0)
    if type(status) is not int:
        if not (isinstance(status, str) and status.isdigit()):
            raise CaptureError(f"has a response status {status!r} that is no number")
        status = int(status)
    pairs = _pairs(req.get("headers"))
    secrets = found_secrets(url, pairs)
    content = _object(resp.get("content"))
    rheaders = _pairs(resp.get("headers"))
    mime = _text(content.get("mimeType")) or next(
        (v for k, v in rheaders if k.lower() == "content-type"), ""
    )
    body, missing = response_body(content, rheaders, exporter)
    entry = HarEntry(
        index=index,
        method=req["method"],
        url=redact_url(url, secrets),
        request_headers=redact_headers(pairs, secrets),
        request_body=post_data(req.get("postData"), secrets),
        status=status,
        response_headers=redact_headers(rheaders, secrets),
        mime=mime,
        body=body,
        missing=missing,
        started=raw["startedDateTime"] if isinstance(raw.get("startedDateTime"), str) else "",
        wait=_wait(raw.get("timings")),
        time=_ms(raw.get("time")),
        error=_error(raw, resp, secrets),
    )
    if own:
        entry.own = raw["_inspector"] if isinstance(raw.get("_inspector"), dict) else None
        entry.chunks = _chunks(raw.get("_chunks"), body)
    return entry


def _pairs(headers: Any) -> list[tuple[str, str]]:
    """HAR ``[{"name", "value"}]`` as (name, value) pairs; numbers become text, others go."""
    out: list[tuple[str, str]] = []
    for h in headers if isinstance(headers, list) else ():
        if isinstance(h, dict) and isinstance(h.get("name"), str):
            value = h.get("value")
            if isinstance(value, int | float) and not isinstance(value, bool):
                value = str(value)
            if isinstance(value, str):
                out.append((h["name"], value))
    return out


def _ms(value: Any) -> float:
    """HAR milliseconds (a number >= 0) as seconds; 0 for anything else (-1, null, text)."""
    if isinstance(value, int | float) and not isinstance(value, bool) and value > 0:
        return float(value) / 1000
    return 0.0


def _wait(timings: Any) -> float:
    """Seconds from the request to its response headers: the timings before ``receive``."""
    if not isinstance(timings, dict):
        return 0.0
    phases = ("blocked", "dns", "connect", "send", "wait")  # ssl is within connect
    return sum(_ms(timings.get(p)) for p in phases)


def _error(raw: dict[str, Any], resp: dict[str, Any], secrets: list[str]) -> str | None:
    """The exporter's failure note (``_error``: Chrome's on the response, mitmproxy's too)."""
    for where in (resp, raw):
        note = where.get("_error")
        if isinstance(note, str) and note.strip():
            return mask_secrets(" ".join(note.split()), secrets)
    return None


def _chunks(raw: Any, body: bytes | None) -> list[tuple[float, int]] | None:
    """This tool's ``_chunks`` ([{"t", "size"}]) when they are whole: times that are numbers
    and sizes that add up to the body; None otherwise (the body is then untimed)."""
    if not isinstance(raw, list) or body is None:
        return None
    out: list[tuple[float, int]] = []
    for c in raw:
        if not isinstance(c, dict):
            return None
        t, size = c.get("t"), c.get("size")
        if not isinstance(t, int | float) or isinstance(t, bool):
            return None
        if type(size) is not int or size < 0:
            return None
        out.append((float(t), size))
    return out if sum(s for _, s in out) == len(body) else None
