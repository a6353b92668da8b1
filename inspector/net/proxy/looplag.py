"""How long the proxy's event loop is held: a ticker that notes each time it woke late.

A task sleeps :data:`TICK` seconds at a time and measures how much later than asked it woke:
that is how long the loop was held, by a callback running on it or by another thread of the
process holding the interpreter (a worker reading a large body). An agent's request arriving
then waits as long, on top of what the machine makes it wait anyway. The proxy runs one only
when asked (``toolcall-inspector proxy --loop-lag FILE``, for bench/proxy_body.py): waking
500 times a second costs a little CPU.

Invariants:
- Times are ``time.monotonic()`` seconds: the same clock in every process of the machine, so
  a bench can tell which stalls fell within its own runs.
- A stall is noted with the time it began (when the tick was due), its length, the CPU time
  the whole process used meanwhile (``time.process_time``), and how long the loop's thread
  was ready to run but waiting for a CPU the machine gave to other processes (Linux's
  ``/proc/thread-self/schedstat``; 0 where there is none). That wait is the machine's, not the
  proxy's: a stall's length less it is what the proxy itself held its loop for (a callback
  running or blocked on the loop, another thread of the proxy holding the interpreter, or
  descheduled while holding it: all the proxy's doing). Stalls of :data:`NOTED` or less are
  only counted (the ticker's own timer resolution is a millisecond).
- No I/O while it runs: :meth:`LoopLag.write` writes the record once, when asked (on stop).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import os
import sys
import threading
import time
from pathlib import Path
from types import FrameType
from typing import Any, Final

import orjson

TICK: Final = 0.002
"""Seconds the ticker sleeps between two looks at the clock."""
NOTED: Final = 0.002
"""Lateness (seconds) above which a stall is noted with its time, not only counted."""
TRACED: Final = 0.010
"""Lateness above which the ticker also notes where the process's other threads are as it
wakes: a worker that held the interpreter is then just past the step that held it."""


class LoopLag:
    """The ticker (module doc): :meth:`start` on the loop, :meth:`stop`, then :meth:`write`."""

    def __init__(self, tick: float = TICK, noted: float = NOTED) -> None:
        self.tick, self.noted = tick, noted
        self.ticks = 0
        self.worst = 0.0
        self.stalls: list[tuple[float, float, float, float]] = []
        """(monotonic time the tick was due, seconds late, process CPU seconds meanwhile,
        seconds the loop's thread waited for a CPU meanwhile) of every stall over
        ``noted``."""
        self.traces: list[tuple[float, float, list[str]]] = []
        """(due, seconds late, where the other threads were) of every stall over
        :data:`TRACED`."""
        self.collections: list[tuple[float, float, int]] = []
        """(monotonic start, seconds, generation) of every garbage collection over
        :data:`NOTED`: the cyclic collector holds the interpreter while it runs."""
        self._task: asyncio.Task[None] | None = None
        self._collecting = 0.0

    def start(self) -> None:
        """Begin ticking on the running loop (and timing the garbage collector)."""
        if self._task is None:
            self._task = asyncio.ensure_future(self._run())
            gc.callbacks.append(self._collected)

    def _collected(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._collecting = time.monotonic()
            return
        took = time.monotonic() - self._collecting
        if took > self.noted:
            self.collections.append((self._collecting, took, info.get("generation", -1)))

    async def stop(self) -> None:
        with contextlib.suppress(ValueError):
            gc.callbacks.remove(self._collected)
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _run(self) -> None:
        queued = _Queued()  # opened here: on the loop's thread
        try:
            while True:
                due, cpu, waited = time.monotonic() + self.tick, time.process_time(), queued()
                await asyncio.sleep(self.tick)
                late = time.monotonic() - due
                self.ticks += 1
                if late > self.worst:
                    self.worst = late
                if late > self.noted:
                    self.stalls.append((due, late, time.process_time() - cpu, queued() - waited))
                if late > TRACED:
                    self.traces.append((due, late, _elsewhere()))
        finally:
            queued.close()

    def record(self) -> dict[str, object]:
        """What was measured, as JSON-ready data."""
        return {"tick": self.tick, "noted": self.noted, "ticks": self.ticks,
                "worst": self.worst, "stalls": self.stalls, "traces": self.traces,
                "collections": self.collections}  # fmt: skip

    def write(self, path: str | Path) -> None:
        """Write :meth:`record` to ``path`` (JSON)."""
        Path(path).write_bytes(orjson.dumps(self.record()))


class _Queued:
    """Seconds the calling thread has spent ready to run but not running (waiting for a CPU),
    from Linux's ``/proc/thread-self/schedstat`` (its second field, in nanoseconds); always
    0 where it does not exist."""

    def __init__(self) -> None:
        try:
            self._fd: int | None = os.open("/proc/thread-self/schedstat", os.O_RDONLY)
        except OSError:
            self._fd = None

    def __call__(self) -> float:
        if self._fd is None:
            return 0.0
        try:
            return int(os.pread(self._fd, 128, 0).split()[1]) / 1e9
        except (OSError, IndexError, ValueError):
            return 0.0

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


def _elsewhere() -> list[str]:
    """Where every other thread is: its innermost three frames, ``file:line function``."""
    here = threading.get_ident()
    out = []
    for ident, frame in sys._current_frames().items():
        if ident == here:
            continue
        where: list[str] = []
        f: FrameType | None = frame
        while f is not None and len(where) < 3:
            code = f.f_code
            where.append(f"{code.co_filename.rsplit('/', 1)[-1]}:{f.f_lineno} {code.co_name}")
            f = f.f_back
        out.append(" < ".join(where))
    return out


def worst_between(record: dict[str, Any], start: float, end: float) -> tuple[float, float, int]:
    """Of the stalls of ``record`` that began between ``start`` and ``end`` (monotonic
    seconds): the longest, the longest the proxy itself held its loop (a stall less the time
    the loop's thread waited for a CPU: module doc), and how many there were."""
    stalls = [(late, max(0.0, late - queued)) for due, late, _cpu, queued in record["stalls"]
              if start <= due <= end]  # fmt: skip
    return (max((s[0] for s in stalls), default=0.0), max((s[1] for s in stalls), default=0.0),
            len(stalls))  # fmt: skip
