"""A matrix that would run no session says why (core/matrix/idle.py): no targets, no
scenarios, every target (of the chosen cells) skipped; one that runs anything says nothing."""

from __future__ import annotations

from dataclasses import replace

from inspector.core.matrix.idle import idle_reason
from inspector.core.matrix.spec import MatrixSpec

SPEC = MatrixSpec.from_json(
    {
        "targets": [
            {"profile": "demo", "model": "demo-clean", "name": "demo"},
            {"profile": "openai", "model": "gpt-x", "name": "a", "key_env": "A_KEY"},
            {"profile": "openai", "model": "gpt-y", "name": "b", "key_env": "B_KEY"},
        ],
        "scenarios": ["weather", "parallel"],
    }
)
NO_A, NO_B = "no key: A_KEY is not set", "no key: B_KEY is not set"


def test_no_targets_and_no_scenarios_are_named() -> None:
    assert idle_reason(replace(SPEC, targets=()), {}) == "the matrix has no targets"
    assert idle_reason(replace(SPEC, scenarios=()), {}) == "the matrix has no scenarios"


def test_every_target_skipped_names_each_with_its_reason() -> None:
    keyed = replace(SPEC, targets=SPEC.targets[1:])
    assert idle_reason(keyed, {"a": NO_A, "b": NO_B}) == (
        f"all 2 targets are skipped (a: {NO_A}; b: {NO_B})"
    )
    one = replace(SPEC, targets=SPEC.targets[1:2])
    assert idle_reason(one, {"a": NO_A}) == f"the only target is skipped (a: {NO_A})"


def test_a_partly_skipped_matrix_runs() -> None:
    assert idle_reason(SPEC, {"a": NO_A, "b": NO_B}) is None
    assert idle_reason(SPEC, {}) is None


def test_a_rerun_is_judged_on_its_own_cells() -> None:
    skipped = {"a": NO_A, "b": NO_B}
    assert idle_reason(SPEC, skipped, [("a", "weather"), ("b", "parallel")]) == (
        f"all 2 targets are skipped (a: {NO_A}; b: {NO_B})"
    )
    assert idle_reason(SPEC, skipped, [("a", "weather"), ("demo", "weather")]) is None
    assert idle_reason(SPEC, skipped, []) == "no cell is chosen"
