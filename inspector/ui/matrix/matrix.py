"""The Matrix view (Live ▸ Matrix…): a compatibility matrix run, filled live as its cells
finish, or a saved one opened; a cell opens its capture in the main window's lanes.

Invariants:
- The window wires the grid (:mod:`.grid`), the runs (:mod:`.run`) and the spec
  builder (:mod:`.spec`) to its buttons; it computes no word, rate or change itself
  (:mod:`inspector.core.matrix`).
- Nothing blocks the loop: no modal ``exec()``; file dialogs say one line instead when
  headless (:func:`inspector.ui.base.dialogs.headless_instead`).
- A cell's capture is opened through the main window's own open path (``open_capture``).
- A spec (or a rerun) that would run no session (no targets, no scenarios, every target
  skipped for want of a key) is not run: the status line says why.
- Reruns and exports need a matrix on show; reruns need its spec (a saved matrix whose spec no
  longer loads shows, but says why it cannot rerun).
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from inspector.core.base.errors import InspectorError
from inspector.core.clients.registry import REPLICAS
from inspector.core.matrix.cells import ClientOutcome
from inspector.core.matrix.diff import CLIENT_PREFIX, counts, diff
from inspector.core.matrix.exports import summary, write_exports
from inspector.core.matrix.result import FILE_NAME, MatrixResult, load_result
from inspector.core.matrix.spec import MatrixSpec
from inspector.net.matrix.default import default_spec
from inspector.net.matrix.runner import nothing_to_run
from inspector.ui.base import dialogs
from inspector.ui.matrix.grid import MatrixGrid
from inspector.ui.matrix.run import MatrixRun, new_folder
from inspector.ui.matrix.spec import SpecDialog

BUTTONS = (
    ("Run", "run", "Run the matrix (the spec below: the embedded default until you build one)"),
    ("Spec…", "edit_spec", "Tick targets and scenarios, runs, validation; load or save a spec"),
    ("Cancel", "cancel", "Stop the sessions still running: finished cells are kept"),
    ("Rerun cell", "rerun_cell", "Run the selected cell again"),
    ("Rerun row", "rerun_row", "Run the selected target's row again"),
    ("Rerun failed", "rerun_failed", "Run again every cell with an error or not finished"),
    ("Open…", "open_dialog", "Open a saved matrix folder"),
    ("Compare with…", "compare_dialog", "Mark the cells that changed since another matrix"),
    ("Clear comparison", "clear_comparison", "Remove the comparison's marks"),
    ("Export…", "export_dialog", "Write matrix.json, matrix.md, matrix.html (and captures)"),
)
"""(label, method, tooltip) of each button, in order."""
_NA = ClientOutcome("n/a", None)
REPLICA_NAMES = [r.name for r in REPLICAS]
"""The client column group of a matrix not run yet (the runner judges these)."""


class MatrixWindow(QWidget):
    """The Matrix view (see the module docstring)."""

    open_capture = Signal(str, str)
    """Open this capture in the main window's lanes (and, with a client's name, show the
    Clients view)."""

    def __init__(self, base: Path, parent: QWidget | None = None) -> None:
        super().__init__(parent, Qt.WindowType.Window)
        self.setObjectName("matrix-window")
        self.setWindowTitle("Matrix — Tool-Call Inspector")
        self.base = base
        """Where matrices run from the window get their folder."""
        self.spec: MatrixSpec = default_spec()
        self.folder: Path | None = None
        self.spec_dialog: SpecDialog | None = None
        self.grid = MatrixGrid()
        self.runs = MatrixRun(self.grid, self)
        self.buttons: dict[str, QPushButton] = {}
        top = QHBoxLayout()
        for text, name, tip in BUTTONS:
            b = self.buttons[name] = QPushButton(text)
            b.setObjectName(f"matrix-{name.replace('_', '-')}")
            b.setToolTip(tip)
            slot: Callable[[], object] = getattr(self, name)
            b.clicked.connect(lambda _checked=False, s=slot: s())
            top.addWidget(b)
            if name in ("cancel", "rerun_failed"):
                top.addSpacing(12)
        top.addStretch(1)
        self.progress = QProgressBar()
        self.progress.setFormat("%v / %m sessions")
        self.progress.setFixedWidth(260)
        self.status = QLabel()
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        line = QHBoxLayout()
        line.addWidget(self.progress)
        line.addWidget(self.status, 1)
        self.breaks = QLabel()
        self.breaks.setObjectName("matrix-breaks")
        self.breaks.setWordWrap(True)
        self.breaks.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.show_na = QCheckBox("Show client columns n/a on every row")
        self.show_na.setObjectName("matrix-show-na")
        self.show_na.setToolTip("n/a: the library does not read the dialect of any target")
        self.show_na.toggled.connect(self._show_na)
        said = QHBoxLayout()
        said.addWidget(self.breaks, 1)
        said.addWidget(self.show_na, 0, Qt.AlignmentFlag.AlignTop)
        self.details = QLabel("Click a cell to open its capture in the main window.")
        self.details.setWordWrap(True)
        self.details.setFixedHeight(3 * self.fontMetrics().height() + 6)
        self.details.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        lay = QVBoxLayout(self)
        lay.addLayout(top)
        lay.addLayout(line)
        lay.addLayout(said)
        lay.addWidget(self.grid.group_bar())
        lay.addWidget(self.grid, 1)
        self.legend = self.grid.legend()
        lay.addWidget(self.legend)
        lay.addWidget(self.details)
        self.grid.cellClicked.connect(self.open_cell)
        self.grid.cellActivated.connect(self.open_cell)
        self.grid.currentCellChanged.connect(lambda r, c, _r, _c: self._describe(r, c))
        self.runs.progress.connect(self._progress)
        self.runs.running_changed.connect(self._enable)
        self.runs.ended.connect(self.status.setText)
        self.runs.ended.connect(lambda _said: self.grid.audience())
        self.resize(1280, 800)
        self.grid.said = self._audience
        self.grid.show_result(MatrixResult.empty(self.spec, REPLICA_NAMES))
        self._say_spec()
        self._enable()

    @property
    def result(self) -> MatrixResult | None:
        return self.grid.result

    # -- running -------------------------------------------------------------------------

    def run(self) -> None:
        """Run the current spec into a new folder; a spec that would run no session is not
        run (the status line says why, no folder is made)."""
        why = nothing_to_run(self.spec)
        if why is not None:
            self.status.setText(f"Nothing to run: {why}.")
            return
        self.folder = new_folder(self.base)
        if self.runs.start(self.spec, self.folder):
            self.status.setText(f"Running {self.spec.sessions} sessions into {self.folder}")

    def cancel(self) -> None:
        self.runs.cancel()

    def _rerun(self, keys: list[tuple[str, str]], what: str) -> None:
        result = self.result
        if result is None or self.folder is None:
            self.status.setText("Run or open a matrix first.")
            return
        if result.spec is None:
            self.status.setText("This matrix's spec no longer loads (a scenario file is gone): "
                                "it cannot be rerun.")  # fmt: skip
            return
        if not keys:
            self.status.setText(f"No {what} to rerun.")
            return
        why = nothing_to_run(result.spec, keys)
        if why is not None:
            self.status.setText(f"Nothing to rerun: {why}.")
            return
        if self.runs.start(result.spec, self.folder, keys, result):
            self.status.setText(f"Rerunning {what}: {len(keys)} cell(s)")

    def rerun_cell(self) -> None:
        cell = self.grid.cell_at(self.grid.currentRow(), self.grid.currentColumn())
        self._rerun([cell.key] if cell is not None else [], "selected cell")

    def rerun_row(self) -> None:
        r, result = self.grid.currentRow(), self.result
        keys = []
        if result is not None and 0 <= r < len(result.rows):
            keys = [(result.rows[r].name, s) for s in result.scenarios]
        self._rerun(keys, "selected row")

    def rerun_failed(self) -> None:
        result = self.result
        self._rerun([c.key for c in result if c.failed] if result else [], "failed cell")

    # -- saved matrices ------------------------------------------------------------------

    def _choose_folder(self, title: str) -> str:
        if dialogs.headless_instead(f"{title}: a folder dialog needs the window"):
            return ""
        return QFileDialog.getExistingDirectory(self, title, str(self.base))

    def open_dialog(self) -> None:
        path = self._choose_folder("Open matrix folder")
        if path:
            self.open_folder(path)

    def open_folder(self, path: str) -> bool:
        """Show a saved matrix (a folder or its matrix.json); False, said, when it cannot."""
        if self.runs.running:
            self.status.setText("A matrix is running: cancel it first.")
            return False
        try:
            result = load_result(path)
        except InspectorError as exc:
            self.status.setText(str(exc))
            return False
        p = Path(path)
        self.folder = p if p.is_dir() else p.parent
        self.grid.show_result(result)
        if result.spec is not None:
            self.spec = result.spec
        n = sum(1 for _ in result.runs())
        self._progress(n, n)
        self.status.setText(f"{self.folder.name}: {summary(result)}")
        self.status.setToolTip(str(self.folder))
        self._enable()
        return True

    def compare_dialog(self) -> None:
        path = self._choose_folder("Compare with matrix folder")
        if path:
            self.compare_with(path)

    def compare_with(self, path: str) -> bool:
        """Mark the cells that changed from the matrix at ``path`` (before) to this one."""
        if self.result is None:
            return False
        try:
            before = load_result(path)
        except InspectorError as exc:
            self.status.setText(str(exc))
            return False
        changes = diff(before, self.result)
        self.grid.show_changes(changes)
        self.status.setText(f"Compared with {path}: {counts(changes)}")
        return True

    def clear_comparison(self) -> None:
        self.grid.show_changes([])

    def export_dialog(self) -> None:
        path = self._choose_folder("Export matrix to folder")
        if path:
            self.export_to(path)

    def export_to(self, path: str) -> bool:
        """Write matrix.json, matrix.md and matrix.html into ``path``, with the captures they
        link to (when it is not the matrix's own folder)."""
        result, out = self.result, Path(path)
        if result is None:
            return False
        try:
            out.mkdir(parents=True, exist_ok=True)
            (out / FILE_NAME).write_bytes(result.dumps())
            write_exports(result, out)
            captures = self.folder / "captures" if self.folder else None
            if captures is not None and captures.is_dir() and out.resolve() != self.folder:
                shutil.copytree(captures, out / "captures", dirs_exist_ok=True)
        except OSError as exc:
            self.status.setText(f"{out}: cannot write: {exc.strerror or exc}")
            return False
        self.status.setText(f"Exported matrix.json, matrix.md and matrix.html to {out}")
        return True

    # -- the spec ------------------------------------------------------------------------

    def edit_spec(self) -> None:
        """The spec builder (not modal: a running matrix keeps running)."""
        self.spec_dialog = SpecDialog(self.spec, self.use_spec, self)
        self.spec_dialog.open()

    def use_spec(self, spec: MatrixSpec) -> None:
        """Make ``spec`` the one Run runs (the grid shows it, pending, unless running)."""
        self.spec = spec
        if not self.runs.running:
            self.folder = None
            self.grid.show_result(MatrixResult.empty(spec, REPLICA_NAMES))
            self._progress(0, spec.sessions)
        self._say_spec()

    def _say_spec(self) -> None:
        s = self.spec
        self.status.setText(f"Spec: {len(s.targets)} targets × {len(s.scenarios)} scenarios × "
                            f"{s.runs} run(s), validation {s.validation} — press Run")  # fmt: skip

    # -- cells ---------------------------------------------------------------------------

    def open_cell(self, row: int, col: int) -> None:
        """Open the capture of the run that shows the cell's word (its worst run); for a
        client column, the row's first run that client got wrong, in the Clients view."""
        key, result = self.grid.key_at(row, col), self.result
        if key is None or result is None or self.folder is None:
            return
        target, column = key
        client = column[len(CLIENT_PREFIX) :] if column.startswith(CLIENT_PREFIX) else ""
        if client:
            runs = [(c, r) for c in result if c.target == target for r in c.runs]
            runs.sort(key=lambda cr: cr[1].clients.get(client, _NA).right is not False)
        else:
            cell = result.cell(target, column)
            runs = sorted(((cell, r) for r in cell.runs), key=lambda cr: cr[1].word != cell.word)
        found = next(((c, r, r.capture) for c, r in runs if r.capture), None)
        if found is None:
            why = "not run yet" if not runs else "nothing was sent"
            self.details.setText(f"{target} × {column}: no capture ({why}).")
            return
        cell, run, capture = found
        path = self.folder / capture
        self.details.setText(f"Opened run {run.run} of {cell.target} × {cell.scenario}: {path}")
        self.open_capture.emit(str(path), client)

    def _describe(self, row: int, col: int) -> None:
        item = self.grid.item(row, col)
        if item is not None:
            self.details.setText(f"{self.grid.row_said(row)} · {item.toolTip()}")

    def _audience(self, line: str) -> None:
        """Which clients break, and which columns are hidden, in the line above the grid."""
        self.breaks.setText(line)
        self.show_na.setVisible(bool(self.grid.hidden))

    def _show_na(self, show: bool) -> None:
        self.grid.set_show_na(show)

    def _progress(self, done: int, total: int) -> None:
        self.progress.setMaximum(max(total, 1))
        self.progress.setValue(done)

    def _enable(self, running: bool | None = None) -> None:
        """Cancel while running, the rest while not (the spec builder always)."""
        running = self.runs.running if running is None else running
        for name, b in self.buttons.items():
            b.setEnabled(running == (name == "cancel") or name == "edit_spec")

    async def aclose(self) -> None:
        """Stop the matrix running (if one is) and wait until its folder is written."""
        self.runs.cancel()
        await self.runs.wait()

    def closeEvent(self, event: object) -> None:
        self.runs.cancel()
        super().closeEvent(event)  # type: ignore[arg-type]
