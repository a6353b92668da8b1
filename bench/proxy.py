"""Proxy benchmark: what does the recording proxy add to an agent's stream?

Three processes on loopback: the demo provider (the upstream), ``toolcall-inspector proxy``
in front of it (recording every stream to a capture, as it does for real), and this script as
the agent. Every figure is measured against the direct connection to the same upstream in the
same run, requests alternating between the two paths, so the differences are what the proxy
adds on this machine:

- time to first byte: median over the paced runs, proxied minus direct;
- per-chunk latency at the demo's 0.03 s pacing: for each event of a stream, its arrival
  (seconds since the request) minus the median arrival of the same event over the direct
  runs; the median and p99 over every event of every proxied run (goal: median under 2 ms).
  It holds the request's forwarding, paid once per stream; the same measured from each
  stream's first byte shows the relay's own share. The direct runs measured the same way
  give the noise floor (the upstream's own pacing jitter), printed beside them;
- throughput at zero delay: body bytes per second over back-to-back requests for a long
  stream (one call with 20,000 characters of arguments), as a ratio to direct (aim: 0.8 or
  more), and with 8 agents streaming at once.

Run with ``make bench-proxy`` or ``.venv/bin/python bench/proxy.py [--runs N] [--quick]``.
A report, not a test: it exits 0 whatever the figures, and 1 only when a correctness check
fails (a proxied body that is not byte-identical to the direct one, or a stream that was not
recorded), so it never times a broken path.
"""

from __future__ import annotations

import argparse
import asyncio
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
from pathlib import Path
from typing import Any

import httpx

REPO = Path(__file__).resolve().parents[1]
PACING = 0.03
MODEL = "demo-parallel"
TOOL = {"type": "object", "properties": {"city": {"type": "string"}}}
BODY = {
    "model": MODEL,
    "stream": True,
    "messages": [{"role": "user", "content": "What's the weather in Paris?"}],
    "tools": [{"type": "function", "function": {"name": "get_weather", "parameters": TOOL}}],
}
LONG_ARGUMENTS = 20_000
"""Characters of the one argument of the zero-delay stream (about 800 events, 1.1 MB)."""
CONTENT = {"type": "string", "minLength": LONG_ARGUMENTS}
WRITE = {"type": "object", "properties": {"content": CONTENT}, "required": ["content"]}
LONG = {
    **BODY,
    "model": "demo-clean",
    "tools": [{"type": "function", "function": {"name": "write_file", "parameters": WRITE}}],
}
"""The zero-delay stream: long enough that streaming, not setting up, is what is timed."""


# -- the two other processes -------------------------------------------------------------------


@contextmanager
def process(args: list[str], ready: str) -> Iterator[tuple[subprocess.Popen[str], str]]:
    """Start ``toolcall-inspector ARGS``; yield it with the first ``http://`` URL of the line
    holding ``ready``. Stopped with SIGTERM (the way both stop cleanly), killed if stuck."""
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    command = [sys.executable, "-m", "inspector", *args]
    proc = subprocess.Popen(command, cwd=REPO, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)  # fmt: skip
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            if ready in line:
                url = next(w for w in line.split() if w.startswith("http://")).rstrip(",")
                break
        else:
            raise SystemExit(f"{args[0]} did not start")
        drain = threading.Thread(target=proc.stdout.read, daemon=True)  # its per-request lines
        drain.start()
        yield proc, url
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.communicate(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()


# -- one stream, timed -------------------------------------------------------------------------


async def stream(
    client: httpx.AsyncClient, base: str, delay: float, request: dict[str, Any] = BODY
) -> tuple[bytes, list[float]]:
    """One request: its body, and each event's arrival in seconds since the request was sent
    (an event arrives with the chunk that completes its blank line)."""
    headers = {"x-demo-chunk-delay": str(delay)}
    body = bytearray()
    arrivals: list[float] = []
    start = time.perf_counter()
    async with client.stream("POST", base + "/v1/chat/completions", json=request,
                             headers=headers) as response:  # fmt: skip
        async for chunk in response.aiter_raw():
            now = time.perf_counter() - start
            seam = bytes(body[-1:]) + chunk  # a blank line may straddle two chunks
            body += chunk
            arrivals += [now] * seam.count(b"\n\n")
    return bytes(body), arrivals


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))]


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f} ms"


async def paced(client: httpx.AsyncClient, direct: str, proxied: str, runs: int) -> bool:
    """The paced runs: time to first byte and per-event latency, proxied against direct."""
    got: dict[str, list[list[float]]] = {direct: [], proxied: []}
    bodies: dict[str, set[bytes]] = {direct: set(), proxied: set()}
    await stream(client, direct, 0)  # the demo answers a conversation the same from now on
    for _ in range(runs):
        for base in (direct, proxied):
            body, arrivals = await stream(client, base, PACING)
            got[base].append(arrivals)
            bodies[base].add(body)
    same = bodies[direct] == bodies[proxied] and len(bodies[direct]) == 1
    events = min(len(a) for runs_ in got.values() for a in runs_)
    typical = [statistics.median(run[k] for run in got[direct]) for k in range(events)]
    added = [run[k] - typical[k] for run in got[proxied] for k in range(events)]
    noise = [run[k] - typical[k] for run in got[direct] for k in range(events)]
    spacing = [statistics.median(run[k] - run[0] for run in got[direct]) for k in range(events)]
    relay = [run[k] - run[0] - spacing[k] for run in got[proxied] for k in range(1, events)]
    first = [statistics.median(r[0] for r in got[base]) for base in (direct, proxied)]
    print(f"paced streams ({runs} runs each way, {events} events per stream, {PACING} s apart)")
    print(f"  time to first byte           direct {ms(first[0])}, proxied {ms(first[1])}: "
          f"added {ms(first[1] - first[0])}")  # fmt: skip
    print(f"  added latency per event      median {ms(statistics.median(added))}, "
          f"p99 {ms(percentile(added, 99))}   (goal: median < 2 ms)")  # fmt: skip
    print(f"    after the first byte       median {ms(statistics.median(relay))}, "
          f"p99 {ms(percentile(relay, 99))}   (the relay alone)")  # fmt: skip
    print(f"  direct's own jitter          median {ms(statistics.median(noise))}, "
          f"p99 {ms(percentile(noise, 99))}   (the noise floor)")  # fmt: skip
    return same


async def throughput(client: httpx.AsyncClient, base: str, n: int, width: int) -> float:
    """Body bytes per second over ``n`` requests at zero delay, ``width`` at a time."""
    total = 0
    gate = asyncio.Semaphore(width)

    async def one() -> None:
        nonlocal total
        async with gate:
            body, _ = await stream(client, base, 0, LONG)
            total += len(body)

    start = time.perf_counter()
    await asyncio.gather(*(one() for _ in range(n)))
    return total / (time.perf_counter() - start)


async def unpaced(client: httpx.AsyncClient, direct: str, proxied: str, n: int) -> None:
    print(f"zero delay ({n} requests each way)")
    for width in (1, 8):
        rates = {base: 0.0 for base in (direct, proxied)}
        for _ in range(2):  # alternate, keep the better of two: less noise from the machine
            for base in (direct, proxied):
                rates[base] = max(rates[base], await throughput(client, base, n, width))
        ratio = rates[proxied] / rates[direct]
        print(f"  {width} at a time: direct {rates[direct] / 1e6:.2f} MB/s, proxied "
              f"{rates[proxied] / 1e6:.2f} MB/s: ratio {ratio:.2f}   (aim: >= 0.8)")  # fmt: skip


async def measure(direct: str, proxied: str, runs: int, n: int) -> bool:
    async with httpx.AsyncClient(trust_env=False, timeout=60) as client:
        same = await paced(client, direct, proxied, runs)
        await unpaced(client, direct, proxied, n)
    return same


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20, help="paced streams each way")
    parser.add_argument("--requests", type=int, default=20, help="zero-delay requests each way")
    parser.add_argument("--quick", action="store_true", help="a few runs (a smoke test)")
    args = parser.parse_args()
    runs, n = (3, 4) if args.quick else (args.runs, args.requests)
    print(f"Python {sys.version.split()[0]} on {sys.platform}, {os.cpu_count()} CPUs; "
          f"upstream: demo provider ({MODEL}); three processes on loopback")  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="tci-bench-proxy-") as captures:
        demo_args = ["demo-server", "--port", "0", "--chunk-delay", "0"]
        with process(demo_args, "listening on") as (_, upstream):
            proxy_args = ["proxy", "--upstream", upstream, "--listen", "127.0.0.1:0",
                          "--captures", captures]  # fmt: skip
            with process(proxy_args, "listening on") as (_, proxied):
                same = asyncio.run(measure(upstream, proxied, runs, n))
        recorded = len(list(Path(captures).glob("*.jsonl")))
    proxied_requests = runs + 2 * 2 * n  # the paced runs, then two passes of n at two widths
    print(f"captures written: {recorded} (one per proxied request)")
    if not same:
        print("BROKEN: a proxied body differs from the direct one")
    if recorded != proxied_requests:
        print(f"BROKEN: {recorded} captures for {proxied_requests} proxied requests")
    return 0 if same and recorded == proxied_requests else 1


if __name__ == "__main__":
    sys.exit(main())
