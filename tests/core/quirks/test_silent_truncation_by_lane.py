"""The ``silent_truncation`` check followed lane by lane as the stream arrives
(:mod:`inspector.core.quirks.lanes.text`) finds exactly what the whole-stream scan it replaced
finds (every lane's pieces joined at the finish), on every quirk stream, every recorded stream
and every demo-corpus capture, fed whole and in random chunkings, and on random cut calls."""

from __future__ import annotations

import json
import random
from collections.abc import Iterable
from typing import Any

import orjson
import pytest
from clients.streams import demo_streams
from conftest import all_real_fixtures

from core.quirks.test_every_code import ALL_STREAMS, chat, chunk, tc
from inspector.core.base.model import AnyDelta, ToolCallDelta
from inspector.core.calls.jsonprogress import JsonProgress
from inspector.core.calls.stream import StreamState
from inspector.core.calls.wirefield import is_key
from inspector.core.providers import REGISTRY
from inspector.core.quirks.detect import QuirkScan, detect
from inspector.core.quirks.lanes.text import SETTLED, LaneTexts
from inspector.core.quirks.seen import Seen, lane
from inspector.core.quirks.turn.scan import claimed_end


def whole_stream_cut(deltas: Iterable[AnyDelta], claimed: tuple[int, str]) -> Seen:
    """The scan this check replaced: every lane's pieces kept, joined and judged at the end."""
    seen = Seen()
    lanes: dict[Any, list[str]] = {}
    last: dict[Any, int] = {}
    for d in deltas:
        if isinstance(d, ToolCallDelta) and not d.final and is_key(d.index):
            a = d.arguments
            if type(a) is str and a:
                key = d.index if d.extra is None else lane(d)
                lanes.setdefault(key, []).append(a)
                last[key] = d.seq
    for key, texts in lanes.items():
        if len(texts) > 1 and texts[1].startswith(texts[0]):
            continue
        text = "".join(texts)
        try:
            orjson.loads(text)
            continue
        except orjson.JSONDecodeError:
            pass
        progress = JsonProgress()
        progress.feed(text)
        if progress.error is None and not progress.complete and not progress.empty:
            seen.add("silent_truncation", last[key], f"{progress.label()} under {claimed[1]!r}")
            seen.add("silent_truncation", claimed[0])
    return seen


def _same_as_whole_stream(state: StreamState, scan: QuirkScan) -> bool:
    """The incremental scan's cut equals the whole-stream one on ``state`` as it stands;
    True when the stream claims a normal end (the check applies)."""
    detect(state, scan)
    claimed = claimed_end(state)
    got = scan.truncation(state)
    if claimed is None:
        assert not got.hits
        return False
    want = whole_stream_cut(state.deltas.stored(), claimed)
    assert (got.hits, got.notes) == (want.hits, want.notes)
    return True


def _feed_in_chunks(body: bytes, dialect: str, rng: random.Random) -> int:
    """Feed ``body`` in random pieces, comparing after each; returns the comparisons made."""
    state = StreamState(REGISTRY.dialect(dialect))
    scan = QuirkScan()
    pos, checked = 0, 0
    while pos < len(body):
        step = rng.choice((1, 3, 17, 64, 500, 4096))
        state.feed(body[pos : pos + step])
        pos += step
        checked += _same_as_whole_stream(state, scan)
    state.end()
    return checked + _same_as_whole_stream(state, scan)


@pytest.mark.parametrize("body", ALL_STREAMS, ids=lambda b: f"{len(b)}B")
def test_quirk_streams_cut_as_the_whole_stream_scan(body: bytes) -> None:
    rng = random.Random(len(body))
    for _ in range(2):
        _feed_in_chunks(body, "auto", rng)


def test_recorded_streams_cut_as_the_whole_stream_scan() -> None:
    checked = 0
    for path in all_real_fixtures():
        meta = path.with_suffix(".meta.json")
        dialect = json.loads(meta.read_text()).get("dialect", "auto") if meta.exists() else "auto"
        checked += _feed_in_chunks(path.read_bytes(), dialect, random.Random(path.stem))
    assert checked > 0


def test_demo_corpus_cuts_as_the_whole_stream_scan() -> None:
    checked = 0
    for stream in demo_streams():
        for view in stream.analysis.attempts:
            checked += _same_as_whole_stream(view.state, QuirkScan())
        body = stream.exchange().body
        if body:
            checked += _feed_in_chunks(body, "auto", random.Random(stream.id))
    assert checked > 0


_PIECES = ['{"a": 1', ', "b": "x\\"y', '\\u00e9"', ', "c": [1, 2.5e3', ", null]", "}", " ", ""]


def _random_call_text(rng: random.Random) -> str:
    """Argument text that is complete, cut anywhere, malformed or cumulative."""
    whole = "".join(_PIECES)
    kind = rng.randrange(5)
    if kind == 0:
        return whole
    if kind == 1:
        return whole[: rng.randrange(1, len(whole))]
    if kind == 2:
        return whole[: rng.randrange(1, len(whole))] + rng.choice("}]x,:")
    if kind == 3:
        return " " * rng.randrange(1, 3)
    return whole[: rng.randrange(1, len(whole))]  # cut again: cut calls are the point here


def _random_body(rng: random.Random) -> bytes:
    """Calls at a few lanes (reused, interleaved, cumulative), cut at random, ended by a
    normal finish (or a cut-off one now and then)."""
    frames: list[Any] = []
    for index in range(rng.randrange(1, 4)):
        frames.append(chunk(tc(index, f"call_{index}", "f", "")))
    lanes = len(frames)
    texts = {i: _random_call_text(rng) for i in range(lanes)}
    cumulative = {i for i in range(lanes) if rng.random() < 0.15}
    sent = dict.fromkeys(range(lanes), 0)
    while any(sent[i] < len(texts[i]) for i in range(lanes)):
        i = rng.randrange(lanes)
        if sent[i] >= len(texts[i]):
            continue
        sent[i] = min(len(texts[i]), sent[i] + rng.randrange(1, 6))
        piece = texts[i][: sent[i]] if i in cumulative else texts[i][sent[i] - 1 : sent[i]]
        frames.append(chunk(tc(i, args=piece)))
    frames.append(chunk(finish=rng.choice(("stop", "tool_calls", "stop", "length"))))
    return chat(*frames)


def test_random_cut_calls_cut_as_the_whole_stream_scan() -> None:
    rng = random.Random(20261202)
    checked = cut = 0
    for _ in range(150):
        body = _random_body(rng)
        checked += _feed_in_chunks(body, "openai-chat", rng)
        state = StreamState(REGISTRY.dialect("openai-chat"))
        state.feed(body)
        state.end()
        cut += any(q.code == "silent_truncation" for q in detect(state))
    assert checked > 100 and 10 < cut < 140  # cut lanes and whole ones both judged


def test_settled_lanes_keep_no_state_and_open_ones_report_their_last_piece() -> None:
    texts = LaneTexts()
    for n, piece in enumerate(['{"a":', " 1}", '{"b": [', "1, 2"]):
        texts.add(n // 2, piece, n)
    texts.add(2, '{"c"', 9)
    texts.add(2, '{"c": 1}', 10)  # cumulative: never a cut
    assert list(texts.cut()) == [(3, "open: in number (depth 2)")]
    assert list(texts.lanes) == [1]  # the settled ones are a byte each
    assert texts.settled[:3] == bytearray([1, 0, 1]) and not any(texts.settled[3:])
    texts.add(0, "x", 11)  # a settled lane takes nothing more
    texts.add(1, "]", 12)
    texts.add((1, 0), "{}", 13)  # a lane of another choice settles in the table
    assert list(texts.cut()) == [(12, "open: depth 1")]
    assert texts.lanes[(1, 0)] is SETTLED
