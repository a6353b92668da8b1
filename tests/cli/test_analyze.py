"""`toolcall-inspector analyze`: the --json contract, exit codes, and one-line errors.

Run as a real subprocess (the console entry point), the way CI scripts will call it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO, real_fixture

WEATHER_TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "weather",
            "parameters": {
                "type": "object",
                "properties": {"location": {"type": "string"}},
                "required": ["location"],
            },
        },
    }
]


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "inspector", *args], capture_output=True, text=True, timeout=60
    )


def analyze_json(*args: str) -> tuple[int, dict[str, Any]]:
    proc = run("analyze", "--json", *args)
    assert proc.stderr == ""
    return proc.returncode, json.loads(proc.stdout)


def test_qwen_json_contract() -> None:
    code, doc = analyze_json(str(real_fixture("qwen3-max-empty-id-continuations")))
    assert code == 0
    for key in (
        "dialect",
        "settings",
        "tool_calls",
        "attempts",
        "quirks",
        "warnings",
        "finish_reason",
        "usage",
        "text",
    ):
        assert key in doc
    assert doc["dialect"] == "openai-chat"
    assert doc["settings"] == {"dialect": "auto", "validation": "structural", "empty_id": "absent"}
    (call,) = doc["tool_calls"]
    assert call["name"] == "weather" and call["valid"] is True
    assert call["arguments"] == '{"location": "San Francisco"}'
    assert call["id"] == "call_eee11723464a4b9eb8cee71d" and call["index"] == 0
    for key in ("fragments", "problems", "repaired_id", "dropped_fragments"):
        assert key in call
    assert call["fragments"] == 4 and call["dropped_fragments"] == []
    codes = {q["code"]: q["chunks"] for q in doc["quirks"]}
    assert codes["empty_string_continuation_id"] == [1, 2, 3]
    assert doc["attempts"][0]["outcome"] == "accepted"
    assert doc["usage"]["total_tokens"] == 317


def test_qwen_literal_drops_and_fails_once_tools_require_location(tmp_path: Path) -> None:
    path = str(real_fixture("qwen3-max-empty-id-continuations"))
    code, doc = analyze_json(path, "--empty-id", "literal")
    (call,) = doc["tool_calls"]
    # every continuation dropped, 0 bytes of arguments: invalid even with no tools to check
    assert code == 1 and call["arguments"] == "" and len(call["dropped_fragments"]) == 3
    assert [d["id_presence"] for d in call["dropped_fragments"]] == ["empty"] * 3
    assert [p["code"] for p in call["problems"]] == ["dropped_fragments"] and not doc["valid"]
    assert "2 fragments (29 bytes of arguments)" in call["problems"][0]["message"]
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps(WEATHER_TOOLS))
    code, doc = analyze_json(path, "--empty-id", "literal", "--tools", str(tools))
    (call,) = doc["tool_calls"]
    assert code == 1 and doc["valid"] is False
    assert [p["code"] for p in call["problems"]] == ["missing_required", "dropped_fragments"]
    assert doc["attempts"][0]["reason"] == "stream_empty_tool_arguments"
    assert doc["attempts"][0]["invalid_tool_calls"][0]["raw_arguments"] == ""


def test_tools_file_may_be_a_whole_request_body(tmp_path: Path) -> None:
    body = tmp_path / "request.json"
    body.write_text(json.dumps({"model": "qwen3-max", "messages": [], "tools": WEATHER_TOOLS}))
    code, doc = analyze_json(
        str(real_fixture("qwen3-max-empty-id-continuations")),
        "--empty-id",
        "literal",
        "--tools",
        str(body),
    )
    assert code == 1 and doc["tools_known"] is True


def test_identity_presence_is_reported_verbatim() -> None:
    _, doc = analyze_json(str(real_fixture("gemini-3-function-call")))
    (call,) = doc["tool_calls"]
    assert call["id"] is None and call["id_presence"] == "omitted"
    assert call["repaired_id"] == call["effective_id"] and len(call["repaired_id"]) == 9
    _, doc = analyze_json(str(real_fixture("mistral-no-index-whole-call")))
    assert doc["tool_calls"][0]["index_presence"] == "omitted"


def test_invalid_call_exits_one_with_problem_offsets() -> None:
    code, doc = analyze_json(str(real_fixture("anthropic-max-tokens-mid-arguments")))
    assert code == 1
    (call,) = doc["tool_calls"]
    bad = next(p for p in call["problems"] if p["code"] == "invalid_json")
    assert bad["offset"] == call["bytes"]


def test_human_output_is_a_table_without_colour_when_piped() -> None:
    proc = run("analyze", str(real_fixture("gpt-4o-two-tools-usage-chunk")))
    assert proc.returncode == 0
    assert "\x1b[" not in proc.stdout
    lines = proc.stdout.splitlines()
    assert lines[1].startswith("valid — ")  # the headline leads the verdict
    assert lines[2].split()[:4] == ["#", "index", "id", "name"]
    assert "GetWeatherArgs" in lines[3] and "get_stock_price" in lines[4]
    assert "usage_only_chunk" in proc.stdout


def _file(d: Path, name: str, text: str) -> str:
    (d / name).write_text(text)
    return str(d / name)


HEADER = '{"format": "toolcall-inspector-capture", "version": %d}\n'


@pytest.mark.parametrize(
    "make_bad",
    [
        lambda d: str(d / "missing.sse"),
        lambda d: str(d),
        lambda d: _file(d, "empty.sse", ""),
        lambda d: _file(d, "cut.jsonl", HEADER % 1 + '{"type": "chunk"\n{}\n'),
        lambda d: _file(d, "future.jsonl", HEADER % 99),
    ],
    ids=["missing", "directory", "empty", "corrupt-middle-line", "future-version"],
)
def test_unreadable_input_is_one_line_exit_two(tmp_path: Path, make_bad: Any) -> None:
    proc = run("analyze", make_bad(tmp_path))
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert len(proc.stderr.strip().splitlines()) == 1
    assert "Traceback" not in proc.stderr
    assert proc.stderr.startswith("toolcall-inspector: ")


def test_bad_tools_file_and_bad_usage_exit_two(tmp_path: Path) -> None:
    bad = tmp_path / "tools.json"
    bad.write_text("{not json")
    proc = run("analyze", str(real_fixture("anthropic-tool-use")), "--tools", str(bad))
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1
    assert "tools.json" in proc.stderr
    proc = run("analyze", "x.sse", "--validation", "bogus")
    assert proc.returncode == 2 and "invalid choice" in proc.stderr


def test_console_script_and_version() -> None:
    script = Path(sys.executable).with_name("toolcall-inspector")
    proc = subprocess.run([str(script), "--version"], capture_output=True, text=True, timeout=30)
    assert proc.returncode == 0 and proc.stdout.startswith("toolcall-inspector ")


# -- the exit-code table (inspector/core/reports/exitcodes.py) ----------------------------------

CAPTURE_HEADER = {
    "format": "toolcall-inspector-capture",
    "version": 1,
    "meta": {"dialect": "anthropic"},
}


def _main(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    from inspector.cli import main

    code = main(["analyze", *args])
    out, err = capsys.readouterr()
    return code, out, err


def _capture(tmp_path: Path, *records: dict[str, Any]) -> str:
    path = tmp_path / "c.jsonl"
    lines = [CAPTURE_HEADER, *({"attempt": 1, **r} for r in records)]
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    return str(path)


def test_help_shows_the_exit_code_table() -> None:
    proc = run("analyze", "--help")
    assert proc.returncode == 0
    table = proc.stdout.split("exit status:")[1]
    assert "2  bad usage" in table and "not a stream" in table
    assert "1  an invalid call, a failed request" in table and "interrupted" in table
    assert "0  everything else, including calls not checked" in table


@pytest.mark.parametrize(
    "body", [b"<html><body>not sse</body></html>\n", bytes(range(256)) * 64, b"lorem ipsum\n" * 9]
)
def test_a_body_that_is_not_a_stream_exits_two_in_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, body: bytes
) -> None:
    path = tmp_path / "body.sse"
    path.write_bytes(body)
    code, out, err = _main(capsys, str(path))
    assert (code, out) == (2, "")
    assert err.startswith(f"toolcall-inspector: not a stream: {path}: ")
    assert len(err.strip().splitlines()) == 1


def test_an_interrupted_capture_exits_one_and_reads_its_header_dialect(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    header_only = _capture(tmp_path)
    code, out, err = _main(capsys, header_only)
    assert code == 1 and err == ""
    assert "attempt 1 was interrupted (no end record)" in out
    assert "dialect not recognised" not in out and ": anthropic ·" in out.splitlines()[0]
    request = {"type": "request", "t": 0, "method": "POST", "url": "http://x/v1/messages"}
    chunk = {"type": "chunk", "t": 0.1, "text": 'event: message_start\ndata: {"type": "m"}\n\n'}
    code, out, _ = _main(capsys, "--json", _capture(tmp_path, request, chunk))
    doc = json.loads(out)
    assert code == 1 and doc["valid"] is False and doc["attempts"][0]["word"] == "interrupted"
    assert doc["exit"]["reasons"] == ["attempt 1 was interrupted (no end record)"]


def test_a_failed_request_exits_one_and_is_not_valid(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    request = {"type": "request", "t": 0, "method": "POST", "url": "http://x/v1/messages"}
    response = {"type": "response", "t": 0.1, "status": 401, "headers": {}}
    chunk = {"type": "chunk", "t": 0.1, "text": '{"error": {"message": "bad key"}}'}
    end = {"type": "end", "t": 0.2, "reason": "error", "error": "HTTP 401: bad key"}
    code, out, _ = _main(capsys, "--json", _capture(tmp_path, request, response, chunk, end))
    doc = json.loads(out)
    assert code == 1 and doc["valid"] is False and doc["attempts"][0]["word"] == "failed"
    assert doc["exit"] == {"code": 1, "reasons": ["attempt 1 failed: HTTP 401: bad key"]}


def test_not_checked_exits_zero(capsys: pytest.CaptureFixture[str]) -> None:
    cut = str(real_fixture("anthropic-max-tokens-mid-arguments"))
    code, out, _ = _main(capsys, "--validation", "off", cut)
    assert code == 0 and "truncated" in out and "INVALID" not in out
    code, out, _ = _main(capsys, "--validation", "off", str(real_fixture("anthropic-tool-use")))
    assert code == 0 and "not checked" in out and " valid " not in out


def test_a_request_record_of_the_wrong_shape_is_one_line_exit_two(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    bad = {"type": "request", "t": 0, "method": "POST", "url": "http://x", "headers": [["a", "b"]]}
    code, out, err = _main(capsys, _capture(tmp_path, bad))
    assert (code, out) == (2, "")
    assert err.strip().endswith(
        "line 2: request record has 'headers' that are a list, not an object"
    )


def test_readme_shows_the_same_exit_codes() -> None:
    from inspector.core.reports.exitcodes import EXIT_TABLE

    readme = (REPO / "README.md").read_text()
    for code, _meaning in EXIT_TABLE:
        assert f"| `{code}` |" in readme


def test_the_table_promises_what_the_gate_does_for_sse_of_no_known_dialect(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from inspector.core.reports.exitcodes import EXIT_TABLE, table_text

    body = tmp_path / "unknown.sse"
    body.write_bytes(b'data: {"foo": 1}\n\ndata: {"bar": 2}\n\n')
    code, out, err = _main(capsys, str(body))
    assert code == 2 and out == ""  # refused, never judged as another dialect
    assert err.startswith(f"toolcall-inspector: unknown dialect: {body}: ")
    assert "first event: data '{\"foo\": 1}'" in err and "--dialect NAME" in err
    code, out, err = _main(capsys, str(body), "--dialect", "openai-chat")
    assert code == 0 and err == ""  # forced: read as the dialect asked for
    said = 'a stream whose events no provider recognises ("unknown dialect"'
    readme = (REPO / "README.md").read_text()
    row = next(line for line in readme.splitlines() if line.startswith("| `2` |"))
    assert said in dict(EXIT_TABLE)[2] and said in row
    assert "read as openai-chat" not in dict(EXIT_TABLE)[2] + row
    assert said in " ".join(table_text().split())  # analyze --help (wrapped)
