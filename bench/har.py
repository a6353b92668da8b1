"""HAR import's benchmark: ``toolcall-inspector analyze FILE.har`` of a 20,000-entry browser
HAR (about 45 MB) against its floor, ``json.load`` of the same file, measured in the same run.

Run with ``make bench`` or ``.venv/bin/python bench/har.py [--rounds R] [--entries N]``.
A report, not a test: it prints figures and PASS/FAIL lines and exits 0 whatever they say; it
exits 1 only when ``analyze`` exits 2, finds a stream that is not clean, or reads a different
number of sessions than the file holds (a broken path is never timed). bench/README.md names
the input, the floor and the goal.

The input (generated once, cached under ``$TMPDIR``): what Chrome DevTools' "Save all as HAR
(with content)" writes for a long session in a web app that talks to an LLM. One entry in
twenty is an LLM exchange (a streaming ``POST …/v1/chat/completions`` with its tools and a
one-call tool-call stream); each is preceded by its CORS preflight (``OPTIONS``); the rest are
the page's own traffic: scripts, JSON API calls, images, every body written as Chrome writes
it (base64 for binary and, as Chrome does, for some text).

Contenders run interleaved, round by round in rotating order, in this process
(``inspector.cli.main.main`` with stdout sent to ``/dev/null``), best wall time of each; a
second column gives process CPU time (the cross-check on a loaded machine). Also timed:
``analyze --json --no-clients`` (the HAR reading and the ingest without the client replicas),
and the time per entry of the whole path.
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import gc
import io
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

from inspector.cli.main import main as cli_main

GEN_VERSION = 2
"""Bump when the input's bytes change (the cached file is named by it)."""
LLM_EVERY = 20
"""One entry in this many is an LLM exchange (and one more its preflight)."""
GOAL_SECONDS = 5.0
"""The issue's goal for the 20,000-entry HAR, ``analyze`` end to end."""
API = "https://api.openai.com/v1/chat/completions"
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "search_docs",
            "description": "Search the product documentation",
            "parameters": {
                "type": "object",
                "properties": {"query": {"type": "string"}, "limit": {"type": "integer"}},
                "required": ["query"],
            },
        },
    }
]


def _pairs(headers: dict[str, str]) -> list[dict[str, str]]:
    return [{"name": k, "value": v} for k, v in headers.items()]


def _stream(n: int) -> bytes:
    """A Chat Completions stream of one ``search_docs`` call, its arguments in pieces."""
    head = f'{{"id":"chatcmpl-{n:08d}","object":"chat.completion.chunk","created":1726000000,'
    head += '"model":"gpt-4o-mini","choices":[{"index":0,"delta":'
    tail = ',"logprobs":null,"finish_reason":null}]}'
    args = json.dumps({"query": f"how do I rotate key number {n} in the dashboard", "limit": 5})
    opening = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "index": 0,
                "id": f"call_{n:024d}",
                "type": "function",
                "function": {"name": "search_docs", "arguments": ""},
            }
        ],
    }
    events = [head + json.dumps(opening, separators=(",", ":")) + tail]
    for k in range(0, len(args), 7):
        piece = {"tool_calls": [{"index": 0, "function": {"arguments": args[k : k + 7]}}]}
        events.append(head + json.dumps(piece, separators=(",", ":")) + tail)
    events.append(
        head.removesuffix('"choices":[{"index":0,"delta":')
        + '"choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"tool_calls"}]}'
    )
    return "".join(f"data: {e}\n\n" for e in events).encode() + b"data: [DONE]\n\n"


def _timings(wait: float) -> dict[str, float]:
    return {"blocked": 0.8, "dns": -1, "ssl": -1, "connect": -1, "send": 0.1, "wait": wait,
            "receive": 12.5, "_blocked_queueing": 0.4}  # fmt: skip


def _entry(
    method: str,
    url: str,
    status: int,
    mime: str,
    text: str | None,
    *,
    b64: bool = False,
    post: str | None = None,
    kind: str = "fetch",
    started: str = "2025-03-01T10:00:00.000Z",
) -> dict[str, Any]:
    req_headers = {":authority": url.split("/")[2], ":method": method, ":scheme": "https"}
    req_headers["accept"] = "*/*"
    request: dict[str, Any] = {
        "method": method,
        "url": url,
        "httpVersion": "http/2.0",
        "headers": _pairs(req_headers),
        "queryString": [],
        "cookies": [],
        "headersSize": -1,
        "bodySize": len(post or ""),
    }
    if post is not None:
        request["postData"] = {"mimeType": "application/json", "text": post}
    content: dict[str, Any] = {"size": len(text or ""), "mimeType": mime}
    if text is not None:
        content["text"] = base64.b64encode(text.encode()).decode() if b64 else text
        if b64:
            content["encoding"] = "base64"
    resp_headers = {"content-type": mime, "cache-control": "no-cache"}
    return {
        "_initiator": {"type": "script"},
        "_priority": "High",
        "_resourceType": kind,
        "cache": {},
        "pageref": "page_1",
        "request": request,
        "response": {
            "status": status,
            "statusText": "",
            "httpVersion": "http/2.0",
            "headers": _pairs(resp_headers),
            "cookies": [],
            "content": content,
            "redirectURL": "",
            "headersSize": -1,
            "bodySize": -1,
            "_transferSize": len(text or "") + 300,
            "_error": None,
        },
        "serverIPAddress": "104.18.7.192",
        "startedDateTime": started,
        "time": 42.0,
        "timings": _timings(30.0),
    }


def _llm(n: int) -> list[dict[str, Any]]:
    """An LLM exchange: its preflight, then the streaming POST."""
    messages = [
        {"role": "system", "content": "You answer questions about the product. " * 6},
        {"role": "user", "content": f"How do I rotate key number {n}?"},
    ]
    body = json.dumps({"model": "gpt-4o-mini", "stream": True, "messages": messages,
                       "tools": TOOLS})  # fmt: skip
    preflight = _entry("OPTIONS", API, 200, "x-unknown", None, kind="preflight")
    post = _entry("POST", API, 200, "text/event-stream", _stream(n).decode(), post=body)
    post["request"]["headers"].append({"name": "authorization", "value": "Bearer sk-bench-0000"})
    return [preflight, post]


def _other(n: int) -> dict[str, Any]:
    """The page's own traffic: a script, a JSON API call, an image (base64)."""
    which = n % 3
    if which == 0:
        js = f"export function f{n}(x) {{ return x * {n}; }}\n" * 8
        return _entry("GET", f"https://app.example.com/assets/chunk-{n}.js", 200,
                      "text/javascript", js, b64=True, kind="script")  # fmt: skip
    if which == 1:
        rows = [{"id": n * 10 + k, "name": f"item {k}", "tags": ["a", "b"]} for k in range(5)]
        return _entry("GET", f"https://app.example.com/api/items?page={n}", 200,
                      "application/json", json.dumps({"items": rows}))  # fmt: skip
    png = "\x89PNG\r\n\x1a\n" + "image bytes " * 30
    return _entry("GET", f"https://cdn.example.com/img/{n}.png", 200, "image/png", png,
                  b64=True, kind="image")  # fmt: skip


def har_file(entries: int) -> tuple[Path, int]:
    """The HAR of ``entries`` entries (cached), and how many of them are LLM exchanges."""
    path = Path(tempfile.gettempdir()) / f"toolcall-inspector-bench-har-v{GEN_VERSION}"
    path.mkdir(exist_ok=True)
    path = path / f"session-{entries}.har"
    out: list[dict[str, Any]] = []
    llm = 0
    n = 0
    while len(out) < entries:
        if n % LLM_EVERY == LLM_EVERY - 1 and len(out) + 2 <= entries:
            out += _llm(n)
            llm += 1
        else:
            out.append(_other(n))
        n += 1
    if not path.exists():
        doc = {
            "log": {
                "version": "1.2",
                "creator": {"name": "WebInspector", "version": "537.36"},
                "pages": [
                    {
                        "startedDateTime": "2025-03-01T10:00:00.000Z",
                        "id": "page_1",
                        "title": "https://app.example.com/",
                        "pageTimings": {},
                    }
                ],
                "entries": out,
            }
        }
        tmp = path.with_suffix(".part")
        tmp.write_bytes(orjson.dumps(doc, option=orjson.OPT_INDENT_2))
        tmp.rename(path)
    return path, llm


def analyze(path: Path, *extra: str) -> Callable[[], int]:
    """``analyze PATH --json EXTRA…`` in this process, stdout discarded; raises on exit 2."""

    def run() -> int:
        with open(os.devnull, "w") as null, contextlib.redirect_stdout(null):
            code = cli_main(["analyze", str(path), "--json", *extra])
        if code == 2:
            raise RuntimeError(f"analyze {path.name} {' '.join(extra)} exited 2")
        return code

    return run


def sessions_in(path: Path) -> int:
    """How many sessions ``analyze --json --no-clients`` reports (the check before timing);
    raises unless every one is a clean stream (valid, no quirk): the input stands for a
    browser's ordinary traffic, and a generator bug once made every stream end in a chunk
    that is not JSON (timed, it measured six replicas raising, not an import)."""
    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    with contextlib.redirect_stdout(out):
        cli_main(["analyze", str(path), "--json", "--no-clients"])
    out.flush()
    sessions = orjson.loads(out.buffer.getvalue())["sessions"]
    for session in sessions:
        report = session["report"]
        if not report["valid"] or report["quirks"]:
            codes = [q["code"] for q in report["quirks"]]
            raise RuntimeError(f"{report['source']}: not a clean stream ({codes})")
    return len(sessions)


def interleaved(contenders: dict[str, Callable[[], Any]], rounds: int) -> dict[str, list[float]]:
    """Best [wall, cpu] per contender over ``rounds`` rounds in rotating order."""
    names = list(contenders)
    out = {name: [float("inf"), float("inf")] for name in names}
    for r in range(rounds):
        for name in names[r % len(names) :] + names[: r % len(names)]:
            gc.collect()
            w0, c0 = time.perf_counter(), time.process_time()
            contenders[name]()
            w1, c1 = time.perf_counter(), time.process_time()
            out[name] = [min(out[name][0], w1 - w0), min(out[name][1], c1 - c0)]
    return out


def floor(path: Path) -> None:
    with path.open("rb") as f:
        json.load(f)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rounds", type=int, default=2, help="interleaved rounds (default 2)")
    p.add_argument("--entries", type=int, default=20_000, help="entries in the HAR (20,000)")
    args = p.parse_args(argv)
    path, llm = har_file(args.entries)
    try:
        found = sessions_in(path)
        if found != llm:
            raise RuntimeError(f"analyze found {found} LLM sessions of {llm}")
        floor_name = "floor: json.load (stdlib)"
        contenders: dict[str, Callable[[], Any]] = {
            floor_name: lambda: floor(path),
            "analyze --json": analyze(path),
            "analyze --json --no-clients": analyze(path, "--no-clients"),
        }
        times = interleaved(contenders, args.rounds)
    except RuntimeError as exc:
        print(f"broken: {exc}")
        return 1
    size = path.stat().st_size
    print(f"HAR import, end to end, against its floor in the same run (best of {args.rounds})")
    print(
        f"{path.name}: {args.entries:,} entries, {size / 1e6:.1f} MB, {llm:,} LLM exchanges "
        f"(each with its preflight; the rest the page's own traffic)"
    )
    width = max(map(len, times))
    print(f"  {'':{width}}  wall s   cpu s  ms/entry")
    for name, (wall, cpu) in times.items():
        print(f"  {name:{width}}  {wall:6.2f}  {cpu:6.2f}  {wall / args.entries * 1e3:8.3f}")
    wall, cpu = times["analyze --json"]
    verdict = "PASS" if wall <= GOAL_SECONDS * args.entries / 20_000 else "FAIL"
    print(f"  {verdict}  analyze --json: {wall:.2f} s (cpu {cpu:.2f} s), goal ≤ "
          f"{GOAL_SECONDS * args.entries / 20_000:g} s for {args.entries:,} entries")  # fmt: skip
    fw, fc = times[floor_name]
    print(f"  analyze --json / json.load floor: {wall / fw:.1f}× (cpu {cpu / fc:.1f}×)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
