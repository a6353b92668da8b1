"""The records of a capture, checked: each physical request as an :class:`Attempt`, the whole
file as a :class:`Capture`, and the :class:`CaptureBuilder` that sorts records into them.

Invariants:
- A record reaches an Attempt only once the keys its typed accessors rely on are there with
  the right types (``attempt`` a positive int, a response's ``status`` an int, a chunk's ``t`` a
  number and exactly one of ``text``/``b64``, a request's ``method``/``url`` strings, request
  and response ``headers`` an object of strings); anything else is a CaptureError for the
  reader to locate. A request body that is text rather than JSON is kept, with a warning (no
  tools can be read from it), and so is one that is another JSON value (an array, a number).
  An end record's ``reason`` is a string, its ``error`` a string or null.
- Records only ever append: a chunk or event adds to its attempt; a second request, response,
  attempt or end record for the same attempt is ignored with a warning, never merged.
- Unknown record types are kept verbatim and warned about once per type (forward
  compatibility).
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass, field
from typing import Any, Final, Literal

from inspector.core.capture.format import CaptureError


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
    expects_end: bool = True
    """False for a raw body, which has no records (and so no end record) at all."""
    masked: list[tuple[int, int]] = field(default_factory=list)
    """``[start, end)`` byte offsets of the body where the writer masked the session's key
    (``*`` of the same length; chunk records' ``masked``, format version 2)."""

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

    @property
    def interrupted(self) -> bool:
        """A capture's attempt with no end record: the writer stopped (a kill, a crash, a
        full disk) before the attempt ended. Never true of a raw body."""
        return self.expects_end and self.end is None


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


class CaptureBuilder:
    """Sorts records into attempts, validating what the typed accessors rely on."""

    def masked(self, attempt: Attempt, spans: Any, line: int) -> None:
        """A chunk's masked ranges: pairs of ints, start below end; anything else is warned
        about and ignored (the bytes are what they are either way)."""
        good = isinstance(spans, list) and all(
            isinstance(p, list) and len(p) == 2 and all(type(v) is int for v in p)
            and 0 <= p[0] < p[1]
            for p in spans
        )  # fmt: skip
        if not good:
            self.capture.warnings.append(f"line {line}: a chunk's 'masked' is not a list of "
                                         "[start, end] byte offsets; ignored")  # fmt: skip
            return
        masked = attempt.masked
        for start, end in sorted((p[0], p[1]) for p in spans):
            if masked and masked[-1][0] <= start <= masked[-1][1]:  # one key over two records
                masked[-1] = (masked[-1][0], max(end, masked[-1][1]))
            else:
                masked.append((start, end))

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
            if "masked" in record:
                self.masked(attempt, record["masked"], line)
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
            _check_request(record)
            problem = _body_problem(record.get("body"))
            if problem is not None:
                self.capture.warnings.append(
                    f"line {line}: the request body{problem[0]} of attempt {number} is "
                    f"{problem[1]} (no tools are read from it)"
                )
            attempt.request = record
        elif rtype == "response":
            if type(record["status"]) is not int:
                raise CaptureError(f"response record has an invalid 'status' {record['status']!r}")
            _check_headers(record)
            attempt.response = record
        elif rtype == "end":
            if not isinstance(record["reason"], str):
                raise _not_a_string(record, "reason")
            _optional_str(record, "error")
            attempt.end = record
        else:  # "attempt"
            attempt.reason = _optional_str(record, "reason")
            attempt.recovery_action = _optional_str(record, "recovery_action")
            reserved = ("type", "attempt", "reason", "recovery_action")
            attempt.extra = {k: v for k, v in record.items() if k not in reserved}


def _check_request(record: dict[str, Any]) -> None:
    """A request record's ``method`` and ``url`` are strings, its ``headers`` an object of
    strings, its ``body_b64`` (when there) a string."""
    for key in ("method", "url"):
        if not isinstance(record[key], str):
            raise CaptureError(f"request record has a {key!r} that is not a string")
    _check_headers(record)
    if "body_b64" in record and not isinstance(record["body_b64"], str):
        raise CaptureError("request record has a 'body_b64' that is not a string")


def _body_problem(body: Any) -> tuple[str, str] | None:
    """("", "text, not a JSON object") for a body that is no object, ("'s 'tools'", "a
    string, not a list") for tools that are no list; None for a body tools can be read from."""
    if body is None:
        return None
    if type(body) is not dict:
        return "", f"{'text' if isinstance(body, str) else _a(body)}, not a JSON object"
    tools = body.get("tools")
    if tools is not None and type(tools) is not list:
        return "'s 'tools'", f"{_a(tools)}, not a list"
    return None


def _check_headers(record: dict[str, Any]) -> None:
    """``headers``, when present and not null, is an object whose values are strings (the
    writer's shape: names keep their spelling, repeated names are joined)."""
    headers = record.get("headers")
    if headers is None:
        return
    if not isinstance(headers, dict):
        kind = type(headers).__name__
        raise CaptureError(
            f"{record['type']} record has 'headers' that are a {kind}, not an object"
        )
    bad = next((k for k, v in headers.items() if not isinstance(v, str)), None)
    if bad is not None:
        raise CaptureError(f"{record['type']} record has a header {bad!r} that is not a string")


def _optional_str(record: dict[str, Any], key: str) -> str | None:
    value = record.get(key)
    if value is not None and not isinstance(value, str):
        raise _not_a_string(record, key)
    return value


def _not_a_string(record: dict[str, Any], key: str) -> CaptureError:
    """``end record has an invalid 'reason' {'x': 1} (an object, not a string)``."""
    value = record[key]
    shown = repr(value)
    shown = shown if len(shown) <= 40 else f"{shown[:39]}…"
    return CaptureError(
        f"{record['type']} record has an invalid {key!r} {shown} ({_a(value)}, not a string)"
    )


_KINDS: Final = {type(None): "null", bool: "boolean", int: "integer", float: "number",
                 str: "string", list: "array", dict: "object"}  # fmt: skip


def _a(value: Any) -> str:
    """``an object``, ``a string``: the JSON kind of ``value`` with its article."""
    kind = _kind(value)
    return f"an {kind}" if kind[0] in "aeiou" else f"a {kind}"


def _kind(value: Any) -> str:
    """The JSON kind of a decoded value (as :func:`inspector.core.quirks.events.wrongtype.kind`)."""
    return _KINDS.get(type(value)) or type(value).__name__


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
