"""``toolcall-inspector serve``: the process prints its URL, answers the recorded attempts in
order at the recorded pace or faster, recomputes its framing, picks a HAR's entry, stops
cleanly on SIGTERM, and says in one line what it cannot serve."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import httpx
import orjson
import pytest
from conftest import REPO, real_fixture

from inspector.cli import main
from inspector.core.capture.harexport import to_har
from inspector.core.capture.reader import load

RETRY = REPO / "resources" / "samples" / "retry-truncated-then-valid.jsonl"
PARALLEL = REPO / "tests" / "clients" / "corpus" / "openai-chat" / "demo-parallel.jsonl"


class Served:
    """``toolcall-inspector serve ARGS`` as a child process, its URL read from its output."""

    def __init__(self, *args: str) -> None:
        cmd = [sys.executable, "-m", "inspector.cli", "serve", *args]
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        self.proc = subprocess.Popen(
            cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=REPO
        )
        assert self.proc.stdout is not None
        self.head = [self.proc.stdout.readline() for _ in range(7)]
        first = self.head[0]
        assert first.startswith("Serving "), (first, self.proc.stderr and self.proc.stderr.read())
        self.url = first.rsplit(" on ", 1)[1].strip()

    def stop(self) -> tuple[int, str, str]:
        self.proc.send_signal(signal.SIGTERM)
        out, err = self.proc.communicate(timeout=30)
        return self.proc.returncode, out, err


def test_serve_answers_attempts_in_order_and_stops_on_sigterm() -> None:
    served = Served(str(RETRY), "--speed", "max")
    capture = load(RETRY)
    try:
        assert served.url.startswith("http://127.0.0.1:")
        assert any("/v1" in line for line in served.head)
        with httpx.Client() as client:
            first = client.post(served.url + "/v1/chat/completions", json={})
            second = client.post(served.url + "/anything/else", json={})
    finally:
        code, out, err = served.stop()
    assert first.content == capture.attempts[0].body
    assert second.content == capture.attempts[1].body
    assert second.headers["content-type"] == capture.attempts[1].response["headers"]["content-type"]  # type: ignore[index]
    assert code == 0 and err == "", err
    assert "-> attempt 1: 200" in out and "-> attempt 2: 200" in out
    assert "recorded on /v1/chat/completions" in out  # the second was asked elsewhere
    assert out.rstrip().endswith("stopped")


def test_serve_a_har_entry_and_a_raw_body(tmp_path: Path) -> None:
    har = tmp_path / "two.har"
    captures = [load(RETRY), load(PARALLEL)]
    har.write_bytes(orjson.dumps(to_har(captures)))
    entries = orjson.loads(har.read_bytes())["log"]["entries"]
    assert len(entries) == 3
    served = Served(str(har), "--entry", "3", "--speed", "max")
    try:
        body = httpx.post(served.url + "/v1/chat/completions", json={}).content
    finally:
        served.stop()
    assert body == captures[1].attempts[0].body
    raw = real_fixture("gpt-4o-two-tools-usage-chunk")
    served = Served(str(raw), "--speed", "10")
    try:
        answer = httpx.post(served.url + "/v1/chat/completions", json={})
    finally:
        served.stop()
    assert answer.content == raw.read_bytes()
    assert answer.headers["content-type"] == "text/event-stream"


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["nothing-here.jsonl"], "nothing-here.jsonl: no such file"),
        ([str(RETRY), "--speed", "fast"], "--speed 'fast'"),
        ([str(RETRY), "--listen", "localhost"], "--listen 'localhost'"),
        ([str(RETRY), "--entry", "2"], "HAR"),
    ],
)
def test_what_cannot_be_served_is_one_line_and_exit_2(
    args: list[str], says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["serve", *args]) == 2
    err = capsys.readouterr().err
    assert says in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err
