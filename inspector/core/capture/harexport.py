"""Captures written as HAR 1.2: for HAR viewers, bug trackers and the other tools that read
HAR (and for this tool, which reads its own HAR back with every byte and time).

One entry per attempt (a retry is a second physical request): the request (method, URL,
headers, body as ``postData.text``), the response (status, headers, the body whole in
``content.text``), ``timings`` (``wait``: to the first byte, ``receive``: to the last) and
three custom fields, ``_``-prefixed as the spec allows:

- ``_chunks`` (entry): ``[{"t": seconds since the request, "size": bytes}, …]``, one per
  chunk as it arrived; the chunks are the body cut at those sizes, in order. Absent for a
  body read from a file without times (a raw body): the import is then untimed.
- ``_inspector`` (entry): the attempt's number, its retry record, end record, tool-loop
  events, which session it belongs to, and the request/response times exactly.
- ``_inspector`` (log): ``{"format": "toolcall-inspector-har", "version": 1, "sessions":
  [{"header", "kind"}]}``, each capture's header (its meta redacted).

Invariants:
- Secrets are redacted by the one rule (:mod:`inspector.core.capture.redaction`) however the
  capture was made: headers and URL by name, user-info, credential shapes, and the key itself
  wherever it shows — the response body included (``*`` of the same length, the ranges in
  the entry's ``_inspector.masked``) — the key being the caller's ``secrets`` plus the values
  of the capture's own secret headers and URL parameters (a capture not written by this
  tool's writer, or a HAR re-exported, may hold them).
- Bodies keep every byte: ``content.text`` is the body when it is UTF-8, else its base64 with
  ``encoding: "base64"``; a request body that is not UTF-8 is base64 with
  ``_encoding: "base64"``.
- The result validates against the HAR 1.2 schema (``tests/resources/har-1.2.schema.json``).
"""

from __future__ import annotations

import base64
import contextlib
import os
from collections.abc import Collection, Sequence
from datetime import UTC, datetime, timedelta
from http import HTTPStatus
from typing import Any, Final
from urllib.parse import parse_qsl, urlsplit

import orjson

import inspector
from inspector.core.capture.format import TOOL, CaptureError
from inspector.core.capture.harbody import found_secrets
from inspector.core.capture.records import Attempt, Capture
from inspector.core.capture.redaction import (
    mask_body,
    mask_secrets,
    redact_body,
    redact_headers,
    redact_json,
    redact_meta,
    redact_url,
)

HAR_FORMAT: Final = "toolcall-inspector-har"
"""``log._inspector.format``: what tells this tool's HAR from another's."""
NO_REQUEST_URL: Final = "about:blank"
"""The URL of an entry whose request was never recorded (a raw body: ``curl -N`` output)."""


def to_har(
    captures: Sequence[Capture],
    *,
    secrets: Collection[str] = (),
    started: datetime | None = None,
) -> dict[str, Any]:
    """The HAR 1.2 document of ``captures`` (one session each); ``started``: when a capture
    that records no creation time began (default: now)."""
    sessions, entries = [], []
    for number, capture in enumerate(captures):
        keys = _secrets(capture, secrets)
        sessions.append({"header": _header(capture, keys), "kind": capture.kind})
        begun = _begun(capture, started)
        for attempt in capture.attempts:  # on the replay's session clock: each attempt
            entries.append(_entry(capture, attempt, number, begun, keys))  # after the last
            begun += timedelta(seconds=_duration(attempt))
    log = {
        "version": "1.2",
        "creator": {"name": TOOL, "version": inspector.__version__},
        "entries": entries,
        "_inspector": {"format": HAR_FORMAT, "version": 1, "sessions": sessions},
    }
    return {"log": log}


def dumps(har: dict[str, Any]) -> bytes:
    """The HAR as UTF-8 JSON, indented (as DevTools writes it), ending in a newline."""
    return orjson.dumps(har, option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE)


def write(path: str | os.PathLike[str], har: dict[str, Any]) -> int:
    """Write ``har`` to ``path`` whole or not at all (a temporary file renamed over it);
    return its size. CaptureError (one line) when it cannot be written."""
    name = os.fspath(path)
    data = dumps(har)
    tmp = f"{name}.part"
    try:
        with open(tmp, "wb") as f:
            f.write(data)
        os.replace(tmp, name)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise CaptureError(f"cannot write: {exc.strerror or exc}", path=name) from None
    return len(data)


def _secrets(capture: Capture, given: Collection[str]) -> list[str]:
    found = [s for s in given if s]
    for attempt in capture.attempts:
        request = attempt.request or {}
        headers = request.get("headers") or {}
        found += found_secrets(str(request.get("url", "")), headers.items())
    url = capture.meta.get("url")
    return sorted(set(found + found_secrets(url if isinstance(url, str) else "", ())))


def _header(capture: Capture, keys: list[str]) -> dict[str, Any]:
    header = {k: v for k, v in capture.header.items() if k != "meta"}
    if capture.meta:
        header["meta"] = redact_meta(capture.meta, keys)
    return header


def _begun(capture: Capture, started: datetime | None) -> datetime:
    created = capture.header.get("created")
    if isinstance(created, str):
        try:
            when = datetime.fromisoformat(created.replace("Z", "+00:00"))
            return when if when.tzinfo else when.replace(tzinfo=UTC)
        except ValueError:
            pass
    return started or datetime.now(UTC)


def _iso(when: datetime) -> str:
    return when.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _entry(
    capture: Capture, attempt: Attempt, session: int, begun: datetime, keys: list[str]
) -> dict[str, Any]:
    request = attempt.request or {}
    request_t = _t(request.get("t"))
    response = attempt.response or {}
    response_t = _t(response.get("t"), request_t)
    times = [t for t, _ in attempt.chunks]  # seconds since the request
    first = times[0] if times else response_t
    wait = max(first, 0.0) * 1000
    receive = max((times[-1] if times else first) - first, 0.0) * 1000
    entry: dict[str, Any] = {
        "startedDateTime": _iso(begun + timedelta(seconds=request_t)),
        "time": wait + receive,
        "request": _request(request, keys),
        "response": _response(attempt, response, keys),
        "cache": {},
        "timings": {"send": 0, "wait": wait, "receive": receive},
        "comment": _comment(capture, attempt),
        "_inspector": _own(attempt, session, request_t, response_t, keys),
    }
    if capture.timed:
        entry["_chunks"] = [{"t": t, "size": len(data)} for t, data in attempt.chunks]
    return entry


def _duration(attempt: Attempt) -> float:
    """Seconds from the attempt's request to the last thing recorded of it."""
    ends = [t for t, _ in attempt.chunks[-1:]]
    if attempt.end is not None:
        ends.append(_t(attempt.end.get("t")))
    return max(ends, default=0.0)


def _t(value: Any, default: float = 0.0) -> float:
    return float(value) if type(value) in (int, float) else default


def _request(request: dict[str, Any], keys: list[str]) -> dict[str, Any]:
    if not request:
        return {
            "method": "UNKNOWN",
            "url": NO_REQUEST_URL,
            "httpVersion": "",
            "cookies": [],
            "headers": [],
            "queryString": [],
            "headersSize": -1,
            "bodySize": -1,
            "comment": "no request was recorded: the body was read from a file on its own",
        }
    url = redact_url(str(request.get("url", "")), keys)
    headers = redact_headers(request.get("headers") or {}, keys)
    try:
        query = parse_qsl(urlsplit(url).query, keep_blank_values=True)
    except ValueError:
        query = []
    out: dict[str, Any] = {
        "method": str(request.get("method", "")),
        "url": url,
        "httpVersion": "",
        "cookies": [],
        "headers": _pairs(headers),
        "queryString": [{"name": k, "value": v} for k, v in query],
        "headersSize": -1,
        "bodySize": 0,
    }
    post = _post(request, headers, keys)
    if post is not None:
        out["postData"], out["bodySize"] = post
    return out


def _post(
    request: dict[str, Any], headers: dict[str, str], keys: list[str]
) -> tuple[dict[str, Any], int] | None:
    mime = next((v for k, v in headers.items() if k.lower() == "content-type"), "")
    b64 = request.get("body_b64")
    if isinstance(b64, str):
        post = {"mimeType": mime, "text": b64, "_encoding": "base64"}
        return post, len(base64.b64decode(b64, validate=False))
    body = request.get("body")
    if body is None:
        return None
    if isinstance(body, str):
        text = mask_secrets(body, keys)
    else:
        text = orjson.dumps(redact_body(body, keys)).decode("utf-8")
        mime = mime or "application/json"
    return {"mimeType": mime, "text": text}, len(text.encode("utf-8"))


def _response(attempt: Attempt, response: dict[str, Any], keys: list[str]) -> dict[str, Any]:
    status = attempt.status or 0
    headers = redact_headers(response.get("headers") or {}, keys)
    mime = next((v for k, v in headers.items() if k.lower() == "content-type"), "")
    body, _ = mask_body(attempt.body, keys)
    content: dict[str, Any] = {"size": len(body), "mimeType": mime or "x-unknown"}
    try:
        content["text"] = body.decode("utf-8")
    except UnicodeDecodeError:
        content["text"] = base64.b64encode(body).decode("ascii")
        content["encoding"] = "base64"
    try:
        phrase = HTTPStatus(status).phrase
    except ValueError:
        phrase = ""
    return {
        "status": status,
        "statusText": phrase,
        "httpVersion": "",
        "cookies": [],
        "headers": _pairs(headers),
        "content": content,
        "redirectURL": "",
        "headersSize": -1,
        "bodySize": len(body),
    }


def _pairs(headers: dict[str, str]) -> list[dict[str, str]]:
    return [{"name": k, "value": v} for k, v in headers.items()]


def _comment(capture: Capture, attempt: Attempt) -> str:
    parts = [f"attempt {attempt.number} of {len(capture.attempts)}"]
    if attempt.reason:
        parts.append(f"after {attempt.reason}")
    if attempt.end is not None:
        parts.append(f"ended: {attempt.end.get('reason')}")
    elif attempt.interrupted:
        parts.append("interrupted (no end recorded)")
    return " · ".join(parts)


def _own(
    attempt: Attempt, session: int, request_t: float, response_t: float, keys: list[str]
) -> dict[str, Any]:
    own: dict[str, Any] = {
        "session": session,
        "attempt": attempt.number,
        "request_t": request_t,
        "response_t": response_t,
        "expects_end": attempt.expects_end,
    }
    masked = sorted(set(attempt.masked) | set(mask_body(attempt.body, keys)[1]))
    if masked:
        own["masked"] = [list(span) for span in masked]
    if attempt.reason is not None or attempt.recovery_action is not None or attempt.extra:
        record = {"reason": attempt.reason, "recovery_action": attempt.recovery_action}
        own["attempt_record"] = {**record, **redact_json(attempt.extra, keys)}
    if attempt.end is not None:
        end = {k: v for k, v in attempt.end.items() if k not in ("type", "attempt")}
        if isinstance(end.get("error"), str):
            end["error"] = mask_secrets(end["error"], keys)
        own["end"] = end
    if attempt.events:
        own["events"] = [
            redact_json({k: v for k, v in e.items() if k not in ("type", "attempt")}, keys)
            for e in attempt.events
        ]
    return own
