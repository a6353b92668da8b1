"""Issue 25: ``scrub`` applies today's rule to files on disk; ``open --screenshot`` exits 2 on
the file ``analyze`` exits 2 on; a ``.zhar`` bomb is refused while it inflates; a base URL's
query stays after the endpoint."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

from inspector.cli import main
from inspector.core.capture.format import CaptureError
from inspector.core.capture.har import _document
from inspector.core.capture.reader import load
from inspector.core.requests.scenarios import Profile, build_request, find_scenario

KEY = "sk-proj-CANARYa1b2c3d4e5f6g7h8i9j0"
REPO = Path(__file__).resolve().parents[2]


def _old_capture(path: Path) -> None:
    """A version 1 capture as the tool wrote it before issue 25: the key in a chunk."""
    lines = [
        {"format": "toolcall-inspector-capture", "version": 1, "meta": {"model": "m"}},
        {"type": "request", "attempt": 1, "t": 0.0, "method": "POST", "url": "http://h/v1",
         "headers": {"Authorization": "REDACTED", "X-Tenant": "sk-live-CANARYtenant0123456789"},
         "body": {"model": "m", "api_key": "plain-body-key", "max_tokens": 3}},
        {"type": "response", "attempt": 1, "t": 0.1, "status": 200, "headers": {}},
        {"type": "chunk", "attempt": 1, "t": 0.2, "text": f"data: {{\"k\": \"{KEY}.\"}}\n\n"},
        {"type": "end", "attempt": 1, "t": 0.3, "reason": "error",
         "error": f"Incorrect API key provided: {KEY}."},
    ]  # fmt: skip
    path.write_text("".join(json.dumps(r) + "\n" for r in lines))


def test_scrub_rewrites_a_capture_in_place_with_a_backup(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "old.jsonl"
    _old_capture(path)
    before = load(path)
    monkeypatch.setenv("TCI_SCRUB_KEY", KEY)
    assert main(["scrub", str(path), "--key-env", "TCI_SCRUB_KEY"]) == 0
    said = capsys.readouterr().out
    assert "old.jsonl.orig" in said and KEY not in said
    data = path.read_text()
    for leak in (KEY, "sk-live-CANARYtenant0123456789", "plain-body-key"):
        assert leak not in data
    after = load(path)
    assert after.header["version"] == 2
    (a,), (b,) = before.attempts, after.attempts
    assert len(a.body) == len(b.body) and b.masked and b"*" * len(KEY) in b.body
    assert b.request is not None and b.request["body"]["max_tokens"] == 3
    assert (tmp_path / "old.jsonl.orig").read_text().count(KEY) == 2  # the original, kept


def test_scrub_a_har_with_out(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    body = f'data: {{"echo": "{KEY}."}}\n\n'.encode()
    har = {"log": {"version": "1.2", "creator": {"name": "x", "version": "1"}, "entries": [{
        "startedDateTime": "2020-01-01T00:00:00Z", "time": 1, "cache": {}, "timings": {},
        "request": {"method": "POST", "url": "https://h/v1/chat/completions?key=abc", "headers": [
            {"name": "Authorization", "value": f"Bearer {KEY}"},
            {"name": "X-Tenant", "value": "sk-live-CANARYtenant0123456789"}],
            "postData": {"mimeType": "application/json",
                         "text": json.dumps({"api_key": "plain", "model": "m"})}},
        "response": {"status": 200, "headers": [], "content": {
            "size": len(body), "mimeType": "text/event-stream",
            "text": base64.b64encode(body).decode(), "encoding": "base64"}}}]}}  # fmt: skip
    src, out = tmp_path / "in.har", tmp_path / "out.har"
    src.write_text(json.dumps(har))
    assert main(["scrub", str(src), "--out", str(out)]) == 0
    text = out.read_text()
    assert KEY not in text and "CANARYtenant" not in text and '\\"plain\\"' not in text
    entry = json.loads(text)["log"]["entries"][0]
    got = base64.b64decode(entry["response"]["content"]["text"])
    assert len(got) == len(body) and KEY.encode() not in got
    assert src.read_text() == json.dumps(har)  # --out leaves the original alone
    assert main(["scrub", str(tmp_path / "nope.jsonl")]) == 2
    assert capsys.readouterr().err.count("\n") == 1


def _screenshot(path: Path, tmp_path: Path) -> tuple[int, str]:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    done = subprocess.run(
        [sys.executable, "-m", "inspector", "open", str(path), "--screenshot",
         str(tmp_path / "s.png")], capture_output=True, text=True, env=env, cwd=REPO, timeout=120,
    )  # fmt: skip
    return done.returncode, done.stderr


def test_the_same_bad_file_exits_2_in_analyze_and_open_screenshot(tmp_path: Path) -> None:
    no_header = tmp_path / "nohdr.jsonl"
    no_header.write_text('{"type": "chunk", "attempt": 1, "t": 0.1, "text": "data: {}"}\n')
    bad = tmp_path / "bad64.har"
    entry = {"startedDateTime": "2020-01-01T00:00:00Z", "time": 1, "cache": {}, "timings": {},
             "request": {"method": "POST", "url": "https://api.openai.com/v1/chat/completions",
                         "headers": [], "postData": {"mimeType": "application/json",
                                                     "text": '{"model": "m", "messages": []}'}},
             "response": {"status": 200, "headers": [], "content": {
                 "size": 5, "mimeType": "text/event-stream", "text": "!!!",
                 "encoding": "base64"}}}  # fmt: skip
    bad.write_text(json.dumps({"log": {"version": "1.2", "creator": {"name": "x", "version": "1"},
                                       "entries": [entry]}}))  # fmt: skip
    for path in (no_header, bad):
        assert main(["analyze", str(path)]) == 2
        code, err = _screenshot(path, tmp_path)
        assert code == 2 and err.count("\n") == 1, err
        assert not (tmp_path / "s.png").exists()


def test_a_zhar_bomb_is_refused_while_it_inflates() -> None:
    bomb = zlib.compress(b'{"log": {"entries": [' + b" " * (300 << 20), 9)
    with pytest.raises(CaptureError, match="inflates to more than 64 MiB"):  # not 1 GiB first
        _document(bomb, "bomb.zhar")
    assert len(bomb) < 1 << 20


def test_a_base_url_query_stays_after_the_endpoint() -> None:
    profile = Profile("p", "openai-chat", "http://h/v1?api_key=X", "m")
    spec = build_request(profile, find_scenario("weather"))
    assert spec.url == "http://h/v1/chat/completions?api_key=X"


def test_open_screenshot_pictures_a_matrix_folder_and_refuses_any_other(tmp_path: Path) -> None:
    """``make screenshots`` pictures the Matrix view from a matrix folder: the check that
    refuses a folder as a capture lets a matrix folder through (to the window's Matrix view)."""
    from inspector.core.matrix.result import FILE_NAME, MatrixResult
    from inspector.net.matrix.default import default_spec

    folder = tmp_path / "m"
    folder.mkdir()
    empty = MatrixResult.empty(default_spec(["demo-clean"], ["weather"]), ["openai-python"])
    (folder / FILE_NAME).write_bytes(empty.dumps())
    code, err = _screenshot(folder, tmp_path)
    assert code == 0 and (tmp_path / "s.png").stat().st_size > 0, err
    (tmp_path / "s.png").unlink()
    plain = tmp_path / "plain"
    plain.mkdir()
    code, err = _screenshot(plain, tmp_path)
    assert code == 2 and "is a directory, not a capture" in err and err.count("\n") == 1, err
