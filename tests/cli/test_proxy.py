"""``toolcall-inspector proxy``: one line per request, a clean stop on Ctrl+C / SIGTERM with
every capture closed, and one line for what cannot start."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import httpx
import openai
import pytest
from conftest import REPO

from inspector.cli import main
from inspector.core.capture.reader import load
from inspector.core.reports.words import label

CANARY = "sk-canary-cli-91d2e7"
CHAT = {"model": "demo-clean", "stream": True, "messages": [{"role": "user", "content": "hi"}]}


class Proxy:
    """``toolcall-inspector proxy`` as a process, in front of ``upstream``."""

    def __init__(self, upstream: str, captures: Path, ignore_sigint: bool = False,
                 extra: tuple[str, ...] = ()) -> None:  # fmt: skip
        self.upstream, self.captures, self.ignore_sigint = upstream, captures, ignore_sigint
        self.extra = extra
        self.proc: asyncio.subprocess.Process | None = None
        self.banner: list[str] = []

    async def start(self) -> str:
        """Start it; the agent's base URL from its banner."""
        ignore = (
            (lambda: signal.signal(signal.SIGINT, signal.SIG_IGN)) if self.ignore_sigint else None
        )
        self.proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "inspector", "proxy", "--upstream", self.upstream,
            "--listen", "127.0.0.1:0", "--captures", str(self.captures), *self.extra, cwd=REPO,
            env=dict(os.environ, PYTHONUNBUFFERED="1"), stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE, preexec_fn=ignore,
        )  # fmt: skip
        assert self.proc.stdout is not None
        while True:
            line = (await asyncio.wait_for(self.proc.stdout.readline(), 20)).decode()
            assert line, await self.proc.stderr.read()  # type: ignore[union-attr]
            self.banner.append(line)
            if line.startswith("time "):  # the banner's last line: the columns
                (url,) = [b.split("base URL:")[1].split()[0] for b in self.banner if "URL:" in b]
                return url

    async def stop(self, signum: int) -> tuple[int, str, str]:
        """Send ``signum``; (exit code, the rest of stdout, stderr)."""
        assert self.proc is not None
        self.proc.send_signal(signum)
        out, err = await asyncio.wait_for(self.proc.communicate(), 20)
        return int(self.proc.returncode or 0), out.decode(), err.decode()

    def kill(self) -> None:
        if self.proc is not None and self.proc.returncode is None:
            self.proc.kill()


async def test_one_line_per_request_and_a_clean_stop(demo: str, tmp_path: Path) -> None:
    captures = tmp_path / "captures"
    proxy = Proxy(demo, captures)
    try:
        url = await proxy.start()
        agent = openai.AsyncOpenAI(base_url=url + "/v1", api_key=CANARY, max_retries=0)
        async with agent.chat.completions.stream(
            model="demo-parallel", messages=[{"role": "user", "content": "hi"}]
        ) as stream:
            final = await stream.get_final_completion()
        assert len(final.choices[0].message.tool_calls or []) == 3
        assert "demo-clean" in [m.id for m in (await agent.models.list()).data]
        merged = await agent.chat.completions.create(
            model="demo-parallel-index-0", messages=[{"role": "user", "content": "hi"}], stream=True
        )
        async for _ in merged:
            pass
        code, out, err = await proxy.stop(signal.SIGTERM)
    finally:
        proxy.kill()
    assert (code, err) == (0, ""), err
    *ended, stopped = out.splitlines()  # a line as each ends: the chat's once its capture closed
    (broken,) = [line for line in ended if "demo-parallel-index-0" in line]
    assert "✗ breaks 4 clients: openai-python (merged)" in broken  # the clients speak too
    ended.remove(broken)
    models, chat = sorted(ended, key=lambda line: line.split("  ")[1])  # GET, then POST
    assert chat.split("  ")[1:] == [
        "POST", "/v1/chat/completions", "demo-parallel", "200", "3 calls", label("accepted"),
    ]  # fmt: skip
    assert models.split("  ")[1:4] == ["GET", "/v1/models", "-"]
    assert stopped == f"proxy stopped: 3 request(s), 2 recorded (captures: {captures})"
    (path,) = [p for p in captures.iterdir() if "index-0" not in load(p).request_body["model"]]
    (attempt,) = load(path).attempts
    assert attempt.end is not None and attempt.end["reason"] == "eof"
    assert CANARY.encode() not in path.read_bytes() and CANARY not in "".join(proxy.banner) + out
    _a_har_saved_from_the_proxy_opens_with_the_same_calls(path, tmp_path)


def _a_har_saved_from_the_proxy_opens_with_the_same_calls(capture: Path, tmp: Path) -> None:
    """What the issue asks of the two halves together: the proxied capture exported as HAR
    (``export --har``) reads back, through ``analyze``, with the same calls and verdict."""
    har = tmp / "proxied.har"
    assert main(["export", str(capture), "--har", str(har)]) == 0
    assert CANARY.encode() not in har.read_bytes()
    reports = []
    for source in (capture, har):
        cli = Path(sys.executable).parent / "toolcall-inspector"
        done = subprocess.run([cli, "analyze", source, "--json"], capture_output=True, check=False)
        code, report = done.returncode, json.loads(done.stdout)
        calls = [(c["id"], c["name"], c["arguments"]) for c in report["tool_calls"]]
        reports.append((code, report["valid"], report["headline"], calls))
    assert reports[0] == reports[1] and len(reports[0][3]) == 3


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
@pytest.mark.parametrize(
    ("signum", "ignore_sigint"),
    [(signal.SIGINT, False), (signal.SIGTERM, True)],
    ids=["ctrl-c", "sigterm-with-sigint-ignored"],
)
async def test_a_signal_mid_stream_closes_the_capture_cancelled(
    demo: str, tmp_path: Path, signum: int, ignore_sigint: bool
) -> None:
    captures = tmp_path / "captures"
    proxy = Proxy(demo, captures, ignore_sigint)
    try:
        url = await proxy.start()
        async with httpx.AsyncClient(trust_env=False) as client:
            stall = {"x-demo-stall": "60"}
            body = {**CHAT, "model": "fault-stall"}
            async with client.stream("POST", url + "/v1/chat/completions", json=body,
                                     headers=stall) as response:  # fmt: skip
                chunks = response.aiter_raw()
                assert await anext(chunks)  # streaming: now stop the proxy
                code, out, err = await proxy.stop(signum)
                with pytest.raises(httpx.HTTPError):  # the agent is cut, never a clean end
                    async for _ in chunks:
                        pass
    finally:
        proxy.kill()
    assert (code, err) == (0, "")
    assert out.splitlines()[-1].startswith("proxy stopped: 1 request(s), 1 recorded")
    (path,) = captures.iterdir()
    (attempt,) = load(path).attempts
    assert attempt.chunks and attempt.end is not None and attempt.end["reason"] == "cancelled"


async def test_loop_lag_is_written_when_asked_and_stopped(demo: str, tmp_path: Path) -> None:
    """``--loop-lag FILE`` (bench/proxy_body.py's view inside the proxy): the ticker ran the
    whole time and its record is written once the proxy stops."""
    record = tmp_path / "lag.json"
    proxy = Proxy(demo, tmp_path / "captures", extra=("--loop-lag", str(record)))
    try:
        url = await proxy.start()
        async with httpx.AsyncClient(trust_env=False) as client:
            for _ in range(3):
                (await client.get(url + "/v1/models")).raise_for_status()
                await asyncio.sleep(0.02)
        assert not record.exists()  # written on stop, never while serving
        code, _, err = await proxy.stop(signal.SIGTERM)
    finally:
        proxy.kill()
    assert (code, err) == (0, "")
    lag = json.loads(record.read_bytes())
    assert lag["ticks"] >= 3 and {"stalls", "worst", "traces"} <= set(lag)


def test_what_cannot_start_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cases = [
        (["--upstream", "ftp://example.com"], "--upstream: the upstream must be an http"),
        (
            ["--upstream", "http://h", "--listen", "here"],
            "--listen: the listen address takes HOST:PORT",
        ),
        (["--upstream", "http://h", "--read-timeout", "0"], "--read-timeout and"),
    ]
    for args, said in cases:
        assert main(["proxy", *args, "--captures", str(tmp_path)]) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"toolcall-inspector: {said}") and err.count("\n") == 1, err
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code = main(["proxy", "--upstream", "http://h", "--listen", f"127.0.0.1:{port}",
                     "--captures", str(tmp_path)])  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2 and err.startswith(f"toolcall-inspector: cannot listen on 127.0.0.1:{port}")
    assert err.count("\n") == 1


def test_the_cli_and_the_window_listen_on_the_same_default() -> None:
    from inspector.cli import proxy as cliproxy
    from inspector.net.proxy import DEFAULT_LISTEN

    assert cliproxy.DEFAULT_LISTEN == DEFAULT_LISTEN  # the CLI keeps its startup import-light
