"""Today's redaction rule applied to files already on disk: captures and HAR files.

A capture written before the rule grew (format version 1 kept response chunks as received,
masked keys only as whole words, kept ``api_key`` body fields and credential-shaped headers)
is read and written again through :class:`~.writer.CaptureWriter`, so it gets exactly what a
new recording gets: format version 2, every record redacted, the key masked in the chunks
(``*`` of the same length, the ranges listed). A HAR is walked entry by entry, every entry
kept (not only the LLM ones): URL, query, headers, cookies, ``postData``, the response's
headers, its ``content.text`` (the key masked, base64 decoded and encoded again) and the
exporter's ``_error``.

Invariants:
- The keys looked for are ``secrets`` (given by the caller: the key a capture was recorded
  with, which its redacted headers no longer tell) plus those the file's own secret headers
  and URL parameters still hold (:func:`~.harbody.found_secrets`).
- Bytes other than a key's keep their place and value; a scrubbed file reads back as the
  same attempts, chunks (lengths and times) and end records.
"""

from __future__ import annotations

import base64
import binascii
import os
from collections.abc import Collection
from typing import Any

import orjson

from inspector.core.capture.format import REDACTED
from inspector.core.capture.harbody import found_secrets
from inspector.core.capture.reader import load
from inspector.core.capture.redaction import (
    mask_body,
    mask_secrets,
    redact_body,
    redact_headers,
    redact_url,
)
from inspector.core.capture.writer import CaptureWriter


def scrub_capture(path: str, out: str, secrets: Collection[str] = ()) -> int:
    """Write ``path``'s capture to ``out`` under today's rule; the number of attempts."""
    capture = load(path)
    keys = set(s for s in secrets if s)
    for attempt in capture.attempts:
        request = attempt.request or {}
        headers = (request.get("headers") or {}).items()
        keys.update(found_secrets(str(request.get("url", "")), headers))
    meta = capture.meta if capture.kind == "capture" else None
    with CaptureWriter(out, meta=meta, secrets=sorted(keys)) as w:
        for a in capture.attempts:
            if a.reason is not None or a.recovery_action is not None:
                w.attempt(a.number, a.reason or "", a.recovery_action or "", **a.extra)
            if a.request is not None:
                r = a.request
                body: Any = r.get("body")
                if isinstance(r.get("body_b64"), str):
                    try:
                        body = base64.b64decode(r["body_b64"], validate=True)
                    except (binascii.Error, ValueError):
                        body = None
                w.request(a.number, str(r.get("method", "")), str(r.get("url", "")),
                          r.get("headers") or {}, body, _t(r.get("t")))  # fmt: skip
            if a.response is not None:
                w.response(a.number, int(a.response["status"]), a.response.get("headers") or {},
                           _t(a.response.get("t")))  # fmt: skip
            for t, data in a.chunks:
                w.chunk(a.number, t, data)
            for event in a.events:
                w.event(a.number, _t(event.get("t")), str(event.get("kind")), event.get("data"))
            if a.end is not None:
                error = a.end.get("error")
                w.end(a.number, _t(a.end.get("t")), str(a.end.get("reason")),
                      error if isinstance(error, str) else None)  # fmt: skip
    if w.failed is not None:
        raise OSError(w.failed)
    return len(capture.attempts)


def scrub_har(doc: dict[str, Any], secrets: Collection[str] = ()) -> int:
    """Apply today's rule to a HAR document in place; the number of entries."""
    log = doc.get("log") if isinstance(doc, dict) else None
    entries = log.get("entries") if isinstance(log, dict) else None
    if not isinstance(entries, list):
        return 0
    keys = set(s for s in secrets if s)
    for entry in entries:
        req = _obj(entry, "request")
        keys.update(found_secrets(str(req.get("url", "")), _pairs(req.get("headers"))))
    keys_ = sorted(keys)
    for entry in entries:
        _entry(entry, keys_)
    return len(entries)


def _entry(entry: Any, keys: list[str]) -> None:
    req, resp = _obj(entry, "request"), _obj(entry, "response")
    if isinstance(req.get("url"), str):
        req["url"] = redact_url(req["url"], keys)
    for part in (req, resp):
        _headers(part, "headers", keys)
        for c in part.get("cookies") or []:
            if isinstance(c, dict) and "value" in c:
                c["value"] = REDACTED
    for q in req.get("queryString") or []:
        if isinstance(q, dict) and isinstance(q.get("value"), str):
            name = str(q.get("name", ""))
            q["value"] = redact_url(f"http://h/?{name}={q['value']}", keys).split("=", 1)[1]
    post = req.get("postData")
    if isinstance(post, dict) and isinstance(post.get("text"), str):
        post["text"] = _text_body(post["text"], keys)
    content = resp.get("content")
    if isinstance(content, dict) and isinstance(content.get("text"), str):
        text = content["text"]
        if content.get("encoding") == "base64":
            try:
                raw = base64.b64decode(text, validate=True)
                content["text"] = base64.b64encode(mask_body(raw, keys)[0]).decode("ascii")
            except (binascii.Error, ValueError):
                content["text"] = mask_secrets(text, keys)
        else:
            raw = text.encode("utf-8", "surrogatepass")
            content["text"] = mask_body(raw, keys)[0].decode("utf-8", "surrogatepass")
    for where in (entry, resp):
        if isinstance(where, dict) and isinstance(where.get("_error"), str):
            where["_error"] = mask_secrets(where["_error"], keys)


def _text_body(text: str, keys: list[str]) -> str:
    try:
        parsed = orjson.loads(text)
    except orjson.JSONDecodeError:
        return mask_secrets(text, keys)
    return orjson.dumps(redact_body(parsed, keys)).decode("utf-8")


def _headers(part: dict[str, Any], field: str, keys: list[str]) -> None:
    for name, value in _pairs(part.get(field)):
        for h in part[field]:
            if h.get("name") == name and h.get("value") == value:
                h["value"] = redact_headers([(name, value)], keys)[name]


def _pairs(headers: Any) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for h in headers if isinstance(headers, list) else ():
        if (
            isinstance(h, dict)
            and isinstance(h.get("name"), str)
            and isinstance(h.get("value"), str)
        ):
            out.append((h["name"], h["value"]))
    return out


def _obj(parent: Any, name: str) -> dict[str, Any]:
    value = parent.get(name) if isinstance(parent, dict) else None
    return value if isinstance(value, dict) else {}


def _t(value: Any) -> float:
    return float(value) if type(value) in (int, float) else 0.0


def backup_name(path: str) -> str:
    """A free name for ``path``'s backup: ``PATH.orig``, ``PATH.orig-2`` …"""
    name, n = f"{path}.orig", 2
    while os.path.lexists(name):
        name, n = f"{path}.orig-{n}", n + 1
    return name
