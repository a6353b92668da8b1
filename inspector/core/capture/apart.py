"""A large request body read, redacted and serialized in one go, for a process of its own.

The recording proxy forwards a large body first and reads it after
(:mod:`inspector.net.proxy.routes`). Reading it in a thread of the proxy's own process means
sharing the interpreter with the loop that serves agents: every step the thread takes holds
the loop up, and on a busy machine a thread descheduled while it holds the interpreter holds
it up for as long as the machine keeps it waiting. So the proxy has it read in another
process (:mod:`inspector.net.bodyworker`), which calls :func:`prepare`: there nothing else
waits, and ``orjson`` reads 200 MB in one call.

What comes back is small but for the serialized body:

- whether the body is a JSON object at all (else it is only forwarded);
- the request's secrets: those of its headers and URL, which the proxy already knows, and the
  body's credential fields (:func:`~.redaction.request_credentials`), longest first;
- the *skeleton*: the body's smallest top-level members, up to :data:`SKELETON` bytes of
  JSON in all (its model, tools, settings, credential fields: what a session reads of it),
  as sent and as redacted;
- the whole redacted body as JSON: ``orjson.dumps(redact_body(body, secrets))``.

Invariants:
- The redaction is :func:`~.redaction.redact_body`'s, with the same secrets the proxy's own
  reading would have used: the recorded body is exactly what it would have been.
- :func:`prepare` is pure: bytes in, data out. :class:`JsonFile` is how the proxy holds the
  answer's JSON: in a file with no name (in memory where the system allows; it holds only
  the redacted body), copied into the capture by the kernel.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from typing import IO, Any, Final

import orjson

from .redaction import redact_body, request_credentials

SKELETON: Final = 1 << 20
"""Bytes of JSON the skeleton's members may take in all (smallest first)."""


def prepare(
    plain: bytes, secrets: Iterable[str], headers: Iterable[tuple[str, str]]
) -> tuple[dict[str, Any], bytes]:
    """(summary, redacted JSON) of the body ``plain`` (its Content-Encoding undone) of a
    request whose headers are ``headers`` and whose headers and URL carry ``secrets``
    (module doc). The summary: ``object`` (bool); when it is one, ``secrets`` (longest
    first), ``request`` and ``recorded`` (the skeleton as sent and as redacted) and
    ``bytes`` (the redacted JSON's length)."""
    try:
        request = orjson.loads(plain)
    except orjson.JSONDecodeError:
        return {"object": False}, b""
    if not isinstance(request, dict):
        return {"object": False}, b""
    found = set(secrets) | set(request_credentials(list(headers), request))
    ordered = sorted(found, key=lambda s: (-len(s), s))
    redacted = redact_body(request, ordered, text=plain)
    sizes = sorted((len(orjson.dumps(value)), i) for i, value in enumerate(redacted.values()))
    kept: set[int] = set()
    total = 0
    for size, i in sizes:
        if total + size > SKELETON:
            break
        kept.add(i)
        total += size
    names = [name for i, name in enumerate(redacted) if i in kept]
    out = orjson.dumps(redacted)
    summary = {
        "object": True,
        "secrets": ordered,
        "request": {name: request[name] for name in names},
        "recorded": {name: redacted[name] for name in names},
        "bytes": len(out),
    }
    return summary, out


STEP: Final = 1 << 20
"""Bytes read or copied at a time."""


class JsonFile:
    """The redacted body's JSON: ``size`` bytes from ``offset`` of ``file`` (an unnamed
    temporary file, closed by :meth:`close`). What a
    :class:`~.redaction.RedactedBody`'s ``json`` holds."""

    def __init__(self, file: IO[bytes], offset: int, size: int) -> None:
        self.file, self.offset, self.size = file, offset, size

    def pieces(self) -> Iterator[bytes]:
        """The JSON, :data:`STEP` bytes at a time."""
        fd, at, end = self.file.fileno(), self.offset, self.offset + self.size
        while at < end:
            piece = os.pread(fd, min(STEP, end - at), at)
            if not piece:
                raise OSError("the body's JSON file was cut short")
            yield piece
            at += len(piece)

    def copy_to(self, fd: int) -> int:
        """Append the JSON to ``fd`` at its position, copied by the kernel where it can
        (``copy_file_range`` within a file system, ``sendfile`` from an in-memory file: no
        byte passes through this process), else a step at a time; the bytes written."""
        at, end = self.offset, self.offset + self.size
        src = self.file.fileno()
        for name in ("copy_file_range", "sendfile"):  # the same file system; any file
            kernel = getattr(os, name, None)
            while at < end and kernel is not None:
                try:
                    if name == "sendfile":
                        done = kernel(fd, src, at, min(STEP * 16, end - at))
                    else:
                        done = kernel(src, fd, min(STEP * 16, end - at), at)
                except OSError:  # another file system, an old kernel: the next way
                    break
                if done <= 0:
                    break
                at += done
        for piece in JsonFile(self.file, at, end - at).pieces():
            view = memoryview(piece)
            while view:
                view = view[os.write(fd, view) :]
        return self.size

    def close(self) -> None:
        self.file.close()
