"""Coverage-guided fuzzing with atheris (libFuzzer), run by ``python -m fuzz --engine atheris``.

Each worker is its own process (libFuzzer ends the process when its runs are done): it
instruments ``inspector.core``, seeds libFuzzer with the recordings and samples (two leading
bytes choose the variant, :func:`fuzz.target.settings_of`), and judges every input libFuzzer
makes with :func:`fuzz.target.run`. A crash is caught and counted as the runner counts it (saved
under the crash folder by site) instead of stopping libFuzzer, and the worker's tally is written
as JSON the moment its last run is judged, for the runner to add up.

Usage (one worker): ``PYTHONPATH=tests python -m fuzz.coverage RUNS SEED OUT TALLY [libFuzzer
flags…]``.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

import atheris  # type: ignore[import-not-found]

with atheris.instrument_imports(include=["inspector.core"]):
    from fuzz.__main__ import Task, corpus_paths  # imports the core: instrumented
    from fuzz.mutate import load_corpus


def main() -> None:
    runs, seed, out, tally_path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
    Task.out = Path(out)
    task = Task()
    seeds = Path(tempfile.mkdtemp(prefix="fuzz-seeds-"))
    for i, data in enumerate(load_corpus(corpus_paths())):
        (seeds / f"{i}.bin").write_bytes((i * 7919 % 65536).to_bytes(2, "little") + data)

    def one_input(data: bytes) -> None:
        task.judge(data[2:], int.from_bytes(data[:2], "little"), f"atheris seed {seed}")
        if task.tally.inputs == runs:  # libFuzzer exits right after the last run
            t = task.tally
            Path(tally_path).write_text(json.dumps({
                "inputs": t.inputs, "crashes": t.crashes, "sites": dict(t.sites),
                "errors": t.errors, "saved": t.saved, "slowest": list(t.slowest),
            }))  # fmt: skip

    flags = [f"-runs={runs}", f"-seed={seed + 1}", "-max_len=65536", *sys.argv[5:], str(seeds)]
    atheris.Setup([sys.argv[0], *flags], one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
