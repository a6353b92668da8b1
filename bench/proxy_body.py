"""Proxy benchmark, large request bodies: does a 200 MB request hold the proxy up?

Three processes on loopback, as in bench/proxy.py: an upstream (this script's ``upstream``
mode: it reads each request body as it arrives, hashing it, notes when it had the last byte,
and answers a short Chat Completions stream); ``toolcall-inspector proxy`` in front of it,
recording to a capture as it does for real; and bench/proxy.py's bare relay (aiohttp both
ways, nothing recorded: the floor of any Python hop on this machine). This script is the
agent. The request is an OpenAI Chat Completions body of ``--mb`` MB (a conversation of
100 KB messages) with a key in its ``Authorization`` header, sent through each path in
turn, the order alternating:

- **reach**: seconds from the agent starting to send until the upstream had the last byte
  (the upstream's monotonic clock is the machine's), proxied over the bare relay's in the same
  rounds (medians). Goal (issue 30): at most 1.2x.
- **unrelated requests**: meanwhile a second agent (a thread of its own) sends a small
  ``GET /v1/models`` through the same path every 10 ms, from the large request's start until
  its capture is closed (the relay: until its answer ended). Its wait is each probe's time
  over the same path's median when idle (measured just before); the worst of them is
  reported. Goal: at most 50 ms. The bare relay's figure is the machine's own noise.

A report, not a test: PASS/FAIL lines, exit 0 whatever the figures; exit 1 only when the
capture is missing, holds the key, or its recorded body is not the one sent.

Run with ``make bench-proxy`` (after bench/proxy.py) or ``.venv/bin/python bench/proxy_body.py
[--mb 200] [--runs 3] [--repo DIR]``; ``--repo`` runs the proxy of another checkout (the
``main`` before a change) with this one's environment.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import os
import signal
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import orjson
from proxy import started  # bench/proxy.py, beside this file

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
KEY = "sk-bench-large-0123456789abcdefghijABCDEFGHIJ"
MESSAGE = 100_000
"""Characters of each message of the conversation."""
REACH_GOAL = 1.2
WAIT_GOAL = 0.050
PROBE_EVERY = 0.010


def body_of(mb: int) -> bytes:
    """A Chat Completions request of about ``mb`` MB: a conversation of 100 KB messages
    (prose with quotes, escapes, accents and CJK) and one tool."""
    prose = ('He said "run it" \\ then left; café 東京 naïve. ' * 3000)[:MESSAGE]
    one = len(orjson.dumps({"role": "assistant", "content": f"0: {prose}"})) + 1
    count = max(1, mb * 1_000_000 // one)
    messages = [{"role": "user" if i % 2 == 0 else "assistant", "content": f"{i}: {prose}"}
                for i in range(count)]  # fmt: skip
    tool = {"type": "function", "function": {"name": "get_weather", "parameters": {
        "type": "object", "properties": {"city": {"type": "string"}}}}}  # fmt: skip
    return orjson.dumps({"model": "gpt-4o", "stream": True, "messages": messages,
                         "tools": [tool]})  # fmt: skip


# -- the upstream --------------------------------------------------------------------------


def upstream() -> None:
    """Serve until SIGTERM: POST reads the body whole and answers a short tool-call stream
    (``x-bench-received``: the monotonic time it had the last byte); GET answers a small
    JSON at once."""
    from aiohttp import web

    def event(delta: dict[str, object], finish: str | None = None) -> bytes:
        chunk = {"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "gpt-4o",
                 "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}  # fmt: skip
        return b"data: " + orjson.dumps(chunk) + b"\n\n"

    call = {"index": 0, "id": "call_1", "type": "function",
            "function": {"name": "get_weather", "arguments": ""}}  # fmt: skip
    stream = [
        event({"role": "assistant", "tool_calls": [call]}),
        event({"tool_calls": [{"index": 0, "function": {"arguments": '{"city": '}}]}),
        event({"tool_calls": [{"index": 0, "function": {"arguments": '"Paris"}'}}]}),
        event({}, "tool_calls"),
        b"data: [DONE]\n\n",
    ]

    async def chat(request: web.Request) -> web.StreamResponse:
        digest, size = hashlib.sha256(), 0  # read as it comes: the upstream adds no wait
        while chunk := await request.content.readany():
            digest.update(chunk)
            size += len(chunk)
        received = time.monotonic()
        out = web.StreamResponse(headers={"content-type": "text/event-stream",
                                          "x-bench-received": repr(received),
                                          "x-bench-sha256": digest.hexdigest(),
                                          "x-bench-bytes": str(size)})  # fmt: skip
        await out.prepare(request)
        for piece in stream:
            await out.write(piece)
        await out.write_eof()
        return out

    async def models(request: web.Request) -> web.Response:
        return web.json_response({"object": "list", "data": []})

    async def serve() -> None:
        app = web.Application(client_max_size=1 << 30)
        app.router.add_post("/v1/chat/completions", chat)
        app.router.add_get("/v1/models", models)
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        await web.TCPSite(runner, "127.0.0.1", 0).start()
        print(f"upstream listening on http://127.0.0.1:{runner.addresses[0][1]}", flush=True)
        stop = asyncio.Event()
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
        await stop.wait()
        await runner.cleanup()

    asyncio.run(serve())


@contextmanager
def process(command: list[str], ready: str, cwd: Path) -> Iterator[str]:
    """Start ``command`` in ``cwd`` (bench/proxy.py's :func:`started`); yield its URL."""
    with started(command, ready, cwd) as (_, url):
        yield url


# -- the agents ----------------------------------------------------------------------------


class Prober:
    """The second agent: ``GET /v1/models`` every 10 ms through ``base`` (a thread)."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.times: list[float] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        with httpx.Client(trust_env=False, timeout=120) as client:
            while not self._stop.is_set():
                start = time.perf_counter()
                client.get(self.base + "/v1/models").raise_for_status()
                self.times.append(time.perf_counter() - start)
                self._stop.wait(PROBE_EVERY)

    def __enter__(self) -> Prober:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def idle(base: str, n: int = 150) -> tuple[float, float]:
    """The median and the worst time of a probe through ``base`` when nothing else is going
    on (the worst: the machine's own noise, from the other processes on it)."""
    with Prober(base) as probe:
        while len(probe.times) < n:
            time.sleep(0.05)
    return statistics.median(probe.times), max(probe.times)


def closed_captures(folder: Path) -> int:
    """Captures in ``folder`` whose last record is the attempt's end."""
    done = 0
    for path in folder.glob("*.jsonl"):
        with path.open("rb") as f:
            f.seek(max(0, path.stat().st_size - 400))
            if b'"type":"end"' in f.read():
                done += 1
    return done


def one(base: str, body: bytes, captures: Path | None) -> tuple[float, float, int, int]:
    """Send ``body`` through ``base`` with probes beside it: (seconds until the upstream had
    it, worst probe seconds, probes, probes over the goal's wait)."""
    before = closed_captures(captures) if captures is not None else 0
    headers = {"Authorization": f"Bearer {KEY}", "content-type": "application/json"}
    with Prober(base) as probe, httpx.Client(trust_env=False, timeout=600) as client:
        start = time.monotonic()
        response = client.post(base + "/v1/chat/completions", content=body, headers=headers)
        response.raise_for_status()
        reach = float(response.headers["x-bench-received"]) - start
        if response.headers["x-bench-sha256"] != hashlib.sha256(body).hexdigest():
            raise SystemExit("BROKEN: the upstream did not get the body as sent")
        deadline = time.monotonic() + 300
        while captures is not None and closed_captures(captures) <= before:
            if time.monotonic() > deadline:
                raise SystemExit("BROKEN: the capture was not closed within 300 s")
            time.sleep(0.05)
        time.sleep(0.2)
    floor = statistics.median(probe.times)
    over = sum(1 for t in probe.times if t - floor > WAIT_GOAL)
    return reach, max(probe.times), len(probe.times), over


def check(captures: Path, body: bytes) -> list[str]:
    """What is wrong with the captures: a key written, a recorded body not the one sent."""
    problems = []
    sent = orjson.loads(body)
    for path in sorted(captures.glob("*.jsonl")):
        data = path.read_bytes()
        if KEY.encode() in data:
            problems.append(f"{path.name} holds the key")
        request = next(
            (orjson.loads(line) for line in data.split(b"\n") if b'"type":"request"' in line[:40]),
            None,
        )
        if request is None or request.get("body") != sent:
            problems.append(f"{path.name}: the recorded body is not the one sent")
    return problems


def main() -> int:
    if sys.argv[1:2] == ["upstream"]:
        upstream()
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=200, help="the request body's size in MB")
    parser.add_argument("--runs", type=int, default=3, help="requests through each path")
    parser.add_argument("--repo", type=Path, default=REPO, help="the checkout whose proxy runs")
    args = parser.parse_args()
    body = body_of(args.mb)
    print(f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load "
          f"{os.getloadavg()[0]:.1f}; request body {len(body) / 1e6:.0f} MB; proxy from "
          f"{args.repo}")  # fmt: skip
    python = sys.executable
    with tempfile.TemporaryDirectory(prefix="tci-bench-body-") as tmp:
        captures = Path(tmp)
        with process([python, __file__, "upstream"], "listening on", HERE) as up:
            proxy = [python, "-m", "inspector", "proxy", "--upstream", up,
                     "--listen", "127.0.0.1:0", "--captures", tmp]  # fmt: skip
            bare_cmd = [python, str(HERE / "proxy.py"), "bare-relay", up]
            with (
                process(proxy, "listening on", args.repo) as proxied,
                process(bare_cmd, "listening on", HERE) as bare,
            ):
                quiet = {bare: idle(bare), proxied: idle(proxied)}
                floors = {b: median for b, (median, _) in quiet.items()}
                got: dict[str, list[tuple[float, float, int, int]]] = {bare: [], proxied: []}
                for run in range(args.runs):
                    for base in (bare, proxied) if run % 2 == 0 else (proxied, bare):
                        got[base].append(one(base, body, captures if base == proxied else None))
                        reach, worst, n, over = got[base][-1]
                        name = "proxied" if base == proxied else "bare relay"
                        print(f"  run {run + 1} {name:10}  reach {reach:6.2f} s, worst probe "
                              f"{worst * 1000:7.1f} ms of {n} ({over} over "
                              f"{WAIT_GOAL * 1000:.0f} ms)")  # fmt: skip
        problems = check(captures, body)
    reach = {b: statistics.median(r for r, _, _, _ in runs) for b, runs in got.items()}
    wait = {b: max(w for _, w, _, _ in runs) - floors[b] for b, runs in got.items()}
    noise = {b: worst - floors[b] for b, (_, worst) in quiet.items()}
    ratio = reach[proxied] / reach[bare]
    verdict = "PASS" if ratio <= REACH_GOAL else "FAIL"
    print(f"reach the upstream: proxied {reach[proxied]:.2f} s, bare relay {reach[bare]:.2f} s "
          f"(medians of {args.runs}): {ratio:.2f}x   goal <= {REACH_GOAL}x  {verdict}")  # fmt: skip
    verdict = "PASS" if wait[proxied] <= WAIT_GOAL else "FAIL"
    print(f"unrelated requests meanwhile: worst wait {wait[proxied] * 1000:.1f} ms over an idle "
          f"{floors[proxied] * 1000:.1f} ms (bare relay: {wait[bare] * 1000:.1f} ms)   "
          f"goal <= {WAIT_GOAL * 1000:.0f} ms  {verdict}")  # fmt: skip
    print(f"  the machine's own noise: the worst idle probe over the median, proxied "
          f"{noise[proxied] * 1000:.1f} ms, bare relay {noise[bare] * 1000:.1f} ms "
          f"(a wait under it cannot be told from the load)")  # fmt: skip
    for problem in problems:
        print(f"BROKEN: {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
