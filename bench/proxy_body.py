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
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import orjson
from proxy import started  # bench/proxy.py, beside this file

from inspector.net.proxy.looplag import worst_between

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


# -- the agents: processes of their own ------------------------------------------------------


def probe(base: str) -> None:
    """The second agent (a process): ``GET /v1/models`` through ``base`` every 10 ms until its
    stdin closes, then print each probe's (monotonic start, seconds) as JSON."""
    stop = threading.Event()

    def until_closed() -> None:
        sys.stdin.read()
        stop.set()

    threading.Thread(target=until_closed, daemon=True).start()
    times: list[tuple[float, float]] = []
    with httpx.Client(trust_env=False, timeout=120) as client:
        client.get(base + "/v1/models").raise_for_status()  # connected before it says so
        print("probing", flush=True)
        while not stop.is_set():
            start = time.monotonic()
            client.get(base + "/v1/models").raise_for_status()
            times.append((start, time.monotonic() - start))
            stop.wait(PROBE_EVERY)
    sys.stdout.write(orjson.dumps(times).decode() + "\n")


def send(base: str, file: str) -> None:
    """The large request's agent (a process): POST the body in ``file`` through ``base``;
    print (monotonic start, the upstream's monotonic time of the last byte, its sha256)."""
    body = Path(file).read_bytes()
    headers = {"Authorization": f"Bearer {KEY}", "content-type": "application/json"}
    with httpx.Client(trust_env=False, timeout=600) as client:
        start = time.monotonic()
        response = client.post(base + "/v1/chat/completions", content=body, headers=headers)
        response.raise_for_status()
        response.read()
    print(orjson.dumps([start, float(response.headers["x-bench-received"]),
                        response.headers["x-bench-sha256"]]).decode())  # fmt: skip


class Probes:
    """Probe processes, one per base URL, for the duration of a ``with``: :attr:`times` then
    holds each base's (start, seconds) list."""

    def __init__(self, *bases: str) -> None:
        self.bases = bases
        self.times: dict[str, list[tuple[float, float]]] = {}
        self._procs: list[subprocess.Popen[str]] = []

    def __enter__(self) -> Probes:
        for base in self.bases:
            command = [sys.executable, __file__, "probe", base]
            pipes = {"stdin": subprocess.PIPE, "stdout": subprocess.PIPE}
            proc = subprocess.Popen(command, cwd=HERE, text=True, **pipes)  # type: ignore[call-overload]
            self._procs.append(proc)
        for proc in self._procs:
            assert proc.stdout is not None
            if proc.stdout.readline().strip() != "probing":
                raise SystemExit("BROKEN: a probe did not start")
        return self

    def __exit__(self, *exc: object) -> None:
        for base, proc in zip(self.bases, self._procs, strict=True):
            out, _ = proc.communicate(timeout=120)  # closes its stdin: it stops and reports
            self.times[base] = [(a, b) for a, b in orjson.loads(out)] if out.strip() else []


def idle(bases: list[str], n: int = 150) -> dict[str, tuple[float, float]]:
    """Each base's median and worst probe when nothing else is going on (the worst: the
    machine's own noise), all probed at once for about ``n`` probes' time."""
    with Probes(*bases) as probes:
        time.sleep(n * (PROBE_EVERY + 0.002))
    return {b: (statistics.median(t for _, t in got), max(t for _, t in got))
            for b, got in probes.times.items()}  # fmt: skip


def closed_captures(folder: Path) -> int:
    """Captures in ``folder`` whose last record is the attempt's end."""
    done = 0
    for path in folder.glob("*.jsonl"):
        with path.open("rb") as f:
            f.seek(max(0, path.stat().st_size - 400))
            if b'"type":"end"' in f.read():
                done += 1
    return done


@dataclass
class Run:
    """One large request through one path, probed beside it."""

    reach: float
    """Seconds from the agent's first byte to the upstream's last."""
    window: tuple[float, float]
    """Monotonic start and end of the probing (the request, then its capture's closing)."""
    path: list[tuple[float, float]]
    """The probes through the same path: (start, seconds)."""
    direct: list[tuple[float, float]]
    """The probes straight to the upstream meanwhile."""


def one(base: str, up: str, body_file: Path, sha: str, captures: Path | None) -> Run:
    """Send the body through ``base`` (the sender a process of its own) with probes through
    ``base`` and straight to ``up`` beside it (processes too)."""
    before = closed_captures(captures) if captures is not None else 0
    with Probes(base, up) as probes:
        begin = time.monotonic()
        out = subprocess.run([sys.executable, __file__, "send", base, str(body_file)], cwd=HERE,
                             capture_output=True, text=True, check=False)  # fmt: skip
        if out.returncode != 0:
            raise SystemExit(f"BROKEN: the large request failed: {out.stderr.strip()[-300:]}")
        start, received, got = orjson.loads(out.stdout.strip().splitlines()[-1])
        if got != sha:
            raise SystemExit("BROKEN: the upstream did not get the body as sent")
        deadline = time.monotonic() + 300
        while captures is not None and closed_captures(captures) <= before:
            if time.monotonic() > deadline:
                raise SystemExit("BROKEN: the capture was not closed within 300 s")
            time.sleep(0.05)
        time.sleep(0.2)
        end = time.monotonic()
    return Run(received - start, (begin, end), probes.times[base], probes.times[up])


def worst(probes: list[tuple[float, float]], floor: float) -> float:
    """The longest probe's time over ``floor`` (0 when none)."""
    return max((t for _, t in probes), default=floor) - floor


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


def beyond(
    path: list[tuple[float, float]], direct: list[tuple[float, float]], extra: float
) -> float:
    """The longest of the path's probes beyond what a probe straight to the upstream took at
    the same moment (the longest of those that overlapped it) and the path's idle ``extra``
    over direct: what the hop itself added to its worst probe."""
    out = 0.0
    for start, took in path:
        meanwhile = [t for s, t in direct if s < start + took and start < s + t]
        out = max(out, took - max(meanwhile, default=0.0) - extra)
    return out


def p99(probes: list[tuple[float, float]]) -> float:
    times = sorted(t for _, t in probes)
    return times[min(len(times) - 1, int(len(times) * 0.99))] if times else 0.0


def main() -> int:
    mode = sys.argv[1:2]
    if mode == ["upstream"]:
        upstream()
        return 0
    if mode == ["probe"]:
        probe(sys.argv[2])
        return 0
    if mode == ["send"]:
        send(sys.argv[2], sys.argv[3])
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=200, help="the request body's size in MB")
    parser.add_argument("--runs", type=int, default=3, help="requests through each path")
    parser.add_argument("--repo", type=Path, default=REPO, help="the checkout whose proxy runs")
    parser.add_argument("--no-lag", action="store_true",
                        help="do not measure the proxy's loop (its ticker wakes it every few "
                        "ms: see whether that changes the probes' waits)")  # fmt: skip
    parser.add_argument("--traces", type=int, default=0, metavar="N",
                        help="print the N places other threads most often were at when the "
                        "proxy's loop woke over 10 ms late")  # fmt: skip
    args = parser.parse_args()
    body = body_of(args.mb)
    sha = hashlib.sha256(body).hexdigest()
    print(f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load "
          f"{os.getloadavg()[0]:.1f}; request body {len(body) / 1e6:.0f} MB; proxy from "
          f"{args.repo}")  # fmt: skip
    python = sys.executable
    with tempfile.TemporaryDirectory(prefix="tci-bench-body-") as tmp:
        captures, body_file = Path(tmp) / "captures", Path(tmp) / "body.json"
        captures.mkdir()
        body_file.write_bytes(body)
        lag_file = Path(tmp) / "loop-lag.json"
        cli = (args.repo / "inspector/cli/proxy.py").read_text()
        measured = "--loop-lag" in cli and not args.no_lag
        with process([python, __file__, "upstream"], "listening on", HERE) as up:
            proxy = [python, "-m", "inspector", "proxy", "--upstream", up,
                     "--listen", "127.0.0.1:0", "--captures", str(captures)]  # fmt: skip
            if measured:
                proxy += ["--loop-lag", str(lag_file)]
            bare_cmd = [python, str(HERE / "proxy.py"), "bare-relay", up]
            with (
                process(proxy, "listening on", args.repo) as proxied,
                process(bare_cmd, "listening on", HERE) as bare,
            ):
                quiet = idle([up, bare, proxied])
                floors = {b: median for b, (median, _) in quiet.items()}
                got: dict[str, list[Run]] = {bare: [], proxied: []}
                for run in range(args.runs):
                    for base in (bare, proxied) if run % 2 == 0 else (proxied, bare):
                        r = one(base, up, body_file, sha, captures if base == proxied else None)
                        got[base].append(r)
                        name = "proxied" if base == proxied else "bare relay"
                        over = sum(1 for _, t in r.path if t - floors[base] > WAIT_GOAL)
                        print(f"  run {run + 1} {name:10}  reach {r.reach:6.2f} s; probes "
                              f"through it: worst {worst(r.path, floors[base]) * 1000:6.1f} ms "
                              f"over idle, p99 {p99(r.path) * 1000:6.1f} ms, {over} of "
                              f"{len(r.path)} over {WAIT_GOAL * 1000:.0f} ms; straight to the "
                              f"upstream: worst {worst(r.direct, floors[up]) * 1000:6.1f} ms"
                              )  # fmt: skip
            lag = orjson.loads(lag_file.read_bytes()) if measured else None
        problems = check(captures, body)
    return report(args, got, floors, quiet, up, bare, proxied, lag, problems)


def report(args: argparse.Namespace, got: dict[str, list[Run]], floors: dict[str, float],
           quiet: dict[str, tuple[float, float]], up: str, bare: str, proxied: str,
           lag: dict[str, Any] | None, problems: list[str]) -> int:  # fmt: skip
    """Print the figures and verdicts; the exit status."""
    reach = {b: statistics.median(r.reach for r in runs) for b, runs in got.items()}
    wait = {b: max(worst(r.path, floors[b]) for r in runs) for b, runs in got.items()}
    direct = {b: max(worst(r.direct, floors[up]) for r in runs) for b, runs in got.items()}
    added = {b: max(beyond(r.path, r.direct, floors[b] - floors[up]) for r in runs)
             for b, runs in got.items()}  # fmt: skip
    noise = {b: worst_ - floors[b] for b, (_, worst_) in quiet.items()}
    ratio = reach[proxied] / reach[bare]
    verdict = "PASS" if ratio <= REACH_GOAL else "FAIL"
    print(f"reach the upstream: proxied {reach[proxied]:.2f} s, bare relay {reach[bare]:.2f} s "
          f"(medians of {args.runs}): {ratio:.2f}x   goal <= {REACH_GOAL}x  {verdict}")  # fmt: skip
    verdict = "PASS" if wait[proxied] <= WAIT_GOAL else "FAIL"
    print(f"unrelated requests meanwhile: worst wait through the proxy {wait[proxied] * 1000:.1f}"
          f" ms over an idle {floors[proxied] * 1000:.1f} ms   goal <= {WAIT_GOAL * 1000:.0f} ms"
          f"  {verdict}")  # fmt: skip
    print(f"  in the same runs: straight to the upstream {direct[proxied] * 1000:.1f} ms "
          f"(beside the proxied request), {direct[bare] * 1000:.1f} ms (beside the relayed one); "
          f"through the bare relay {wait[bare] * 1000:.1f} ms")  # fmt: skip
    print(f"  added by the hop beyond a direct probe at the same moment: proxy "
          f"{added[proxied] * 1000:.1f} ms, bare relay {added[bare] * 1000:.1f} ms")  # fmt: skip
    if lag is not None:
        held = [worst_between(lag, *r.window) for r in got[proxied]]
        longest, own = max(h for h, _, _ in held), max(o for _, o, _ in held)
        stalls = sum(n for _, _, n in held)
        verdict = "PASS" if own <= WAIT_GOAL else "FAIL"
        print(f"  the proxy's own hold, measured in its process (--loop-lag): its event loop "
              f"woke late by at most {longest * 1000:.1f} ms during the proxied runs ({stalls} "
              f"times over {float(lag['noted']) * 1000:.0f} ms); less the time its thread "
              f"waited for a CPU the machine gave others, held by the proxy itself at most "
              f"{own * 1000:.1f} ms  goal <= {WAIT_GOAL * 1000:.0f} ms  "
              f"{verdict}")  # fmt: skip
        inside = [st for st in lag["stalls"]
                  if any(r.window[0] <= st[0] <= r.window[1] for r in got[proxied])]  # fmt: skip
        for _due, late, cpu, queued in sorted(inside, key=lambda st: -st[1])[: args.traces]:
            print(f"    a stall of {late * 1000:6.1f} ms: its thread waited for a CPU "
                  f"{queued * 1000:6.1f} ms, the process used {cpu * 1000:6.1f} ms of CPU"
                  )  # fmt: skip
        during = [r.window for r in got[proxied]]
        collections = [c for c in lag.get("collections", [])
                       if any(a <= c[0] <= b for a, b in during)]  # fmt: skip
        if collections:
            longest_gc = max(collections, key=lambda c: c[1])
            print(f"    garbage collections over 2 ms meanwhile: {len(collections)}, the longest "
                  f"{longest_gc[1] * 1000:.1f} ms (generation {longest_gc[2]})")  # fmt: skip
        places: dict[str, int] = {}
        for due, _late, where in lag.get("traces", []):
            if any(r.window[0] <= due <= r.window[1] for r in got[proxied]):
                for w in where:
                    places[w] = places.get(w, 0) + 1
        for w, n in sorted(places.items(), key=lambda kv: -kv[1])[: args.traces]:
            print(f"    {n:4} stalls over 10 ms, another thread then at {w}")
    print(f"  the machine's own noise, idle (the worst probe over the median): straight to the "
          f"upstream {noise[up] * 1000:.1f} ms, bare relay {noise[bare] * 1000:.1f} ms, proxied "
          f"{noise[proxied] * 1000:.1f} ms")  # fmt: skip
    for problem in problems:
        print(f"BROKEN: {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
