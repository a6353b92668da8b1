"""``analyze``, ``record``, ``proxy``, ``matrix``, ``export`` and ``demo-server`` run where Qt
cannot be imported (a CI server without X libraries, an install without PySide6's system
libraries): each runs for real as a process in which importing PySide6, shiboken6 or qasync
fails, from a folder that is not the checkout; ``open`` in the same process fails (so the
block is real)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from userflow import demo_and_proxy, run

from inspector.core.base.resources import resource

NO_QT = """
import atexit, os, sys
BLOCKED = ("PySide6", "shiboken6", "qasync")
tried = []
class NoQt:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            tried.append(name)
            raise ImportError(f"No module named {name!r} (Qt is unavailable in this test)")
        return None
sys.meta_path.insert(0, NoQt())
def said():
    if tried:
        sys.stderr.write("QT IMPORTED: " + ", ".join(sorted(set(tried))) + "\\n")
        sys.stderr.flush()
        os._exit(99)
atexit.register(said)
from inspector.cli import main
sys.exit(main(sys.argv[1:]))
"""
CLI = [sys.executable, "-c", NO_QT]
SAMPLE = "glm-empty-string-continuations.jsonl"


def ok(done: object) -> str:
    code, out, err = done.returncode, done.stdout, done.stderr  # type: ignore[attr-defined]
    assert code == 0 and "QT IMPORTED" not in err and "Traceback" not in err, (code, out, err)
    return str(out)


def test_the_block_is_real(tmp_path: Path) -> None:
    done = run(CLI, ["open", str(resource("samples", SAMPLE)), "--screenshot", "x.png"], tmp_path)
    assert done.returncode != 0 and not (tmp_path / "x.png").exists()
    assert "QT IMPORTED: PySide6" in done.stderr or "PySide6" in done.stderr


def test_analyze_and_export_without_qt(tmp_path: Path) -> None:
    sample = resource("samples", SAMPLE)
    out = ok(run(CLI, ["analyze", str(sample)], tmp_path))
    assert "valid — breaks 1 client: by-id" in out
    ok(run(CLI, ["export", str(sample), "--har", "s.har"], tmp_path))
    assert json.loads((tmp_path / "s.har").read_text())["log"]["entries"]


def test_record_and_matrix_without_qt(tmp_path: Path) -> None:
    args = ["--profile", "demo", "--scenario", "weather", "--model", "demo-clean"]
    out = ok(run(CLI, ["record", *args, "--out", "s.jsonl"], tmp_path))
    assert "get_weather" in out and (tmp_path / "s.jsonl").stat().st_size > 0
    spec = {"targets": [{"profile": "demo", "model": "demo-clean",
                         "headers": {"x-demo-chunk-delay": "0"}}],
            "scenarios": ["weather"]}  # fmt: skip
    (tmp_path / "spec.json").write_text(json.dumps(spec))
    out = ok(run(CLI, ["matrix", "spec.json", "--out", "m"], tmp_path))
    assert "1 targets × 1 scenarios" in out and "1/1 cells pass every run" in out, out
    assert (tmp_path / "m" / "matrix.json").is_file()


@pytest.mark.timeout(180)
def test_demo_server_and_proxy_without_qt(tmp_path: Path) -> None:
    seen = demo_and_proxy(CLI, tmp_path)
    assert seen["direct"] == seen["proxied"]
    assert [name for name, _args in seen["proxied"]] == ["get_weather"]
    assert json.loads(seen["proxied"][0][1])["city"]
    assert "1 call" in seen["proxy_line"] and len(seen["captures"]) == 1
