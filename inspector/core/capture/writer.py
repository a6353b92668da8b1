"""Writing captures: append-only, flushed per record, secrets redacted before serialising.

Invariants (the format itself is described in :mod:`inspector.core.capture.format`):
- Append-only and flushed per record: each record is serialised in full, then written with
  one ``write`` of the file opened in append mode and flushed at once. A process killed at
  any moment leaves every earlier record on disk and at most one cut-off last line.
  (``fsync`` happens once, on close.)
- Raw bytes round-trip exactly: a chunk is stored as ``text`` only when a strict UTF-8
  decode of it succeeds, otherwise as ``b64``.
- Secrets are never written: request and response records and the header's meta go through
  the one redaction rule (:mod:`inspector.core.capture.redaction`: secret header and
  parameter names, URL user-info, and the writer's ``secrets`` — the session's key — wherever
  they show as a whole token in a header value, the URL, a meta value or a string of the
  request body). Otherwise a request body is stored as sent (it carries the tools under
  test); response chunks are the bytes as received.
"""

from __future__ import annotations

import base64
import contextlib
import os
import re
from collections.abc import Collection, Mapping
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import Any, Final, Self

import orjson

import inspector
from inspector.core.capture import compat
from inspector.core.capture.format import FORMAT, TOOL, CaptureError
from inspector.core.capture.redaction import (
    Headers,
    mask_secrets,
    redact_headers,
    redact_json,
    redact_meta,
    redact_url,
)

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


def _body_fields(body: Any, secrets: Collection[str] = ()) -> dict[str, Any]:
    """The request body as record fields: JSON as a value, other text as a string; the
    ``secrets`` redacted from its strings (:func:`~.redaction.redact_json`), masked in text."""
    if isinstance(body, str | bytes | bytearray | memoryview):
        raw = bytes(body) if not isinstance(body, str) else body
        try:
            parsed = orjson.loads(raw)
        except orjson.JSONDecodeError:
            parsed = None
        if isinstance(parsed, dict | list):
            return {"body": redact_json(parsed, secrets)}
        if isinstance(raw, str):
            return {"body": mask_secrets(raw, secrets)}
        try:
            return {"body": mask_secrets(raw.decode("utf-8"), secrets)}
        except UnicodeDecodeError:
            return {"body": None, "body_b64": base64.b64encode(raw).decode("ascii")}
    if isinstance(body, Mapping):
        return {"body": redact_json(dict(body), secrets)}
    return {"body": redact_json(body, secrets)}


class CaptureWriter:
    """Writes a capture record by record; every record is on disk (flushed) when a call returns.

    Not thread-safe: use it from one thread (the session's event loop).
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        meta: Mapping[str, Any] | None = None,
        secrets: Collection[str] = (),
    ):
        self.path = os.fspath(path)
        self.secrets = tuple(s for s in secrets if s)
        """Values redacted wherever they show as a whole token (the session's key)."""
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
            header["meta"] = redact_meta(meta, self.secrets)
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
        """Record the request of ``attempt`` (URL, headers and the key in the body redacted).

        ``body`` is a JSON value, or str/bytes: stored parsed when it is a JSON object or
        array, else as a string (bytes that are not UTF-8 go to ``body_b64``).
        """
        fields = _body_fields(body, self.secrets)
        url, headers_ = redact_url(url, self.secrets), redact_headers(headers, self.secrets)
        self._record("request", attempt, t=t, method=method, url=url, headers=headers_, **fields)

    def response(self, attempt: int, status: int, headers: Headers | None, t: float) -> None:
        """Record the response status and (redacted) headers of ``attempt``."""
        headers_ = redact_headers(headers, self.secrets)
        self._record("response", attempt, t=t, status=status, headers=headers_)

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
        """Record how ``attempt`` ended: "eof", "error", "cancelled", "timeout", ...; the error
        text is ours (it may quote a server that echoed the key), so the key is masked in it."""
        if error:
            error = mask_secrets(error, self.secrets)
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
