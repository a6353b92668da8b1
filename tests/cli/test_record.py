"""``toolcall-inspector record``: exit codes, summaries, and agreement with ``analyze``."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import REPO

from inspector.cli import main
from inspector.core.capture.reader import load

FAST = ["--header", "x-demo-chunk-delay: 0"]


def _record(capsys: pytest.CaptureFixture[str], out: Path, *args: str) -> tuple[int, str, str]:
    code = main(["record", "--profile", "demo", "--scenario", "weather", "--out", str(out),
                 *FAST, *args])  # fmt: skip
    got = capsys.readouterr()
    return code, got.out, got.err


def _analyze(capsys: pytest.CaptureFixture[str], out: Path, *args: str) -> tuple[int, str]:
    code = main(["analyze", str(out), *args])
    return code, capsys.readouterr().out


def test_record_default_demo_then_analyze_agrees(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "glm.jsonl"
    code, stdout, err = _record(capsys, out)
    assert (code, err) == (0, "")
    first, *report = stdout.splitlines(keepends=True)
    assert first.startswith("attempt 1: HTTP 200, ") and first.rstrip().endswith("→ accepted")
    assert load(out).meta["model"] == "demo-glm-empty-string"
    a_code, a_out = _analyze(capsys, out)
    assert a_code == 0 and a_out == "".join(report)  # the live analysis is the replayed one
    assert "valid" in a_out and "INVALID" not in a_out
    # the same capture under the literal policy shows the empty-id accumulator bug
    assert _analyze(capsys, out, "--empty-id", "literal")[0] == 1


def test_record_truncated_retries_and_exits_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "t.jsonl"
    code, stdout, _ = _record(capsys, out, "--model", "demo-truncated")
    lines = stdout.splitlines(keepends=True)
    assert code == 1
    assert "→ retried, reason stream_invalid_tool_call, recovery retry_streaming" in lines[0]
    assert lines[1].startswith("attempt 2: HTTP 200") and "→ accepted_degraded" in lines[1]
    a_code, a_out = _analyze(capsys, out)
    assert a_code == 1 and a_out == "".join(lines[2:])
    assert "2: accepted_degraded" in a_out


def test_record_retry_then_valid_and_no_retry(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, stdout, _ = _record(capsys, tmp_path / "a.jsonl", "--model", "demo-truncated-then-valid")
    assert code == 0 and "attempt 2: HTTP 200" in stdout and "→ accepted\n" in stdout
    code, stdout, _ = _record(
        capsys, tmp_path / "b.jsonl", "--model", "demo-truncated", "--no-retry"
    )
    assert code == 1 and "attempt 2" not in stdout and "→ invalid" in stdout
    assert len(load(tmp_path / "b.jsonl").attempts) == 1


def test_record_fault_exits_2_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "f.jsonl"
    code, stdout, err = _record(capsys, out, "--model", "fault-401")
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith("toolcall-inspector: HTTP 401 from http://127.0.0.1:")
    assert err.rstrip().endswith(f"(capture: {out})")
    assert "→ failed" in stdout
    (att,) = load(out).attempts
    assert att.status == 401 and att.body and att.end is not None


def test_missing_key_is_one_line_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import keyring

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setattr(keyring, "get_password", lambda service, user: None)
    out = tmp_path / "never.jsonl"
    code = main(["record", "--profile", "openai", "--scenario", "weather", "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "set OPENAI_API_KEY" in err
    assert not out.exists()


@pytest.mark.parametrize("key", ["x", "demo", "user"])
def test_a_short_or_common_key_records_and_is_never_written(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    key: str,
) -> None:
    """Local servers take any key: a key found in the request's words is no leak (the key
    check compares whole header and URL values), and the key still reaches no file."""
    profiles = tmp_path / "profiles.json"
    profile = {"name": "keyed-demo", "dialect": "openai-chat", "base_url": "demo",
               "model": "demo-glm-empty-string", "key_env": "TCI_TEST_SHORT_KEY"}  # fmt: skip
    profiles.write_text(json.dumps([profile]))
    monkeypatch.setenv("TCI_TEST_SHORT_KEY", key)
    out = tmp_path / "k.jsonl"
    code = main(["record", "--profile", "keyed-demo", "--profiles", str(profiles),
                 "--scenario", "weather", "--out", str(out), *FAST])  # fmt: skip
    assert (code, capsys.readouterr().err) == (0, "")
    written = sorted(p for p in tmp_path.rglob("*") if p.is_file() and p != profiles)
    assert written == [out]
    records = [json.loads(line) for line in out.read_text("utf-8").splitlines()]
    values = [v for r in records for v in (r.get("headers") or {}).values()]
    assert len(values) > 4 and not [v for v in values if v == key or key in v.split()]
    (att,) = load(out).attempts
    assert att.request is not None and att.request["headers"]["authorization"] == "REDACTED"


@pytest.mark.parametrize("key", ["sk-test-CANARY-4f2a9c", "x"])
def test_the_key_in_the_request_body_is_redacted(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    key: str,
) -> None:
    """A key the profile puts in the body (nested too) is written as "REDACTED": every JSON
    string equal to it or holding it as a whole token; other strings stay, even where a short
    key is a substring of them (``xml``) or joined by ``-`` (``x-ray``)."""
    options = {"user": key, "metadata": {"api_key": key,
               "tags": [f"Bearer {key}", "Paris", "xml", "x-ray", {"deep": [key]}]}}  # fmt: skip
    profile = {"name": "keyed-demo", "dialect": "openai-chat", "base_url": "demo",
               "model": "demo-glm-empty-string", "key_env": "TCI_TEST_BODY_KEY",
               "options": options}  # fmt: skip
    profiles = tmp_path / "profiles.json"
    profiles.write_text(json.dumps([profile]))
    monkeypatch.setenv("TCI_TEST_BODY_KEY", key)
    out = tmp_path / "b.jsonl"
    code = main(["record", "--profile", "keyed-demo", "--profiles", str(profiles),
                 "--scenario", "weather", "--out", str(out), *FAST])  # fmt: skip
    assert (code, capsys.readouterr().err) == (0, "")
    (att,) = load(out).attempts
    assert att.request is not None
    body = att.request["body"]
    assert body["user"] == "REDACTED" and body["metadata"]["api_key"] == "REDACTED"
    tags = ["REDACTED", "Paris", "xml", "x-ray", {"deep": ["REDACTED"]}]
    assert body["metadata"]["tags"] == tags
    assert body["messages"] and body["tools"]  # the rest of the body is stored as sent
    if len(key) > 1:
        assert key not in out.read_text("utf-8")


def test_a_key_in_the_url_path_is_redacted_everywhere_record_writes_or_prints(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Gemini puts the model in the path (``models/MODEL:streamGenerateContent``): a model
    named like the key leaves it in no URL, meta field, end record or printed line. Only the
    server's own reply (a response chunk: the bytes as received) may still quote it."""
    key = "tci-canary-7Hq2"
    profile = {"name": "gk", "dialect": "gemini", "base_url": "demo", "model": key,
               "key_env": "TCI_TEST_PATH_KEY"}  # fmt: skip
    profiles = tmp_path / "profiles.json"
    profiles.write_text(json.dumps([profile]))
    monkeypatch.setenv("TCI_TEST_PATH_KEY", key)
    out = tmp_path / "g.jsonl"
    code = main(["record", "--profile", "gk", "--profiles", str(profiles), "--scenario",
                 "weather", "--out", str(out), *FAST])  # fmt: skip
    got = capsys.readouterr()
    assert code == 2 and "HTTP 404" in got.err and key not in got.err + got.out
    capture = load(out)
    assert capture.meta["model"] == "REDACTED" and "/models/REDACTED:stream" in capture.meta["url"]
    (att,) = capture.attempts
    assert att.request is not None and "/models/REDACTED:stream" in att.request["url"]
    assert att.end is not None and key not in att.end["error"]
    records = out.read_text("utf-8").splitlines()
    assert [r for r in records if key in r and '"type":"chunk"' not in r] == []


def test_unknown_profile_and_scenario(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = str(tmp_path / "x.jsonl")
    assert main(["record", "--profile", "nope", "--scenario", "weather", "--out", out]) == 2
    assert "unknown profile 'nope'" in capsys.readouterr().err
    assert main(["record", "--profile", "demo", "--scenario", "nope", "--out", out]) == 2
    assert "unknown scenario 'nope'" in capsys.readouterr().err


def _stop_mid_stall(
    out: Path, signum: int, *extra: str, ignore_sigint: bool = False
) -> tuple[int, str]:
    """Start ``record`` on a stalling demo stream, send ``signum`` once a chunk is written,
    and return the exit code and stderr. ``ignore_sigint``: start it with SIGINT ignored, as
    ``cmd &`` in a non-interactive shell script does."""
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    ignore = (lambda: signal.signal(signal.SIGINT, signal.SIG_IGN)) if ignore_sigint else None
    proc = subprocess.Popen(
        [sys.executable, "-m", "inspector", "record", "--profile", "demo-anthropic",
         "--scenario", "filesystem", "--out", str(out), "--model", "fault-stall", *FAST,
         "--header", "x-demo-stall:60", *extra],
        cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=ignore,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 20
        while not (out.exists() and b'"type":"chunk"' in out.read_bytes()):
            assert time.monotonic() < deadline and proc.poll() is None, proc.communicate()
            time.sleep(0.05)
        proc.send_signal(signum)
        _, err = proc.communicate(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    return proc.returncode, err


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
@pytest.mark.parametrize(("signum", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_ctrl_c_and_sigterm_complete_the_capture(tmp_path: Path, signum: int, code: int) -> None:
    """Ctrl+C and SIGTERM end the same way: one line, the capture readable and complete."""
    out = tmp_path / "int.jsonl"
    assert _stop_mid_stall(out, signum) == (
        code,
        f"toolcall-inspector: interrupted (capture: {out})\n",
    )
    (att,) = load(out).attempts
    assert att.chunks and att.end is not None and att.end["reason"] == "cancelled"


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
@pytest.mark.parametrize("loop", [False, True])
def test_sigterm_stops_record_started_with_sigint_ignored(tmp_path: Path, loop: bool) -> None:
    """``record &`` from a script inherits an ignored SIGINT: SIGTERM still cancels the run
    (one line, exit 143, a ``cancelled`` end record) instead of waiting out the stall."""
    out = tmp_path / "bg.jsonl"
    extra = ("--loop",) if loop else ()
    started = time.monotonic()
    code, err = _stop_mid_stall(out, signal.SIGTERM, *extra, ignore_sigint=True)
    assert (code, err) == (143, f"toolcall-inspector: interrupted (capture: {out})\n")
    assert time.monotonic() - started < 30  # not the 60 s stall
    (att,) = load(out).attempts
    assert att.chunks and att.end is not None and att.end["reason"] == "cancelled"


def test_record_says_when_the_demo_model_does_not_apply_to_the_dialect(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, stdout, _ = _record(capsys, tmp_path / "a.jsonl", "--profile", "demo-anthropic",
                              "--model", "demo-glm-empty-string")  # fmt: skip
    assert code == 0  # a clean run: the quirks are the OpenAI dialect's
    assert stdout.splitlines()[0] == (
        "note: demo-glm-empty-string: its quirks are openai-chat only — on anthropic it plays "
        "the conforming stream"
    )
    code, stdout, _ = _record(capsys, tmp_path / "b.jsonl", "--model", "demo-glm-empty-string")
    assert "note:" not in stdout  # on its own dialect it plays its quirks: nothing to say
