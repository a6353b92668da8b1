"""What a user does with ``toolcall-inspector`` from a folder that is not the checkout: the
commands run as processes (an installed console script, or ``python -c`` with Qt made
unavailable), the two servers on loopback ports they pick themselves, and the real openai SDK
streaming a tool call through the proxy from the demo provider.

Every process is bounded by a timeout and stopped (SIGINT, then kill) when its test ends.
"""

from __future__ import annotations

import os
import queue
import re
import signal
import subprocess
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

TIMEOUT = 120.0
"""Seconds any one command may take (the default matrix included)."""
WEATHER_TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Weather for a city",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
        },
    },
}


def run(
    cli: Sequence[str], args: Sequence[str], cwd: Path, env: Mapping[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """One command to its end (bounded by :data:`TIMEOUT`)."""
    return subprocess.run(
        [*cli, *args],
        cwd=cwd,
        env=dict(env if env is not None else os.environ),
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )


@dataclass
class Served:
    """A server command running in the background, its output read line by line."""

    proc: subprocess.Popen[str]
    url: str = ""
    lines: list[str] = field(default_factory=list)
    _queue: queue.Queue[str | None] = field(default_factory=queue.Queue)

    def wait_for(self, pattern: str, timeout: float = 60.0) -> re.Match[str]:
        """The first line (from now, or already read) matching ``pattern``."""
        rx = re.compile(pattern)
        for line in self.lines:
            if m := rx.search(line):
                return m
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            try:
                line = self._queue.get(timeout=left)
            except queue.Empty:
                break
            if line is None:
                raise AssertionError(f"exited ({self.proc.wait()}) before {pattern!r}: {self}")
            self.lines.append(line)
            if m := rx.search(line):
                return m
        raise AssertionError(f"no line matching {pattern!r} within {timeout} s: {self}")

    def __str__(self) -> str:
        return "\n".join(self.lines[-40:])


@contextmanager
def serve(
    cli: Sequence[str], args: Sequence[str], cwd: Path, url_pattern: str,
    env: Mapping[str, str] | None = None,
) -> Iterator[Served]:  # fmt: skip
    """Start a server command, wait for the URL it prints (group 1 of ``url_pattern``), and
    stop it with SIGINT (Ctrl+C) at the end; its exit code must then be 0."""
    proc = subprocess.Popen(
        [*cli, *args],
        cwd=cwd,
        env=dict(env if env is not None else os.environ),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    served = Served(proc)

    def pump() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            served._queue.put(line.rstrip("\n"))
        served._queue.put(None)

    threading.Thread(target=pump, daemon=True).start()
    try:
        served.url = served.wait_for(url_pattern).group(1)
        yield served
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
        try:
            code = proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            raise AssertionError(f"{args[0]} did not stop on Ctrl+C: {served}") from None
    assert code == 0, f"{args[0]} exited {code}: {served}"


def weather_through(base_url: str) -> list[tuple[str, str]]:
    """Stream one chat completion with the real openai SDK from ``base_url``; the tool calls
    it assembled, as (name, arguments)."""
    import openai

    client = openai.OpenAI(base_url=base_url, api_key="demo", max_retries=0, timeout=30)
    stream = client.chat.completions.create(
        model="demo-clean",
        messages=[{"role": "user", "content": "Weather in Paris?"}],
        tools=[WEATHER_TOOL],  # type: ignore[list-item]
        stream=True,
    )
    calls: dict[int, list[str]] = {}
    for chunk in stream:
        for choice in chunk.choices:
            for tc in choice.delta.tool_calls or []:
                name, args = calls.setdefault(tc.index, ["", ""])
                fn = tc.function
                calls[tc.index] = [name + (fn.name or "" if fn else ""),
                                   args + (fn.arguments or "" if fn else "")]  # fmt: skip
    return [(name, args) for name, args in calls.values()]


def demo_and_proxy(cli: Sequence[str], cwd: Path, env: Mapping[str, str] | None = None) -> dict:
    """``demo-server`` answering a request, and ``proxy`` forwarding one to it: the SDK's
    calls, what each server printed, and the captures the proxy wrote."""
    demo_rx = r"demo provider listening on (http://127\.0\.0\.1:\d+)"
    proxy_rx = r"the agent's base URL: (http://127\.0\.0\.1:\d+/v1)"
    captures = cwd / "proxied"
    with serve(cli, ["demo-server", "--port", "0"], cwd, demo_rx, env) as demo:
        direct = weather_through(demo.url + "/v1")
        demo.wait_for(r"POST /v1/chat/completions model=demo-clean")
        upstream = ["--upstream", demo.url + "/v1", "--listen", "127.0.0.1:0"]
        with serve(cli, ["proxy", *upstream, "--captures", str(captures)], cwd, proxy_rx,
                   env) as proxy:  # fmt: skip
            proxied = weather_through(proxy.url)
            line = proxy.wait_for(r"POST\s+/v1/chat/completions\s+demo-clean\s+200.*").group(0)
    return {
        "direct": direct,
        "proxied": proxied,
        "proxy_line": line,
        "captures": sorted(captures.glob("*.jsonl")),
    }
