"""Replicas read together (``judge.run_replicas``) share what they decode alike, and change
none of it: every golden stream's chunks, decoded once for every replica reading the openai
SDK's chunks, are equal to a fresh decode after every replica has run; each replica's result
read together is its result read alone; one JSON decode and one built event per dispatch,
whatever the number of replicas and however long the stream."""

from __future__ import annotations

import cProfile
import io
import json
import pstats
from collections.abc import Iterator
from dataclasses import replace
from functools import cache
from typing import Any

import pytest
from clients.compare import outcome_of
from clients.streams import Stream, all_streams
from conftest import all_real_fixtures

from inspector.core.analysis.session import Analysis
from inspector.core.base.settings import Settings
from inspector.core.clients.base import Exchange
from inspector.core.clients.judge import (
    TURN,
    ClientResult,
    exchange_of,
    expected_calls,
    run_replica,
    run_replicas,
)
from inspector.core.clients.openai_sdk import wire
from inspector.core.clients.openai_sdk.wire import Dispatches, dispatches, forget
from inspector.core.clients.registry import REPLICAS
from inspector.core.providers import REGISTRY


@cache
def streams() -> list[Stream]:
    return all_streams(all_real_fixtures())


def _readers(stream: Stream) -> list[Any]:
    return [r for r in REPLICAS if stream.dialect in r.dialects]


def _full(result: ClientResult) -> tuple[Any, ...]:
    """Everything a result says (the goldens' outcome and the judge's own fields)."""
    return (outcome_of(result), result.agrees, result.diverges_at, result.error_after)


def _fresh(d: Dispatches, i: int) -> Any:
    """The ``i``-th dispatch's value decoded anew (not from the ring)."""
    return wire.sdk_loads(d.data(i))


def test_every_replica_leaves_the_shared_chunks_as_decoded(monkeypatch: Any) -> None:
    """Each value the SDK decoding hands a replica is recorded; after every replica of the
    stream has run over it (together, in turns), each must still be what a fresh decode of
    its data gives (a deep comparison by ``repr``: types, key order, lists)."""
    handed: list[tuple[Dispatches, int, Any]] = []
    own = Dispatches.value

    def recording(self: Dispatches, i: int) -> Any:
        value = own(self, i)
        handed.append((self, i, value))
        return value

    monkeypatch.setattr(Dispatches, "value", recording)
    checked = 0
    made = [(*_exchange(_logprobs_body()), False, "logprobs", _readers_of("openai-chat"))]
    corpus = ((s.exchange(), s.expected(), s.view.failed, s.id, _readers(s)) for s in streams())
    for exchange, expected, failed, name, readers in [*made, *corpus]:
        if not readers:
            continue
        forget()
        handed.clear()
        run_replicas(readers, exchange, expected, failed)
        for d, i, value in handed:
            try:
                fresh = _fresh(d, i)
            except (ValueError, RecursionError):
                continue  # a refusal is raised afresh for each reader: nothing shared
            assert repr(value) == repr(fresh), f"{name}: dispatch {i} changed by a replica"
            checked += 1
    assert checked > 5000, checked  # the corpus's chunks, not a vacuous pass


def test_replicas_read_together_give_what_each_gives_alone() -> None:
    compared = 0
    for stream in streams():
        readers = _readers(stream)
        if len(readers) < 2:
            continue
        exchange, expected, failed = stream.exchange(), stream.expected(), stream.view.failed
        forget()
        together = run_replicas(readers, exchange, expected, failed)
        for replica, result in zip(readers, together, strict=True):
            forget()  # alone: nothing decoded by another replica
            alone = run_replica(replica, exchange, expected, failed)
            assert _full(result) == _full(alone), f"{replica.name} on {stream.id}"
            compared += 1
    assert compared > 300, compared


def _readers_of(dialect: str) -> list[Any]:
    return [r for r in REPLICAS if dialect in r.dialects]


def _logprobs_body() -> bytes:
    """Chunks whose logprobs lists openai-python's snapshot extends (a second choice opened
    by a later chunk too): what a shared chunk must never be changed by."""
    head = {"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "m"}
    out = []
    for k in range(6):
        tokens = [{"token": f"t{k}", "logprob": -0.5, "bytes": [116]}]
        logprobs = {"content": tokens, "refusal": None}
        choices = [{"index": 0, "delta": {"content": f"t{k}"}, "logprobs": logprobs}]
        if k >= 2:
            choices.append({"index": 1, "delta": {"content": "u"}, "logprobs": logprobs})
        out.append(b"data: " + json.dumps({**head, "choices": choices}).encode() + b"\n\n")
    return b"".join(out) + b"data: [DONE]\n\n"


def _body(calls: int, fragments: int) -> bytes:
    """A Chat Completions stream of ``calls`` calls of ``fragments`` argument fragments each,
    with a comment after the first chunk (not a plain stream: every replica replays it)."""
    head = {"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "m"}

    def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
        choice = {"index": 0, "delta": delta, "finish_reason": finish}
        return b"data: " + json.dumps({**head, "choices": [choice]}).encode() + b"\n\n"

    out = [chunk({"role": "assistant"}), b": keep-alive\n\n"]
    for c in range(calls):
        fn = {"name": "write_file", "arguments": ""}
        out.append(chunk({"tool_calls": [{"index": c, "id": f"call_{c}", "function": fn}]}))
        for k in range(fragments):
            piece = '{"a": "' if k == 0 else ("x" * 7 if k < fragments - 1 else '"}')
            entry = {"index": c, "function": {"arguments": piece}}
            out.append(chunk({"tool_calls": [entry]}))
    out += [chunk({}, "tool_calls"), b"data: [DONE]\n\n"]
    return b"".join(out)


def _exchange(body: bytes) -> tuple[Exchange, Any]:
    analysis = Analysis(Settings(dialect="openai-chat"), providers=REGISTRY)
    analysis.begin_attempt(None)
    analysis.feed(body)
    analysis.end()
    analysis.judge()
    view = analysis.final
    return replace(exchange_of(view), body=body), expected_calls(view)


def _counted(events: Any) -> tuple[Any, list[int]]:
    """``events``, counting each event built by index."""
    built: list[int] = []

    class Counting:
        def __len__(self) -> int:
            return len(events)

        def __getitem__(self, k: Any) -> Any:
            if isinstance(k, int):
                built.append(k)
            return events[k]

        def __iter__(self) -> Iterator[Any]:
            return iter(events)

    return Counting(), built


@pytest.mark.parametrize("fragments", [40, 4 * TURN, 16 * TURN])
def test_one_json_decode_and_one_built_event_per_dispatch(fragments: int) -> None:
    """However many replicas read the SDK's chunks and however long the stream (past the
    ring of kept values), each dispatch is decoded once and its event built once."""
    exchange, expected = _exchange(_body(3, fragments))
    readers = [r for r in REPLICAS if "openai-chat" in r.dialects]
    forget()
    d = dispatches(exchange)
    results = run_replicas(readers, exchange, expected, False)
    assert all(r.agrees for r in results), [(r.replica, r.error) for r in results]
    assert len(d) > 3 * fragments and d.decodes == len(d)
    events, built = _counted(exchange.events)
    forget()
    d = dispatches(exchange)
    run_replicas(readers, Exchange(events, exchange.body), expected, False)  # type: ignore[arg-type]
    assert d.decodes == len(d)
    inner = [k for k in built if 0 < k < len(events) - 1]  # (each run looks at both ends)
    assert len(inner) > 3 * fragments and len(inner) == len(set(inner)), "built per replica"
    forget()
    d = dispatches(replace(exchange, body=b""))  # no bytes: the data from the events
    run_replicas(readers, replace(exchange, body=b""), expected, False)
    assert d.decodes == len(d)


def _calls_per_dispatch(fragments: int) -> float:
    """Python calls the openai-chat replicas make together, per dispatch, on a stream of two
    calls of ``fragments`` argument fragments each (cProfile's count: exact, not a time)."""
    exchange, expected = _exchange(_body(2, fragments))
    readers = _readers_of("openai-chat")
    forget()
    d = dispatches(exchange)
    profile = cProfile.Profile()
    profile.enable()
    results = run_replicas(readers, exchange, expected, False)
    profile.disable()
    assert all(r.agrees for r in results)
    return pstats.Stats(profile, stream=io.StringIO()).total_calls / len(d)  # type: ignore[attr-defined]


def test_the_replicas_work_per_event_does_not_grow_with_the_stream() -> None:
    """Accumulation linear in the stream: eight times the fragments (and eight times each
    call's arguments) cost the replicas together the same Python calls per event."""
    short, long = _calls_per_dispatch(2 * TURN), _calls_per_dispatch(16 * TURN)
    assert short > 100  # every replica ran
    assert long <= short * 1.05, (short, long)
