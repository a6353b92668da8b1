"""Every real recorded stream of the four dialects spoken today (../shared/fixtures/realworld),
held against its independently counted ground truth: every item shown with the right kind and
wire type, every client-side call exact, no well-formed call judged invalid, text-only
streams with no lane and no quirk they do not show."""

from __future__ import annotations

import functools

import pytest

from realworld.loader import RealStream, realworld_streams
from realworld.measure import StreamResult, measure

STREAMS = realworld_streams()
WITH_ITEMS = [s for s in STREAMS if s.items]
TEXT_ONLY = [s for s in STREAMS if not s.items]


@functools.cache
def result(key: str) -> StreamResult:
    return measure(next(s for s in STREAMS if s.key == key))


def _ids(streams: list[RealStream]) -> list[str]:
    return [s.key for s in streams]


def test_the_split_is_the_ground_truths() -> None:
    assert len(WITH_ITEMS) == 70 and len(TEXT_ONLY) == 42


@pytest.mark.parametrize("stream", WITH_ITEMS, ids=_ids(WITH_ITEMS))
def test_every_item_is_shown_with_its_kind_and_client_side_calls_exactly(
    stream: RealStream,
) -> None:
    r = result(stream.key)
    wrong = [m for m in r.misses if not m.startswith(("extra lane: hosted", "(rightly)"))]
    assert wrong == []
    assert (r.shown_right, r.exact, r.false_invalid) == (r.items, r.client_side, 0)


@pytest.mark.parametrize("stream", TEXT_ONLY, ids=_ids(TEXT_ONLY))
def test_a_text_only_stream_has_no_lane_and_no_quirk_it_does_not_show(stream: RealStream) -> None:
    r = result(stream.key)
    assert r.lanes == []
    body = stream.body
    shown = set()
    if b'"choices":[]' in body:
        shown.add("usage_only_chunk")  # a chunk with no choice, only usage (or filter results)
    if b'"type":"error"' in body or b"event: error" in body:
        shown.add("error_after_200")
    assert set(r.quirks) <= shown


def test_the_totals_are_the_goals() -> None:
    totals = [result(s.key) for s in STREAMS]
    assert sum(r.items for r in totals) == sum(r.shown_right for r in totals) == 142
    assert sum(r.client_side for r in totals) == sum(r.exact for r in totals) == 58
    assert sum(r.false_invalid for r in totals) == 0
