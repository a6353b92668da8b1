"""Writing captures: append-only, flushed per record, secrets redacted before serialising.

Invariants (the format itself is described in :mod:`inspector.core.capture.format`):
- Append-only and flushed per record: each record is serialised in full, then written with
  one ``write`` of the file opened in append mode and flushed at once. A process killed at
  any moment leaves every earlier record on disk and at most one cut-off last line.
  (``fsync`` happens once, on close.)
- Raw bytes round-trip exactly: a chunk is stored as ``text`` only when a strict UTF-8
  decode of it succeeds, otherwise as ``b64``.
- Secrets are never written: credential headers and URL query parameters are replaced by
  ``"REDACTED"`` as a whole, and URL user-info is dropped. Request bodies are stored as sent
  (they carry the tools under test); callers must not put credentials in them.
"""

from __future__ import annotations

import base64
import contextlib
import os
import re
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import Any, Final, Self
from urllib.parse import unquote_plus, urlsplit, urlunsplit

import orjson

import inspector
from inspector.core.capture import compat
from inspector.core.capture.format import FORMAT, REDACTED, TOOL, CaptureError

# fmt: off
_SECRET_HEADERS: Final = frozenset({
    "authorization", "proxy-authorization", "x-api-key", "api-key", "x-goog-api-key",
    "cookie", "set-cookie",
})
_SECRET_HEADER_WORDS: Final = (
    "secret", "token", "password", "credential", "api-key", "api_key", "apikey", "subscription-key",
)
_SECRET_PARAMS: Final = frozenset({
    "key", "api_key", "api-key", "apikey", "token", "access_token", "refresh_token", "id_token",
    "client_secret",
})
# fmt: on
_NEWLINE: Final = orjson.OPT_APPEND_NEWLINE


_UNSAFE_NAME = re.compile(r"[^A-Za-z0-9._-]+")


def new_capture_path(directory: str | os.PathLike[str], *parts: str) -> Path:
    """A new, empty capture file in ``directory`` named after ``parts`` (joined by "-", each
    made safe for a file name: "openai/gpt-4o" gives "openai_gpt-4o"), claimed with O_EXCL
    so it is never an existing file: two sessions in the same second get "-2", "-3" …"""
    stem = "-".join(_UNSAFE_NAME.sub("_", p).strip("._") or "_" for p in parts)
    base = Path(directory)
    base.mkdir(parents=True, exist_ok=True)
    for n in range(1, 10_000):
        path = base / (f"{stem}.jsonl" if n == 1 else f"{stem}-{n}.jsonl")
        try:
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
        except FileExistsError:
            continue
        except OSError as exc:
            raise CaptureError(
                f"cannot create capture: {exc.strerror or exc}", path=str(path)
            ) from None
        return path
    raise CaptureError("too many captures of that name", path=str(base / stem))


def _is_secret_header(name: str) -> bool:
    lower = name.lower()
    if lower in _SECRET_HEADERS:
        return True
    # Rate-limit headers ("x-ratelimit-remaining-tokens") carry counts, never credentials.
    return "ratelimit" not in lower and any(word in lower for word in _SECRET_HEADER_WORDS)


def _text(value: str | bytes) -> str:
    return value.decode("latin-1") if isinstance(value, bytes) else str(value)


Headers = Mapping[str, str] | Mapping[bytes, bytes] | Iterable[tuple[str | bytes, str | bytes]]
"""What the writer accepts as headers: a mapping (``httpx.Headers`` too) or (name, value) pairs."""


def redact_headers(headers: Headers | None) -> dict[str, str]:
    """Headers as a plain dict with every credential value replaced by ``"REDACTED"``.

    Names keep the spelling first seen; repeated names (compared case-insensitively) are
    joined with ", ". Names and values given as bytes are decoded as Latin-1.
    """
    pairs = headers.items() if isinstance(headers, Mapping) else (headers or ())
    out: dict[str, str] = {}
    spelling: dict[str, str] = {}
    for raw_name, raw_value in pairs:
        name = _text(raw_name)
        secret = _is_secret_header(name)
        value = REDACTED if secret else _text(raw_value)
        key = spelling.setdefault(name.lower(), name)
        if key not in out:
            out[key] = value
        elif not secret:
            out[key] = f"{out[key]}, {value}"
    return out


def _redact_pairs(text: str) -> str:
    pieces = text.split("&")
    for i, piece in enumerate(pieces):
        name, eq, _ = piece.partition("=")
        if eq and unquote_plus(name).lower() in _SECRET_PARAMS:
            pieces[i] = f"{name}={REDACTED}"
    return "&".join(pieces)


def redact_url(url: str) -> str:
    """``url`` with secret query (and fragment) parameters and any user-info redacted.

    Anything else is kept byte for byte; a URL that cannot be parsed becomes "REDACTED".
    """
    try:
        parts = urlsplit(url)
    except ValueError:
        return REDACTED
    netloc = parts.netloc
    if "@" in netloc:
        netloc = f"{REDACTED}@{netloc.rpartition('@')[2]}"
    query, fragment = _redact_pairs(parts.query), _redact_pairs(parts.fragment)
    if (netloc, query, fragment) == (parts.netloc, parts.query, parts.fragment):
        return url
    return urlunsplit((parts.scheme, netloc, parts.path, query, fragment))


def _body_fields(body: Any) -> dict[str, Any]:
    """The request body as record fields: JSON as a value, other text as a string."""
    if isinstance(body, str | bytes | bytearray | memoryview):
        raw = bytes(body) if not isinstance(body, str) else body
        try:
            parsed = orjson.loads(raw)
        except orjson.JSONDecodeError:
            parsed = None
        if isinstance(parsed, dict | list):
            return {"body": parsed}
        if isinstance(raw, str):
            return {"body": raw}
        try:
            return {"body": raw.decode("utf-8")}
        except UnicodeDecodeError:
            return {"body": None, "body_b64": base64.b64encode(raw).decode("ascii")}
    if isinstance(body, Mapping):
        return {"body": dict(body)}
    return {"body": body}


class CaptureWriter:
    """Writes a capture record by record; every record is on disk (flushed) when a call returns.

    Not thread-safe: use it from one thread (the session's event loop).
    """

    def __init__(self, path: str | os.PathLike[str], *, meta: Mapping[str, Any] | None = None):
        self.path = os.fspath(path)
        flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_APPEND | getattr(os, "O_BINARY", 0)
        try:
            fd = os.open(self.path, flags, 0o666)
        except OSError as exc:
            raise CaptureError(
                f"cannot create capture: {exc.strerror or exc}", path=self.path
            ) from None
        self._file = os.fdopen(fd, "ab")
        created = datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
        header = {"format": FORMAT, "version": compat.CURRENT_VERSION, "created": created}
        header.update(tool=TOOL, tool_version=inspector.__version__)
        if meta is not None:
            header["meta"] = dict(meta)
        self._write(header)

    def _write(self, record: dict[str, Any]) -> None:
        self._file.write(orjson.dumps(record, option=_NEWLINE))
        self._file.flush()

    def _record(self, rtype: str, attempt: int, **fields: Any) -> None:
        self._write({"type": rtype, "attempt": attempt, **fields})

    def request(
        self,
        attempt: int,
        method: str,
        url: str,
        headers: Headers | None,
        body: Any,
        t: float = 0.0,
    ) -> None:
        """Record the request of ``attempt`` (URL and headers redacted; body as sent).

        ``body`` is a JSON value, or str/bytes: stored parsed when it is a JSON object or
        array, else as a string (bytes that are not UTF-8 go to ``body_b64``).
        """
        fields = _body_fields(body)
        url, headers_ = redact_url(url), redact_headers(headers)
        self._record("request", attempt, t=t, method=method, url=url, headers=headers_, **fields)

    def response(self, attempt: int, status: int, headers: Headers | None, t: float) -> None:
        """Record the response status and (redacted) headers of ``attempt``."""
        self._record("response", attempt, t=t, status=status, headers=redact_headers(headers))

    def chunk(self, attempt: int, t: float, data: bytes) -> None:
        """Record one received chunk exactly; ``t`` is seconds since the attempt's request."""
        # The hot path: one decode attempt, one dict, one dumps, one write, one flush.
        if type(data) is not bytes:
            data = bytes(data)
        record: dict[str, Any] = {"type": "chunk", "attempt": attempt, "t": t}
        try:
            record["text"] = data.decode("utf-8")
        except UnicodeDecodeError:
            record["b64"] = base64.b64encode(data).decode("ascii")
        self._write(record)

    def attempt(self, attempt: int, reason: str, recovery_action: str, **extra: Any) -> None:
        """Start attempt number ``attempt``: why the previous one was abandoned, what now."""
        if "type" in extra:
            raise ValueError("'type' is reserved in attempt records")
        self._record("attempt", attempt, reason=reason, recovery_action=recovery_action, **extra)

    def event(self, attempt: int, t: float, kind: str, data: Any) -> None:
        """Record a synthetic timeline event (returned verbatim by the reader)."""
        self._record("event", attempt, t=t, kind=kind, data=data)

    def end(self, attempt: int, t: float, reason: str, error: str | None = None) -> None:
        """Record how ``attempt`` ended: "eof", "error", "cancelled", "timeout", ..."""
        self._record("end", attempt, t=t, reason=reason, error=error)

    @property
    def closed(self) -> bool:
        return self._file.closed

    def close(self) -> None:
        """Flush, fsync (best effort) and close; calling it again does nothing."""
        if self._file.closed:
            return
        try:
            self._file.flush()
            with contextlib.suppress(OSError):  # best effort: e.g. pipes cannot fsync
                os.fsync(self._file.fileno())
        finally:
            self._file.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
