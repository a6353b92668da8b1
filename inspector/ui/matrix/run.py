"""The Matrix view's runs: a :class:`~inspector.net.matrix.runner.MatrixRunner` on the window's
event loop, its progress on a clock, its folder saved when it ends.

Invariants:
- One matrix runs at a time. Its cells reach the grid through :meth:`MatrixGrid.mark` (the
  runner's callbacks only note them); the grid is redrawn on this clock, every
  :data:`FLUSH_MS`, while the matrix runs, and once more when it ends. The clock stops with
  the run (no timer is left running).
- Cancel keeps every finished run; the folder (``matrix.json``, ``matrix.md``,
  ``matrix.html``) is written when a run ends, cancelled or not (in a worker thread, unless
  the task itself is being cancelled).
- A rerun (a cell, a row, the failed cells) runs into the same result and folder: every other
  cell stays as it was.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from pathlib import Path

import shiboken6
from PySide6.QtCore import QObject, QTimer, Signal

from inspector.core.matrix.exports import write_exports
from inspector.core.matrix.result import MatrixResult
from inspector.core.matrix.spec import MatrixSpec
from inspector.net.matrix.runner import MatrixRunner
from inspector.ui.matrix.grid import MatrixGrid

FLUSH_MS = 100
"""How often the grid and the progress are redrawn while a matrix runs."""


def new_folder(base: Path) -> Path:
    """A fresh folder for a matrix run from the window (``matrix-YYYYmmdd-HHMMSS``)."""
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    path, n = base / f"matrix-{stamp}", 1
    while path.exists():
        n += 1
        path = base / f"matrix-{stamp}-{n}"
    return path


class MatrixRun(QObject):
    """Runs matrices into the grid (see the module docstring)."""

    progress = Signal(int, int)
    """(runs finished, runs in this run) while running, and at its end."""
    running_changed = Signal(bool)
    ended = Signal(str)
    """The run ended: one line saying how (finished, cancelled, failed …)."""

    def __init__(self, grid: MatrixGrid, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.grid = grid
        self.runner: MatrixRunner | None = None
        self.task: asyncio.Task[None] | None = None
        self.demo_chunk_delay: float | None = None
        """The embedded demo's pause between frames (tests: 0)."""
        self._planned = 0
        self._cancelled = False
        self._clock = QTimer(self)
        self._clock.setInterval(FLUSH_MS)
        self._clock.timeout.connect(self._tick)

    @property
    def running(self) -> bool:
        return self.task is not None and not self.task.done()

    def start(
        self, spec: MatrixSpec, folder: Path, keys: list[tuple[str, str]] | None = None,
        result: MatrixResult | None = None,
    ) -> bool:  # fmt: skip
        """Run ``spec`` into ``folder`` (``keys``: only those cells, into ``result``)."""
        if self.running:
            return False
        runner = MatrixRunner(
            spec, folder, on_cell_started=self.grid.mark_started, on_cell_finished=self.grid.mark,
            demo_chunk_delay=self.demo_chunk_delay, result=result,
        )  # fmt: skip
        self.runner, self._cancelled = runner, False
        if (result is None or self.grid.result is not result) and not self.grid.adopt(
            runner.result
        ):
            self.grid.show_result(runner.result)
        chosen = keys if keys is not None else [c.key for c in runner.result]
        if keys is not None:  # a rerun's cells go back to pending at once
            for key in chosen:
                runner.result.cells[key].runs = []
                self.grid.started.discard(key)
                self.grid.mark(runner.result.cells[key])
        self._planned = len(chosen) * spec.runs
        self.grid.flush()
        self.task = asyncio.ensure_future(self._run(runner, chosen))
        self._clock.start()
        self.running_changed.emit(True)
        self._tick()
        return True

    def cancel(self) -> None:
        """Stop the sessions still running (finished runs are kept)."""
        if self.runner is not None and self.running:
            self._cancelled = True
            self.runner.cancel()

    async def wait(self) -> None:
        """Until the current run (if any) has ended and its folder is written."""
        if self.task is not None:
            await asyncio.gather(self.task, return_exceptions=True)

    def _done_in_run(self) -> int:
        if self.runner is None:
            return 0
        return min(self._planned, sum(len(c.runs) for c in self.runner.result))

    def _tick(self) -> None:
        self.grid.flush()
        self.progress.emit(self._done_in_run(), self._planned)

    async def _run(self, runner: MatrixRunner, keys: list[tuple[str, str]]) -> None:
        line = "finished"
        try:
            await runner.rerun(keys)
            if self._cancelled:
                line = "cancelled: finished cells kept"
        except asyncio.CancelledError:
            line = "stopped"
            raise
        except Exception as exc:  # said in one line: the window keeps running
            line = f"failed: {type(exc).__name__}: {exc}"
        finally:
            try:  # the folder first: it is written even when the window has gone
                if line == "stopped":  # cancelled from outside (the window closes): now
                    _write_folder(runner)
                else:  # ~40 ms of JSON and HTML for the default matrix: off the loop
                    await asyncio.to_thread(_write_folder, runner)
            except OSError as exc:
                line += f" (could not write {runner.out_dir}: {exc.strerror or exc})"
            if shiboken6.isValid(self._clock):
                self._clock.stop()
                self.grid.settle()
                self._tick()
                self.running_changed.emit(False)
                self.ended.emit(f"Matrix {line} — {runner.out_dir}")


def _write_folder(runner: MatrixRunner) -> None:
    """``matrix.json`` and the exports of a run that has ended (nothing changes its result
    meanwhile: another run waits for this task)."""
    runner.save()
    write_exports(runner.result, runner.out_dir)
