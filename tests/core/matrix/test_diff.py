"""Two matrices compared (inspector.core.matrix.diff) and ``matrix diff A B``: the cells that
changed, worse or better by word then pass rate, added and removed, and the exit status."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from inspector.cli import main
from inspector.core.matrix.cells import Cell, CellRun, ClientOutcome
from inspector.core.matrix.diff import counts, diff, regressed, table
from inspector.core.matrix.result import MatrixResult, Row


def _runs(*words: str, client: str = "agrees") -> list[CellRun]:
    right = client == "agrees"
    return [
        CellRun(i, w, f"captures/{i}.jsonl", clients={"litellm": ClientOutcome(client, right)})  # type: ignore[arg-type]
        for i, w in enumerate(words, 1)
    ]


def matrix(cells: dict[tuple[str, str], list[CellRun]], cols: list[str]) -> MatrixResult:
    rows = sorted({t for t, _ in cells})
    grid = {(t, c): Cell(t, c, list(cells.get((t, c), []))) for t in rows for c in cols}
    return MatrixResult(None, [Row(t, "demo", "openai-chat", t) for t in rows], cols, grid,
                        ["litellm"], "", 0.0, {"runs": 3})  # fmt: skip


def before() -> MatrixResult:
    return matrix(
        {
            ("m1", "weather"): _runs("pass", "pass", "pass"),
            ("m1", "parallel"): _runs("quirk", "pass", "pass"),
            ("m1", "trip"): _runs("invalid"),
            ("m2", "weather"): _runs("pass"),
            ("m2", "parallel"): _runs("pass", "not checked"),
        },
        ["weather", "parallel", "trip"],
    )


def test_cells_that_changed_are_marked_worse_better_added_removed() -> None:
    a = before()
    b = matrix(
        {
            ("m1", "weather"): _runs("pass", "invalid", "pass"),  # worse: word
            ("m1", "parallel"): _runs("quirk", "pass", "quirk"),  # same word and rate: unchanged
            ("m1", "trip"): _runs("pass"),  # better
            ("m2", "weather"): _runs("pass", client="merged"),  # the client column worse
            ("m2", "parallel"): _runs("not checked", "not checked"),  # mode alone: unchanged
            ("m1", "zero-arg"): _runs("pass"),
            ("m2", "zero-arg"): [],  # never run: pending
        },
        ["weather", "parallel", "zero-arg"],
    )
    changes = diff(a, b)
    got = {(c.target, c.column): (c.kind, c.arrow) for c in changes}
    assert got[("m1", "weather")] == ("worse", "✔ pass 3/3 → ✖ INVALID 2/3")
    assert got[("m1", "trip")] == ("removed", "✖ INVALID 0/1 → —")
    assert got[("m1", "zero-arg")] == ("added", "— → ✔ pass 1/1")
    assert got[("m2", "zero-arg")] == ("added", "— → … pending")
    assert got[("m2", "client: litellm")] == ("worse", "✓ agrees 3/3 → ✗ merged 2/3")
    assert ("m1", "parallel") not in got and ("m2", "parallel") not in got
    assert regressed(changes)
    assert counts(changes) == "6 cells changed: 2 worse, 2 added, 2 removed"
    assert "m1" in table(changes).splitlines()[2]
    # the other way round: the same cells, better
    back = {(c.target, c.column): c.kind for c in diff(b, a)}
    assert back[("m1", "weather")] == "better" and back[("m2", "client: litellm")] == "better"


def test_a_rate_change_under_the_same_word_and_pending_cells() -> None:
    a = matrix({("m", "w"): _runs("invalid", "pass", "pass")}, ["w"])
    b = matrix({("m", "w"): _runs("invalid", "invalid", "pass")}, ["w"])
    (change,) = [c for c in diff(a, b) if c.column == "w"]
    assert change.kind == "worse" and change.arrow == "✖ INVALID 2/3 → ✖ INVALID 1/3"
    pending = matrix({("m", "w"): []}, ["w"])
    assert {c.kind for c in diff(a, pending)} == {"changed"}  # not measured: no regression
    assert not regressed(diff(a, pending)) and diff(a, a) == []
    assert counts([]) == "no cell changed"


def test_wrong_calls_rank_between_no_call_and_invalid() -> None:
    none, wrong, invalid = (matrix({("m", "w"): _runs(w)}, ["w"]) for w in
                            ("no call", "wrong calls", "invalid"))  # fmt: skip
    assert [c.kind for c in diff(none, wrong)] == ["better"]  # now it calls, if not as asked
    assert [c.kind for c in diff(invalid, wrong)] == ["worse"]
    (change,) = diff(wrong, invalid)
    assert change.kind == "better" and change.arrow == "≠ wrong calls 0/1 → ✖ INVALID 0/1"


def test_cli_matrix_diff_prints_the_table_and_exits_1_on_a_regression(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a_dir, b_dir = tmp_path / "a", tmp_path / "b"
    a_dir.mkdir()
    b_dir.mkdir()
    a = before()
    (a_dir / "matrix.json").write_bytes(a.dumps())
    worse = replace(a, cells=dict(a.cells))
    worse.cells[("m1", "weather")] = Cell("m1", "weather", _runs("error"))
    (b_dir / "matrix.json").write_bytes(worse.dumps())
    assert main(["matrix", "diff", str(a_dir), str(b_dir / "matrix.json")]) == 1
    out = capsys.readouterr().out
    assert "✔ pass 3/3 → ✖ error 0/1" in out and "worse" in out
    assert out.strip().endswith("1 cell changed: 1 worse")
    assert main(["matrix", "diff", str(b_dir), str(a_dir)]) == 0  # better only
    assert main(["matrix", "diff", str(a_dir), str(a_dir)]) == 0
    assert capsys.readouterr().out.strip().endswith("no cell changed")
    assert main(["matrix", "diff", str(a_dir), str(tmp_path / "missing")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "missing" in err and "Traceback" not in err
