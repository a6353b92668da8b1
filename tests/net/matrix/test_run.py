"""A small real matrix against the embedded demo provider (no chunk delay): the cells' words
and facts, every session's capture, matrix.json against its schema, progress callbacks,
reruns, cancel, and the ``matrix`` command."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from inspector.cli import main
from inspector.core.capture.reader import load
from inspector.core.matrix.cells import Cell, ClientOutcome
from inspector.core.matrix.expect import UNREADABLE
from inspector.core.matrix.exports import cell_details
from inspector.core.matrix.result import MatrixResult, load_result
from inspector.core.matrix.schema import SCHEMA
from inspector.core.matrix.spec import MatrixSpec
from inspector.net.matrix.runner import MatrixRunner

NO_KEY = "TOOLCALL_MATRIX_TEST_NO_SUCH_KEY"
FAST = {"x-demo-chunk-delay": "0"}


def _demo(model: str, **extra: Any) -> dict[str, Any]:
    return {"profile": "demo", "model": model, "name": model, "headers": FAST, **extra}


SPEC = {
    "targets": [
        _demo("demo-clean"),
        _demo("demo-parallel-index-0"),
        _demo("demo-glm-retry"),
        _demo("fault-500"),
        {"profile": "openai", "model": "gpt-x", "name": "no key", "key_env": NO_KEY},
        _demo("demo-text-hermes"),
        _demo("demo-truncated"),
    ],
    "scenarios": ["weather", "parallel"],
    "timeouts": {"read": 10, "session": 20},
}


@pytest.fixture
def no_key(monkeypatch: pytest.MonkeyPatch) -> None:
    import keyring

    monkeypatch.delenv(NO_KEY, raising=False)
    monkeypatch.setattr(keyring, "get_password", lambda service, user: None)


async def test_a_small_matrix_runs_judges_records_and_round_trips(
    tmp_path: Path, no_key: None
) -> None:
    started: list[tuple[str, str]] = []
    finished: list[tuple[str, str]] = []
    runner = MatrixRunner(
        MatrixSpec.from_json(SPEC),
        tmp_path,
        on_cell_started=lambda c: started.append(c.key),
        on_cell_finished=lambda c: finished.append(c.key),
    )
    result = await runner.run()
    words = {c.key: c.word for c in result}
    assert words == {
        ("demo-clean", "weather"): "pass",
        ("demo-clean", "parallel"): "pass",  # the calls the scenario asks for, as a good model
        ("demo-parallel-index-0", "weather"): "breaks clients",
        ("demo-parallel-index-0", "parallel"): "breaks clients",
        ("demo-glm-retry", "weather"): "retried",
        ("demo-glm-retry", "parallel"): "retried",
        ("fault-500", "weather"): "error",
        ("fault-500", "parallel"): "error",
        ("no key", "weather"): "skipped",
        ("no key", "parallel"): "skipped",
        ("demo-text-hermes", "weather"): "no call",  # its calls are written in the text
        ("demo-text-hermes", "parallel"): "no call",
        ("demo-truncated", "weather"): "invalid",  # cut arguments: not a wrong choice of call
        ("demo-truncated", "parallel"): "wrong calls",  # cut before its second call: 1 of 2
    }
    assert sorted(finished) == sorted(words) and len(started) == 12
    assert ("no key", "weather") not in started

    clean = result.cell("demo-clean", "weather").runs[0]
    assert clean.expected and clean.valid and clean.calls == 1 and not clean.retried
    assert clean.tokens is not None and clean.tokens["total"] > 0  # usage asked in the stream
    assert "usage_only_chunk" in clean.quirks  # listed, but asked for: not the word
    assert clean.first_tool_fragment is not None and 0 <= clean.first_tool_fragment < clean.duration
    assert clean.clients["openai-python"].right is True
    assert clean.clients["google-genai"].right is None  # does not speak openai-chat
    parallel = result.cell("demo-clean", "parallel").runs[0]
    assert parallel.expected and parallel.calls == 2 and parallel.expect_failures == ()
    cut = result.cell("demo-truncated", "parallel").runs[0]
    assert cut.expect_failures[:2] == (
        "not parallel: 1 call in the response, expected 2 or more",
        "tool get_time not called",
    )
    assert cut.expected is False and cut.calls == 1 and cut.text_calls == 0
    text = result.cell("demo-text-hermes", "weather").runs[0]
    assert (text.calls, text.text_calls, text.expect_failures) == (0, 2, ("no tool call",))
    cut = result.cell("demo-truncated", "weather").runs[0]
    assert cut.expected is False and cut.expect_failures == (UNREADABLE,)
    tip = cell_details(result.cell("demo-text-hermes", "weather"))
    assert "run 1: no call — no tool call; 2 calls written as text" in tip, tip
    broken = result.cell("demo-parallel-index-0", "parallel").runs[0]
    assert broken.clients["openai-python"] == ClientOutcome("merged", False)
    assert "index_reused_with_new_id" in broken.quirks
    retried = result.cell("demo-glm-retry", "weather").runs[0]
    assert retried.retried and retried.retry_reason and not retried.accepted_degraded
    error = result.cell("fault-500", "weather").runs[0]
    assert error.error is not None and error.error.type == "ProviderHTTPError"
    assert "HTTP 500" in error.error.message and error.expected is None
    skipped = result.cell("no key", "weather").runs[0]
    assert skipped.capture is None and skipped.skipped and NO_KEY in skipped.skipped

    for cell, run in result.runs():
        if run.word != "skipped":
            capture = load(tmp_path / str(run.capture))
            assert capture.meta["matrix_target"] == cell.target, run.capture

    path = runner.save()
    data = json.loads(path.read_text())
    jsonschema.validate(data, SCHEMA)
    again = load_result(tmp_path)
    assert again.to_json() == data and again.spec == runner.spec
    assert MatrixResult.from_json(json.loads(json.dumps(data))).to_json() == data

    # rerun the failed cells: only they are replaced
    assert runner.failed_cells() == [("fault-500", "weather"), ("fault-500", "parallel")]
    kept = result.cell("demo-clean", "weather").runs
    whole = result.duration
    assert whole > 0
    await runner.rerun(runner.failed_cells())
    assert result.duration > whole  # the rerun adds its time to the matrix's, never replaces it
    assert result.cell("demo-clean", "weather").runs is kept
    assert result.cell("fault-500", "weather").word == "error"
    await runner.rerun(runner.row("demo-clean"))
    assert result.cell("demo-clean", "weather").runs is not kept


async def test_cancel_keeps_finished_cells(tmp_path: Path) -> None:
    spec = MatrixSpec.from_json({
        "targets": [_demo("demo-clean"),
                    _demo("fault-stall", headers={**FAST, "x-demo-stall": "20"})],
        "scenarios": ["weather"],
    })  # fmt: skip
    runner: MatrixRunner

    def on_finished(cell: Cell) -> None:
        runner.cancel()

    runner = MatrixRunner(spec, tmp_path, on_cell_finished=on_finished)
    result = await runner.run()
    assert result.cell("demo-clean", "weather").word == "pass"
    assert result.cell("fault-stall", "weather").word == "pending"
    assert runner.failed_cells() == [("fault-stall", "weather")]
    assert result.duration < 10


def test_the_matrix_command_prints_the_table_and_writes_the_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], no_key: None
) -> None:
    spec = {**SPEC, "targets": [SPEC["targets"][0], SPEC["targets"][3], SPEC["targets"][4]]}
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(spec))
    out = tmp_path / "out"
    assert main(["matrix", str(path), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    lines = {line.split("  ")[0]: line for line in printed.splitlines()}
    assert lines["demo-clean"].count("✔ pass 1/1") == 2, lines["demo-clean"]  # weather, parallel
    assert "✖ error 0/1" in lines["fault-500"] and "⊘ skipped 0/1" in lines["no key"]
    assert "\x1b[" not in printed  # colour only on a terminal
    assert {p.name for p in out.iterdir()} >= {
        "matrix.json",
        "matrix.md",
        "matrix.html",
        "captures",
    }
    assert len(list((out / "captures").glob("*.jsonl"))) == 4
    jsonschema.validate(json.loads((out / "matrix.json").read_text()), SCHEMA)


def test_a_bad_spec_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "spec.json"
    path.write_text(json.dumps({"targets": [{"profile": "nope"}], "scenarios": ["weather"]}))
    assert main(["matrix", str(path), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip()
    assert "unknown profile 'nope'" in err and "\n" not in err and "Traceback" not in err
