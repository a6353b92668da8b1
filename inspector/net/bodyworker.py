"""The proxy's body worker: a large request body read in a process of its own.

Why a process (:mod:`inspector.core.capture.apart`): a thread of the proxy reading 200 MB
shares the interpreter with the loop that serves agents, so on a busy machine every request
the proxy serves meanwhile waits for it. This process has its own interpreter, and it runs
at a lower priority (:data:`NICE`): when the machine is short of CPU the proxy's loop is
served first, and nothing the worker holds can hold the loop up.

The exchange, over pipes (never a file: the body holds the agent's credentials):

- in (stdin): one JSON line ``{"secrets": [...], "headers": [[name, value], ...]}`` (the
  request's headers as received and the secrets of its headers and URL), then the body's
  bytes as received, to the end;
- out (stdout, a file with no name, in memory where the system allows: it holds only what
  the capture will hold): one
  JSON line, :func:`~inspector.core.capture.apart.prepare`'s summary, then the redacted
  body's JSON (``bytes`` of it), to the end. Exit 0; anything else is a failure, and
  :func:`read_apart` raises :class:`WorkerFailed`.

:func:`read_apart` is the proxy's side, run in a worker thread: it writes the body to the
pipe (system calls that let the loop run meanwhile, many reads at a time) and reads back
the summary; the JSON stays in the file until the capture writer has the kernel copy it
(:class:`~inspector.core.capture.apart.JsonFile`). No byte of it passes through the proxy.

Invariants:
- The module imports nothing heavy (it is the worker's ``-m`` entry point): ``orjson`` and
  ``core/capture``; httpx's decoders only for a body sent compressed.
- The agent's body (credentials and all) only ever goes through the pipe; what is written to
  the temporary file is redacted, and the file has no name.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Final

import orjson

from inspector.core.capture.apart import JsonFile

NICE: Final = 19
"""How much lower the worker's priority is than the proxy's."""
PIPE: Final = 1 << 20
"""The pipe's buffer asked for (fewer hand-overs between the proxy and the worker)."""
BATCH: Final = 64
"""Reads of the body written in one system call."""


class WorkerFailed(RuntimeError):
    """The worker could not be run, or gave no whole answer (one line: why)."""


@dataclass(frozen=True)
class Apart:
    """The worker's answer (:mod:`inspector.core.capture.apart`)."""

    summary: dict[str, Any]
    json: JsonFile | None
    """The redacted body's JSON (None when the body is no JSON object)."""


def worker_command() -> list[str]:
    """How the worker is started: this interpreter, this module."""
    return [sys.executable, "-m", "inspector.net.bodyworker"]


def read_apart(
    parts: Sequence[bytes], secrets: Sequence[str], headers: Sequence[tuple[str, str]],
    folder: str | Path | None = None, loads: Any = orjson.loads,
) -> Apart:  # fmt: skip
    """Have the worker read the body that came as ``parts`` (module doc). Its answer goes to
    an unnamed temporary file in ``folder`` (the captures' folder: the kernel then copies
    it into the capture), read back here but for the JSON. ``loads`` reads the summary line
    (the proxy passes a reader that pauses: the line may be a MB). Raises
    :class:`WorkerFailed`."""
    out = _unnamed(folder)
    try:
        line = _run(parts, secrets, headers, out)
        summary = loads(line)
        if not summary.get("object"):
            out.close()
            return Apart(summary, None)
        start, size = len(line), summary.get("bytes")
        if size != os.fstat(out.fileno()).st_size - start:
            raise WorkerFailed("the body worker's answer was cut short")
        return Apart(summary, JsonFile(out, start, size))
    except BaseException:
        out.close()
        raise


def _unnamed(folder: str | Path | None) -> IO[bytes]:
    """A file with no name for the worker's answer: in memory where the system has such
    files (Linux's ``memfd_create``: the redacted JSON is never written to a disk only to be
    copied again), else a temporary file in ``folder``, unlinked at once. Closed by its
    :class:`~inspector.core.capture.apart.JsonFile`."""
    memfd = getattr(os, "memfd_create", None)
    if memfd is not None:
        with contextlib.suppress(OSError):
            return open(memfd("tci-body", getattr(os, "MFD_CLOEXEC", 1)), "w+b")
    try:
        return tempfile.TemporaryFile(dir=folder)
    except OSError:
        return tempfile.TemporaryFile()


def _run(parts: Sequence[bytes], secrets: Sequence[str], headers: Sequence[tuple[str, str]],
         out: IO[bytes]) -> bytes:  # fmt: skip
    """Run the worker with its answer to ``out``; the answer's first line."""
    try:
        proc = subprocess.Popen(worker_command(), stdin=subprocess.PIPE, stdout=out,
                                stderr=subprocess.DEVNULL)  # fmt: skip
    except OSError as exc:
        raise WorkerFailed(f"cannot start the body worker: {exc.strerror or exc}") from None
    assert proc.stdin is not None
    fd = proc.stdin.fileno()
    if sys.platform.startswith("linux"):  # fewer, longer writes (a MB: the usual cap)
        import fcntl

        with contextlib.suppress(OSError):
            fcntl.fcntl(fd, getattr(fcntl, "F_SETPIPE_SZ", 1031), PIPE)
    try:
        try:
            _write_all(fd, [orjson.dumps({"secrets": list(secrets), "headers": headers}),
                            b"\n", *parts])  # fmt: skip
        except BrokenPipeError:
            pass  # it stopped reading: its exit status says why
        finally:
            proc.stdin.close()
        code = proc.wait()
    except BaseException:
        proc.kill()
        proc.wait()
        raise
    if code != 0:
        raise WorkerFailed(f"the body worker failed (exit {code})")
    out.seek(0)
    line = out.readline()
    if not line.endswith(b"\n"):
        raise WorkerFailed("the body worker gave no answer")
    return line


def _write_all(fd: int, parts: Sequence[bytes]) -> None:
    """Write ``parts`` to ``fd``, many at a time (``writev``: one system call for many of
    a request's small reads, the interpreter let go meanwhile)."""
    at = 0
    pending: list[memoryview] = []
    while at < len(parts) or pending:
        while at < len(parts) and len(pending) < BATCH:
            pending.append(memoryview(parts[at]))
            at += 1
        done = os.writev(fd, pending) if hasattr(os, "writev") else os.write(fd, pending[0])
        while done and pending:
            if done >= len(pending[0]):
                done -= len(pending.pop(0))
            else:
                pending[0] = pending[0][done:]
                done = 0


def _decoded(body: bytes, headers: list[tuple[str, str]]) -> bytes:
    """``body`` with its Content-Encoding undone (empty when it cannot be: not an object)."""
    if not any(name.lower() == "content-encoding" for name, _ in headers):
        return body
    import httpx

    from inspector.net.decoding import decoded

    return decoded(body, httpx.Headers(headers)) or b""


def main() -> int:
    """The worker (module doc)."""
    with contextlib.suppress(OSError, AttributeError):
        os.nice(NICE)
    from inspector.core.capture.apart import prepare

    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    head = orjson.loads(stdin.readline())
    headers = [(str(name), str(value)) for name, value in head["headers"]]
    plain = _decoded(stdin.read(), headers)
    summary, body = prepare(plain, head["secrets"], headers)
    stdout.write(orjson.dumps(summary) + b"\n")
    stdout.write(body)
    stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
