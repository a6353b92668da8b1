"""The compact replay plan of a raw body (core.replay.plan): the body kept once with its cut
offsets gives exactly the steps, pairs and times the old splitting (one bytes object per wire
event) gave, on every recorded stream and on hand-made edge cases."""

from __future__ import annotations

import gc
import random

import pytest
from conftest import TESTS, all_real_fixtures

from inspector.core.base.model import EventKind
from inspector.core.capture.reader import load, load_bytes
from inspector.core.events.sse import decode_all
from inspector.core.replay.cuts import CutFinder, body_cuts, split_at, split_body
from inspector.core.replay.plan import Plan, Step
from inspector.core.replay.replayer import Replayer, replay_plan

CORPUS = TESTS / "clients" / "corpus"

EDGES = [
    b"",
    b"\n\n",
    b"\xef\xbb\xbf",
    b"\xef\xbb\xbfdata: a\n\n",
    b"\xef\xbb\xbf\n\ndata: a\n\n: keep-alive\r\n\r\n\r\nid: 7\n\nevent: x\ndata: b\n",
    b"data: a\r\rdata: b\r\n\r\ndata: c\n\ndata: tail-without-blank-line",
    b"data: a\n\n\n\n",
    b"no event at all, only a tail",
    b'data: {"a": "\xff"}\n\n\xfe\xfe\ndata: [DONE]\n\n',
    b": c1\n: c2\n: c3\ndata: x\n\n: c4",
]


def _old_pieces(body: bytes) -> list[bytes]:
    """The splitting the plan replaced: one bytes object per wire event's end, errors aside,
    a tail with the last piece; an empty body one empty piece."""
    cuts: list[int] = []
    for ev in decode_all(body):
        if ev.kind != EventKind.ERROR and ev.end > (cuts[-1] if cuts else 0):
            cuts.append(ev.end)
    if not cuts:
        return [body]
    pieces = [body[a:b] for a, b in zip([0, *cuts[:-1]], cuts, strict=True)]
    pieces[-1] += body[cuts[-1] :]
    return pieces


def _bodies() -> list[bytes]:
    bodies = [p.read_bytes() for p in all_real_fixtures()]
    captures = sorted(CORPUS.glob("*/*.jsonl"))
    assert len(captures) > 50
    for path in captures:
        bodies += [a.body for a in load(path).attempts]
    return bodies + EDGES


def _check(plan: Plan, pieces: list[bytes], interval: float, first: int = 0) -> None:
    n = len(pieces)
    expected = [((first + i) * interval, p) for i, p in enumerate(pieces)]
    assert list(plan.pairs[first : first + n]) == expected
    assert [plan.pairs[first + i] for i in range(n)] == expected
    assert list(plan.times[first : first + n]) == [t for t, _ in expected]
    steps = plan[first : first + n]
    assert [(s.t, s.source_t, s.data, s.event) for s in steps] == [
        (t, t, p, None) for t, p in expected
    ]


def test_untimed_plan_equals_the_old_splitting_on_every_body() -> None:
    for body in _bodies():
        pieces = _old_pieces(body)
        assert split_body(body) == (pieces if body else [])
        plan = Plan()
        plan.add_body(3, body, body_cuts(body), 0.25)
        assert len(plan) == len(plan.pairs) == len(plan.times) == len(pieces)
        _check(plan, pieces, 0.25)
        assert plan.attempt_at(len(plan) - 1) == 3
        assert plan.clock == (len(pieces) - 1) * 0.25
        assert plan[-1] == Step(3, plan.clock, pieces[-1], plan.clock)


def _scanned(body: bytes, size: int) -> list[int]:
    finder = CutFinder(body)
    steps = 0
    while not finder.scan(size):
        steps += 1
    assert steps >= (len(body) - 3) // max(size, 1) - 1  # it really went a slice at a time
    return list(finder.cuts)


def test_cuts_found_a_few_bytes_at_a_time_are_the_same() -> None:
    for body in EDGES + [p.read_bytes() for p in all_real_fixtures()[:4]]:
        for size in (1, 2, 5, 64):
            pieces = split_at(body, _scanned(body, size))
            assert pieces == (_old_pieces(body) if body else [])


TOKENS = [b"data", b"data:", b"data: x", b":", b": c", b"\r", b"\n", b"\r\n", b"\xef\xbb\xbf",
          b"x", b"\xff", b"\xe2\x82", b"event: y", b"id: 1", b"retry: 5", b"dat", b"a", b" ",
          b"data x", b"\n\n"]  # fmt: skip


def test_cuts_equal_the_decoders_event_ends_on_random_bodies() -> None:
    rng = random.Random(1717)
    for _ in range(3000):
        body = b"".join(rng.choice(TOKENS) for _ in range(rng.randint(0, 14)))
        expected: list[int] = []
        for e in decode_all(body):
            if e.kind != EventKind.ERROR and e.end > (expected[-1] if expected else 0):
                expected.append(e.end)
        assert list(body_cuts(body)) == expected, body
        assert _scanned(body, rng.randint(1, 4)) == expected, body


def test_several_bodies_continue_the_step_numbers() -> None:
    plan = Plan()
    plan.add_body(1, EDGES[4], body_cuts(EDGES[4]))
    plan.add_body(2, b"", body_cuts(b""))
    plan.add_body(3, EDGES[5], body_cuts(EDGES[5]))
    a, b = _old_pieces(EDGES[4]), _old_pieces(EDGES[5])
    assert len(plan) == len(a) + 1 + len(b)
    _check(plan, a, 0.05)
    _check(plan, [b""], 0.05, len(a))
    _check(plan, b, 0.05, len(a) + 1)
    assert [plan.attempt_at(i) for i in range(len(plan))] == [1] * len(a) + [2] + [3] * len(b)
    assert plan.pairs[len(a) - 1 : len(a) + 2] == [
        ((len(a) - 1) * 0.05, a[-1]),
        (len(a) * 0.05, b""),
        ((len(a) + 1) * 0.05, b[0]),
    ]
    assert plan.pairs[::3] == [plan.pairs[i] for i in range(0, len(plan), 3)]
    assert plan.times[-1] == plan.clock == (len(plan) - 1) * 0.05
    with pytest.raises(IndexError):
        plan.pairs[len(plan)]
    with pytest.raises(IndexError):
        plan.times[-len(plan) - 1]


def test_a_plan_is_timed_or_untimed_throughout() -> None:
    plan = Plan()
    plan.add_chunks(1, [(0.0, b"data: a\n\n")])
    with pytest.raises(ValueError, match="timed or untimed"):
        plan.add_body(2, b"data: b\n\n", body_cuts(b"data: b\n\n"))
    plan = Plan()
    plan.add_body(1, b"data: b\n\n", body_cuts(b"data: b\n\n"))
    with pytest.raises(ValueError, match="timed or untimed"):
        plan.add_chunks(2, [(0.0, b"data: a\n\n")])
    with pytest.raises(ValueError, match="same interval"):
        plan.add_body(2, b"data: b\n\n", body_cuts(b"data: b\n\n"), 0.5)


def test_a_raw_body_is_held_once_not_a_piece_per_event() -> None:
    body = b'data: {"choices":[]}\n\n' + b": keep-alive\n" * 50_000
    gc.collect()
    before = len(gc.get_objects())
    plan = replay_plan(load_bytes(body))
    assert len(plan) == 50_001
    gc.collect()
    assert len(gc.get_objects()) - before < 100  # no tuple, bytes or float per event
    (kept,) = plan.pairs.bodies  # type: ignore[attr-defined]
    assert kept is body


def test_a_raw_replay_seeks_and_ends_as_a_whole_feed() -> None:
    body = all_real_fixtures()[0].read_bytes()
    replayer = Replayer(load_bytes(body))
    replayer.seek(len(replayer.plan) // 2)
    replayer.seek(1)
    assert replayer.time_at(1) == 0.0 and replayer.next_time == 0.05
    assert replayer.advance_to_time(0.05 * 3) == 3
    replayer.finish()
    whole = Replayer(load_bytes(body))
    whole.finish()
    assert [e.end for e in replayer.analysis.attempts[0].state.events] == [
        e.end for e in whole.analysis.attempts[0].state.events
    ]
    assert replayer.duration == whole.plan.clock == 0.05 * (len(whole.plan) - 1)
