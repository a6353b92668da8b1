"""Plain runs end to end (SSEDecoder.feed_plain -> MemoDialect.feed_run -> shape_runs.map_run ->
Accumulator.add_run): a run of chunks that are one plain data event each is decoded, mapped and
routed at once, and the stream ends up exactly as feeding the same bytes chunk by chunk through
the full path leaves it: every event, every delta field, every call's fragments, pieces,
arguments and closing, under both empty-id policies. And the run path is the one taken: on a
uniform stream no event object is built and no fragment is mapped one at a time."""

from __future__ import annotations

import random
from typing import Any

import pytest

from core.providers.shapememo.test_memo_matches_full_path import (
    HEAD,
    TAIL,
    body_of,
    chunk,
    fields,
    other,
    random_stream,
)
from inspector.core.base.model import SSEEvent, ToolCallDelta
from inspector.core.base.settings import ABSENT, LITERAL, EmptyIdPolicy
from inspector.core.calls.stream import StreamState
from inspector.core.events import plain
from inspector.core.providers.openai_chat import PROVIDER as CHAT
from inspector.core.providers.openai_chat.dialect import OpenAIChatDialect
from inspector.core.providers.shapememo import runs as shape_runs
from inspector.core.providers.shapememo.shape import Shape


def events_of(datas: list[Any]) -> list[bytes]:
    """One chunk per event, as a provider sends them."""
    out = []
    for item in datas:
        out.append(body_of([item]))
    return out


def state_of(
    chunks: list[bytes], *, runs: bool, policy: EmptyIdPolicy = ABSENT, rng: random.Random
) -> StreamState:
    """The stream after ``chunks``: fed in random batches through ``feed_many`` (plain runs
    taken, memo on), or chunk by chunk through ``feed`` with the memo off (the full path)."""
    state = StreamState(OpenAIChatDialect(CHAT, memo=runs), policy)
    timed = [(i / 1000, c) for i, c in enumerate(chunks)]
    if runs:
        at = 0
        while at < len(chunks):
            n = rng.choice((1, 2, 3, 17, 100, 1000))
            state.feed_many(timed[at : at + n])
            at += n
    else:
        for t, c in timed:
            state.feed(c, t)
    state.end()
    return state


def call_fields(call: Any) -> tuple[Any, ...]:
    return (
        call.slot, call.index, call.id, call.name, [fields(d) for d in call.fragments],
        list(call.parts), call.arguments, call.length, call.fragment_count, call.close_seq,
        call.close_reason, list(call.dropped_positions), list(call.id_changes),
        list(call.name_changes), list(call.late_fragments), call.truncated,
    )  # fmt: skip


def same(a: StreamState, b: StreamState) -> None:
    assert list(a.events) == list(b.events)
    assert [fields(d) for d in a.deltas] == [fields(d) for d in b.deltas]
    assert [call_fields(c) for c in a.calls] == [call_fields(c) for c in b.calls]
    assert (a.finish, a.done_seq, a.text) == (b.finish, b.done_seq, b.text)
    assert [fields(d) for d in a.errors] == [fields(d) for d in b.errors]


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """Counts values taken by map_run, fragments routed at once, and Shape.map calls."""
    count = {"taken": 0, "windowed": 0, "routed": 0, "mapped": 0}
    real_run, real_window = shape_runs.map_run, shape_runs._window
    real_map = Shape.map

    def map_run(shape: Shape, values: list[str], start: int, seq: int, out: list[Any]) -> int:
        k = real_run(shape, values, start, seq, out)
        count["taken"] += k
        return k

    def window(shape: Shape, vals: list[str], seq: int, out: list[Any]) -> int:
        count["windowed"] += len(vals)
        return real_window(shape, vals, seq, out)

    def map_one(self: Shape, ev: SSEEvent) -> Any:
        count["mapped"] += 1
        return real_map(self, ev)

    from inspector.core.calls.accumulator import Accumulator

    real_add_run = Accumulator.add_run

    def add_run(self: Accumulator, run: Any) -> bool:
        ok = real_add_run(self, run)
        count["routed"] += len(run) if ok else 0
        return ok

    from inspector.core.providers.shapememo import dialect as memo_dialect

    monkeypatch.setattr(memo_dialect, "map_run", map_run)
    monkeypatch.setattr(shape_runs, "_window", window)
    monkeypatch.setattr(Shape, "map", map_one)
    monkeypatch.setattr(Accumulator, "add_run", add_run)
    return count


def test_generated_streams_end_as_the_full_path_leaves_them(counted: dict[str, int]) -> None:
    rng = random.Random(20261202)
    for k in range(120):
        chunks = events_of(random_stream(rng))
        policy: EmptyIdPolicy = LITERAL if k % 3 == 0 else ABSENT
        same(
            state_of(chunks, runs=True, policy=policy, rng=rng),
            state_of(chunks, runs=False, policy=policy, rng=rng),
        )
    assert counted["taken"] >= 300  # short calls, padded streams: most go event by event
    assert counted["routed"] >= 250


EDGES = ['\\"', "é", "\u2028", "\\u00e9", "😀", TAIL, TAIL + HEAD, "\\", "\\\\", "a\\\\"]
EDGES += ['\\\\\\"', "\\\\\\", '\\\\"', '"', "\x01", "\\x", '","', 'a\\","b', "\\ud800", "\t"]


@pytest.mark.parametrize("body", EDGES)
def test_every_edge_inside_a_run(body: str, counted: dict[str, int]) -> None:
    """An odd fragment amid plain ones: decoded in the run, or the run ends at it (and the
    rest is offered to the shape again), as the event-by-event memo does."""
    datas = [chunk(0, "", call_id="call_0", name="f")]
    datas += [chunk(0, "ab") for _ in range(20)]
    datas += [chunk(0, body)] + [chunk(0, "cd") for _ in range(20)] + ["[DONE]"]
    chunks = events_of(datas)
    rng = random.Random(1)
    same(state_of(chunks, runs=True, rng=rng), state_of(chunks, runs=False, rng=rng))
    assert counted["taken"] >= 38


def test_a_uniform_stream_builds_no_event_and_maps_nothing_one_at_a_time(
    counted: dict[str, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    built = [0]
    real = plain.PlainRun.events

    def events(self: plain.PlainRun, start: int = 0) -> Any:
        for ev in real(self, start):
            built[0] += 1
            yield ev

    monkeypatch.setattr(plain.PlainRun, "events", events)
    datas = [chunk(0, "", call_id="call_0", name="f")] + [chunk(0, "ab") for _ in range(5000)]
    state = StreamState(OpenAIChatDialect(CHAT))
    state.feed_many([(0.0, c) for c in events_of(datas)])
    state.end()
    assert counted["taken"] >= 4990
    assert counted["routed"] >= 4990
    assert counted["mapped"] < 10  # only the events that proved the shape
    assert built[0] < 10
    (call,) = state.calls
    assert call.arguments == "ab" * 5000 and call.fragment_count == 5001


def test_interleaved_calls_cost_a_short_window_an_event(counted: dict[str, int]) -> None:
    """A shape that fits every other event must not rescan the rest of the run each time."""
    datas = [chunk(0, "", call_id="call_0", name="f"), chunk(1, "", call_id="call_1", name="g")]
    for _ in range(3000):
        datas += [chunk(0, "ab"), chunk(1, "cd")]
    chunks = events_of(datas)
    rng = random.Random(2)
    runs = state_of(chunks, runs=True, rng=rng)
    same(runs, state_of(chunks, runs=False, rng=rng))
    assert counted["windowed"] <= shape_runs.FIRST * len(chunks)
    assert [c.arguments for c in runs.calls] == ["ab" * 3000, "cd" * 3000]


def test_fragments_after_their_call_closed_are_routed_one_by_one(
    counted: dict[str, int],
) -> None:
    """A finish closes the call; the fragments after it are late: never taken at once."""
    datas = [chunk(0, "", call_id="call_0", name="f")] + [chunk(0, "ab") for _ in range(30)]
    datas += [other("finish")] + [chunk(0, "zz") for _ in range(30)] + ["[DONE]"]
    chunks = events_of(datas)
    rng = random.Random(3)
    runs = state_of(chunks, runs=True, rng=rng)
    same(runs, state_of(chunks, runs=False, rng=rng))
    assert len(runs.calls[0].late_fragments) == 30


@pytest.mark.parametrize(
    "odd", [b"data: {}\r\n\r\n", b"data: \xff\n\n", b": keep-alive\n\n", b"event: x\ndata: {}\n\n"]
)
def test_a_run_with_any_other_chunk_goes_the_event_path(odd: bytes) -> None:
    datas = [chunk(0, "", call_id="call_0", name="f")] + [chunk(0, "ab") for _ in range(30)]
    chunks = events_of(datas)
    chunks.insert(15, odd)
    rng = random.Random(4)
    same(state_of(chunks, runs=True, rng=rng), state_of(chunks, runs=False, rng=rng))


def test_escaped_backslashes_and_quotes_are_decoded_at_once(
    counted: dict[str, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Fragments of code (``\\\\n``, ``\\\"``) are common: their run is one decode, not
    one per fragment."""
    one_by_one = [0]
    real = shape_runs._decoded

    def decoded(holes: list[str]) -> int:
        one_by_one[0] += 1
        return real(holes)

    monkeypatch.setattr(shape_runs, "_decoded", decoded)
    bodies = ["a\\\\nb", '\\"k\\": 1', "x\\\\", '\\\\\\"', "é ok"]
    datas = [chunk(0, "", call_id="call_0", name="f")]
    datas += [chunk(0, bodies[i % len(bodies)]) for i in range(500)]
    chunks = events_of(datas)
    rng = random.Random(6)
    runs = state_of(chunks, runs=True, rng=rng)
    same(runs, state_of(chunks, runs=False, rng=rng))
    assert counted["taken"] >= 490 and one_by_one[0] == 0


def test_every_long_call_shares_one_delta_class() -> None:
    """A shape's deltas hold its fields in their class; calls at other indexes share it (a
    session of 200,000 long calls must not make a class each)."""
    datas = []
    for c in range(300):
        datas.append(chunk(c, "", call_id=f"call_{c}", name="f"))
        datas += [chunk(c, "ab") for _ in range(30)]
    chunks = events_of(datas)
    rng = random.Random(8)
    runs = state_of(chunks, runs=True, rng=rng)
    same(runs, state_of(chunks, runs=False, rng=rng))
    made = {type(d) for d in runs.deltas} - {ToolCallDelta}
    assert len(made) == 1 and all(c.fragment_count == 31 for c in runs.calls)
