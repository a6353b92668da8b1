"""Open a capture a slice at a time, feeding the core as records are read, so a front end can
show a large file from its first records and stay responsive while the rest loads.

Invariants:
- The end state is exactly the replay's: when :meth:`ProgressiveLoad.step` reports done,
  ``replayer`` is a :class:`Replayer` over the whole capture at its end, and its Analysis
  equals ``Replayer(capture).finish()``'s (the same chunks fed through the same ``feed_many``
  calls, which give the state one-by-one feeding gives).
- Records are fed in file order while the file is in replay order: attempts in ascending
  number, each attempt's chunks together, no tool-loop events. Anything else (a chunk of an
  attempt already passed, an attempt that shows up late, an ``event`` record) stops the
  early feeding; reading goes on, and once the capture is whole the replayer feeds it from
  the start, still a slice at a time. Whether the early feeding matched the replay is
  checked against the finished capture, never assumed. A raw body (no records) is split into
  wire events ``SPLIT_BYTES`` at a time, with :func:`inspector.core.replay.cuts.split_body`'s
  cuts (the plan keeps the body once, with an array of those cuts).
- Quirk scanning (incremental) is done in the slices too: a view asking for quirks later
  finds little left to scan.
- ``analysis`` is always the Analysis a front end should show: the one being fed (its
  capture attached from the first slice, so the request's tools judge the calls early).
- Pure core: no clock of its own beyond ``time.perf_counter`` for the slice budget, no I/O
  (the caller reads the file), no threads. A large file's lines past its first
  ``AHEAD_PAST`` bytes may be read by a read-ahead process the caller starts when asked
  (``ahead``, :mod:`inspector.core.capture.ahead`): the same records, decoded elsewhere.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from inspector.core.analysis.session import Analysis
from inspector.core.base.provider import Providers
from inspector.core.base.settings import Settings
from inspector.core.capture.ahead import Ahead
from inspector.core.capture.format import CaptureError
from inspector.core.capture.reader import CaptureReader
from inspector.core.capture.records import Attempt
from inspector.core.providers import REGISTRY
from inspector.core.replay.cuts import CutFinder
from inspector.core.replay.framecuts import FrameCuts, cutter
from inspector.core.replay.plan import Plan
from inspector.core.replay.replayer import Replayer
from inspector.core.verdicts.tools import ToolRegistry

RECORDS_PER_READ = 100
"""Records read (and fed) between two looks at the clock: ~2-3 ms of work, so a 20 ms slice
overruns by little even on a loaded machine (500 let slices run to 70-90 ms there)."""
STEPS_PER_FEED = 250
"""Replay steps fed between two looks at the clock once the file is read (a raw body, or odd
file order): a step of a raw body is a wire event, and 1,000 one-chunk calls with their quirk
scan took 11-44 ms on a loaded machine."""
AHEAD_PAST = 1 << 24
"""Bytes of lines read here while a read-ahead process starts (it takes the lines from there
on): at ~1 µs a line's record decode, some 50 ms of slices, about what starting one takes.
A file of less than twice as many is read here whole."""
ReadAhead = Callable[[int, int], Ahead | None]
"""Starts a read-ahead process for the lines from an offset to the file's size (None: it
could not), as :meth:`CaptureReader.read_ahead` asks."""
SPLIT_BYTES = 1 << 18
"""Bytes of a raw body scanned for its cuts between two looks at the clock."""


class ProgressiveLoad:
    """One file being opened (see the module docstring)."""

    def __init__(
        self,
        data: bytes,
        name: str,
        settings: Settings,
        tools: ToolRegistry | None = None,
        providers: Providers = REGISTRY,
        ahead: ReadAhead | None = None,
        size: int | None = None,
    ) -> None:
        self.reader = CaptureReader(data, name, size)
        """Reads the records; ``reader.capture`` grows as it goes."""
        whole = size is None or size == len(data)
        if ahead is not None and self.reader.size >= 2 * AHEAD_PAST:
            whole |= self.reader.read_ahead(ahead, AHEAD_PAST)
        if not whole:  # the head of a file (``size`` bytes) and no process for the rest
            raise CaptureError("the file could not be read ahead; open it again", path=name)
        self.tools = tools
        """The user's tools (None: the capture's own)."""
        self.providers = providers
        """The providers the streams are read with."""
        self.analysis = Analysis(settings, tools, providers=providers)
        """The Analysis on show: fed while reading, then the replayer's."""
        self.analysis.capture = self.reader.capture
        self.replayer: Replayer | None = None
        """Set once the file is read: the replay of the whole capture."""
        self.in_order = self.reader.capture.timed
        """Still feeding in file order (never for a raw body: it is split into wire events
        once read, ``SPLIT_BYTES`` at a time, then replayed)."""
        self.plan = Plan()
        """The replay plan of what was fed, built as it is fed (the replayer's, if in order)."""
        self._split: CutFinder | FrameCuts | None = None  # a raw body being split
        self._current: Attempt | None = None  # the attempt being fed
        self._fed: dict[int, int] = {}  # attempt number -> its chunks fed (0 for an empty one)

    @property
    def done(self) -> bool:
        """The whole capture is read and fed."""
        return self.replayer is not None and self.replayer.at_end

    @property
    def progress(self) -> tuple[int, int]:
        """(done, total): bytes read (of a raw body: split) while reading, then steps fed if
        the replay catches up."""
        r = self.replayer
        if r is None and not self.reader.capture.timed:
            return self._split.pos if self._split else 0, self.reader.size
        if r is None or (r.at_end and r.position == 0):
            return self.reader.offset, self.reader.size
        return r.position, len(r.plan)

    def close(self) -> None:
        """Stop a read-ahead process, if any (loading stopped, or was dropped)."""
        self.reader.close()

    def set_tools(self, tools: ToolRegistry | None) -> None:
        """Judge against ``tools`` now and in the replayer to come."""
        self.tools = tools
        self.analysis.set_tools(tools)
        if self.replayer is not None:
            self.replayer.set_tools(tools)

    def step(self, budget: float) -> bool:
        """Read and feed for about ``budget`` seconds (at least one read or one feed); return
        True once everything is done."""
        deadline = time.perf_counter() + budget
        while not self.reader.done:
            self.reader.read(RECORDS_PER_READ)
            if self.in_order:
                self._feed_read()
                if self.analysis.attempts:  # quirk scanning is core work: it runs here, in
                    self.analysis.attempts[-1].scan_quirks()  # budget, not in a view's flush
            if time.perf_counter() >= deadline:
                return False
        raw = not self.reader.capture.timed
        if self.replayer is None and raw and not self._split_raw(deadline):
            return False
        if self.replayer is None:
            self._adopt()
        r = self.replayer
        assert r is not None
        while not r.at_end:
            r.step(STEPS_PER_FEED)
            if r.analysis.attempts:
                r.analysis.attempts[-1].scan_quirks()
            if time.perf_counter() >= deadline:
                break
        self.analysis = r.analysis
        return r.at_end

    # -- feeding in file order -----------------------------------------------------------

    def _feed_read(self, final: bool = False) -> None:
        """Feed what the last read added, while the file stays in replay order."""
        attempts = self.reader.capture.attempts
        cur = self._current
        for a in attempts:
            fed = self._fed.get(a.number)
            if a.events or (fed is not None and a is not cur and len(a.chunks) > fed):
                self.in_order = False  # an event, or a chunk for an attempt already passed
                return
        if cur is not None:
            self._feed(cur)
        later = [a for a in attempts if a.number not in self._fed]
        if later and cur is not None and later[0].number < cur.number:
            self.in_order = False  # an attempt numbered below one already fed showed up
            return
        if not final:  # attempts with nothing yet may still get chunks: wait for them
            last = max((i for i, a in enumerate(later) if a.chunks), default=-1)
            later = later[: last + 1]
        for a in later:
            self._begin(a)
            self._feed(a)

    def _begin(self, attempt: Attempt) -> None:
        if self._current is not None:
            self.analysis.end()
        self.analysis.begin_attempt(attempt)
        self._current = attempt
        self._fed[attempt.number] = 0
        if not attempt.chunks:  # the replay's single empty step for a chunkless attempt
            self.analysis.feed(b"", 0.0)
            self.plan.add_attempt(attempt.number, [(0.0, b"", None)])

    def _feed(self, attempt: Attempt) -> None:
        fed = self._fed[attempt.number]
        if len(attempt.chunks) > fed:
            chunks = attempt.chunks[fed:]
            self.analysis.feed_many(chunks)
            self.plan.add_chunks(attempt.number, chunks)
            self._fed[attempt.number] = len(attempt.chunks)

    # -- a raw body ------------------------------------------------------------------------

    def _split_raw(self, deadline: float) -> bool:
        """Cut a raw body into one replay step per wire event (its cuts found by
        :class:`~inspector.core.replay.cuts.CutFinder`), ``SPLIT_BYTES`` at a time; True once
        the plan is built."""
        (attempt,) = self.reader.capture.attempts
        body = attempt.body
        if self._split is None:  # SSE's lines, or the frames of a provider's own framing
            self._split = cutter(body, self.analysis.settings.dialect, self.providers)
        finder = self._split
        while not finder.scan(SPLIT_BYTES):
            if time.perf_counter() >= deadline:
                return False
        self.plan.add_body(attempt.number, body, finder.cuts)
        return True

    # -- the end of the file -------------------------------------------------------------

    def _adopt(self) -> None:
        """The file is read: build the replayer, and hand it the fed Analysis if the early
        feeding was the replay's own; otherwise it starts over."""
        capture = self.reader.capture
        if self.in_order:
            self._feed_read(final=True)
        fed_all = all(self._fed.get(a.number) == len(a.chunks) for a in capture.attempts)
        if self.in_order and fed_all and not any(a.events for a in capture.attempts):
            # Fed in plan order, so the plan built on the way is the capture's own.
            replayer = Replayer(
                capture, self.analysis.settings, self.tools, self.plan, self.providers
            )
            if self._current is None:  # nothing at all was recorded: the replayer's own
                replayer.finish()
            else:
                replayer.adopt(self.analysis, self._current.number)
        else:  # a raw body (its plan was split above), or odd file order: from the start
            plan = self.plan if not capture.timed else None
            replayer = Replayer(capture, self.analysis.settings, self.tools, plan, self.providers)
        self.replayer = replayer
        self.analysis = replayer.analysis
