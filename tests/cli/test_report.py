"""``toolcall-inspector report``: the Markdown names the quirk with the registry's expected
behaviour and public reports, each client's verdict with its library version, the body and the
two commands; the generated ``--pytest`` file passes against ``serve`` of the capture and fails
when served the conforming twin (``demo-clean``, same dialect)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import TESTS

from inspector.cli import main
from inspector.core.quirks.registry import BY_CODE

CHAT = TESTS / "clients" / "corpus" / "openai-chat"
GLM = CHAT / "demo-glm-empty-string.jsonl"
GLM_TITLE = (
    "# Quirk `empty_string_continuation_id` in an OpenAI Chat Completions stream from"
    " `demo-glm-empty-string`"
)


def _pytest(folder: Path, capture: Path | None = None) -> subprocess.Popen[str]:
    """The generated test run by pytest, started (a plain test: no plugin is loaded, so the
    run does not pay for the SDKs' and Qt's plugins this venv holds)."""
    env = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    env.pop("INSPECTOR_CAPTURE", None)
    if capture is not None:
        env["INSPECTOR_CAPTURE"] = str(capture)
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_regression.py"]
    return subprocess.Popen(cmd, cwd=folder, env=env, stdout=subprocess.PIPE, text=True)


def _ended(run: subprocess.Popen[str]) -> tuple[int, str]:
    """The exit code and output of a run :func:`_pytest` started."""
    try:
        out, _ = run.communicate(timeout=300)
    finally:
        run.kill()
    return run.returncode, out


def test_the_report_says_what_a_maintainer_needs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "report"
    assert main(["report", str(GLM), "--out", str(out)]) == 0
    assert "(client: by-id)" in capsys.readouterr().out  # the client the stream breaks
    text = (out / "report.md").read_text()
    info = BY_CODE["empty_string_continuation_id"]
    assert "`empty_string_continuation_id`" in text and info.expected in text
    assert all(url in text for url in info.references) and info.references
    assert "| `openai-python` | openai " in text and "cut arguments" in text
    assert "toolcall-inspector serve capture.jsonl --speed max" in text
    assert (out / "capture.jsonl").read_bytes() == GLM.read_bytes()
    script = (out / "repro.py").read_text()
    assert len(script.splitlines()) <= 16 and "sys.argv[1]" in script


def test_the_regression_test_passes_on_serve_and_fails_on_the_conforming_twin(
    tmp_path: Path,
) -> None:
    out = tmp_path / "report"
    args = ["report", str(GLM), "--for", "client:openai-python", "--out", str(out), "--pytest"]
    assert main(args) == 0
    runs = _pytest(out), _pytest(out, CHAT / "demo-clean.jsonl")  # side by side
    (passed, passed_out), (twin, twin_out) = (_ended(r) for r in runs)
    assert passed == 0, passed_out[-3000:]
    assert twin == 1, twin_out[-3000:]
    assert "hands_over_the_inspector_calls" in twin_out


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--for", "someone"], "--for 'someone'"),
        (["--for", "client:anthropic-sdk"], "does not speak"),
        (["--for", "client:nope"], "no client 'nope'"),
    ],
)
def test_what_cannot_be_reported_is_one_line(
    tmp_path: Path, args: list[str], says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["report", str(GLM), "--out", str(tmp_path / "r"), *args]) == 2
    err = capsys.readouterr().err
    assert says in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("capture", "target", "title"),
    [
        (
            GLM,
            "provider",
            "# Quirk `empty_string_continuation_id` in an OpenAI Chat Completions"
            " stream from `demo-glm-empty-string`",
        ),
        (
            TESTS / "clients" / "corpus" / "gemini" / "demo-malformed-call.jsonl",
            "provider",
            "# Quirk ",
        ),
        (GLM, "client:by-id", "# Client by-id "),
    ],
)
def test_the_title_reads_as_english_and_opens_with_words(
    tmp_path: Path, capture: Path, target: str, title: str
) -> None:
    """ "an OpenAI Chat Completions stream", "a Gemini stream" (never "a openai-chat"); the
    title opens with a word, not a code span (Qt styles only a heading's first fragment)."""
    out = tmp_path / "report"
    assert main(["report", str(capture), "--for", target, "--out", str(out)]) == 0
    first = (out / "report.md").read_text().splitlines()[0]
    assert first.startswith(title) and not first.startswith("# `")
    assert " a openai" not in first and " a anthropic" not in first
    if "gemini" in str(capture):
        assert " in a Gemini stream from `demo-malformed-call`" in first
