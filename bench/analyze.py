"""The headless path's benchmark: ``toolcall-inspector analyze`` end to end (the file read, the
ingest, the verdicts, every applicable client replica and the JSON written) against the
cheapest possible "parse every chunk" loop over the same file, measured in the same run.

Run with ``make bench`` or ``.venv/bin/python bench/analyze.py [--rounds R] [--large]``.
A report, not a test: it prints figures and PASS/FAIL lines and exits 0 whatever they say; it
exits 1 only when a contender fails (``analyze`` exits 2, or a floor finds fewer events than
the body has), so it never silently times a broken path. bench/README.md names each input,
floor and goal.

The contenders of one input run interleaved, round by round in rotating order, in this
process (``inspector.cli.main.main`` with its stdout sent to ``/dev/null``, as a script that
pipes ``analyze --json`` away would), best wall time of each; the garbage collector stays on
for every contender, as in a real run. A second column gives process CPU time, a cross-check
that preemption by other processes on a shared machine did not skew the ratio.
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import gc
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent))

from clients import ingest as ingest_body
from ingest import make_workload
from plain_streams import anthropic_body, responses_body

from inspector.cli.main import main as cli_main
from inspector.core.capture.writer import CaptureWriter
from inspector.core.clients.judge import exchange_of, expected_calls, run_replica, run_replicas
from inspector.core.clients.openai_sdk.wire import forget
from inspector.core.clients.plain.reading import READERS, read
from inspector.core.clients.registry import REPLICAS

GEN_VERSION = 4
"""Bump when an input's bytes change (the cached files are named by it; a new input has a new
name, no bump). 4: the captures
end cleanly (``eof``, as the product records a body read to its end; ``complete`` read as a
cut body) and declare the ``write_file`` tool their calls name."""
NET_READ = 16 * 1024
"""Bytes per recorded chunk of a generated capture (one network read each)."""
URL = "https://api.openai.com/v1/chat/completions"


# -- the inputs ---------------------------------------------------------------------------


def _cache_dir() -> Path:
    path = Path(tempfile.gettempdir()) / f"toolcall-inspector-bench-analyze-v{GEN_VERSION}"
    path.mkdir(exist_ok=True)
    return path


def stream_file() -> tuple[Path, int]:
    """The 58,000-chunk OpenAI stream: bench/ingest.py's body (8 calls, 8-character argument
    fragments) with ~70 KB of arguments per call, as a raw SSE body (``curl -N`` output)."""
    path = _cache_dir() / "openai-58k.sse"
    if not path.exists():
        w = make_workload(8, 68_300)
        path.write_bytes(w.body)
    return path, path.read_bytes().count(b"\ndata: ") + 1


KEEP_ALIVE_AFTER = 100
"""The not-plain stream's one difference: a ``: keep-alive`` comment after this many events."""


def stream_file_not_plain() -> tuple[Path, int]:
    """The 58,000-chunk stream made not plain by one ``: keep-alive`` comment after its 100th
    event (as proxies and several providers send): the plain reading refuses it, so every
    replica replays it; every replica still agrees. Events: one more than the plain one."""
    path = _cache_dir() / "openai-58k-not-plain.sse"
    if not path.exists():
        data, cut = stream_file()[0].read_bytes(), 0
        for _ in range(KEEP_ALIVE_AFTER):
            cut = data.index(b"\n\n", cut) + 2
        path.write_bytes(data[:cut] + b": keep-alive\n\n" + data[cut:])
    return path, path.read_bytes().count(b"\ndata: ") + 1


def _big_call_chunks(calls: int, call_bytes: int, fragment: int) -> Iterator[bytes]:
    """An OpenAI Chat Completions stream of ``calls`` write_file calls whose arguments are
    ``call_bytes`` long each, in ``fragment``-character pieces (SSE events, one a yield)."""
    head = b'{"id":"chatcmpl-bench","object":"chat.completion.chunk","created":1726000000,'
    head += b'"model":"gpt-4o","choices":[{"index":0,"delta":'
    tail = b',"logprobs":null,"finish_reason":null}]}'
    prose = 'Die Straße, naïve café, 日本語, 🚀, a "quoted" word, C:\\path, tab\there.\n'
    for i in range(calls):
        content = prose * (call_bytes // len(prose) + 1)
        args = json.dumps({"path": f"notes/file-{i}.md", "content": content}, ensure_ascii=False)
        content = content[: int(len(content) * call_bytes / len(args.encode()))]  # UTF-8 bytes
        args = json.dumps({"path": f"notes/file-{i}.md", "content": content}, ensure_ascii=False)
        opening = {
            "tool_calls": [
                {
                    "index": i,
                    "id": f"call_{i:024d}",
                    "type": "function",
                    "function": {"name": "write_file", "arguments": ""},
                }
            ]
        }
        yield b"data: " + head + orjson.dumps(opening) + tail + b"\n\n"
        for k in range(0, len(args), fragment):
            fragment_ = {"index": i, "function": {"arguments": args[k : k + fragment]}}
            piece = {"tool_calls": [fragment_]}
            yield b"data: " + head + orjson.dumps(piece) + tail + b"\n\n"
    yield (
        b'data: {"id":"chatcmpl-bench","object":"chat.completion.chunk","created":1726000000,'
        b'"model":"gpt-4o","choices":[{"index":0,"delta":{},"logprobs":null,'
        b'"finish_reason":"tool_calls"}]}\n\ndata: [DONE]\n\n'
    )


def capture_file(
    name: str, calls: int, call_bytes: int, fragment: int, per_event: bool = False
) -> tuple[Path, int]:
    """A capture (.jsonl, written by the product's own CaptureWriter) of one attempt whose
    response is :func:`_big_call_chunks`, recorded in 16 KiB network reads (``per_event``:
    one chunk per SSE event, as a provider that flushes every event is read)."""
    path = _cache_dir() / f"{name}.jsonl"
    if not path.exists():
        tmp = path.with_suffix(".part")
        with CaptureWriter(tmp, meta={"dialect": "openai-chat"}) as writer:
            tool = {"type": "function", "function": {"name": "write_file", "parameters": {}}}
            body = {"model": "gpt-4o", "stream": True, "messages": [], "tools": [tool]}
            writer.request(1, "POST", URL, {"content-type": "application/json"}, body, 0.0)
            writer.response(1, 200, {"content-type": "text/event-stream"}, 0.1)
            pending = bytearray()
            t = 0.1
            for event in _big_call_chunks(calls, call_bytes, fragment):
                if per_event:
                    t += 0.0001
                    writer.chunk(1, t, event)
                    continue
                pending += event
                while len(pending) >= NET_READ:
                    t += 0.0001
                    writer.chunk(1, t, bytes(pending[:NET_READ]))
                    del pending[:NET_READ]
            if pending:
                writer.chunk(1, t + 0.0001, bytes(pending))
            writer.end(1, t + 0.001, "eof")
        tmp.rename(path)
    chunks = []
    with path.open("rb") as f:
        for line in f:
            record = orjson.loads(line)
            if record.get("type") == "chunk":
                chunks.append(_chunk_bytes(record))
    events = b"".join(chunks).count(b"\ndata: ") + 1
    return path, events


def _chunk_bytes(record: dict[str, Any]) -> bytes:
    """A chunk record's bytes: its ``text`` (UTF-8), or its ``b64`` (a read that cut a
    character)."""
    text = record.get("text")
    return text.encode() if text is not None else base64.b64decode(record["b64"])


# -- the floors ---------------------------------------------------------------------------


def floor_stream(path: Path, loads: Callable[[bytes], Any], done: bool = True) -> int:
    """Read the raw body, split it on newlines, ``loads`` every ``data:`` line but [DONE]
    (``done``: the body ends with one, counted as an event)."""
    n = 0
    for line in path.read_bytes().split(b"\n"):
        if line.startswith(b"data: ") and line != b"data: [DONE]":
            loads(line[6:])
            n += 1
    return n + done


def floor_capture(path: Path, loads: Callable[[bytes], Any]) -> int:
    """Read the capture, ``loads`` every record, join the chunks' text, split it on newlines and
    ``loads`` every ``data:`` line but [DONE]: the least any reader of a capture must do."""
    chunks: list[bytes] = []
    with path.open("rb") as f:
        for line in f:
            record = loads(line)
            if record.get("type") == "chunk":
                chunks.append(_chunk_bytes(record))
    n = 0
    for line in b"".join(chunks).split(b"\n"):
        if line.startswith(b"data: ") and line != b"data: [DONE]":
            loads(line[6:])
            n += 1
    return n + 1


# -- timing -------------------------------------------------------------------------------


@dataclass
class Timing:
    wall: float = float("inf")
    cpu: float = float("inf")
    """This process's CPU time."""
    all_cpu: float = float("inf")
    """This process's and its children's (the read-ahead process ``analyze`` starts for a
    large capture decodes records on the other core; it is reaped before the run returns)."""


def _cpu_all() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def analyze(path: Path, *extra: str) -> Callable[[], int]:
    """``toolcall-inspector analyze PATH --json EXTRA…`` in this process, stdout discarded;
    raises when it exits 2 (not a timing of a broken path)."""

    def run() -> int:
        with open(os.devnull, "w") as null, contextlib.redirect_stdout(null):
            code = cli_main(["analyze", str(path), "--json", *extra])
        if code == 2:
            raise RuntimeError(f"analyze {path.name} {' '.join(extra)} exited 2")
        return code

    return run


def interleaved(contenders: dict[str, Callable[[], Any]], rounds: int) -> dict[str, Timing]:
    """Best wall and CPU time per contender over ``rounds`` rounds in rotating order."""
    names = list(contenders)
    out = {name: Timing() for name in names}
    for r in range(rounds):
        for name in names[r % len(names) :] + names[: r % len(names)]:
            gc.collect()
            w0, c0, a0 = time.perf_counter(), time.process_time(), _cpu_all()
            contenders[name]()
            w1, c1, a1 = time.perf_counter(), time.process_time(), _cpu_all()
            out[name].wall = min(out[name].wall, w1 - w0)
            out[name].cpu = min(out[name].cpu, c1 - c0)
            out[name].all_cpu = min(out[name].all_cpu, a1 - a0)
    return out


@dataclass
class Goal:
    label: str
    numerator: str
    denominator: str
    limit: float
    minus: str | None = None
    """Subtract this contender from the numerator (the replicas' share: with - without)."""


def report(
    title: str, times: dict[str, Timing], goals: list[Goal], events: int, floor: str = ""
) -> list[str]:
    """The lines for one input: each contender's time and µs/event (and its wall time over
    the ``floor`` contender's, when named), then each goal's ratio against its floor with
    PASS/FAIL (decided on wall time; CPU time beside it: this process's, and with its child
    processes', the read-ahead's)."""
    lines = [title]
    width = max(len(n) for n in times)
    lines.append(f"  {'':{width}}  wall s   cpu s  +child  µs/event" + ("  × floor" * bool(floor)))
    for name, t in times.items():
        over = f"  {t.wall / times[floor].wall:7.2f}" if floor else ""
        lines.append(
            f"  {name:{width}}  {t.wall:6.2f}  {t.cpu:6.2f}  {t.all_cpu:6.2f}  "
            f"{t.wall / events * 1e6:8.2f}{over}"
        )

    def ratio(goal: Goal, attr: str) -> float:
        num = getattr(times[goal.numerator], attr)
        if goal.minus is not None:
            num -= getattr(times[goal.minus], attr)
        return num / getattr(times[goal.denominator], attr)

    for goal in goals:
        wall, cpu, both = ratio(goal, "wall"), ratio(goal, "cpu"), ratio(goal, "all_cpu")
        verdict = "PASS" if wall <= goal.limit else "FAIL"
        lines.append(
            f"  {verdict}  {goal.label}: {wall:.2f}× (cpu {cpu:.2f}×, with child processes "
            f"{both:.2f}×), goal ≤ {goal.limit:g}×"
        )
    return lines


def check_floor(count: int, events: int, who: str) -> None:
    if count != events:
        raise RuntimeError(f"{who} read {count} events of {events}")


def bench_stream(rounds: int) -> list[str]:
    path, events = stream_file()
    other, _ = stream_file_not_plain()
    check_floor(floor_stream(path, json.loads), events, "the stdlib floor")
    check_floor(floor_stream(other, json.loads), events, "the stdlib floor (not plain)")
    contenders: dict[str, Callable[[], Any]] = {
        "floor: split + json.loads (stdlib)": lambda: floor_stream(path, json.loads),
        "floor: split + orjson.loads": lambda: floor_stream(path, orjson.loads),
        "analyze --json": analyze(path),
        "analyze --json --no-clients": analyze(path, "--no-clients"),
        "not plain: floor (stdlib)": lambda: floor_stream(other, json.loads),
        "not plain: analyze --json": analyze(other),
        "not plain: analyze --json --no-clients": analyze(other, "--no-clients"),
    }
    times = interleaved(contenders, rounds)
    stdlib = "floor: split + json.loads (stdlib)"
    goals = [
        Goal("analyze with clients / stdlib floor", "analyze --json", stdlib, 2.5),
        Goal(
            "all replicas / the ingest (with - without clients, over without)",
            "analyze --json",
            "analyze --json --no-clients",
            1.0,
            minus="analyze --json --no-clients",
        ),
        Goal(
            "not plain (every replica replayed): analyze with clients / stdlib floor",
            "not plain: analyze --json",
            "not plain: floor (stdlib)",
            2.5,
        ),
        Goal(
            "not plain: all replicas replayed / the ingest",
            "not plain: analyze --json",
            "not plain: analyze --json --no-clients",
            1.0,
            minus="not plain: analyze --json --no-clients",
        ),
    ]
    size = path.stat().st_size
    title = (
        f"{path.name}: raw SSE body, {size / 1e6:.1f} MB, {events:,} events, 8 calls "
        f"(not plain: {other.name}, one keep-alive comment more)"
    )
    return report(title, times, goals, events) + replica_costs(other, events, plain=path)


def replica_costs(
    path: Path, events: int, dialect: str = "openai-chat", plain: Path | None = None
) -> list[str]:
    """Each replica speaking the stream's dialect alone (``run_replica``: the replica fed its
    events plus the driver's prefix check), then all of them together as ``analyze`` runs
    them (``run_replicas``: in turns, what they decode alike decoded once), replaying
    ``path``, best CPU time of 2 runs each, µs per event next to the ingest's; then the plain
    reading that replaces them all on ``plain`` (the plain stream; ``path`` itself if None)."""
    data = path.read_bytes()
    t0 = time.process_time()
    view = ingest_body(dialect, data).final
    ingest = time.process_time() - t0
    exchange, expected = replace(exchange_of(view), body=data), expected_calls(view)
    readers = [r for r in REPLICAS if dialect in r.dialects]
    lines = [
        f"  per replica, replaying {path.name} (cpu, best of 2; the ingest alone "
        f"{ingest / events * 1e6:.1f} µs/event):"
    ]

    def best(run: Callable[[], Any]) -> tuple[float, Any]:
        out, seconds = None, float("inf")
        for _ in range(2):
            forget()
            gc.collect()
            t0 = time.process_time()
            out = run()
            seconds = min(seconds, time.process_time() - t0)
        return seconds, out

    total = 0.0
    for replica in readers:
        seconds, result = best(lambda r=replica: run_replica(r, exchange, expected, False))
        total += seconds
        word = "agrees" if result.agrees else f"disagrees ({result.error})"
        lines.append(
            f"    {replica.name:14} {seconds / events * 1e6:7.1f} µs/event  "
            f"{seconds / ingest:5.1f}× ingest  {word}"
        )
    lines.append(
        f"    {'sum of these':14} {total / events * 1e6:7.1f} µs/event  "
        f"{total / ingest:5.1f}× ingest"
    )
    seconds, results = best(lambda: run_replicas(readers, exchange, expected, False))
    word = "all agree" if all(r.agrees for r in results) else "NOT all agree"
    lines.append(
        f"    {'together':14} {seconds / events * 1e6:7.1f} µs/event  {seconds / ingest:5.1f}× "
        f"ingest  (in turns, as analyze runs them: one JSON decode per event; {word})"
    )
    plain = plain or path
    if plain != path:
        body = plain.read_bytes()
        view = ingest_body(dialect, body).final
        exchange, expected = replace(exchange_of(view), body=body), expected_calls(view)
    seconds, reading = best(lambda: read(exchange, expected=expected))
    declaring = [r.name for r in REPLICAS if dialect in r.plain]
    word = "plain" if reading is not None else "NOT plain: every replica is replayed"
    lines.append(
        f"  what analyze runs instead on the plain stream ({plain.name}): the plain reading, "
        f"once for {len(declaring)} replicas, {seconds / events * 1e6:.1f} µs/event "
        f"({seconds / ingest:.2f}× ingest), {word}"
    )
    return lines


def named_file(dialect: str) -> tuple[Path, int]:
    """The Responses or Anthropic stream (:mod:`plain_streams`): 8 calls of ~24 KB arguments
    in 8-character fragments, a raw SSE body."""
    path = _cache_dir() / f"{dialect}-8x24k.sse"
    if not path.exists():
        make = responses_body if dialect == "openai-responses" else anthropic_body
        path.write_bytes(make(8, 24_000))
    return path, path.read_bytes().count(b"\ndata: ")  # each event's data follows its name


def replayed(path: Path, dialect: str) -> Callable[[], int]:
    """:func:`analyze` with ``dialect``'s plain reading unregistered: every client replayed,
    as before the plain stream (the same run's measure of what it saves)."""
    run = analyze(path)

    def without_plain() -> int:
        reader = READERS.pop(dialect)
        try:
            return run()
        finally:
            READERS[dialect] = reader

    return without_plain


def bench_named(dialect: str, rounds: int) -> list[str]:
    """A plain stream of another dialect: ``analyze`` with and without clients against the
    stdlib floor, and each replica's replay against the plain reading (no goal of its own:
    the stream goals are the chat stream's)."""
    path, events = named_file(dialect)
    check_floor(floor_stream(path, json.loads, done=False), events, "the stdlib floor")
    stdlib = "floor: split + json.loads (stdlib)"
    contenders: dict[str, Callable[[], Any]] = {
        stdlib: lambda: floor_stream(path, json.loads, done=False),
        "analyze --json": analyze(path),
        "analyze --json, every client replayed": replayed(path, dialect),
        "analyze --json --no-clients": analyze(path, "--no-clients"),
    }
    times = interleaved(contenders, rounds)
    title = (
        f"{path.name}: raw SSE body ({dialect}), {path.stat().st_size / 1e6:.1f} MB, "
        f"{events:,} events, 8 calls"
    )
    return report(title, times, [], events, floor=stdlib) + replica_costs(path, events, dialect)


def bench_capture(
    name: str,
    calls: int,
    rounds: int,
    fragment: int = 38,
    *,
    call_bytes: int = 880_000,
    per_event: bool = False,
    clients: bool = True,
) -> list[str]:
    """One capture: ``analyze --json`` (and ``--no-clients``) against the orjson floor, and
    the peak memory of each in a process of its own. ``clients=False``: only
    ``--no-clients`` (the replicas would take minutes)."""
    path, events = capture_file(name, calls, call_bytes, fragment, per_event)
    check_floor(floor_capture(path, orjson.loads), events, "the orjson floor")
    floor = "floor: records + chunks' data lines, orjson"
    contenders: dict[str, Callable[[], Any]] = {floor: lambda: floor_capture(path, orjson.loads)}
    if clients:
        contenders["analyze --json"] = analyze(path)
    contenders["analyze --json --no-clients"] = analyze(path, "--no-clients")
    times = interleaved(contenders, rounds)
    goals = [Goal("analyze --no-clients / orjson floor", "analyze --json --no-clients", floor, 3.0)]
    if clients:
        goals.insert(0, Goal("analyze with clients / orjson floor", "analyze --json", floor, 3.0))
        goals.append(
            Goal(
                "all replicas / the ingest (with - without clients, over without)",
                "analyze --json",
                "analyze --json --no-clients",
                1.0,
                minus="analyze --json --no-clients",
            )
        )
    size = path.stat().st_size
    shape = "one chunk per event" if per_event else "16 KiB reads"
    title = (
        f"{path.name}: capture, {size / 1e6:.1f} MB, {events:,} events ({shape}), "
        f"{calls} calls of {call_bytes / 1e3:.0f} KB arguments"
    )
    lines = report(title, times, goals, events)
    runs: list[tuple[str, ...]] = [(), ("--no-clients",)] if clients else [("--no-clients",)]
    for extra in runs:
        lines.append(peak_memory(path, size, *extra))
    return lines


MEMORY_GOAL = 8.0
"""Peak memory of ``analyze`` over the input's size (issue 30: "memory ≤ 8× the input")."""


IDLE_INPUT = Path(__file__).resolve().parents[1] / "resources" / "samples"
IDLE_INPUT /= "responses-function-call.jsonl"
"""A capture of a few KB: ``analyze`` of it peaks at what the interpreter and the modules
themselves hold (printed beside each ratio: on a 20 MB input it is most of the peak)."""
_idle: dict[tuple[str, ...], int] = {}


def peak_memory(path: Path, size: int, *extra: str) -> str:
    """``analyze --json PATH EXTRA…`` in a process of its own (stdout to /dev/null): its peak
    resident memory (its own ``VmHWM``; the read-ahead process's is its own, ~60 MB) over the
    input's size, with PASS/FAIL against :data:`MEMORY_GOAL`; beside it, the
    ratio above an idle run's peak (:data:`IDLE_INPUT`), as bench/stress.py prints it."""
    if extra not in _idle:
        _idle[extra] = _peak(IDLE_INPUT, *extra)
    peak = _peak(path, *extra)
    ratio, above = peak / size, (peak - _idle[extra]) / size
    verdict = "PASS" if ratio <= MEMORY_GOAL else "FAIL"
    what = " ".join(["analyze --json", *extra])
    return (
        f"  {verdict}  peak memory of {what}: {peak / 1e6:.0f} MB, {ratio:.1f}× the input "
        f"({above:.1f}× above an idle run's {_idle[extra] / 1e6:.0f} MB), "
        f"goal ≤ {MEMORY_GOAL:g}×"
    )


_CHILD = """
import atexit, sys
def _hwm():
    with open("/proc/self/status") as f:
        sys.stderr.write(next(x for x in f if x.startswith("VmHWM:")).split()[1] + "\\n")
atexit.register(_hwm)
from inspector.cli.main import main
sys.exit(main(sys.argv[1:]))
"""
"""``analyze`` in a child that writes its own peak (``VmHWM``, KiB) on stderr as it exits: a
child's ``ru_maxrss`` would count this process's size when it forked (Linux keeps the larger
of the two across ``exec``), and this process holds the floors' data."""


def _peak(path: Path, *extra: str) -> int:
    """Peak RSS in bytes of ``analyze --json PATH EXTRA…`` in a child (RuntimeError: exit 2)."""
    argv = [sys.executable, "-c", _CHILD, "analyze", str(path), "--json", *extra]
    with open(os.devnull, "wb") as null:
        child = subprocess.Popen(argv, stdout=null, stderr=subprocess.PIPE)
        try:
            _, err = child.communicate()
        except BaseException:  # the bench stopped (Ctrl+C): the child goes with it
            child.kill()
            child.wait()
            raise
    if child.returncode == 2:
        raise RuntimeError(f"analyze {path.name} {' '.join(extra)} exited 2")
    return int(err.split()[-1]) * 1024


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rounds", type=int, default=2, help="interleaved rounds (default 2)")
    p.add_argument(
        "--large",
        action="store_true",
        help="also the 100 MB capture of fifteen 880 KB calls and the million-chunk capture",
    )
    p.add_argument(
        "--large-no-clients",
        action="store_true",
        help="with --large: time the large captures with --no-clients only (the replicas "
        "take minutes on them)",
    )
    p.add_argument(
        "--stream-only", action="store_true", help="only the 58k stream (plain and not plain)"
    )
    args = p.parse_args(argv)
    print(f"analyze, end to end, against its floor in the same run (best of {args.rounds})")
    try:
        sections = [lambda: bench_stream(args.rounds)]
        if not args.stream_only:
            sections += [
                lambda: bench_named("openai-responses", args.rounds),
                lambda: bench_named("anthropic", args.rounds),
            ]
            sections.append(lambda: bench_capture("capture-20mb", 3, args.rounds))
        if args.large:
            clients = not args.large_no_clients
            sections.append(lambda: bench_capture("capture-100mb", 15, 1, clients=clients))
            # ~1,000,000 events: fifteen 880 KB calls in 11-character fragments
            sections.append(
                lambda: bench_capture("capture-1m-chunks", 15, 1, fragment=11, clients=clients)
            )
            # the window's million-chunk capture (bench/ui.py's shape): one chunk per event,
            # eight calls of ~1 MB in 8-character fragments
            sections.append(
                lambda: bench_capture(
                    "capture-1m-one-event-chunks",
                    8,
                    1,
                    fragment=8,
                    call_bytes=1_000_000,
                    per_event=True,
                    clients=clients,
                )
            )
        for section in sections:
            print("\n".join(section()), flush=True)
    except RuntimeError as exc:
        print(f"broken: {exc}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
