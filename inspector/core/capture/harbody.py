"""A HAR entry's bodies and its key: the request body as a capture request record's fields,
the response body as received (or, in one line, why the exporter left it out), and the
secrets a request carries.

Invariants:
- A body the exporter left out is never an empty body: :func:`response_body` gives None and
  a reason naming the exporter and why that tool leaves bodies out (Firefox's "Response
  bodies are not included.", mitmproxy's null text for a streamed response, Chrome DevTools'
  missing text for some event streams). An empty ``text`` with no ``size`` at all (mitmproxy
  with ``stream_large_bodies``), whatever the exporter, is "body not recorded" too; an empty
  text whose size is 0 is an empty body.
- ``content.text`` is UTF-8 text unless ``content.encoding`` is ``base64``; any other
  encoding is not guessed at. A request body (``postData.text``) that is JSON is parsed; the
  key is redacted from it by the one rule (:func:`~.redaction.redact_body`).
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Iterable
from typing import Any, Final
from urllib.parse import parse_qsl, urlsplit

import orjson

from inspector.core.capture.redaction import is_secret_name, mask_secrets, redact_body

MIN_SECRET: Final = 8
"""A secret header's value shorter than this is not searched for elsewhere (it would mask
ordinary words); it is still redacted where it stands, by name."""


def found_secrets(url: str, headers: Iterable[tuple[str, str]]) -> list[str]:
    """The key itself, as a request carries it: the values of its secret headers (``Bearer
    KEY`` gives KEY as well) and secret URL parameters, redacted then wherever they show."""
    values: list[str] = []
    for name, value in headers:
        if is_secret_name(name):
            values += [value, value.split()[-1] if value.split() else value]
    try:
        query = urlsplit(url).query
    except ValueError:
        query = ""
    values += [v for k, v in parse_qsl(query, keep_blank_values=True) if is_secret_name(k)]
    return sorted({v for v in values if len(v) >= MIN_SECRET and v != "REDACTED"})


def post_data(post: Any, secrets: list[str]) -> dict[str, Any]:
    """The request body as capture record fields (JSON parsed, the key redacted)."""
    if not isinstance(post, dict) or not isinstance(post.get("text"), str):
        return {"body": None}
    text: str = post["text"]
    if post.get("encoding") == "base64" or post.get("_encoding") == "base64":
        try:
            raw = base64.b64decode(text, validate=True)
            text = raw.decode("utf-8")
        except (binascii.Error, ValueError):
            return {"body": None, "body_b64": text}
    try:
        parsed = orjson.loads(text)
    except orjson.JSONDecodeError:
        return {"body": mask_secrets(text, secrets) if text else None}
    return {"body": redact_body(parsed, secrets)}


def response_body(
    content: dict[str, Any], headers: list[tuple[str, str]], exporter: str
) -> tuple[bytes | None, str | None]:
    """(the response body, None), or (None, why the exporter left it out)."""
    text, size = content.get("text"), content.get("size")
    size = size if type(size) is int and size > 0 else 0
    declared = next((v for k, v in headers if k.lower() == "content-length"), "")
    size = size or (int(declared) if declared.isdigit() else 0)
    if isinstance(text, str):
        encoding = content.get("encoding")
        if encoding in (None, "", "utf-8", "utf8"):
            if not text and size:
                return None, f"{exporter} wrote an empty response.content.text for a body of " \
                    f"{size} bytes: it kept no body for this response"  # fmt: skip
            if not text and not _sized(content):
                return None, f"body not recorded: {exporter} wrote an empty " \
                    "response.content.text with no size (mitmproxy does so for a response it " \
                    "streamed: stream_large_bodies)"  # fmt: skip
            return text.encode("utf-8", "surrogatepass"), None
        if encoding != "base64":
            return None, f"{exporter} wrote the body in encoding {str(encoding)[:20]!r}, " \
                "which the inspector does not read (only base64)"  # fmt: skip
        try:
            return base64.b64decode(text, validate=True), None
        except (binascii.Error, ValueError):
            return None, f"{exporter} wrote a response.content.text that is not valid base64"
    return None, _why_missing(exporter, "text" in content, size, content.get("comment"))


def _sized(content: dict[str, Any]) -> bool:
    """Whether the exporter gave the body a size (0 included): an empty text with a size of 0
    is an empty body; with none at all, a body that was not recorded."""
    return type(content.get("size")) is int and content["size"] >= 0


def _why_missing(exporter: str, null: bool, size: int, comment: Any) -> str:
    """One line: which exporter left the body out, and why that tool does so."""
    of = f" ({size} bytes)" if size else ""
    if isinstance(comment, str) and "not included" in comment:
        return (
            f"{exporter} left the response body{of} out ({comment.strip()!r}): save the HAR "
            "with response bodies (Firefox leaves out bodies over "
            "devtools.netmonitor.responseBodyLimit)"
        )
    if exporter.startswith("mitmproxy"):
        return (
            f"mitmproxy saved no response body{of} (content.text is "
            f"{'null' if null else 'missing'}): it keeps none for a response it streamed "
            "(stream_large_bodies, or flow.response.stream set)"
        )
    if exporter == "Chrome DevTools":
        return (
            f"Chrome DevTools saved no response.content.text{of}: DevTools keeps no body for "
            "some event streams (an EventSource, or a stream still open when the HAR was "
            "saved); record with `toolcall-inspector proxy` or `curl -N` instead"
        )
    return f"{exporter} saved no response body{of} (no response.content.text)"
