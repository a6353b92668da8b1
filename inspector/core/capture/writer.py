"""Writing captures: created atomically, append-only, secrets redacted before serialising.

Invariants (the format itself is described in :mod:`inspector.core.capture.format`):
- Created atomically: the header is written to a temporary file beside it, which is renamed
  into place; a capture never exists without its header (a disk full at creation leaves
  nothing: the temporary file and the name claimed by :func:`new_capture_path`, which holds a
  pending header, are removed). Then records are appended to that same file.
- Append-only and written per record: each record is serialised in full, then written with
  ``os.write`` (no buffer of ours). A process killed at any moment leaves every earlier record
  on disk and at most one cut-off last line. (``fsync`` happens once, on close.)
- A write error (a full disk) ends the recording, never the session: the file is cut back to
  its last whole record, :attr:`CaptureWriter.failed` says why in one line, and every later
  call does nothing. The stream goes on being judged by whoever feeds it.
- Raw bytes round-trip exactly, except the session's own keys: a chunk is stored as ``text``
  only when a strict UTF-8 decode of it succeeds, otherwise as ``b64``; a key in it (or split
  across chunks: the earlier records' bytes are overwritten in place, same length) is masked
  by ``*`` of the same length and its ``[start, end)`` byte offsets in the attempt's body
  are listed in the chunk record's ``masked`` (format version 2).
- Secrets are never written: every record goes through the one redaction rule
  (:mod:`inspector.core.capture.redaction`).
- A large request body (a :class:`~.redaction.RedactedBody` marked ``large``) is written in
  pieces (:mod:`.pieces`): its record is still one line, written by several ``os.write``
  calls, the file cut back to the record before it if one fails. Its caller may do that in a
  worker thread, the writer being used by no one else meanwhile.
"""

from __future__ import annotations

import base64
import contextlib
import os
import re
from collections.abc import Collection, Iterable, Iterator, Mapping
from datetime import UTC, datetime
from types import TracebackType
from typing import Any, Final, Self

import orjson

import inspector
from inspector.core.capture import compat
from inspector.core.capture.claim import is_claim
from inspector.core.capture.claim import new_capture_path as new_capture_path
from inspector.core.capture.format import FORMAT, TOOL, CaptureError
from inspector.core.capture.redaction import (
    Headers,
    RedactedBody,
    SerializedBody,
    body_keys,
    find_keys,
    mask_secrets,
    redact_body,
    redact_headers,
    redact_meta,
    redact_url,
)

_NEWLINE: Final = orjson.OPT_APPEND_NEWLINE


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
            return {"body": redact_body(parsed, secrets)}
        if isinstance(raw, str):
            return {"body": mask_secrets(raw, secrets)}
        try:
            return {"body": mask_secrets(raw.decode("utf-8"), secrets)}
        except UnicodeDecodeError:
            return {"body": None, "body_b64": base64.b64encode(raw).decode("ascii")}
    if isinstance(body, RedactedBody):
        return {"body": redact_body(body, secrets)}  # as it is, unless other secrets show
    if isinstance(body, Mapping):
        return {"body": redact_body(dict(body), secrets)}
    return {"body": redact_body(body, secrets)}


class CaptureWriteError(CaptureError):
    """The capture could not be created (one line)."""


_TAIL_RECORDS: Final = 64
"""Chunk records kept per attempt for a key split across chunks (a longer split: not patched)."""


class _Written:
    """A chunk record on disk: its body offset, its bytes as written, where its line ends in
    the file (-1: not written) and whether its value is text (else base64)."""

    __slots__ = ("data", "end", "start", "text")

    def __init__(self, start: int, data: bytes) -> None:
        self.start, self.data, self.end, self.text = start, data, -1, True


class CaptureWriter:
    """Writes a capture record by record; every record is on disk when a call returns.

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
        """Values redacted wherever they show (the session's key)."""
        self.failed: str | None = None
        """Why the recording stopped (a write error), or None."""
        self._keys = body_keys(self.secrets)
        self._longest = max(map(len, self._keys), default=0)
        blocks = {k[i : i + 5] for k in self._keys for i in range(0, max(len(k) - 4, 1), 5)}
        self._blocks = re.compile(b"|".join(map(re.escape, sorted(blocks))))
        """Every run of 10 bytes of a key holds one of these 5-byte blocks: one C-level search
        tells a chunk with no piece of a key (nearly all) from one that may hold one."""
        self._bodies: dict[int, tuple[int, bytes, list[_Written]]] = {}
        """Per attempt: body bytes so far, its last bytes as received (as long as the longest
        key) and its last chunk records (for a key split across them)."""
        self._patch_fd: int | None = None
        created = datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
        header = {"format": FORMAT, "version": compat.CURRENT_VERSION, "created": created}
        header.update(tool=TOOL, tool_version=inspector.__version__)
        if meta is not None:
            header["meta"] = redact_meta(meta, self.secrets)
        self._fd = self._create(orjson.dumps(header, option=_NEWLINE))

    def _create(self, header: bytes) -> int:
        """Write ``header`` to a temporary file and rename it into place (module doc)."""
        folder, name = os.path.split(self.path)
        tmp = os.path.join(folder, f".{name}.{os.getpid()}.{id(self):x}.tmp")
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND | getattr(os, "O_BINARY", 0)
        fd = -1
        try:
            fd = os.open(tmp, flags, 0o666)
            _write_all(fd, header)
            os.replace(tmp, self.path)
        except OSError as exc:
            if fd >= 0:
                os.close(fd)
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            with contextlib.suppress(OSError):  # the name claimed for it, still unused
                if is_claim(self.path):
                    os.unlink(self.path)
            raise CaptureWriteError(
                f"cannot create capture: {exc.strerror or exc}", path=self.path
            ) from None
        self._pos = len(header)
        return fd

    def _write(self, record: dict[str, Any]) -> None:
        self._line(orjson.dumps(record, option=_NEWLINE))

    def _line(self, line: bytes) -> bool:
        if self.failed is not None or self._fd < 0:
            return False
        try:
            _write_all(self._fd, line)
        except OSError as exc:
            self._fail(exc)
            return False
        self._pos += len(line)
        return True

    def _pieces(self, head: bytes, middle: Iterable[bytes], tail: bytes) -> None:
        """One record written as ``head``, ``middle``'s pieces and ``tail`` (its newline)."""
        if self.failed is not None or self._fd < 0:
            return
        written = 0
        try:
            for piece in _chain(head, middle, tail):
                _write_all(self._fd, piece)
                written += len(piece)
        except OSError as exc:
            self._fail(exc)
            return
        self._pos += written

    def _copied(self, head: bytes, middle: SerializedBody, tail: bytes) -> None:
        """One record written as ``head``, ``middle`` copied from its file (by the kernel,
        where it can), and ``tail``."""
        if self.failed is not None or self._fd < 0:
            return
        try:
            _write_all(self._fd, head)
            with _not_appending(self._fd):  # the kernel copies to no O_APPEND file
                written = len(head) + middle.copy_to(self._fd)
            _write_all(self._fd, tail)
        except OSError as exc:
            self._fail(exc)
            return
        self._pos += written + len(tail)

    def _fail(self, exc: OSError) -> None:
        """Stop recording: cut the file back to its last whole record and say why."""
        self.failed = f"cannot write the capture: {exc.strerror or exc}"
        with contextlib.suppress(OSError):
            os.ftruncate(self._fd, self._pos)
        self.close()

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
        url, headers_ = redact_url(url, self.secrets), redact_headers(headers, self.secrets)
        if isinstance(body, RedactedBody) and body.large and body.covers(self.secrets):
            head = orjson.dumps({"type": "request", "attempt": attempt, "t": t,
                                 "method": method, "url": url, "headers": headers_})  # fmt: skip
            if body.json is not None:
                self._copied(head[:-1] + b',"body":', body.json, b"}\n")
            else:
                self._pieces(head[:-1] + b',"body":', body.in_pieces(), b"}\n")
            return
        if isinstance(body, RedactedBody):
            body = body.whole()  # redacted for other secrets: the whole of it, redacted again
        fields = _body_fields(body, self.secrets)
        self._record("request", attempt, t=t, method=method, url=url, headers=headers_, **fields)

    def response(self, attempt: int, status: int, headers: Headers | None, t: float) -> None:
        """Record the response status and (redacted) headers of ``attempt``."""
        headers_ = redact_headers(headers, self.secrets)
        self._record("response", attempt, t=t, status=status, headers=headers_)

    def chunk(self, attempt: int, t: float, data: bytes) -> None:
        """Record one received chunk exactly, but for the session's keys (module doc); ``t``
        is seconds since the attempt's request."""
        # The hot path: one decode attempt, one dict, one dumps, one write (and, with a key,
        # a few C-level searches of the chunk and the bytes before it).
        if type(data) is not bytes:
            data = bytes(data)
        record: dict[str, Any] = {"type": "chunk", "attempt": attempt, "t": t}
        written = None
        if self._keys:
            data, masked, written = self._mask(attempt, data)
            if masked:
                record["masked"] = masked
        try:
            record["text"] = data.decode("utf-8")
        except UnicodeDecodeError:
            record["b64"] = base64.b64encode(data).decode("ascii")
        line = orjson.dumps(record, option=_NEWLINE)
        if self._line(line) and written is not None:
            written.end = self._pos  # its value ends the line: `"}\n`
            written.text = "text" in record

    def _mask(self, attempt: int, data: bytes) -> tuple[bytes, list[list[int]], _Written]:
        """``data`` with the keys masked, the ranges masked (attempt body offsets), and the
        record kept for a key that a later chunk completes. The keys are looked for in the
        bytes as received: the last ones before this chunk (``carry``) and the chunk."""
        size, carry, tail = self._bodies.get(attempt, (0, b"", []))
        window = carry + data if carry else data
        kept = len(carry)
        spans: list[tuple[int, int]] = []
        if self._blocks.search(window) is not None:  # else no piece of a key is there
            spans = [(a, b) for a, b in find_keys(window, self._keys) if b > kept]
        masked: list[list[int]] = []
        if spans:
            base, out = size - kept, bytearray(data)
            for start, end in spans:
                masked.append([base + start, base + end])
                out[max(start - kept, 0) : end - kept] = b"*" * (end - max(start, kept))
                if start < kept:
                    self._patch(tail, base + start, base + kept)
            data = bytes(out)
        written = _Written(size, data)
        tail.append(written)
        total = size + len(data)
        while tail and tail[0].start + len(tail[0].data) <= total - self._longest:
            tail.pop(0)
        del tail[:-_TAIL_RECORDS]
        self._bodies[attempt] = (total, window[-self._longest :], tail)
        return data, masked, written

    def _patch(self, tail: list[_Written], start: int, end: int) -> None:
        """Mask body bytes ``[start, end)`` in the chunk records already written (in place,
        same length); a record whose value would change length is left as it is."""
        for w in tail:
            lo, hi = max(start, w.start), min(end, w.start + len(w.data))
            if lo >= hi or w.end < 0 or self.failed is not None:
                continue
            before = _encoded(bytes(w.data), w.text)
            data = bytearray(w.data)
            data[lo - w.start : hi - w.start] = b"*" * (hi - lo)
            try:
                after = _encoded(bytes(data), w.text)
            except UnicodeDecodeError:  # a key cut inside a character: left as it is
                continue
            if len(after) != len(before):
                continue
            w.data = bytes(data)
            if self._patch_fd is None:
                self._patch_fd = os.open(self.path, os.O_WRONLY | getattr(os, "O_BINARY", 0))
            os.pwrite(self._patch_fd, after, w.end - 2 - len(before))

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
        return self._fd < 0

    def close(self) -> None:
        """Fsync (best effort) and close; calling it again does nothing."""
        fd, self._fd = self._fd, -1
        patch, self._patch_fd = self._patch_fd, None
        if patch is not None:
            os.close(patch)
        if fd < 0:
            return
        try:
            with contextlib.suppress(OSError):  # best effort: e.g. pipes cannot fsync
                os.fsync(fd)
        finally:
            os.close(fd)

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def _chain(head: bytes, middle: Iterable[bytes], tail: bytes) -> Iterator[bytes]:
    yield head
    yield from middle
    yield tail


@contextlib.contextmanager
def _not_appending(fd: int) -> Iterator[None]:
    """``fd`` without O_APPEND meanwhile (its position is its end already: every write so far
    appended), where there is fcntl."""
    try:
        import fcntl
    except ImportError:  # Windows: copied by hand
        yield
        return
    flags = fcntl.fcntl(fd, fcntl.F_GETFL)
    fcntl.fcntl(fd, fcntl.F_SETFL, flags & ~os.O_APPEND)
    try:
        yield
    finally:
        fcntl.fcntl(fd, fcntl.F_SETFL, flags)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _encoded(data: bytes, text: bool) -> bytes:
    """How a chunk's value shows in its record: the JSON string of its text or base64."""
    if text:
        return orjson.dumps(data.decode("utf-8"))
    return orjson.dumps(base64.b64encode(data).decode("ascii"))
