"""What analyze says of items by kind, on the real recorded streams that showed the false
alarms, and the exit codes the item-kinds issue decided (a provider error inside a 200 stream,
a HAR body the exporter did not record, an escaped surrogate pair split across chunks)."""

from __future__ import annotations

import contextlib
import io
import json
import subprocess
from pathlib import Path
from typing import Any

from har.shapes import mitmproxy, wire
from realworld.loader import REALWORLD

from inspector.cli import main


def run(*args: str) -> subprocess.CompletedProcess[str]:
    """``toolcall-inspector analyze ARGS`` through the same ``main`` the console script runs,
    in this process (what is asserted is the report and the exit code, not the process: a
    subprocess cost ~1.5 s of start-up each); stdout has a byte buffer, as a real one."""
    out, err = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", newline=""), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["analyze", *args])
    out.flush()
    text = out.buffer.getvalue().decode()  # type: ignore[attr-defined]
    return subprocess.CompletedProcess(list(args), code, text, err.getvalue())


def real(name: str) -> str:
    path = next(REALWORLD.glob(f"*/{name}.sse"), None)
    assert path is not None, f"missing realworld stream {name} under {REALWORLD}"
    return str(path)


def analyze_json(*args: str) -> tuple[int, dict[str, Any]]:
    got = run("--json", *args)
    assert got.stderr == "", got.stderr
    return got.returncode, json.loads(got.stdout)


def test_server_tools_are_hosted_items_apart_from_the_agents_calls() -> None:
    code, doc = analyze_json(real("anthropic-web-search-tool.1"))
    assert (code, doc["format_version"], doc["valid"]) == (0, 4, True)
    assert [(c["kind"], c["item_type"], c["word"]) for c in doc["tool_calls"]] == [
        ("hosted", "server_tool_use", "not checked")
    ]
    assert (doc["agent_calls"], doc["hosted_items"]) == (0, 1)
    assert [r["item_type"] for r in doc["tool_calls"][0]["results"]] == ["web_search_tool_result"]
    # a turn with only server tools rightly ends end_turn; no client dropped a call
    assert "finish_reason_mismatch" not in {q["code"] for q in doc["quirks"]}
    assert "dropped calls" not in doc["headline"]
    assert doc["headline"].startswith("valid (0 agent calls · 1 hosted item)")


def test_programmatic_calls_arriving_whole_in_message_start_are_the_agents() -> None:
    code, doc = analyze_json(real("anthropic-programmatic-tool-calling.1"))
    calls = doc["tool_calls"]
    assert code == 0 and (doc["agent_calls"], doc["hosted_items"]) == (14, 1)
    assert {(c["kind"], c["item_type"]) for c in calls} == {
        ("function", "tool_use"),
        ("hosted", "server_tool_use"),
    }
    quirks = {q["code"] for q in doc["quirks"]}
    assert not quirks & {"arguments_not_string", "finish_reason_mismatch"}


def test_a_chat_call_is_a_function_of_item_type_function_and_reads_as_before() -> None:
    got = run(real("deepseek-tool-call"))
    assert got.returncode == 0
    assert "kind" not in got.stdout.splitlines()[2]  # the table's header: no kind column
    assert "agent call" not in got.stdout.splitlines()[1]
    _, doc = analyze_json(real("deepseek-tool-call"))
    assert [(c["kind"], c["item_type"]) for c in doc["tool_calls"]] == [("function", "function")]


def test_the_text_report_shows_kinds_when_items_are_not_function_calls() -> None:
    got = run(real("openai-local-shell-tool.1"))
    lines = got.stdout.splitlines()
    assert got.returncode == 0
    assert lines[1].startswith("valid (1 agent call · 0 hosted items)")
    assert "builtin local_shell_call" in lines[3]


def test_a_custom_sql_call_is_checked_against_its_regex_not_as_json() -> None:
    code, doc = analyze_json(real("openai-custom-tool.1"))
    (call,) = doc["tool_calls"]
    assert (code, call["kind"], call["word"], call["problems"]) == (0, "custom", "valid", [])
    assert call["arguments"].startswith("SELECT")


def test_mistral_content_parts_keep_text_and_reasoning() -> None:
    code, doc = analyze_json(real("mistral-reasoning"))
    assert code == 0 and doc["text"] == "2 + 2 = 4" and "2+2" in doc["reasoning"]
    assert "wire_field_type" not in {q["code"] for q in doc["quirks"]}


def test_a_provider_error_inside_a_200_stream_fails_the_attempt() -> None:
    code, doc = analyze_json(real("openai-error.1"))
    assert code == 1 and doc["valid"] is False
    assert doc["headline"].startswith("failed — provider error in the stream")
    assert [a["word"] for a in doc["attempts"]] == ["failed"]


def test_an_escaped_surrogate_pair_split_across_chunks_reads_as_one_character(
    tmp_path: Path,
) -> None:
    def chunk(delta: dict[str, Any], finish: str | None = None) -> str:
        obj = {"id": "c", "object": "chat.completion.chunk",
               "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}  # fmt: skip
        return "data: " + json.dumps(obj) + "\n\n"

    def args(text: str) -> dict[str, Any]:
        return {"tool_calls": [{"index": 0, "function": {"arguments": text}}]}

    opener = {"tool_calls": [{"index": 0, "id": "call_1", "type": "function",
                              "function": {"name": "f", "arguments": ""}}]}  # fmt: skip
    body = (chunk(opener) + chunk(args('{"a":"\ud83d')) + chunk(args('\ude00"}'))
            + chunk({}, "tool_calls") + "data: [DONE]\n\n")  # fmt: skip
    assert "\\ud83d" in body  # json.dumps escapes the lone surrogate, as a provider does
    path = tmp_path / "split.sse"
    path.write_text(body)
    code, doc = analyze_json(str(path))
    assert code == 0 and doc["tool_calls"][0]["arguments"] == '{"a":"😀"}'
    assert "undecodable_data" not in {q["code"] for q in doc["quirks"]}
    text = run(str(path))
    assert text.returncode == 0 and "internal error" not in text.stderr


def _har(tmp_path: Path, bodies: list[bytes | None], empty: bool = False) -> Path:
    entries = []
    for body in bodies:
        entry = mitmproxy(body or b"", wire("openai-chat"))["log"]["entries"][0]
        if body is None:  # mitmproxy with stream_large_bodies: empty text, no size
            entry["response"]["content"] = {"mimeType": "text/event-stream", "text": ""}
        entries.append(entry)
    har = mitmproxy(b"", wire("openai-chat"))
    har["log"]["entries"] = entries
    path = tmp_path / "s.har"
    path.write_text(json.dumps(har))
    return path


def test_a_har_body_with_empty_text_and_no_size_is_body_not_recorded(tmp_path: Path) -> None:
    got = run(str(_har(tmp_path, [None])))
    assert got.returncode == 2 and "body not recorded" in got.stderr + got.stdout


def test_a_har_with_some_bodies_missing_judges_the_others_and_lists_them(
    tmp_path: Path,
) -> None:
    body = Path(real("deepseek-tool-call")).read_bytes()
    got = run(str(_har(tmp_path, [body, None])))
    listed, judged = got.stdout.split("── HAR entry 1", 1)
    assert "entry 2" in listed and "body not recorded" in listed
    # entry 1 is judged (its request declares get_weather, the stream calls weather): exit 1
    assert got.returncode == 1 and "unknown_tool" in judged and "entry 2" not in judged
