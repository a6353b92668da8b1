"""The fuzz harness's fixed profile, in ``make test``: the same hostile inputs every run.

Hypothesis draws a few hundred inputs from :mod:`fuzz.strategies` with ``derandomize=True``
(each dialect's events raw, then bodies inside hostile captures), and a fixed-seed loop mutates
the real recordings and the samples (:mod:`fuzz.mutate`); each input goes through the whole
headless path (:func:`fuzz.target.run`) under the settings its variant picks. Any exception is
a crash: the test fails with the crash site and re-runs the input. ``make fuzz`` runs the same
target over a million inputs (see ``tests/fuzz/__main__.py``).
"""

from __future__ import annotations

import random

import pytest
from conftest import REPO, all_real_fixtures
from fuzz import mutate, strategies, target
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inspector.core.calls.accumulator import Accumulator

PROFILE = settings(
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
MUTANTS = 400
"""Mutated inputs in ``make test`` (a second or two): the first of the slow sweep's inputs."""
MUTANTS_SLOW = 2500
"""Mutated inputs in ``make test-slow`` (the same seed: a superset of ``make test``'s)."""


def judge(data: bytes, variant: int) -> bool:
    """``target.run``, failing the test with the crash site instead of a bare traceback."""
    try:
        return target.run(data, variant)
    except Exception as exc:
        crash = target.crash_of(exc)
        pytest.fail(
            f"crash at {crash.site}: {crash.error} (variant {variant}, input {data!r:.300})"
        )


@pytest.mark.parametrize("dialect", sorted(strategies.EVENTS))
@settings(PROFILE, max_examples=60)
@given(body=st.data(), variant=st.integers(0, target.VARIANTS - 1))
def test_hostile_events_of_each_dialect(dialect: str, body: st.DataObject, variant: int) -> None:
    judge(body.draw(strategies.body(dialect)), variant)


@settings(PROFILE, max_examples=120)
@given(strategies.inputs())
def test_hostile_bodies_and_captures(example: tuple[bytes, int]) -> None:
    judge(*example)


@pytest.mark.parametrize(
    "mutants", [MUTANTS, pytest.param(MUTANTS_SLOW, marks=pytest.mark.slow, id="slow")]
)
def test_mutated_recordings_and_samples(mutants: int) -> None:
    corpus = mutate.load_corpus(
        [*all_real_fixtures(), *sorted((REPO / "resources" / "samples").glob("*.jsonl"))]
    )
    rng = random.Random(12)
    read = sum(judge(mutate.mutate(corpus, rng), rng.randrange(1 << 16)) for _ in range(mutants))
    # most mutants are still read (a harness that refuses all tests nothing)
    assert read > mutants // 2


def test_a_crash_is_located_at_its_innermost_core_frame() -> None:
    """The harness can fail: an exception from the core names the core line that raised it."""
    with pytest.raises(ValueError) as info:
        Accumulator("no such policy")  # type: ignore[arg-type]
    assert target.crash_of(info.value).site.startswith("inspector/core/base/settings.py:")
