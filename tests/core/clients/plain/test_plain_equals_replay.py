"""Judging a client from the plain reading gives exactly its replay, on every golden stream,
the bench's stream, generated streams and mutated ones; and the predicate is not vacuous: it
accepts the bench stream and recorded plain streams, and refuses those a library reads
differently."""

from __future__ import annotations

import json
import random
import sys
from functools import cache
from pathlib import Path

import pytest
from clients.streams import Stream, all_streams
from conftest import all_real_fixtures
from fuzz.mutate import mutate

from inspector.core.clients.judge import expected_calls, judged_plain, run_replica

from .generate import plain_body, varied_body
from .proof import DECLARING, judged_both_ways, view_of

BENCH = Path(__file__).resolve().parents[4] / "bench"


@cache
def chat_streams() -> list[Stream]:
    return [
        s
        for s in all_streams(all_real_fixtures())
        if any(s.view.state.dialect_name in r.plain for r in DECLARING)
    ]


@cache
def plain_ids() -> frozenset[str]:
    return frozenset(s.id for s in chat_streams() if judged_both_ways(s.view, s.exchange()))


def test_every_declaring_replica_gives_its_replay_on_every_plain_golden_stream() -> None:
    assert len(plain_ids()) >= 3, sorted(plain_ids())


def test_the_recorded_plain_streams_are_read_plain() -> None:
    assert "demo/openai-chat/demo-clean" in plain_ids()
    assert any(i.startswith(("real/", "realworld/")) for i in plain_ids()), sorted(plain_ids())


@pytest.mark.parametrize(
    "stream_id",
    [
        "demo/openai-chat/demo-parallel-index-0",  # ids and names concatenated by some
        "demo/openai-chat/demo-keepalives",  # a comment the SDK reads as JSON
    ],
)
def test_a_stream_some_library_reads_differently_is_replayed(stream_id: str) -> None:
    by_id = {s.id: s for s in chat_streams()}
    assert stream_id in by_id
    assert stream_id not in plain_ids()


def test_a_stream_a_replica_disagrees_on_is_never_plain() -> None:
    disagreed = 0
    for s in chat_streams():
        expected = expected_calls(s.view)
        for replica in DECLARING:
            if s.view.state.dialect_name not in replica.dialects:
                continue
            if not run_replica(replica, s.exchange(), expected, s.view.failed).agrees:
                disagreed += 1
                assert judged_plain(replica, s.view, expected, s.view.failed) is None, s.id
    assert disagreed > 0


def test_the_bench_stream_is_plain_and_judged_alike(tmp_path: Path) -> None:
    sys.path.insert(0, str(BENCH))
    try:
        from ingest import make_workload
    finally:
        sys.path.remove(str(BENCH))
    view = view_of(make_workload(3, 3000).body, tmp_path)
    assert judged_both_ways(view)


def test_generated_plain_streams_are_plain_and_judged_alike(tmp_path: Path) -> None:
    rng = random.Random(30)
    for _ in range(20):
        assert judged_both_ways(view_of(plain_body(rng), tmp_path))


def test_varied_streams_are_judged_alike_whenever_plain(tmp_path: Path) -> None:
    rng = random.Random(31)
    plain = 0
    runs = 160
    for _ in range(runs):
        body = varied_body(rng)
        plain += judged_both_ways(view_of(body, tmp_path))
    assert 0 < plain < runs


def test_mutated_streams_are_judged_alike_whenever_plain(tmp_path: Path) -> None:
    rng = random.Random(32)
    corpus = [plain_body(random.Random(k)) for k in range(6)]
    corpus += [s.source.body for s in chat_streams() if s.id in plain_ids()]
    plain = 0
    runs = 200
    for _ in range(runs):
        plain += judged_both_ways(view_of(mutate(corpus, rng), tmp_path))
    assert 0 < plain < runs


@pytest.mark.parametrize(
    "stream_id",
    [
        "realworld/openai-chat/azure-model-router.1",  # Azure's prompt and content filters
        "demo/openai-chat/demo-zero-arg",  # a call without arguments
    ],
)
def test_the_shapes_real_traffic_adds_are_read_plain(stream_id: str) -> None:
    assert stream_id in plain_ids()


@pytest.mark.slow
def test_a_long_sweep_of_chat_bodies_is_judged_alike(tmp_path: Path) -> None:
    """Generated (with every real-traffic shape), varied and mutated chat bodies, 400 each."""
    rng = random.Random(5)
    corpus = [plain_body(random.Random(k)) for k in range(10)]
    plain = 0
    for _ in range(400):
        assert judged_both_ways(view_of(plain_body(rng), tmp_path))
        plain += judged_both_ways(view_of(varied_body(rng), tmp_path))
        plain += judged_both_ways(view_of(mutate(corpus, rng), tmp_path))
    assert 0 < plain < 800


@pytest.mark.parametrize("depth", [3, 255, 256, 990])
def test_arguments_nested_as_deep_as_a_decoder_gives_up_are_replayed(
    depth: int, tmp_path: Path
) -> None:
    """The libraries' JSON decoders give up at different depths (the stdlib's at the recursion
    limit, orjson at 1,024): arguments nesting DEEPEST levels or more are never read plain, so
    what each library does with them comes from its own replay; shallower ones still are."""
    from inspector.core.clients.plain.reading import DEEPEST, read, too_deep

    arguments = '{"a":' + "[" * (depth - 1) + '"[[{"' + "]" * (depth - 1) + "}"
    assert too_deep(arguments) == (depth >= DEEPEST)
    chunks = [
        {"tool_calls": [{"index": 0, "id": "call_1", "type": "function",
                         "function": {"name": "f", "arguments": ""}}]},
        {"tool_calls": [{"index": 0, "function": {"arguments": arguments}}]},
    ]  # fmt: skip
    lines = [
        'data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m",'
        '"choices":[{"index":0,"delta":' + json.dumps(delta) + ',"finish_reason":null}]}'
        for delta in chunks
    ]
    lines.append(
        'data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m",'
        '"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}'
    )
    body = ("\n\n".join([*lines, "data: [DONE]"]) + "\n\n").encode()
    view = view_of(body, tmp_path)
    expected = expected_calls(view)
    assert [c.arguments for c in expected] == [arguments]
    from inspector.core.clients.judge import exchange_of

    reading = read(exchange_of(view), expected=expected)
    assert (reading is None) == (depth >= DEEPEST)
    assert judged_both_ways(view) == (depth < DEEPEST)  # and plain, it is each replay


def test_brackets_inside_strings_do_not_nest() -> None:
    from inspector.core.clients.plain.reading import DEEPEST, too_deep

    inside = json.dumps({"code": "[[{" * DEEPEST, "q": 'a\\"[[' * DEEPEST})
    assert inside.count("[") > DEEPEST and not too_deep(inside)
    assert too_deep("[" * DEEPEST + "]" * DEEPEST)
    assert not too_deep("[" * (DEEPEST - 1) + "]" * (DEEPEST - 1) + "[]" * DEEPEST)
