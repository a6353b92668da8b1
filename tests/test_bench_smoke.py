"""bench/ui.py still runs against the product (it wraps product methods and checks the window
functionally, so a refactor can break it without any other test noticing). A tiny run: the
figures mean nothing here, only that it runs and its functional checks hold."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]


def test_ui_bench_runs_and_its_functional_checks_hold(tmp_path: Path) -> None:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "TMPDIR": str(tmp_path)}
    run = subprocess.run(
        [
            sys.executable,
            str(REPO / "bench" / "ui.py"),
            "--no-profile",
            "--big",
            "3000",
            "--rejudge",
            "2000",
            "--replay",
            "2000",
            "--seconds",
            "0.5",
            "--rounds",
            "1",
        ],
        capture_output=True,
        text=True,
        timeout=240,
        env=env,
        cwd=REPO,
    )
    out = run.stdout + run.stderr
    assert run.returncode == 0, out[-3000:]
    assert "BROKEN" not in out and "Traceback" not in out, out[-3000:]
    for target in ("open 3,000 chunks", "re-judge 2,000 chunks", "replay at 10,000 chunks/s"):
        assert target in out, out[-2000:]


def test_har_bench_runs_and_finds_every_llm_session(tmp_path: Path) -> None:
    """bench/har.py on a 200-entry HAR of its mix: it runs, finds its 9 LLM exchanges (it
    exits 1 when analyze finds another number) and prints its goal line."""
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    run = subprocess.run(
        [sys.executable, str(REPO / "bench" / "har.py"), "--entries", "200", "--rounds", "1"],
        capture_output=True,
        text=True,
        timeout=240,
        env=env,
        cwd=REPO,
    )
    out = run.stdout + run.stderr
    assert run.returncode == 0, out[-3000:]
    assert "200 entries" in out and "9 LLM exchanges" in out, out[-2000:]
    assert "goal ≤ 0.05 s for 200 entries" in out and "Traceback" not in out, out[-2000:]


def test_make_bench_collects_every_verdict_under_its_input_and_says_a_broken_bench(
    tmp_path: Path, monkeypatch: Any, capsys: Any
) -> None:
    """bench/goals.py (``make bench``) runs each bench as a process and ends on one table of
    their verdict lines, each under the input it was about; a bench that exits non-zero is
    said to be broken and makes the run exit 1 (two tiny stand-in benches, not the real ones,
    which take minutes)."""
    sys.path.insert(0, str(REPO / "bench"))
    try:
        import goals
    finally:
        sys.path.remove(str(REPO / "bench"))
    good = tmp_path / "good.py"
    good.write_text(
        "print('capture-100mb.jsonl, 298,352 events')\n"
        "print('  PASS  analyze with clients / orjson floor: 2.50×')\n"
        "print('million chunks')\n"
        "print('  FAIL  peak memory: 9.1×')\n"
        "print('  nothing to see')\n"
    )
    broken = tmp_path / "broken.py"
    broken.write_text("import sys\nprint('MISS  added latency 9 ms')\nsys.exit(1)\n")
    monkeypatch.setattr(goals, "HERE", tmp_path)
    monkeypatch.setattr(goals, "BENCHES", [("good", ["good.py"]), ("broken", ["broken.py"])])
    assert goals.main() == 1
    table = capsys.readouterr().out.split("=== the goals")[1]
    assert "  capture-100mb.jsonl, 298,352 events\n    PASS  analyze with clients" in table
    assert "  million chunks\n    FAIL  peak memory: 9.1×" in table
    assert "nothing to see" not in table
    assert "EXIT 1: a broken path, not timed" in table
    assert "1 PASS, 1 FAIL, 1 MISS" in table
