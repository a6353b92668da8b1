"""Quitting the window from the terminal that started it: Ctrl+C (SIGINT) and SIGTERM close it
as File ▸ Quit does, so the live session that ``open`` starts is cancelled and its capture
ends with its ``end`` record; the exit code is 128 + the signal.

Both signals are tried at once, each on its own ``toolcall-inspector open`` (offscreen, with a
fresh config and data folder), to keep the test short.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")


def _start(home: Path) -> subprocess.Popen[str]:
    env = {
        **os.environ,
        "QT_QPA_PLATFORM": "offscreen",
        "XDG_CONFIG_HOME": str(home / "config"),
        "XDG_DATA_HOME": str(home / "data"),
    }
    code = "import sys; from inspector.cli import main; sys.exit(main(['open']))"
    return subprocess.Popen(
        [sys.executable, "-c", code],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _capture(home: Path) -> Path | None:
    found = sorted((home / "data").glob("**/captures/*.jsonl"))
    return found[0] if found and found[0].stat().st_size else None


HANG = 120.0
"""Seconds the windows may take to start and record (a bound for a hang: two Qt start-ups and
a demo session took over 20 s on a loaded 2-core machine)."""


@pytest.mark.timeout(2 * HANG + 60)
def test_sigint_and_sigterm_close_the_window_and_end_the_capture(tmp_path: Path) -> None:
    runs = {signal.SIGINT: tmp_path / "int", signal.SIGTERM: tmp_path / "term"}
    procs = {sig: _start(home) for sig, home in runs.items()}
    try:
        deadline = time.monotonic() + HANG
        pending = dict(procs)
        while pending and time.monotonic() < deadline:  # signal each once its session records
            for sig, proc in list(pending.items()):
                assert proc.poll() is None, proc.communicate()
                if _capture(runs[sig]) is not None:
                    proc.send_signal(sig)
                    del pending[sig]
            time.sleep(0.02)
        assert not pending, "no capture appeared"
        for sig, proc in procs.items():
            _out, err = proc.communicate(timeout=HANG)
            assert proc.returncode == 128 + sig, err
            assert "Traceback" not in err
            capture = _capture(runs[sig])
            assert capture is not None
            last = json.loads(capture.read_text().splitlines()[-1])
            assert last["type"] == "end", last
    finally:
        for proc in procs.values():
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
