"""HAR on the command line: ``analyze FILE.har`` (one session, several, ``--entry N``) and
``export CAPTURE --har OUT``; a malformed HAR is one line and exit 2, never a traceback.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson
import pytest
from conftest import REPO, real_fixture
from har import shapes

from inspector.cli import main

SAMPLE = REPO / "resources" / "samples" / "retry-truncated-then-valid.jsonl"
Cap = pytest.CaptureFixture[str]


def run(capsys: Cap, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def chrome_har(tmp_path: Path, *, second_missing: bool = False) -> Path:
    """A Chrome DevTools HAR: a preflight, one POST to chat/completions, a page script; with
    ``second_missing`` also a second POST whose body DevTools left out."""
    body = real_fixture("gpt-4o-two-tools-usage-chunk").read_bytes()
    har = shapes.chrome(body, shapes.wire("openai-chat", "gpt-4o"))
    if second_missing:
        gone = shapes.chrome(None, shapes.wire("openai-chat", "gpt-4o"))["log"]["entries"][1]
        har["log"]["entries"].append(gone)
    path = tmp_path / "session.har"
    path.write_bytes(orjson.dumps(har))
    return path


def test_analyze_a_har_with_one_session_is_the_capture_report(capsys: Cap, tmp_path: Path) -> None:
    path = chrome_har(tmp_path)
    code, out, err = run(capsys, "analyze", "--json", str(path))
    doc = json.loads(out)
    assert err == "" and doc["source"] == f"{path}, entry 2"
    assert [c["name"] for c in doc["tool_calls"]] == ["GetWeatherArgs", "get_stock_price"]
    assert any(
        w.startswith("no timing: a HAR (this one from Chrome DevTools)") for w in doc["warnings"]
    )
    assert code == doc["exit"]["code"] == 1  # two calls to tools the request does not define


def test_analyze_several_sessions_lists_them_and_judges_each(capsys: Cap, tmp_path: Path) -> None:
    path = chrome_har(tmp_path, second_missing=True)
    code, out, err = run(capsys, "analyze", str(path))
    lines = out.splitlines()
    assert lines[0] == f"{path}: 2 LLM sessions among 4 entries (2 others hidden)"
    assert lines[1].startswith("  entry 2 · POST /v1/chat/completions · gpt-4o · 200")
    assert "entry 4" in lines[2] and "Chrome DevTools saved no response.content.text" in lines[2]
    assert "── HAR entry 2 · POST /v1/chat/completions" in out and err == ""
    code_json, out_json, _ = run(capsys, "analyze", "--json", str(path))
    doc = json.loads(out_json)
    assert [s["entry"] for s in doc["sessions"]] == [2, 4] and doc["hidden"] == 2
    assert "report" in doc["sessions"][0] and "problem" in doc["sessions"][1]
    assert code == code_json == doc["sessions"][0]["report"]["exit"]["code"]


def test_entry_picks_one_and_a_missing_body_is_one_line_exit_2(capsys: Cap, tmp_path: Path) -> None:
    path = chrome_har(tmp_path, second_missing=True)
    code, out, _ = run(capsys, "analyze", "--entry", "2", "--json", str(path))
    assert json.loads(out)["source"] == f"{path}, entry 2"
    for entry, said in (
        ("4", "HAR entry 4: Chrome DevTools saved no response.content.text"),
        ("1", "entry 1 (OPTIONS /v1/chat/completions) is no LLM session; its LLM sessions: "),
        ("9", "there is no readable entry 9 (the HAR has 4)"),
    ):
        code, out, err = run(capsys, "analyze", "--entry", entry, str(path))
        assert (code, out) == (2, "") and said in err and err.count("\n") == 1


def test_entry_on_a_capture_is_refused(capsys: Cap) -> None:
    code, _, err = run(capsys, "analyze", "--entry", "1", str(SAMPLE))
    assert code == 2 and "--entry picks a session of a HAR file" in err


def test_export_then_analyze_gives_the_same_report(capsys: Cap, tmp_path: Path) -> None:
    out_har = tmp_path / "out.har"
    code, out, err = run(capsys, "export", str(SAMPLE), "--har", str(out_har))
    assert (code, out) == (0, "") and f"wrote {out_har}: 2 entries (1 session" in err
    _, direct, _ = run(capsys, "analyze", "--json", str(SAMPLE))
    _, again, _ = run(capsys, "analyze", "--json", str(out_har))
    a, b = json.loads(direct), json.loads(again)
    assert b.pop("source") == f"{out_har}, entry 1" and a.pop("source") == str(SAMPLE)
    assert a == b  # retries, times and verdicts: all the same


def test_export_to_stdout_and_of_a_har_leaves_out_missing_bodies(
    capsys: Cap, tmp_path: Path
) -> None:
    path = chrome_har(tmp_path, second_missing=True)
    code, out, err = run(capsys, "export", str(path), "--har", "-")
    har = json.loads(out)
    assert code == 0 and len(har["log"]["entries"]) == 1
    assert "not exported: HAR entry 4: Chrome DevTools saved no" in err
    assert shapes.KEY not in out and "REDACTED" in out


def test_export_of_a_raw_body_that_is_no_stream_is_refused(capsys: Cap, tmp_path: Path) -> None:
    page = tmp_path / "page.html"
    page.write_text("<html><body>hello</body></html>")
    code, _, err = run(capsys, "export", str(page), "--har", str(tmp_path / "x.har"))
    assert code == 2 and "not a stream" in err and not (tmp_path / "x.har").exists()


MALFORMED: list[tuple[str, bytes, str]] = [
    ("truncated.har", b'{"log": {"version": "1.2", "entries": [{"request": ', "not valid JSON"),
    ("array.har", b"[]", "no 'log' object"),
    ("entries.har", b'{"log": {"entries": null}}', "'log.entries' is no list"),
    ("nothing.har", b'{"log": {"entries": [{"request": {"method": "GET"}}]}}', "no LLM request"),
    ("deep.har", b'{"log": ' + b"[" * 100_000 + b"]" * 100_000 + b"}", "not valid JSON"),
    ("binary.har", b"\x00\x01\x02\xff", "not valid JSON"),
    ("dump.zhar", b"\x78\x9c\x00\x00", "the .zhar is cut off"),
    ("other.zhar", b"\x78\x00garbage", "not zlib data"),
    ("bomb.zhar", b"", "empty file"),
]


@pytest.mark.parametrize(("name", "data", "said"), MALFORMED, ids=[m[0] for m in MALFORMED])
@pytest.mark.parametrize("command", ["analyze", "export"])
def test_a_malformed_har_is_one_line_and_exit_2(
    capsys: Cap, tmp_path: Path, name: str, data: bytes, said: str, command: str
) -> None:
    path = tmp_path / name
    path.write_bytes(data)
    extra: list[Any] = ["--har", str(tmp_path / "o.har")] if command == "export" else []
    code, out, err = run(capsys, command, str(path), *extra)
    assert (code, out) == (2, "")
    assert said in err and err.count("\n") == 1, err


def test_a_pipe_is_never_read_to_look_for_a_har(tmp_path: Path) -> None:
    import os

    from inspector.core.capture.reader import load_bytes
    from inspector.core.replay.harsessions import is_har_file
    from inspector.core.reports.gate import not_a_stream

    fifo = tmp_path / "fd63"
    os.mkfifo(fifo)
    assert not is_har_file(fifo)  # opening it to look would block, or eat the first bytes
    assert is_har_file(chrome_har(tmp_path))
    har = chrome_har(tmp_path).read_bytes()
    said = not_a_stream(load_bytes(har), "/dev/fd/63") or ""
    assert "a HAR file (read through a pipe: give its path, FILE.har, to open it)" in said
