"""``analyze --json`` over every real Bedrock stream, as recorded (JSON lines) and as real
frames: each call of its ``.json`` shown exactly (id, name, arguments), exit 0, the dialect
named; a body cut inside a frame is a complete report that says so."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from bedrock_fixtures import Recorded, recorded

from inspector.cli import main

STREAMS = recorded()


def analyze(capsys: pytest.CaptureFixture[str], path: Path) -> tuple[int, dict[str, Any]]:
    code = main(["analyze", "--json", str(path)])
    out, _ = capsys.readouterr()
    return code, json.loads(out)


@pytest.mark.parametrize("form", ["lines", "frames"])
@pytest.mark.parametrize("rec", STREAMS, ids=lambda r: r.name)
def test_every_call_is_shown_exactly(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, rec: Recorded, form: str
) -> None:
    path = tmp_path / f"{rec.name}.{form}"
    path.write_bytes(rec.lines if form == "lines" else rec.framed)
    code, report = analyze(capsys, path)
    assert (code, report["dialect"], report["valid"]) == (0, "bedrock-converse", True)
    shown = [{k: c[k] for k in ("id", "name", "arguments")} for c in report["tool_calls"]]
    assert shown == [{k: c[k] for k in ("id", "name", "arguments")} for c in rec.calls]
    assert report["warnings"] == [] and report["errors"] == []


def test_a_body_cut_inside_a_frame_is_reported_whole_with_the_cut(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    body = STREAMS[2].framed
    path = tmp_path / "cut.bin"
    path.write_bytes(body[: len(body) - 20])
    code, report = analyze(capsys, path)
    assert code == 1 and report["dialect"] == "bedrock-converse"
    assert [c["id"] for c in report["tool_calls"]] == ["weather-tool-1", "weather-tool-2"]
    assert "bad_frame" in [q["code"] for q in report["quirks"]]
    (reason,) = report["exit"]["reasons"]
    assert reason.startswith("a frame of the body cannot be read whole at byte ")
    assert reason.endswith(": the AWS SDKs raise there (a checksum or length error)")
