"""``make fuzz``: judge ``FUZZ_N`` hostile inputs on every core and report every crash.

Run from the checkout as ``PYTHONPATH=tests python -m fuzz -n 20000`` (``make fuzz FUZZ_N=…``).
The inputs are cut into tasks of ``TASK`` inputs, run by one worker process per core; a task
draws a twentieth of its inputs from the hypothesis strategies (:mod:`fuzz.strategies`, a
seeded run per task) and mutates the rest from the real recordings, the samples and what the
strategies drew (:mod:`fuzz.mutate`). Everything follows from ``--seed``: the same command
judges the same inputs.

Prints the inputs judged, the crashes, the distinct crash sites (``file:line`` of the innermost
core frame) with one error each, the slowest input and the wall time; saves each site's first
few crashing inputs under ``--out`` (``<site>/<sha1>.bin`` and a ``.txt`` with the variant and
error; re-run one with ``--replay FILE``); exits 1 on any crash.
"""

from __future__ import annotations

import argparse
import hashlib
import multiprocessing
import os
import random
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar, Final

from fuzz import mutate, target

REPO: Final = Path(__file__).resolve().parents[2]
REAL: Final = REPO.parent / "shared" / "fixtures" / "real"
SAMPLES: Final = REPO / "resources" / "samples"
TASK: Final = 2000
"""Inputs per task (a worker's unit of work, and of progress)."""
STRUCTURED: Final = 20
"""One input in this many comes straight from the hypothesis strategies (they are ~50× slower
to draw than a mutation is to make); the rest are mutations."""
KEPT_PER_SITE: Final = 3
"""Crashing inputs saved per site and task."""


SEEDS: Final = Path(__file__).parent / "seeds"
"""Hand-made seeds for the places issue 25 found keys in: an error body echoing the key with a
full stop after it, a key split across two tool-call argument fragments, captures of format
version 2 (masked ranges, redacted credential fields) and version 1."""


def corpus_paths() -> list[Path]:
    """The recordings and samples every mutation starts from (the recordings folder must
    exist: an empty corpus would fuzz nothing real)."""
    real = sorted(REAL.glob("*.sse"))
    if not real:
        raise SystemExit(f"fuzz: no recorded streams in {REAL}")
    return [*real, *sorted(SAMPLES.glob("*.jsonl")), *sorted(SEEDS.glob("*.*"))]


@dataclass
class Tally:
    """What a task (or the whole run) found."""

    inputs: int = 0
    crashes: int = 0
    sites: Counter[str] = field(default_factory=Counter)
    errors: dict[str, str] = field(default_factory=dict)
    saved: dict[str, list[str]] = field(default_factory=dict)
    slowest: tuple[float, str] = (0.0, "")

    def add(self, other: Tally) -> None:
        self.inputs += other.inputs
        self.crashes += other.crashes
        self.sites.update(other.sites)
        for site, error in other.errors.items():
            self.errors.setdefault(site, error)
        for site, files in other.saved.items():
            self.saved.setdefault(site, []).extend(files)
        self.slowest = max(self.slowest, other.slowest)


class Task:
    """One worker's run over some inputs (module-level state: one per process)."""

    corpus: ClassVar[list[bytes]] = []
    out: ClassVar[Path] = Path()

    def __init__(self) -> None:
        self.tally = Tally()

    def judge(self, data: bytes, variant: int, origin: str) -> None:
        t0 = time.perf_counter()
        try:
            target.run(data, variant)
        except Exception as exc:
            self._crash(data, variant, exc)
        spent = time.perf_counter() - t0
        self.tally.inputs += 1
        if spent > self.tally.slowest[0]:
            self.tally.slowest = (spent, f"{origin} ({len(data)} bytes, variant {variant})")

    def _crash(self, data: bytes, variant: int, exc: Exception) -> None:
        crash = target.crash_of(exc)
        tally = self.tally
        tally.crashes += 1
        tally.sites[crash.site] += 1
        tally.errors.setdefault(crash.site, crash.error)
        kept = tally.saved.setdefault(crash.site, [])
        if len(kept) < KEPT_PER_SITE:
            folder = self.out / crash.site.replace(os.sep, "_").replace(":", "_")
            folder.mkdir(parents=True, exist_ok=True)
            path = folder / f"{hashlib.sha1(data).hexdigest()[:16]}.bin"
            path.write_bytes(data)
            path.with_suffix(".txt").write_text(f"variant {variant}\n{crash.error}\n")
            kept.append(str(path))


def _init(out: str) -> None:
    Task.corpus = mutate.load_corpus(corpus_paths())
    Task.out = Path(out)


def run_task(args: tuple[int, int, int]) -> Tally:
    """Judge ``size`` inputs of task ``number`` under ``seed``."""
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as hseed

    from fuzz import strategies

    number, size, seed = args
    task = Task()
    rng = random.Random(seed * 1_000_003 + number)
    drawn: list[bytes] = []
    structured = max(1, size // STRUCTURED)

    @hseed(seed * 1_000_003 + number)
    @settings(max_examples=structured, database=None, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))  # fmt: skip
    @given(strategies.inputs())
    def draw(example: tuple[bytes, int]) -> None:
        if len(drawn) < structured:  # hypothesis may call once more than asked; count exactly
            drawn.append(example[0])
            task.judge(example[0], example[1], f"task {number} drawn {len(drawn)}")

    draw()
    pool = [*Task.corpus, *drawn]
    for i in range(size - len(drawn)):
        task.judge(mutate.mutate(pool, rng), rng.randrange(1 << 16), f"task {number} mutant {i}")
    return task.tally


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m fuzz", description=__doc__.split("\n")[0])
    parser.add_argument("-n", type=int, default=1_000_000, help="inputs to judge")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="worker processes")
    parser.add_argument("--seed", type=int, default=0, help="names every input of the run")
    parser.add_argument("--out", default=str(REPO / "build" / "fuzz-crashes"),
                        help="where crashing inputs are saved")  # fmt: skip
    parser.add_argument("--replay", metavar="FILE", help="judge one saved input (every variant)")
    parser.add_argument("--engine", choices=("mutate", "atheris"), default="mutate",
                        help="mutate: hypothesis and mutation (the default); atheris: "
                        "coverage-guided libFuzzer, when atheris is installed")  # fmt: skip
    args = parser.parse_args(argv)
    if args.replay:
        return replay(Path(args.replay))
    if args.engine == "atheris":
        return atheris_run(args)
    tasks = [(k, min(TASK, args.n - k * TASK), args.seed) for k in range(-(-args.n // TASK))]
    total = Tally()
    start = time.monotonic()
    print(f"fuzz: {args.n:,} inputs in {len(tasks)} tasks on {args.jobs} worker(s), seed "
          f"{args.seed}; crashing inputs go to {args.out}", flush=True)  # fmt: skip
    step = max(1, len(tasks) // 20)
    with multiprocessing.get_context("fork").Pool(args.jobs, _init, (args.out,)) as pool:
        for done, tally in enumerate(pool.imap_unordered(run_task, tasks), 1):
            total.add(tally)
            if done % step == 0 or done == len(tasks):
                spent = time.monotonic() - start
                print(f"  {total.inputs:>9,} inputs  {total.crashes:,} crashes  "
                      f"{len(total.sites)} sites  {spent:7.1f} s", flush=True)  # fmt: skip
    wall = time.monotonic() - start
    _summary(total, wall)
    return 1 if total.crashes else 0


def atheris_run(args: argparse.Namespace) -> int:
    """``args.n`` coverage-guided inputs, split over one :mod:`fuzz.coverage` process per job."""
    import importlib.util
    import json
    import subprocess
    import tempfile

    if importlib.util.find_spec("atheris") is None:
        print("fuzz: atheris is not installed (pip install atheris); use --engine mutate")
        return 2
    tallies = Path(tempfile.mkdtemp(prefix="fuzz-tallies-"))
    share = [args.n // args.jobs + (j < args.n % args.jobs) for j in range(args.jobs)]
    print(f"fuzz: {args.n:,} coverage-guided inputs (atheris) on {args.jobs} worker(s), seed "
          f"{args.seed}; crashing inputs go to {args.out}", flush=True)  # fmt: skip
    start = time.monotonic()
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "fuzz.coverage",
                str(runs),
                str(args.seed * 1000 + j),
                args.out,
                str(tallies / f"{j}.json"),
                "-print_final_stats=0",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for j, runs in enumerate(share)
        if runs
    ]
    for proc in procs:
        proc.wait()
    total = Tally()
    for path in sorted(tallies.glob("*.json")):
        raw = json.loads(path.read_text())
        total.add(Tally(raw["inputs"], raw["crashes"], Counter(raw["sites"]), raw["errors"],
                        raw["saved"], tuple(raw["slowest"])))  # fmt: skip
    if total.inputs < args.n:
        print(f"fuzz: the workers judged only {total.inputs:,} inputs (a worker died?)")
    _summary(total, time.monotonic() - start)
    return 1 if total.crashes or total.inputs < args.n else 0


def _summary(total: Tally, wall: float) -> None:
    print(f"inputs: {total.inputs:,}")
    print(f"crashes: {total.crashes:,}")
    print(f"distinct crash sites: {len(total.sites)}")
    for site, count in total.sites.most_common():
        print(f"  {count:>7,}  {site}  {total.errors[site]}")
        for path in total.saved.get(site, [])[:1]:
            print(f"           e.g. {path}")
    print(f"slowest input: {total.slowest[0] * 1000:.1f} ms, {total.slowest[1]}")
    print(f"wall time: {wall:.1f} s ({total.inputs / max(wall, 1e-9):,.0f} inputs/s)")


def replay(path: Path) -> int:
    """Judge one saved input under every variant; print the first crash's traceback."""
    import traceback

    data = path.read_bytes()
    for variant in range(target.VARIANTS):
        try:
            target.run(data, variant)
        except Exception:
            print(f"variant {variant} ({target.settings_of(variant)}):")
            traceback.print_exc()
            return 1
    print(f"{path}: no crash under any of the {target.VARIANTS} variants")
    return 0


if __name__ == "__main__":
    sys.exit(main())
