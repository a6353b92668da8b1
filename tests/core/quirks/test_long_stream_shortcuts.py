"""Quirks and verdicts on long streams: the shortcuts that keep them fast and small give exactly
what the straightforward scan gives, and keep nothing per fragment or per call sent whole.

The reference is the wire scan with every shortcut turned off (:class:`_Straight`: each plain
fragment goes through the per-delta path, every lane opens a :class:`LaneTrack`, every lane
text is joined from its own pieces), run on random Chat Completions streams fed whole and in
random pieces, under both empty-id policies; the verdicts are checked against
``validate_call`` itself.
"""

from __future__ import annotations

import gc
import random
from typing import Any

import pytest

from core.quirks.test_every_code import chat, chunk, tc
from inspector.core.analysis.session import Analysis
from inspector.core.base.settings import ABSENT, LITERAL, Settings
from inspector.core.calls.stream import StreamState
from inspector.core.providers import REGISTRY, analyze_bytes
from inspector.core.quirks.detect import QuirkScan, detect
from inspector.core.quirks.lanes import text as lanetext
from inspector.core.quirks.lanes.plainrun import END
from inspector.core.quirks.lanes.scan import LaneScan
from inspector.core.quirks.lanes.text import LaneTexts
from inspector.core.quirks.lanes.track import LaneTrack
from inspector.core.quirks.wirescan import WireScan
from inspector.core.verdicts import schemas
from inspector.core.verdicts.judge import CallVerdict, judge_call
from inspector.core.verdicts.validation import validate_call


class _StraightTexts(LaneTexts):
    def flush(self, calls: Any = ()) -> None:
        super().flush(())  # every lane joined from its own pieces


class _StraightLanes(LaneScan):
    """The lanes' scan without its shortcuts (the reference)."""

    def __init__(self, seen: Any, checks: Any) -> None:
        super().__init__(seen, checks)
        self.texts = _StraightTexts()

    def _run(self, key: int, items: Any) -> Any:
        return next(items, END)  # no run: every fragment on the per-delta path

    def _open(self, key: Any, d: Any) -> None:
        track = self._tracks[key] = LaneTrack(d)  # every lane a track object
        if d.id is not None and isinstance(d.id, str) and d.id not in ("", "null"):
            self._claim(track, d)
            return
        self._changes += 1
        if not track.identified and type(d.arguments) is str and d.arguments:
            track.early_at(d.seq)


class _Straight(WireScan):
    """The wire scan without its shortcuts (the reference)."""

    lane_scan = _StraightLanes


def _straight(state: StreamState) -> list[tuple[str, str, list[int]]]:
    scan = QuirkScan()
    scan.wire = _Straight()
    return _seen(detect(state, scan))


def _seen(quirks: Any) -> list[tuple[str, str, list[int]]]:
    return [(q.code, q.message, list(q.chunks)) for q in quirks]


_TEXT = '{"path": "a/b.py", "content": "x\\ny \\"q\\"", "tags": [1, 2.5, null], "ok": true}'


class _Lanes:
    """Each lane's argument text, streamed in pieces of random size (a stream may end with
    any lane cut anywhere: the ``silent_truncation`` check reads the exact text)."""

    def __init__(self, rng: random.Random, lanes: int) -> None:
        self.rng, self.lanes, self.at = rng, lanes, [0] * lanes

    def piece(self, index: int) -> str:
        rng, at = self.rng, self.at[index]
        if rng.random() < 0.05:
            return ""
        end = min(len(_TEXT), at + rng.randrange(1, 9))
        self.at[index] = end
        return _TEXT[at:end] if at < len(_TEXT) else " "

    def entries(self, seq: int) -> list[dict[str, Any]]:
        """One chunk's tool-call entries: mostly one plain continuation, now and then odd."""
        rng = self.rng
        index = rng.randrange(self.lanes)
        roll = rng.random()
        if roll < 0.78:
            return [tc(index, args=self.piece(index))]
        if roll < 0.82:
            return [tc(index, args=self.piece(index)), tc(index, args=self.piece(index))]
        if roll < 0.86:
            return [tc(index, id=f"call_{index}", args=self.piece(index))]  # the id again
        if roll < 0.89:
            return [tc(index, id=rng.choice(["", "null", None]), name=rng.choice(["", "f"]))]
        if roll < 0.91:
            self.at[index] = 1
            return [tc(index, id=f"new_{seq}", name="g", args="{")]  # the index reused
        if roll < 0.94:
            return [tc(rng.choice([index, True, "1"]), args=rng.choice([1, None, "z"]))]
        return [tc(self.lanes + rng.randrange(2), id=f"late_{seq}", name="h", args=_TEXT)]


def _random_stream(rng: random.Random) -> bytes:
    lanes = _Lanes(rng, rng.randrange(1, 4))
    items: list[Any] = []
    for i in range(lanes.lanes):
        opener = rng.choice([f"call_{i}", f"call_{i}", "call_0", "", None])
        items.append(chunk(tc(i, opener, rng.choice(["f", "f", ""]), lanes.piece(i))))
    for seq in range(rng.randrange(20, 200)):
        if rng.random() < 0.03:
            items.append(b": keep-alive\n\n")
        elif rng.random() < 0.02:
            items.append(chunk(content="<tool_call>"))
        else:
            items.append(chunk(*lanes.entries(seq)))
    if rng.random() < 0.85:
        items.append(chunk(finish=rng.choice(["tool_calls", "tool_calls", "stop", "length", ""])))
    return chat(*items, done=rng.random() < 0.8)


@pytest.mark.parametrize("seed", range(24))
def test_quirks_equal_the_straightforward_scan_on_random_streams(seed: int) -> None:
    rng = random.Random(seed)
    body = _random_stream(rng)
    for policy in (ABSENT, LITERAL):
        whole = analyze_bytes(body, "openai-chat", policy)
        want = _straight(whole)
        assert _seen(detect(whole)) == want
        state, scan, pos = StreamState(REGISTRY.dialect("openai-chat"), policy), QuirkScan(), 0
        while pos < len(body):  # fed in pieces, asked after each: runs cut anywhere
            step = rng.choice((40, 300, 2000))
            state.feed(body[pos : pos + step])
            pos += step
            assert _seen(detect(state, scan)) == _straight(state)
        state.end()
        assert _seen(detect(state, scan)) == want
        state.rejudge(LITERAL if policy == ABSENT else ABSENT)  # the findings table reused
        assert _seen(detect(state, scan)) == _straight(state)


def test_a_long_call_keeps_no_chunk_per_fragment() -> None:
    body = chat(
        chunk(tc(0, "call_1", "f", "")),
        *(chunk(tc(0, args="x")) for _ in range(3000)),
        chunk(finish="tool_calls"),
    )
    state = analyze_bytes(body, "openai-chat")
    scan = QuirkScan()
    detect(state, scan)
    track = scan.wire.lanes._tracks[0]
    assert isinstance(track, LaneTrack) and track.continuations is None
    assert scan.wire.tool_deltas == 3001


def _whole_calls(n: int) -> bytes:
    args = '{"q": "w"}'
    calls = (chunk(tc(i, f"call_{i}", "lookup", args, "function")) for i in range(n))
    return chat(*calls, chunk(finish="tool_calls"))


def test_calls_sent_whole_keep_no_track_object_and_share_their_findings() -> None:
    state = analyze_bytes(_whole_calls(2000), "openai-chat")
    scan = QuirkScan()
    quirks = detect(state, scan)
    assert ("whole_call_single_chunk", 2000) in [(q.code, len(q.chunks)) for q in quirks]
    tracks = scan.wire.lanes._tracks.values()
    assert len(tracks) == 2000 and not any(isinstance(t, LaneTrack) for t in tracks)
    patterns = {id(p) for p in scan._table._patterns}
    assert len(patterns) == 1  # one shared tuple for 2,000 calls
    lanes = scan.wire.texts.lanes
    assert not lanes and lanes.__sizeof__() < 1024  # the lanes' room given back
    assert _seen(detect(state, scan)) == _straight(state)


def test_verdicts_are_three_slots_and_share_their_outcome() -> None:
    analysis = Analysis(Settings(), providers=REGISTRY)
    analysis.feed(_whole_calls(500))
    analysis.end()
    verdicts = analysis.final.verdicts
    assert len(verdicts) == 500 and CallVerdict.__slots__ == ("_outcome", "call", "shape")
    assert len({id(v._outcome) for v in verdicts}) == 1
    gc.collect()
    state = analysis.final.state
    registry = analysis.registry
    for v in verdicts:
        want = validate_call(v.call.name, v.call.arguments, registry, "structural")
        assert (v.problems, v.orphan, v.repaired_id, v.valid) == (want, False, None, not want)
    again = judge_call(state, verdicts[0].call, "structural", registry)
    assert again == verdicts[0] and repr(again) == repr(verdicts[0])
    assert judge_call(state, verdicts[1].call, "structural", registry) != verdicts[0]


def test_a_big_call_is_decoded_once_between_validation_and_the_cut_check(monkeypatch) -> None:
    pieces = [f'"k{i}": "{"v" * 40}", ' for i in range(2000)]
    body = chat(
        chunk(tc(0, "call_1", "f", "{")),
        *(chunk(tc(0, args=p)) for p in pieces),
        chunk(tc(0, args='"end": 1}')),
        chunk(finish="tool_calls"),
    )
    analysis = Analysis(Settings(), providers=REGISTRY)
    analysis.feed(body)
    analysis.end()
    analysis.judge()
    decoded: list[int] = []
    real = lanetext.loads
    monkeypatch.setattr(lanetext, "loads", lambda t: decoded.append(len(t)) or real(t))
    view = analysis.final
    got = _seen(view.quirks)
    assert decoded == []  # settled from validation's decode of the very same text
    assert got == _straight(view.state) and decoded == [len(view.state.calls[0].arguments)]


def test_a_schema_shared_by_many_tools_is_checked_once(monkeypatch) -> None:
    checked: list[Any] = []
    real = schemas._problem
    monkeypatch.setattr(schemas, "_problem", lambda s, c: checked.append(s) or real(s, c))
    schemas._PROBLEMS.clear()
    cls = schemas.DEFAULT_VALIDATOR
    good = {"type": "object", "properties": {"a": {"type": "string"}}}
    assert [schemas.schema_problem(dict(good), cls) for _ in range(5)] == [None] * 5
    bad = {"type": "object", "properties": {"a": {"type": 5}}}
    assert schemas.schema_problem(bad, cls) is not None
    assert schemas.schema_problem({"type": "object", "enum": [None]}, cls) is None  # no memo
    assert len(checked) == 3


@pytest.mark.parametrize("seed", range(6))
def test_long_lanes_take_their_calls_text_exactly(seed: int) -> None:
    """Lanes long enough to take their call's joined text (and, once validation decoded it,
    its verdict): a piece dropped under ``literal``, an odd entry or a cut keeps them apart."""
    rng = random.Random(seed)
    lanes = _Lanes(rng, rng.randrange(1, 3))
    items: list[Any] = [chunk(tc(i, f"call_{i}", "f", "{")) for i in range(lanes.lanes)]
    for i in range(lanes.lanes):
        lanes.at[i] = 1
    odd, close = seed % 2 == 0, seed % 3 == 0
    for seq in range(rng.randrange(1100, 2600)):
        index = rng.randrange(lanes.lanes) if rng.random() < 0.1 else 0
        piece = '"k": 1, ' if lanes.at[index] < len(_TEXT) - 40 else lanes.piece(index)
        if odd and seq == 700:
            items.append(chunk(tc(index, id="", args='"x": [')))  # dropped under literal
        else:
            items.append(chunk(tc(index, args=piece)))
    if close:
        items.append(chunk(*(tc(i, args=_TEXT[lanes.at[i] :]) for i in range(lanes.lanes))))
    items.append(chunk(finish="tool_calls"))
    body = chat(*items)
    for policy in (ABSENT, LITERAL):
        analysis = Analysis(Settings(empty_id=policy), providers=REGISTRY)
        analysis.feed(body)
        analysis.end()
        if rng.random() < 0.5:
            analysis.judge()  # validation first: its decode may settle a lane
        view = analysis.final
        assert _seen(view.quirks) == _straight(view.state)


def test_a_first_piece_that_only_ends_like_an_object_is_still_a_cut() -> None:
    body = chat(
        chunk(tc(0, "call_1", "f", '{"a": {"b": 1}', "function")),
        chunk(tc(1, "call_2", "f", '{"a": 1}', "function")),
        chunk(finish="tool_calls"),
    )
    state = analyze_bytes(body, "openai-chat")
    got = _seen(detect(state))
    assert got == _straight(state)
    cut = [q for q in got if q[0] == "silent_truncation"]
    assert len(cut) == 1 and cut[0][2] == [0, 2]  # the first call only: the second is whole


def test_quirks_equal_the_straightforward_scan_on_plain_runs(monkeypatch: Any) -> None:
    """One event a chunk, fed in batches: long stretches are a shape's own deltas
    (providers/shape_runs), which the scan takes a span at a time; the findings and every
    lane's state are the per-delta scan's."""
    from inspector.core.quirks.lanes import plainrun

    spans = [0]
    real = plainrun._span

    def counted(*args: Any) -> int:
        k = real(*args)
        spans[0] += k
        return k

    monkeypatch.setattr(plainrun, "_span", counted)
    for seed in range(12):
        _plain_stream_scans_straight(random.Random(100 + seed))
    assert spans[0] > 300  # spans were taken at once


def _plain_stream_scans_straight(rng: random.Random) -> None:
    lanes = rng.randrange(1, 3)
    items: list[Any] = [chunk(tc(i, f"call_{i}", "f", '{"k": "')) for i in range(lanes)]
    for n in range(rng.randrange(300, 900)):  # each lane an open string: never settled
        index = rng.randrange(lanes) if rng.random() < 0.1 else n // 40 % lanes  # stretches
        roll = rng.random()
        if roll < 0.9:  # long plain stretches: what a shape's run is made of
            items.append(chunk(tc(index, args=rng.choice(["ab", "ab", "", "é"]))))
        elif roll < 0.93:
            items.append(chunk(tc(index, args="x"), tc(index, args="y")))  # two in one chunk
        elif roll < 0.96:
            items.append(chunk(tc(index, id=f"call_{index}", args="z")))  # the id again
        elif roll < 0.98:
            items.append(b": keep-alive\n\n")
        else:
            items.append(chunk(tc(index, args=rng.choice(["", "q"]), name="")))
    body = chat(*items, done=True)
    events = [(0.0, e + b"\n\n") for e in body.split(b"\n\n")[:-1]]
    for policy in (ABSENT, LITERAL):
        state, scan, pos = StreamState(REGISTRY.dialect("openai-chat"), policy), QuirkScan(), 0
        while pos < len(events):
            step = rng.choice((1, 50, 400))
            state.feed_many(events[pos : pos + step])
            pos += step
            straight = QuirkScan()
            straight.wire = _Straight()
            assert _seen(detect(state, scan)) == _seen(detect(state, straight))
            assert _wire(scan.wire) == _wire(straight.wire)
        state.end()
        assert _seen(detect(state, scan)) == _straight(state)


def _wire(wire: Any) -> tuple[Any, ...]:
    """What a wire scan knows of the lanes: fragments seen, the last chunk, and each lane's
    pieces, last chunk and JSON state."""
    wire.texts.flush()
    lanes = {
        key: (lane.pieces, lane.last, lane.progress.label() if lane.progress else None)
        for key, lane in wire.texts.lanes.items()
    }
    return wire.tool_deltas, wire.lanes._last_seq, lanes, bytes(wire.texts.settled)
