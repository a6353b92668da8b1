"""How ``analyze`` reads its file: whole, or, for a large capture, its head here and the rest
by the window's read-ahead process (:func:`~inspector.core.capture.readahead.read_for_load`),
each batch fed to the Analysis as it is read (:class:`~inspector.core.replay.readfeed.
ReadAndFeed`): one core decodes records while the other ingests them.

Invariants:
- The report is the same byte for byte whichever way the file was read: the fed Analysis is
  used only when it is :meth:`Analysis.from_capture`'s with the settings the whole capture
  gives (:meth:`ReadAndFeed.result`); otherwise the capture, read whole, is analysed as
  before.
- Errors come in the same order and say the same as a whole read: a record the reader
  refuses is its CaptureError (line and offset); a ``--tools`` file that cannot be read is
  raised only after the capture was read (it then is not fed while read).
- A file below ``2 * AHEAD_PAST`` bytes, a raw body, a pipe, or no read-ahead process (on
  Windows, or one that does not start): read whole, as :func:`~inspector.core.capture.
  reader.load` reads it. The read-ahead process never outlives the reading.
"""

from __future__ import annotations

import argparse
from typing import Final

from inspector.cli.progress import Progress
from inspector.core.analysis.session import Analysis
from inspector.core.base.settings import Settings
from inspector.core.capture.readahead import read_for_load
from inspector.core.capture.reader import CaptureReader, load
from inspector.core.capture.records import Capture
from inspector.core.providers import REGISTRY
from inspector.core.replay.loading import AHEAD_PAST
from inspector.core.replay.readfeed import ReadAndFeed
from inspector.core.verdicts.tools import ToolRegistry

PAST = AHEAD_PAST
"""Bytes of a capture's lines read here before the read-ahead process takes the rest (the
window's own); a file of less than twice as many is read whole."""
RECORDS: Final = 2048
"""Records of the head read (and fed) at a time; past the head, one read-ahead batch."""
Fed = tuple[Analysis, Settings]
"""An Analysis fed while the file was read, and the settings it was fed with."""


def asked_settings(args: argparse.Namespace) -> Settings:
    """The settings the command line asks for (before the capture's header and URL)."""
    return Settings(dialect=args.dialect, validation=args.validation, empty_id=args.empty_id)


def capture_settings(capture: Capture, asked: Settings, *, warn: bool = True) -> Settings:
    """The settings ``capture`` is analysed with: its header's dialect, else its URL's
    (``warn=False``: nothing added to the capture's warnings)."""
    from inspector.core.reports.gate import header_settings, url_settings

    return url_settings(capture, header_settings(capture, asked, REGISTRY, warn=warn), REGISTRY)


def read(args: argparse.Namespace, progress: Progress) -> tuple[Capture, Fed | None]:
    """The capture at ``args.path`` and, when it was read ahead, the Analysis fed while it
    was read (None: analyse the capture whole). CaptureError as :func:`load` raises it."""
    path: str = args.path
    opening = read_for_load(path, PAST)
    try:
        if opening.whole:
            capture = CaptureReader(opening.data, path).read_all()
            capture.path = path
            return capture, None
        reader = CaptureReader(opening.data, path, opening.size)
        if not reader.read_ahead(opening.ahead or _none, PAST):
            reader.close()  # the head is not the file, and nothing reads the rest: whole
            return load(path), None
    finally:
        opening.close()  # a process the reader did not take
    try:
        return _read_and_feed(args, reader, progress)
    finally:
        reader.close()


def _read_and_feed(
    args: argparse.Namespace, reader: CaptureReader, progress: Progress
) -> tuple[Capture, Fed | None]:
    try:
        tools = ToolRegistry.from_file(args.tools, REGISTRY) if args.tools else None
    except Exception:  # said by the judging, after the capture is read (the usual order)
        while not reader.done:
            reader.read(RECORDS)
        reader.capture.path = args.path
        return reader.capture, None
    asked = asked_settings(args)
    feeder = ReadAndFeed(reader, lambda c: capture_settings(c, asked, warn=False), tools, REGISTRY)
    progress.begin("reading + ingest")
    while not feeder.done:
        feeder.read(RECORDS)
        progress.chunks, progress.done = feeder.chunks, reader.offset
    reader.capture.path = args.path
    return reader.capture, feeder.result()


def _none(offset: int, size: int) -> None:
    return None
