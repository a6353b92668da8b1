"""A large capture read and analysed in one pass, for ``analyze`` (the headless path): the
records past the file's head are decoded by the read-ahead process on another core
(:mod:`inspector.core.capture.ahead`, the window's own), while this thread feeds the chunks
already read to the Analysis.

:class:`ReadAndFeed` wraps a :class:`~inspector.core.capture.reader.CaptureReader` (its
head, with the read-ahead started by
:func:`~inspector.core.capture.readahead.read_for_load`). Each :meth:`ReadAndFeed.read` reads
a batch of records and feeds what they added, attempt by attempt, as
:meth:`Analysis.from_capture <inspector.core.analysis.session.Analysis.from_capture>` would
feed the whole capture.

Invariants:
- The result is :meth:`Analysis.from_capture`'s, or nothing: :meth:`ReadAndFeed.result`
  gives the fed Analysis only when the feeding was exactly that one's. That means the same
  settings (the guess made at the first attempt, checked by the caller against the settings
  of the whole capture) and every attempt begun in ascending number, fed all its chunks and
  ended. It also means no ``event`` record: events are merged with chunks by time, so only
  the whole capture can feed them. Anything else (an attempt that shows up late, a chunk
  for an attempt already ended, an event) stops the feeding; the capture is still read
  whole, and the caller analyses it with :meth:`Analysis.from_capture`.
- Chunks are fed through ``feed_many`` in pieces as they are read: the same state as one
  ``feed_many`` of them all (the window's progressive load relies on the same). An attempt
  with no chunk gets the one empty ``feed_many`` :meth:`Analysis.from_capture` gives it.
- Reading errors are the reader's (line and offset); nothing here reads the file.
- Pure core: no thread, no clock, no I/O of its own.
"""

from __future__ import annotations

from collections.abc import Callable

from inspector.core.analysis.session import Analysis
from inspector.core.base.provider import Providers
from inspector.core.base.settings import Settings
from inspector.core.capture.reader import CaptureReader
from inspector.core.capture.records import Attempt, Capture
from inspector.core.verdicts.tools import ToolRegistry

SettingsOf = Callable[[Capture], Settings]
"""The settings to analyse a capture with, from what of it was read (a guess the caller
checks against the whole capture's); called once, when the first attempt has been read."""


class ReadAndFeed:
    """One capture read and fed at once (see the module docstring)."""

    def __init__(
        self,
        reader: CaptureReader,
        settings_of: SettingsOf,
        tools: ToolRegistry | None,
        providers: Providers,
    ) -> None:
        self.reader = reader
        self._settings_of = settings_of
        self._tools = tools
        self._providers = providers
        self.analysis: Analysis | None = None
        """The Analysis being fed (None before the first attempt, or once feeding stopped)."""
        self.settings: Settings | None = None
        """The settings it is fed with (the guess made at the first attempt)."""
        self.chunks = 0
        """Chunks read so far, of every attempt."""
        self._current: Attempt | None = None  # the attempt being fed
        self._begun: list[Attempt] = []  # in the order they were begun
        self._fed = 0  # chunks of _current fed
        self._ended: dict[int, int] = {}  # id of an attempt ended -> its chunks then

    @property
    def capture(self) -> Capture:
        """The capture read so far (whole once :attr:`done`)."""
        return self.reader.capture

    @property
    def done(self) -> bool:
        """Every record has been read (and, if feeding went on, fed)."""
        return self.reader.done

    def read(self, records: int) -> int:
        """Read up to ``records`` more records (a read-ahead batch whole) and feed what they
        added; return how many were read. CaptureError as the reader raises it."""
        n = self.reader.read(records)
        self.chunks = sum(len(a.chunks) for a in self.reader.capture.attempts)
        if self.analysis is not None or self.settings is None:
            self._feed_read()
        if self.reader.done and self.analysis is not None:
            self._end_current()
        return n

    def result(self) -> tuple[Analysis, Settings] | None:
        """The fed Analysis and its settings, once :attr:`done`, when it is exactly
        :meth:`Analysis.from_capture`'s with those settings (see the module docstring);
        None otherwise (analyse the capture whole)."""
        analysis, settings, capture = self.analysis, self.settings, self.capture
        if not self.done or analysis is None or settings is None:
            return None
        if [a.number for a in self._begun] != [a.number for a in capture.attempts]:
            return None
        if any(a.events for a in capture.attempts):
            return None
        return analysis, settings

    def _stop(self) -> None:
        """Stop feeding: the capture will be analysed whole."""
        self.analysis = None

    def _feed_read(self) -> None:
        """Feed what the last read added, while the file stays in the order fed."""
        attempts = self.reader.capture.attempts
        if not attempts:
            return
        if self.analysis is None:  # the first attempt is read: the settings can be guessed
            self.settings = self._settings_of(self.reader.capture)
            self.analysis = Analysis(self.settings, self._tools, providers=self._providers)
            self.analysis.capture = self.reader.capture
        current = self._current
        begun = {id(a) for a in self._begun}
        for a in attempts:
            if a.events:  # merged with the chunks by time: only the whole capture can
                return self._stop()
            if self._ended.get(id(a), len(a.chunks)) != len(a.chunks):
                return self._stop()  # a chunk for an attempt already ended
            if id(a) not in begun and current is not None and a.number < current.number:
                return self._stop()  # an attempt numbered below one already begun
        if current is not None:
            self._feed_current()
        for a in attempts:
            if id(a) not in begun and (current is None or a.number > current.number):
                self._end_current()
                self._begin(a)
                self._feed_current()

    def _begin(self, attempt: Attempt) -> None:
        assert self.analysis is not None
        self.analysis.begin_attempt(attempt)
        self._current, self._fed = attempt, 0
        self._begun.append(attempt)

    def _feed_current(self) -> None:
        attempt, analysis = self._current, self.analysis
        assert attempt is not None and analysis is not None
        if len(attempt.chunks) > self._fed:
            analysis.feed_many(attempt.chunks[self._fed :])
            self._fed = len(attempt.chunks)

    def _end_current(self) -> None:
        """End the attempt being fed (from_capture's one empty feed for a chunkless one)."""
        attempt, analysis = self._current, self.analysis
        if attempt is None or analysis is None:
            return
        self._feed_current()
        if not attempt.chunks:
            analysis.feed_many(attempt.chunks)
        analysis.end()
        self._ended[id(attempt)] = len(attempt.chunks)
        self._current = None
