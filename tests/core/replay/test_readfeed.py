"""A capture fed to its Analysis as its records are read (``ReadAndFeed``) gives exactly
``Analysis.from_capture``'s report, or says it cannot (the capture is then analysed whole):
attempts in order are fed as they come, an attempt that shows up late or a chunk for an
attempt already ended stops the feeding."""

from __future__ import annotations

import io

from conftest import TESTS

from inspector.core.analysis.session import Analysis
from inspector.core.base.settings import Settings
from inspector.core.capture.reader import CaptureReader
from inspector.core.providers import REGISTRY
from inspector.core.replay.readfeed import ReadAndFeed
from inspector.core.reports.clients import not_judged
from inspector.core.reports.jsonreport import json_doc
from inspector.core.reports.jsonstream import write_json

RETRY = TESTS.parent / "resources" / "samples" / "retry-truncated-then-valid.jsonl"
SETTINGS = Settings(dialect="openai-chat")


def _report(analysis: Analysis) -> bytes:
    out = io.BytesIO()
    write_json(json_doc(analysis, "x", not_judged(), []), out)
    return out.getvalue()


def _fed(data: bytes, records: int) -> ReadAndFeed:
    feeder = ReadAndFeed(CaptureReader(data, "x"), lambda c: SETTINGS, None, REGISTRY)
    while not feeder.done:
        feeder.read(records)
    return feeder


def test_two_attempts_fed_as_read_give_from_captures_report() -> None:
    data = RETRY.read_bytes()
    whole = Analysis.from_capture(
        CaptureReader(data, "x").read_all(), SETTINGS, None, providers=REGISTRY
    )
    for records in (1, 3, 1000):  # a record at a time, a few, all at once
        feeder = _fed(data, records)
        fed = feeder.result()
        assert fed is not None and fed[1] == SETTINGS
        assert len(fed[0].attempts) == 2
        assert _report(fed[0]) == _report(whole)


def test_an_attempt_that_shows_up_late_stops_the_feeding() -> None:
    lines = RETRY.read_bytes().splitlines(keepends=True)
    second = next(i for i, line in enumerate(lines) if b'"attempt":2' in line)
    # attempt 2 first, then attempt 1: from_capture feeds them by number, 1 first
    data = b"".join([lines[0], *lines[second:], *lines[1:second]])
    feeder = _fed(data, 4)
    assert feeder.result() is None
    assert [a.number for a in feeder.capture.attempts] == [1, 2], "still read whole"


def test_a_chunk_for_an_attempt_already_ended_stops_the_feeding() -> None:
    lines = RETRY.read_bytes().splitlines(keepends=True)
    late = next(i for i, line in enumerate(lines) if b'"type":"chunk","attempt":1' in line)
    data = b"".join([*lines[:late], *lines[late + 1 :], lines[late]])
    assert _fed(data, 4).result() is None
