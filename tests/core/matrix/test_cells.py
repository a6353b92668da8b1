"""Judging a run against its scenario's expect block, the cell words' precedence on crafted
runs, and a cell over several runs (inspector/core/matrix/{expect,cells}.py)."""

from __future__ import annotations

import pytest

from inspector.core.matrix.cells import (
    PRECEDENCE,
    Cell,
    CellRun,
    ClientOutcome,
    ErrorInfo,
    RateLimit,
    run_word,
)
from inspector.core.matrix.expect import UNREADABLE, holds, judge_expect
from inspector.core.reports.words import MATRIX_WORDS, MEANING, SYMBOL
from inspector.core.requests.scenarios_expect import Expect

WEATHER = ("get_weather", '{"city": "Paris, France", "unit": "celsius"}')
TIME = ("get_time", '{"city": "Tokyo"}')


def test_an_expectation_met_has_no_misses() -> None:
    expect = Expect(("get_weather", "get_time"), 2, 3, True, {"city": "paris"})
    assert judge_expect(expect, [WEATHER, TIME]) == []


@pytest.mark.parametrize(
    ("expect", "calls", "misses"),
    [
        (Expect(), [], ["no tool call"]),
        (Expect(("get_time",), 2, None, True, {"city": "Paris"}), [], ["no tool call"]),
        (Expect(calls_min=2), [WEATHER], ["too few calls: 1 of min 2"]),
        (Expect(calls_max=1), [WEATHER, TIME], ["too many calls: 2 of max 1"]),
        (Expect(parallel=True), [WEATHER],
         ["not parallel: 1 call in the response, expected 2 or more"]),
        (Expect(parallel=False), [WEATHER, TIME],
         ["parallel: 2 calls in one response, expected one at a time"]),
        (Expect(("get_time",)), [WEATHER], ["tool get_time not called"]),
        (Expect(arguments={"city": "Lima"}), [WEATHER, TIME],
         ['arguments differ: city "Paris, France" not "Lima"']),
        (Expect(("get_time",), arguments={"city": "Lima"}), [WEATHER, TIME],
         ['arguments differ: city "Tokyo" not "Lima"']),  # the expected tool's call
        (Expect(arguments={"city": "Paris"}), [("get_weather", '{"city": "Par')],
         [UNREADABLE]),  # the argument text, not the call: ``invalid`` says it
        (Expect(arguments={"city": "Paris", "unit": "C"}), [("get_weather", '{"city": "Paris"}')],
         ["arguments differ: unit missing"]),
        (Expect(arguments={"b": {"c": "EUR"}}), [("t", '{"b": {"c": "USD"}}')],
         ['arguments differ: b.c "USD" not "EUR"']),
        (Expect(calls_min=0), [], []),
    ],
)  # fmt: skip
def test_each_miss_is_one_phrase(
    expect: Expect, calls: list[tuple[str, str]], misses: list[str]
) -> None:
    assert judge_expect(expect, calls) == misses


def test_holds_is_a_subset_match() -> None:
    assert holds({"a": {"b": 1, "c": [1]}, "d": "X"}, {"a": {"b": 1}})
    assert not holds({"a": {"b": 2}}, {"a": {"b": 1}})
    assert holds("New York City", "new york") and not holds(1, "1")
    assert not holds(1, True) and not holds(True, 1) and holds(2.0, 2)
    assert not holds(["Paris"], {"city": "Paris"})


# The facts that make each word, so that every word but the last is beaten by the one before it.
FACTS: list[tuple[str, dict[str, object]]] = [
    ("error", {"error": True}),
    ("skipped", {"skipped": True}),
    ("no call", {"expected": False, "called": False}),
    ("wrong calls", {"expected": False}),
    ("invalid", {"valid": False}),
    ("retried", {"retried": True}),
    ("breaks clients", {"breaks_clients": True}),
    ("quirk", {"quirks": True}),
    ("pass", {}),
]


def test_the_run_word_precedence() -> None:
    for i, (word, facts) in enumerate(FACTS):
        assert run_word(**facts) == word  # type: ignore[arg-type]
        combined: dict[str, object] = {}
        for _, later in FACTS[i:]:
            combined.update(later)
        assert run_word(**combined) == word, word  # type: ignore[arg-type]
    assert run_word(validation="off") == "not checked"
    assert run_word(quirks=True, validation="off") == "quirk"
    assert [w for w, _ in FACTS] == [w for w in PRECEDENCE if w not in ("not checked", "pending")]


def test_every_matrix_word_is_in_the_vocabulary() -> None:
    assert set(PRECEDENCE) == set(MATRIX_WORDS)
    for word in MATRIX_WORDS:
        assert MEANING[word]
    assert SYMBOL["no call"] and SYMBOL["breaks clients"] and SYMBOL["quirk"]
    assert SYMBOL["wrong calls"] != SYMBOL["no call"]
    assert PRECEDENCE.index("wrong calls") == PRECEDENCE.index("no call") + 1


def _run(n: int, word: str, **kw: object) -> CellRun:
    return CellRun(n, word, **kw)  # type: ignore[arg-type]


def test_a_flaky_cell_shows_its_worst_word_and_its_pass_rate() -> None:
    cell = Cell("t", "s", [_run(1, "pass"), _run(2, "quirk"), _run(3, "error")])
    assert (cell.word, cell.pass_rate, cell.passed, cell.failed) == ("error", "2/3", 2, True)
    assert Cell("t", "s").word == "pending" and Cell("t", "s").pass_rate == "-"
    retried = Cell("t", "s", [_run(1, "retried"), _run(2, "pass")])
    assert (retried.word, retried.pass_rate, retried.failed) == ("retried", "1/2", False)
    off = Cell("t", "s", [_run(1, "not checked")])
    assert (off.word, off.pass_rate) == ("not checked", "1/1")


def test_a_run_round_trips_through_json() -> None:
    run = CellRun(
        2, "breaks clients", capture="captures/a__b__2.jsonl", expected=True,
        expect_failures=("x",), calls=2, valid=True, retried=True, retry_reason="invalid_json",
        accepted_degraded=False, quirks=("sparse_index",), first_tool_fragment=0.25,
        duration=1.5, tokens={"input": 3, "output": 4, "total": 7},
        clients={"openai-python": ClientOutcome("raised", False),
                 "google-genai": ClientOutcome("n/a", None)},
        rate_limits=(RateLimit("1", 1.0),),
    )  # fmt: skip
    assert CellRun.from_json(run.to_json()) == run
    err = CellRun(1, "error", error=ErrorInfo("ReadTimeout", "no byte for 10 s"))
    assert CellRun.from_json(err.to_json()) == err
    with pytest.raises(ValueError, match="unknown cell word"):
        CellRun.from_json({**err.to_json(), "word": "great"})
