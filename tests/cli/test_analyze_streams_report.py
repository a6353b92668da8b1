"""``analyze`` writes its report as it is made: the same bytes and exit code as the whole
report, and a reader that stops early (``analyze … | head -1``) ends it quietly, with the exit
code the analysis decided."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import orjson
import pytest
from conftest import TESTS

from inspector.cli import main
from inspector.core.analysis.session import Analysis
from inspector.core.base.settings import Settings
from inspector.core.capture.reader import load
from inspector.core.providers import REGISTRY
from inspector.core.reports import report
from inspector.core.reports.gate import header_settings

CORPUS = TESTS / "clients" / "corpus"
Cap = pytest.CaptureFixture[str]


def many_calls(path: Path, calls: int) -> Path:
    """A raw OpenAI chat body with ``calls`` parallel tool calls, one chunk each."""
    lines = []
    for i in range(calls):
        call = {"index": i, "id": f"call_{i}", "type": "function"}
        call["function"] = {"name": "lookup", "arguments": f'{{"q": "{i}"}}'}
        delta = {"choices": [{"index": 0, "delta": {"tool_calls": [call]}}]}
        lines.append(b"data: " + orjson.dumps(delta) + b"\n\n")
    end = {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}
    lines.append(b"data: " + orjson.dumps(end) + b"\n\ndata: [DONE]\n\n")
    path.write_bytes(b"".join(lines))
    return path


@pytest.mark.parametrize(
    "name", ["openai-chat/demo-parallel", "anthropic/demo-clean", "openai-chat/demo-cut-at-stop"]
)
def test_analyze_writes_the_whole_report_and_its_exit_code(capsys: Cap, name: str) -> None:
    path = CORPUS / f"{name}.jsonl"
    capture = load(str(path))
    settings = header_settings(capture, Settings(), REGISTRY)  # as analyze reads it
    analysis = Analysis.from_capture(capture, settings, None, providers=REGISTRY)
    whole = report.to_json(analysis, str(path))
    code = main(["analyze", "--json", str(path)])
    out, err = capsys.readouterr()
    assert err == "" and code == whole["exit"]["code"]
    assert out == (orjson.dumps(whole, option=orjson.OPT_INDENT_2) + b"\n").decode()
    assert main(["analyze", str(path)]) == code
    assert capsys.readouterr().out == report.to_text(analysis, str(path))


@pytest.mark.parametrize("as_json", [True, False], ids=["json", "text"])
def test_a_reader_that_stops_early_ends_it_quietly(
    capsys: Cap, tmp_path: Path, as_json: bool
) -> None:
    body = many_calls(tmp_path / "calls.sse", 2000)
    flags = ["--json"] if as_json else []
    code = main(["analyze", *flags, str(body)])
    assert len(capsys.readouterr().out) > 150_000  # far more than a pipe holds
    child = subprocess.Popen(
        [sys.executable, "-m", "inspector", "analyze", *flags, str(body)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert child.stdout is not None and child.stderr is not None
    first = child.stdout.read(100)
    child.stdout.close()  # as `| head -c 100` does
    err = child.stderr.read()
    assert child.wait(timeout=60) == code
    assert err == b"" and len(first) == 100
