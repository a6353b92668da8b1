"""HAR entries (:mod:`inspector.core.capture.har`) as captures: what every view, the replay
and ``analyze`` already read.

Invariants:
- A HAR another tool wrote gives one capture per entry, one attempt, its body as one untimed
  chunk: ``Capture.timed`` is False (the replay paces its events evenly and says "no timing",
  as for a raw body) and a warning says what HAR lost. Its request and response become the
  attempt's records (redacted already), so the request's tools judge the calls. An entry the
  exporter marked as failed (``_error``) gets an end record saying so; otherwise there is no
  end record and the attempt is not "interrupted" (HAR records no end of stream).
- A HAR this tool wrote (:mod:`inspector.core.capture.harexport`) gives its captures back:
  entries grouped by ``_inspector.session``, attempts numbered, retried and ended as they
  were, tool-loop events in place, and each body cut at its ``_chunks`` sizes with their
  times, so the capture replays as the original did.
- Every record goes through :class:`~inspector.core.capture.records.CaptureBuilder`, so a
  HAR entry is checked by the same rules as a capture line (a wrong type is a CaptureError
  naming the entry).
"""

from __future__ import annotations

from typing import Any, Final

from inspector.core.capture import compat
from inspector.core.capture.format import FORMAT, CaptureError
from inspector.core.capture.har import Har, HarEntry
from inspector.core.capture.records import Attempt, Capture, CaptureBuilder

NO_TIMING: Final = (
    "no timing: a HAR (this one from {exporter}) holds each response body whole, not when "
    "its chunks arrived; the replay paces the events evenly, so no time or gap shown is the "
    "provider's"
)


def foreign_capture(har: Har, entry: HarEntry, meta: dict[str, Any]) -> Capture:
    """The capture of one entry of a HAR another tool wrote (see the module docstring)."""
    header = {"format": FORMAT, "version": compat.CURRENT_VERSION, "meta": meta}
    if entry.started:
        header["created"] = entry.started
    capture = Capture(None, "capture", header, [], timed=False)
    capture.warnings.append(NO_TIMING.format(exporter=har.exporter))
    builder = CaptureBuilder(capture)
    _add(builder, entry, 1, t=(0.0, entry.wait))
    attempt = builder.attempts[1]
    if entry.body is not None:
        attempt.chunks.append((entry.wait, entry.body))
    if entry.error is not None:
        end = {"type": "end", "attempt": 1, "t": entry.time, "reason": "error"}
        _put(builder, entry, {**end, "error": entry.error})
    else:
        attempt.expects_end = False
    capture.attempts = [attempt]
    return capture


def own_captures(har: Har) -> list[tuple[list[HarEntry], Capture]]:
    """The captures of a HAR this tool wrote, each with the entries it came from, in the
    order of their first entry; entries without a record of ours are left out (None: the
    file has no session records at all)."""
    sessions = har.own.get("sessions") if har.own is not None else None
    if not isinstance(sessions, list):
        return []
    groups: dict[int, list[HarEntry]] = {}
    for entry in har.entries:
        number = entry.own.get("session") if entry.own is not None else None
        if type(number) is int and 0 <= number < len(sessions):
            groups.setdefault(number, []).append(entry)
    out = []
    for number, entries in groups.items():
        info = sessions[number] if isinstance(sessions[number], dict) else {}
        out.append((entries, _own_capture(info, entries)))
    return out


def _own_capture(info: dict[str, Any], entries: list[HarEntry]) -> Capture:
    header = info.get("header")
    header = dict(header) if isinstance(header, dict) else {}
    header.update(format=FORMAT, version=compat.CURRENT_VERSION)
    raw = info.get("kind") == "raw-sse"
    timed = not raw and all(e.chunks is not None for e in entries)
    capture = Capture(None, "raw-sse" if raw else "capture", {} if raw else header, [])
    capture.timed = timed
    builder = CaptureBuilder(capture)
    for position, entry in enumerate(entries, 1):
        own = entry.own or {}
        number = own["attempt"] if type(own.get("attempt")) is int else position
        _own_attempt(builder, entry, number, own, raw, timed)
    capture.attempts = [builder.attempts[n] for n in sorted(builder.attempts)]
    return capture


def _own_attempt(
    builder: CaptureBuilder,
    entry: HarEntry,
    number: int,
    own: dict[str, Any],
    raw: bool,
    timed: bool,
) -> None:
    record = own.get("attempt_record")
    if isinstance(record, dict):
        _put(builder, entry, {**record, "type": "attempt", "attempt": number})
    if not raw:
        times = (_number(own.get("request_t"), 0.0), _number(own.get("response_t"), entry.wait))
        _add(builder, entry, number, t=times)
    attempt = builder.attempts.setdefault(number, Attempt(number))  # a raw body: no request
    body = entry.body or b""
    if timed and entry.chunks is not None:
        at = 0
        for t, size in entry.chunks:
            attempt.chunks.append((t, body[at : at + size]))
            at += size
    elif entry.body is not None:
        attempt.chunks.append((0.0, body))
    events = own.get("events")
    for event in events if isinstance(events, list) else ():
        if isinstance(event, dict):
            _put(builder, entry, {**event, "type": "event", "attempt": number})
    end = own.get("end")
    if isinstance(end, dict):
        _put(builder, entry, {**end, "type": "end", "attempt": number})
    attempt.expects_end = own.get("expects_end") is not False and not raw
    if "masked" in own:  # the key's ranges this tool masked when it wrote the HAR
        builder.masked(attempt, own["masked"], entry.index)


def _add(builder: CaptureBuilder, entry: HarEntry, number: int, t: tuple[float, float]) -> None:
    """The request and (when there is one) response records of ``entry`` as attempt
    ``number``; ``t``: their times."""
    request = {"type": "request", "attempt": number, "t": t[0], "method": entry.method}
    request.update(url=entry.url, headers=entry.request_headers, **entry.request_body)
    _put(builder, entry, request)
    if entry.status:
        response = {"type": "response", "attempt": number, "t": t[1], "status": entry.status}
        _put(builder, entry, {**response, "headers": entry.response_headers})


def _put(builder: CaptureBuilder, entry: HarEntry, record: dict[str, Any]) -> None:
    """Add ``record``; its problems (an error, or a warning) name the HAR entry."""
    warnings = builder.capture.warnings
    before = len(warnings)
    try:
        builder.add(record, entry.index)
    except CaptureError as exc:
        raise CaptureError(f"HAR entry {entry.index}: {exc.reason}") from None
    prefix = f"line {entry.index}:"
    for i in range(before, len(warnings)):
        if warnings[i].startswith(prefix):
            warnings[i] = f"HAR entry {entry.index}:{warnings[i][len(prefix) :]}"


def _number(value: Any, default: float) -> float:
    return float(value) if type(value) in (int, float) else default
