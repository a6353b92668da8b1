"""The call-level findings folded once per closed call (:mod:`inspector.core.quirks.calls.fold`):
a scan folded as the stream arrives (as the window's loader does) and asked now and then
reports exactly what a fresh detect() does, through late fragments, sparse indexes, text
calls and policy flips."""

from __future__ import annotations

import random
from itertools import pairwise
from typing import Any

import pytest
from conftest import all_real_fixtures

from core.quirks.test_every_code import ALL_STREAMS, chat, chunk, tc
from inspector.core.base.settings import ABSENT, LITERAL
from inspector.core.calls.stream import StreamState
from inspector.core.providers import REGISTRY
from inspector.core.quirks.detect import QuirkScan, detect


def _as_dicts(quirks: list[Any]) -> list[dict[str, Any]]:
    return [q.to_json() for q in quirks]


def _folded_matches_fresh(body: bytes, rng: random.Random, dialect: str = "auto") -> QuirkScan:
    state = StreamState(REGISTRY.dialect(dialect), ABSENT)
    scan = QuirkScan()
    cuts = sorted({0, len(body), *(rng.randrange(len(body) + 1) for _ in range(12))})
    for n, (a, b) in enumerate(pairwise(cuts)):
        state.feed(body[a:b])
        scan.wire.advance(state)
        scan.fold(state)  # what the loader does in its budget
        if n == len(cuts) // 2:
            state.rejudge(LITERAL)
        if rng.random() < 0.5:
            assert _as_dicts(detect(state, scan)) == _as_dicts(detect(state)), (n, a)
    state.end()
    scan.fold(state)
    assert _as_dicts(detect(state, scan)) == _as_dicts(detect(state))
    state.rejudge(ABSENT)
    assert _as_dicts(detect(state, scan)) == _as_dicts(detect(state))
    return scan


@pytest.mark.parametrize("body", ALL_STREAMS, ids=lambda b: f"{len(b)}B")
def test_folded_detection_equals_fresh_on_every_quirk_stream(body: bytes) -> None:
    rng = random.Random(len(body))
    for _ in range(3):
        _folded_matches_fresh(body, rng)


def test_folded_detection_equals_fresh_on_recorded_streams() -> None:
    for path in all_real_fixtures():
        _folded_matches_fresh(path.read_bytes(), random.Random(path.stem))


def _many_calls(n: int, late: bool = False, first: int = 0) -> bytes:
    frames = [chunk(tc(first + i, f"call_{i}", "f", '{"a": 1}')) for i in range(n)]
    if late:
        frames.insert(n - 2, chunk(tc(first, args="x")))  # call 0 is closed by then
    return chat(*frames, chunk(finish="tool_calls"))


@pytest.mark.parametrize(
    "body",
    [_many_calls(40), _many_calls(40, late=True), _many_calls(40, first=1)],
    ids=["whole", "late-fragment", "sparse"],
)
def test_folded_detection_of_many_calls_equals_fresh(body: bytes) -> None:
    rng = random.Random(7)
    for _ in range(5):
        _folded_matches_fresh(body, rng, "openai-chat")


def test_closed_calls_are_scanned_once_and_a_late_fragment_starts_again() -> None:
    state = StreamState(REGISTRY.dialect("openai-chat"))
    scan = QuirkScan()
    state.feed(chat(*(chunk(tc(i, f"call_{i}", "f", '{"a": 1}')) for i in range(25)), done=False))
    scan.fold(state)
    folded = scan._fold.upto
    assert folded > 10
    scanned: list[int] = []
    original = scan.call

    def counting(call: Any, st: StreamState) -> Any:
        scanned.append(call.slot)
        return original(call, st)

    scan.call = counting  # type: ignore[method-assign]
    detect(state, scan)
    assert scanned and min(scanned) >= folded  # the folded calls are not looked at again
    state.feed(chat(chunk(tc(0, args="x")), done=False))  # a late fragment to call 0
    scanned.clear()
    assert _as_dicts(detect(state, scan)) == _as_dicts(detect(state))
    assert 0 in scanned  # the fold started again


def test_tracks_are_concluded_again_only_when_one_changed(monkeypatch: pytest.MonkeyPatch) -> None:
    from inspector.core.quirks.lanes import scan as lanescan

    walks: list[int] = []
    original = lanescan.conclude_tracks

    def counting(tracks: Any, ids_expected: bool) -> Any:
        walks.append(1)
        return original(tracks, ids_expected)

    monkeypatch.setattr(lanescan, "conclude_tracks", counting)
    state = StreamState(REGISTRY.dialect("openai-chat"))
    scan = QuirkScan()
    state.feed(chat(*(chunk(tc(i, f"call_{i}", "f", '{"a": 1}')) for i in range(30)), done=False))
    detect(state, scan)
    assert len(walks) == 1
    state.feed(chat(chunk(tc(30, "call_30", "f", '{"a": 1}')), done=False))  # a whole call
    assert _as_dicts(detect(state, scan)) == _as_dicts(detect(state))
    assert len(walks) == 2  # the fresh detect's own walk only
    state.feed(chat(chunk(tc(30, "call_30", args=" ")), done=False))  # a continuation
    assert _as_dicts(detect(state, scan)) == _as_dicts(detect(state))
    assert len(walks) == 4
