"""While a replica runs, it holds the inspector's strings where its own are equal (ids,
one-piece argument text), each tool name once, and a one-piece call's text without a list:
what it holds per call stays small on a long stream of calls."""

from __future__ import annotations

import gc
import json
import random
from types import SimpleNamespace
from typing import Any

import pytest

from inspector.core.analysis.session import Analysis
from inspector.core.base.model import EventKind
from inspector.core.base.settings import Settings
from inspector.core.capture.reader import load_bytes
from inspector.core.clients.base import Partial, pieces
from inspector.core.clients.judge import exchange_of, expected_calls, run_replica
from inspector.core.clients.langchain.merge import _Lookup
from inspector.core.clients.pins import BLOCK, of_kind
from inspector.core.clients.registry import replica
from inspector.core.clients.vercel_ai.tracker import GENERATED, Tracker
from inspector.core.providers import REGISTRY

CALLS = 5_000
SHARING = ("by-index", "by-id", "langchain", "vercel-ai", "litellm")


def _body() -> bytes:
    out = []
    for i in range(CALLS):
        fn = {"name": "lookup", "arguments": f'{{"id":{i}}}'}
        call = {"index": i, "id": f"call_{i:08d}", "type": "function", "function": fn}
        choice = {"index": 0, "delta": {"tool_calls": [call]}, "finish_reason": None}
        out.append(b"data: " + json.dumps({"model": "m", "choices": [choice]}).encode() + b"\n\n")
    tail = {"model": "m", "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}
    return b"".join(out) + b"data: " + json.dumps(tail).encode() + b"\n\ndata: [DONE]\n\n"


@pytest.fixture(scope="module")
def view() -> Any:
    analysis = Analysis.from_capture(
        load_bytes(_body(), "calls.sse"), Settings(), None, providers=REGISTRY
    )
    return analysis.attempts[-1]


@pytest.mark.parametrize("name", SHARING)
def test_a_run_holds_the_inspectors_strings_and_each_name_once(view: Any, name: str) -> None:
    expected = expected_calls(view)
    exchange = exchange_of(view)
    assert len(expected) == CALLS
    run = replica(name).open(exchange)
    run.expected = expected
    for event in run.relevant(exchange.events):
        run.feed(event)
    held = run.calls  # before finish: what the run holds while the stream arrives
    assert len(held) == CALLS
    assert len({id(call.name) for call in held}) == 1
    assert all(c.id is e.id for c, e in zip(held, expected, strict=True))
    assert all(c.parts is e.arguments for c, e in zip(held, expected, strict=True))
    result = run_replica(replica(name), exchange, expected, False)
    assert result.agrees and result.calls is expected


def test_a_one_piece_text_is_the_piece_and_a_shared_list_is_appended_in_place() -> None:
    call = Partial(parts="")
    assert pieces(call.parts) == () and call.arguments == ""
    call.add("ab")
    assert call.parts == "ab" and pieces(call.parts) == ("ab",)
    call.add("c")
    assert call.parts == ["ab", "c"] and call.arguments == "abc"
    shared: list[str] = []
    listed = Partial(parts=shared)
    listed.add("x")
    assert listed.parts is shared and shared == ["x"]


def test_litellm_reads_its_builders_calls_until_a_custom_fragment_splits_one() -> None:
    def chunk(calls: list[dict[str, Any]], finish: str | None = None) -> bytes:
        choice = {"index": 0, "delta": {"tool_calls": calls}, "finish_reason": finish}
        return b"data: " + json.dumps({"model": "m", "choices": [choice]}).encode() + b"\n\n"

    plain = {"index": 0, "id": "a", "type": "function", "function": {"name": "f", "arguments": "{"}}
    more = {"index": 0, "function": {"arguments": "}"}}
    custom = {"index": 0, "id": "b", "type": "custom", "custom": {"name": "c", "input": "x"}}
    body = chunk([plain]) + chunk([custom]) + chunk([more], "tool_calls") + b"data: [DONE]\n\n"
    view = Analysis.from_capture(
        load_bytes(body, "split.sse"), Settings(), None, providers=REGISTRY
    ).attempts[-1]
    exchange = exchange_of(view)
    run: Any = replica("litellm").open(exchange)
    fed = list(run.relevant(exchange.events))
    run.feed(fed[0])
    assert run.calls and run.calls[0] is run.keyed[0][0]  # the builder's own call
    for event in fed[1:]:
        run.feed(event)
    held = run.calls[0]
    assert held is not run.keyed[0][0]  # split: the custom fragment's id is the builder's only
    assert (held.id, held.name, held.arguments) == ("a", "f", "{}")
    assert run.keyed[0][0].id == "b"


def test_of_kind_gives_the_events_of_a_kind_in_order_a_block_at_a_time() -> None:
    chunk = b'data: {"model":"m","choices":[]}\n\n'
    body = b"".join(chunk * (i % 3) + b": keep-alive\n" * (i % 5) for i in range(400))
    state = (
        Analysis.from_capture(load_bytes(body, "mixed.sse"), Settings(), None, providers=REGISTRY)
        .attempts[-1]
        .state
    )
    events = state.events
    assert callable(getattr(events, "runs", None))  # (the block-wise path is the one taken)
    want = [e.seq for e in events if e.kind == EventKind.EVENT]
    assert len(want) > 2 * BLOCK
    assert [e.seq for e in of_kind(events, EventKind.EVENT)] == want
    assert [e.seq for e in of_kind(list(events), EventKind.EVENT)] == want


@pytest.mark.parametrize("name", [*SHARING, "openai-python"])
def test_a_finished_run_leaves_no_cycle_behind(view: Any, name: str) -> None:
    """A run's objects are freed when it ends, not at the next garbage collection (a cycle
    through a run kept a whole stream's calls alive while the next replica ran)."""
    assert (
        cycles_left(
            lambda: run_replica(replica(name), exchange_of(view), expected_calls(view), False)
        )
        == 0
    )


def cycles_left(run: Any) -> int:
    """How many objects ``run()`` leaves in reference cycles (found only by the collector).
    Whatever exists before is frozen first (garbage included: a frozen object is never
    collected, so never counted), so the collection scans only what the run made (a full
    collection of a test process holding every SDK costs ~1 s on a loaded machine)."""
    gc.freeze()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        run()
        gc.collect()
        return len(gc.garbage)
    finally:
        gc.garbage.clear()
        gc.set_debug(0)
        gc.unfreeze()
        gc.enable()


def test_the_cycle_count_sees_a_cycle_the_run_leaves() -> None:
    def leave_a_cycle() -> None:
        a: list[Any] = []
        a.append(a)

    assert cycles_left(leave_a_cycle) == 1
    assert cycles_left(lambda: [[]]) == 0


def test_the_ai_sdk_tracker_makes_up_ids_no_call_holds() -> None:
    tracker = Tracker([], set())
    wire = [None, None, f"{GENERATED}-2", None, "a", "a", f"{GENERATED}-1"]
    got = [tracker.open(w, i, "f", "").id for i, w in enumerate(wire)]
    assert got == [
        GENERATED, f"{GENERATED}-1", f"{GENERATED}-2", f"{GENERATED}-3", "a", f"{GENERATED}-4",
        f"{GENERATED}-5",
    ]  # fmt: skip


class _TupleLookup:
    """The lookup's (index, id) table as a dict keyed by tuples (the plain reading)."""

    def __init__(self) -> None:
        self.by_id: dict[tuple[Any, Any], int] = {}

    def add(self, pos: int, index: Any, cid: Any) -> None:
        if index is not None and cid not in (None, ""):
            self.by_id.setdefault((index, cid), pos)

    def named(self, pos: int, index: Any, cid: Any) -> None:
        self.by_id[(index, cid)] = min(self.by_id.get((index, cid), pos), pos)


def test_langchains_lookup_by_id_is_the_tuple_keyed_table() -> None:
    rng = random.Random(3)
    for _ in range(200):
        held: list[Any] = []
        lookup, plain = _Lookup(held), _TupleLookup()
        for _ in range(30):
            index, cid = rng.choice((0, 1, 2, 1.0, True)), rng.choice(("a", "b", "c", "", None))
            if held and rng.random() < 0.3:
                pos = rng.randrange(len(held))
                lookup.named(pos, held[pos].index, cid)
                plain.named(pos, held[pos].index, cid)
                continue
            lookup.add(len(held), index, cid)
            plain.add(len(held), index, cid)
            held.append(SimpleNamespace(index=index, id=cid))
        for (index, cid), pos in plain.by_id.items():
            assert lookup._get(index, cid) == pos
        for index in (0, 1, 2):
            for cid in ("a", "b", "c"):
                assert lookup._get(index, cid) == plain.by_id.get((index, cid))
