"""bench/ui.py still runs against the product (it wraps product methods and checks the window
functionally, so a refactor can break it without any other test noticing). A tiny run: the
figures mean nothing here, only that it runs and its functional checks hold."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

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
