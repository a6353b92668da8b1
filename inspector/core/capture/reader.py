"""Capture files: a crash-safe record of one live session, and the reader for them.

A capture is JSONL (UTF-8): a header line (``{"format": "toolcall-inspector-capture",
"version": 1, ...}``) then one record per line, each with a ``type`` and a 1-based ``attempt``
(a retry is a second physical request, hence a new attempt): ``request``, ``response``,
``chunk``, ``attempt``, ``event``, ``end``. The reader also opens a raw SSE body (what
``curl -N`` saves) as a single untimed chunk, so every consumer sees one shape.

Invariants:
- Append-only and flushed per record: each record is serialised in full, then written with
  one ``write`` of the file opened in append mode and flushed at once. A process killed at
  any moment leaves every earlier record on disk and at most one cut-off last line, which
  the reader drops with a warning. (``fsync`` happens once, on close: flushing protects
  against the process dying; only the OS crashing can lose the page cache.)
- Raw bytes round-trip exactly: a chunk is stored as ``text`` only when a strict UTF-8
  decode of it succeeds (so encoding the text gives the same bytes back), otherwise as
  ``b64``; a chunk that splits a multi-byte character is therefore stored as ``b64``.
  Chunk boundaries and times (floats, written shortest-round-trip) are preserved.
- Secrets are never written: credential headers and URL query parameters are replaced by
  ``"REDACTED"`` as a whole (no prefix or hint is kept) before the record is serialised, and
  URL user-info is dropped. Request bodies are stored as sent (they carry the tools under
  test); callers must not put credentials in them.
- Reading is strict in the middle, lenient at the end: a corrupt line before the last one is
  a CaptureError (line number and byte offset); unknown record types are kept and warned
  about (forward compatibility); older format versions are migrated by
  :mod:`inspector.core.capture.compat`.
"""

from __future__ import annotations

import base64
import binascii
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Final, Literal

import orjson

from inspector.core.capture import compat
from inspector.core.capture.format import FORMAT, REDACTED, TOOL, CaptureError
from inspector.core.capture.writer import CaptureWriter, Headers, redact_headers, redact_url

__all__ = [
    "FORMAT",
    "REDACTED",
    "TOOL",
    "Attempt",
    "Capture",
    "CaptureError",
    "CaptureWriter",
    "Headers",
    "load",
    "load_bytes",
    "redact_headers",
    "redact_url",
]

_BOM: Final = b"\xef\xbb\xbf"


@dataclass
class Attempt:
    """One physical request and its streamed response."""

    number: int
    """1-based attempt number."""
    request: dict[str, Any] | None = None
    """The request record as written (t, method, url, headers, body), or None."""
    response: dict[str, Any] | None = None
    """The response record as written (t, status, headers), or None."""
    chunks: list[tuple[float, bytes]] = field(default_factory=list)
    """(seconds since the request started, raw bytes) in arrival order."""
    events: list[dict[str, Any]] = field(default_factory=list)
    """Synthetic timeline event records, verbatim."""
    end: dict[str, Any] | None = None
    """The end record (t, reason, error), or None if the capture stops before it."""
    reason: str | None = None
    """Why this attempt was started (from its attempt record); None for a first attempt."""
    recovery_action: str | None = None
    """What this attempt does to recover (e.g. "retry_streaming"), or None."""
    extra: dict[str, Any] = field(default_factory=dict)
    """Further keys of the attempt record, verbatim."""

    @property
    def body(self) -> bytes:
        """Every received byte, all chunks joined."""
        return b"".join(data for _, data in self.chunks)

    @property
    def status(self) -> int | None:
        """The HTTP status, or None when no response was recorded."""
        return None if self.response is None else int(self.response["status"])

    @property
    def complete(self) -> bool:
        """True when the attempt has an end record."""
        return self.end is not None


@dataclass
class Capture:
    """A loaded capture, or a raw SSE body presented as a one-attempt capture."""

    path: str | None
    """The file it was loaded from; None for load_bytes()."""
    kind: Literal["capture", "raw-sse"]
    """"capture" for a capture file, "raw-sse" for a plain response body."""
    header: dict[str, Any]
    """The header line (migrated to the current version); {} for a raw body."""
    attempts: list[Attempt]
    """Attempts ordered by number."""
    warnings: list[str] = field(default_factory=list)
    """Problems that did not stop loading (cut-off last line, unknown record types, ...)."""
    unknown: list[dict[str, Any]] = field(default_factory=list)
    """Records of types this version does not know, verbatim, in file order."""
    timed: bool = True
    """False for a raw body: its single chunk has no real arrival time."""

    @property
    def meta(self) -> dict[str, Any]:
        """The header's free-form "meta" (dialect, profile, scenario, ...), or {}."""
        meta = self.header.get("meta")
        return meta if isinstance(meta, dict) else {}

    @property
    def request_body(self) -> Any:
        """The request body of the first attempt that has a request record, or None."""
        for attempt in self.attempts:
            if attempt.request is not None:
                return attempt.request.get("body")
        return None

    @property
    def tools(self) -> list[Any] | None:
        """The request body's "tools", or None."""
        body = self.request_body
        tools = body.get("tools") if isinstance(body, dict) else None
        return tools if isinstance(tools, list) else None


_REQUIRED: Final[dict[str, tuple[str, ...]]] = {
    "request": ("method", "url"),
    "response": ("status",),
    "chunk": ("t",),
    "attempt": (),
    "event": ("kind",),
    "end": ("reason",),
}


class _Cursor:
    """Where the record reader is: lets errors raised after migration name their line."""

    __slots__ = ("line", "offset")

    def __init__(self, line: int, offset: int) -> None:
        self.line = line
        self.offset = offset


def read_file(path: str | os.PathLike[str]) -> bytes:
    """A capture file's bytes; CaptureError (one line) when it cannot be read."""
    name = os.fspath(path)
    try:
        with open(name, "rb") as f:
            return f.read()
    except IsADirectoryError:
        raise CaptureError("is a directory, not a capture", path=name) from None
    except FileNotFoundError:
        raise CaptureError("no such file", path=name) from None
    except PermissionError:
        raise CaptureError("permission denied", path=name) from None
    except OSError as exc:
        raise CaptureError(f"cannot read: {exc.strerror or exc}", path=name) from None


def load(path: str | os.PathLike[str]) -> Capture:
    """Load a capture file or a raw SSE body; CaptureError (one line) when it cannot be."""
    name = os.fspath(path)
    capture = CaptureReader(read_file(name), name).read_all()
    capture.path = name
    return capture


def load_bytes(data: bytes, name: str = "<bytes>") -> Capture:
    """Like load() for bytes already in memory; ``name`` is used in error messages."""
    return CaptureReader(bytes(data), name).read_all()


class CaptureReader:
    """Reads a capture from bytes a slice of records at a time (a front end can show a large
    file while it loads); :func:`load` is ``CaptureReader(data, name).read_all()``.

    ``capture`` exists from the start: its header is read at construction, and after every
    :meth:`read` its ``attempts`` lists every attempt seen so far, ordered by number, each
    holding the records read so far (records only ever append). A raw body is read whole at
    construction. Errors are raised as :func:`load` raises them, with file and line.
    """

    def __init__(self, data: bytes, name: str) -> None:
        self.size = len(data)
        """Bytes in the file."""
        self.done = False
        """Every record has been read."""
        self._name = name
        self._records: Iterator[dict[str, Any]] = iter(())
        self._cursor = _Cursor(1, 0)
        self._builder: _Builder | None = None
        if not data:
            raise CaptureError("empty file", path=name)
        found = _header(data, name)
        if found is None:
            self.capture = _raw(data, name)
            self.done = True
            return
        header, lineno, pos, end = found
        warnings: list[str] = []
        self._cursor = _Cursor(lineno, pos)
        try:
            header, self._records = compat.migrate(
                header, _lines(data, end + 1, lineno + 1, self._cursor, warnings)
            )
        except CaptureError as exc:
            raise exc.located(name, lineno, pos) from None
        self._builder = _Builder(Capture(None, "capture", header, [], warnings))
        self.capture = self._builder.capture
        """The capture read so far."""

    @property
    def offset(self) -> int:
        """Bytes read so far (the start of the last line read)."""
        return self.size if self.done else self._cursor.offset

    def read(self, records: int) -> int:
        """Read up to ``records`` more records; return how many were read."""
        builder, cursor = self._builder, self._cursor
        if self.done or builder is None:
            return 0
        n = 0
        try:
            for record in self._records:
                builder.add(record, cursor.line)
                n += 1
                if n >= records:
                    break
            else:
                self.done = True
        except CaptureError as exc:
            raise exc.located(self._name, cursor.line, cursor.offset) from None
        if n or self.done:
            attempts = builder.attempts
            if len(attempts) != len(self.capture.attempts):
                self.capture.attempts = [attempts[k] for k in sorted(attempts)]
        return n

    def read_all(self) -> Capture:
        """Read every remaining record; return the capture."""
        while not self.done:
            self.read(1 << 30)
        return self.capture


def _header(data: bytes, name: str) -> tuple[dict[str, Any], int, int, int] | None:
    """(header, line number, offset, end of line) of a capture's header; None for a raw body."""
    size, pos, lineno = len(data), 0, 1
    while pos < size:
        nl = data.find(b"\n", pos)
        end = size if nl < 0 else nl
        if data[pos:end].strip():
            break
        pos, lineno = end + 1, lineno + 1
    else:
        return None
    first = data[pos:end]
    if pos == 0:
        first = first.removeprefix(_BOM)
    if not first.lstrip().startswith(b"{"):
        return None
    try:
        header = orjson.loads(first)
    except orjson.JSONDecodeError:
        if FORMAT.encode() in first:
            raise CaptureError(
                "the capture header is cut off or corrupt", path=name, line=lineno, offset=pos
            ) from None
        return None
    if not isinstance(header, dict):
        return None
    if header.get("format") != FORMAT:
        if "format" not in header:
            return None
        raise CaptureError(
            f"unknown file format {header['format']!r} (expected {FORMAT!r})",
            path=name,
            line=lineno,
            offset=pos,
        )
    return header, lineno, pos, end


def _raw(data: bytes, name: str) -> Capture:
    attempt = Attempt(1, chunks=[(0.0, data)])
    return Capture(path=None, kind="raw-sse", header={}, attempts=[attempt], timed=False)


def _lines(
    data: bytes, pos: int, lineno: int, cursor: _Cursor, warnings: list[str]
) -> Iterator[dict[str, Any]]:
    """The records after the header, parsed; a cut-off last line ends them with a warning."""
    size = len(data)
    while pos < size:
        nl = data.find(b"\n", pos)
        end = size if nl < 0 else nl
        line = data[pos:end]
        cursor.line, cursor.offset = lineno, pos
        if line.strip():
            try:
                record = orjson.loads(line)
            except orjson.JSONDecodeError as exc:
                if nl < 0:
                    warnings.append(
                        f"line {lineno} is cut off (the capture was interrupted); ignored"
                    )
                    return
                raise CaptureError(
                    f"corrupt record (not valid JSON at column {exc.colno})",
                    line=lineno,
                    offset=pos,
                ) from None
            if not isinstance(record, dict):
                raise CaptureError("record is not a JSON object", line=lineno, offset=pos)
            yield record
        pos, lineno = end + 1, lineno + 1


class _Builder:
    """Sorts records into attempts, validating what the typed accessors rely on."""

    def __init__(self, capture: Capture) -> None:
        self.capture = capture
        self.attempts: dict[int, Attempt] = {}
        self.seen: set[tuple[str, int]] = set()  # (type, attempt) of one-per-attempt records
        self.warned_types: set[str] = set()

    def add(self, record: dict[str, Any], line: int) -> None:
        rtype = record.get("type")
        if not isinstance(rtype, str):
            raise CaptureError("record has no 'type'")
        required = _REQUIRED.get(rtype)
        if required is None:
            self.capture.unknown.append(record)
            if rtype not in self.warned_types:
                self.warned_types.add(rtype)
                self.capture.warnings.append(
                    f"line {line}: unknown record type {rtype!r} (from a newer version?); ignored"
                )
            return
        number = record.get("attempt")
        if type(number) is not int or number < 1:
            what = "no 'attempt'" if "attempt" not in record else f"an invalid 'attempt' {number!r}"
            raise CaptureError(f"{rtype} record has {what}")
        for key in required:
            if key not in record:
                raise CaptureError(f"{rtype} record has no {key!r}")
        attempt = self.attempts.get(number)
        if attempt is None:
            attempt = self.attempts[number] = Attempt(number)
        if rtype == "chunk":
            attempt.chunks.append((_seconds(record), _chunk_bytes(record)))
            return
        if rtype == "event":
            attempt.events.append(record)
            return
        if (rtype, number) in self.seen:
            self.capture.warnings.append(
                f"line {line}: second {rtype} record for attempt {number}; ignored"
            )
            return
        self.seen.add((rtype, number))
        if rtype == "request":
            attempt.request = record
        elif rtype == "response":
            if type(record["status"]) is not int:
                raise CaptureError(f"response record has an invalid 'status' {record['status']!r}")
            attempt.response = record
        elif rtype == "end":
            attempt.end = record
        else:  # "attempt"
            attempt.reason = _optional_str(record, "reason")
            attempt.recovery_action = _optional_str(record, "recovery_action")
            reserved = ("type", "attempt", "reason", "recovery_action")
            attempt.extra = {k: v for k, v in record.items() if k not in reserved}


def _optional_str(record: dict[str, Any], key: str) -> str | None:
    value = record.get(key)
    if value is not None and not isinstance(value, str):
        raise CaptureError(f"{record['type']} record has an invalid {key!r} {value!r}")
    return value


def _seconds(record: dict[str, Any]) -> float:
    t = record["t"]
    if type(t) is not float and type(t) is not int:
        raise CaptureError(f"chunk record has an invalid 't' {t!r}")
    return float(t)


def _chunk_bytes(record: dict[str, Any]) -> bytes:
    text, b64 = record.get("text"), record.get("b64")
    if text is not None:
        if b64 is not None:
            raise CaptureError("chunk record has both 'text' and 'b64'")
        if not isinstance(text, str):
            raise CaptureError("chunk record has a 'text' that is not a string")
        return text.encode("utf-8")
    if b64 is None:
        raise CaptureError("chunk record has neither 'text' nor 'b64'")
    try:
        if not isinstance(b64, str):
            raise ValueError
        return base64.b64decode(b64, validate=True)
    except (binascii.Error, ValueError):
        raise CaptureError("chunk record has a 'b64' that is not valid base64") from None
