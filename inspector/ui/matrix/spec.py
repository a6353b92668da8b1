"""The Matrix view's spec builder: targets and scenarios to tick, runs per cell, validation
mode; a spec loaded from or saved to JSON (docs/matrix.md's schema).

Invariants:
- Never modal through ``exec()`` (a matrix may be running on the loop): the dialog is opened
  with ``open()`` and hands its spec to a callback when the user presses Use.
- It offers what the current spec holds (a loaded file's own targets and scenario files
  included) plus the embedded default's demo targets and the built-in scenarios; what it
  builds keeps the current spec's timeouts, retry rule and concurrency.
- A spec file that cannot be read or used is one line in the dialog, never a traceback.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import replace
from typing import cast

import orjson
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from inspector.core.base.errors import InspectorError
from inspector.core.base.settings import VALIDATION_MODES, ValidationMode
from inspector.core.matrix.spec import MatrixSpec, Target, load_spec
from inspector.core.requests.scenarios import Scenario, load_scenarios
from inspector.net.matrix.default import default_spec
from inspector.ui.base import dialogs


def _fill(box: QListWidget, names: list[str], ticked: set[str]) -> None:
    """List ``names`` in ``box`` with a tick box each, ``ticked`` ones ticked."""
    box.clear()
    for name in names:
        item = QListWidgetItem(name)
        item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
        item.setCheckState(Qt.CheckState.Checked if name in ticked else Qt.CheckState.Unchecked)
        box.addItem(item)


def _tick_all(box: QListWidget, state: Qt.CheckState) -> None:
    """Tick (or untick) every entry of ``box`` (62 targets are not ticked one by one)."""
    for i in range(box.count()):
        box.item(i).setCheckState(state)


def _ticked(box: QListWidget) -> list[str]:
    return [
        box.item(i).text()
        for i in range(box.count())
        if box.item(i).checkState() == Qt.CheckState.Checked
    ]


class SpecDialog(QDialog):
    """Build a matrix spec (see the module docstring)."""

    def __init__(
        self, spec: MatrixSpec, use: Callable[[MatrixSpec], None], parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setObjectName("matrix-spec-dialog")
        self.setWindowTitle("Matrix spec — Tool-Call Inspector")
        self._use = use
        self.targets_box, self.scenarios_box = QListWidget(), QListWidget()
        self.runs = QSpinBox()
        self.runs.setRange(1, 100)
        self.validation = QComboBox()
        self.validation.addItems(list(VALIDATION_MODES))
        self.error = QLabel()
        self.error.setWordWrap(True)
        self.error.setStyleSheet("color:#c62828")
        buttons = QHBoxLayout()
        self.load_button = self._button(buttons, "Load spec…", "matrix-spec-load", self.load)
        self.save_button = self._button(buttons, "Save spec…", "matrix-spec-save", self.save)
        buttons.addStretch(1)
        self.use_button = self._button(buttons, "Use", "matrix-spec-use", self.use)
        self.cancel_button = self._button(buttons, "Cancel", "matrix-spec-cancel", self.reject)
        self.use_button.setDefault(True)
        lists = QHBoxLayout()
        self.tick_buttons: dict[str, QPushButton] = {}
        """``targets-all``, ``targets-none``, ``scenarios-all``, ``scenarios-none``."""
        for title, box in (("Targets", self.targets_box), ("Scenarios", self.scenarios_box)):
            col = QVBoxLayout()
            head = QHBoxLayout()
            head.addWidget(QLabel(f"<b>{title}</b>"), 1)
            for word, state in (("All", Qt.CheckState.Checked), ("None", Qt.CheckState.Unchecked)):
                name = f"{title.lower()}-{word.lower()}"
                self.tick_buttons[name] = self._button(
                    head, word, f"matrix-spec-{name}", functools.partial(_tick_all, box, state)
                )
                verb = "Tick" if word == "All" else "Untick"
                self.tick_buttons[name].setToolTip(f"{verb} every {title.lower()[:-1]} listed")
            col.addLayout(head)
            col.addWidget(box, 1)
            lists.addLayout(col, 2 if title == "Targets" else 1)
        row = QHBoxLayout()
        row.addWidget(QLabel("Runs per cell"))
        row.addWidget(self.runs)
        row.addSpacing(16)
        row.addWidget(QLabel("Validation"))
        row.addWidget(self.validation)
        row.addStretch(1)
        lay = QVBoxLayout(self)
        lay.addLayout(lists, 1)
        lay.addLayout(row)
        lay.addWidget(self.error)
        lay.addLayout(buttons)
        self.resize(720, 560)
        self.show_spec(spec)

    def _button(
        self, row: QHBoxLayout, text: str, name: str, slot: Callable[[], object]
    ) -> QPushButton:
        b = QPushButton(text)
        b.setObjectName(name)
        b.setAutoDefault(False)
        b.clicked.connect(lambda _checked=False: slot())
        row.addWidget(b)
        return b

    def show_spec(self, spec: MatrixSpec) -> None:
        """Offer ``spec``'s targets and scenarios (ticked) beside the defaults (unticked)."""
        self.spec = spec
        default = default_spec()
        self._targets: dict[str, Target] = {t.name: t for t in default.targets}
        self._targets.update({t.name: t for t in spec.targets})
        self._scenarios: dict[str, Scenario] = {s.name: s for s in load_scenarios()}
        self._scenarios.update({s.name: s for s in spec.scenarios})
        self._refs = {s.name: s.name for s in self._scenarios.values()}
        if len(spec.scenario_refs) == len(spec.scenarios):  # how the spec named each
            self._refs.update(
                {s.name: r for s, r in zip(spec.scenarios, spec.scenario_refs, strict=True)}
            )
        _fill(self.targets_box, list(self._targets), {t.name for t in spec.targets})
        _fill(self.scenarios_box, list(self._scenarios), {s.name for s in spec.scenarios})
        self.runs.setValue(spec.runs)
        self.validation.setCurrentText(spec.validation)
        self.error.clear()

    def built(self) -> MatrixSpec | None:
        """The spec as ticked (None, with the reason shown, when nothing is ticked)."""
        targets = [self._targets[n] for n in _ticked(self.targets_box)]
        scenarios = [self._scenarios[n] for n in _ticked(self.scenarios_box)]
        if not targets or not scenarios:
            self.error.setText("Tick at least one target and one scenario.")
            return None
        return replace(
            self.spec, targets=tuple(targets), scenarios=tuple(scenarios),
            scenario_refs=tuple(self._refs[s.name] for s in scenarios),
            runs=self.runs.value(),
            validation=cast(ValidationMode, self.validation.currentText()),
        )  # fmt: skip

    def use(self) -> None:
        spec = self.built()
        if spec is not None:
            self._use(spec)
            self.accept()

    def load(self) -> None:
        """Load a spec file into the lists."""
        if dialogs.headless_instead("Load matrix spec: a file dialog needs the window"):
            return
        path, _ = QFileDialog.getOpenFileName(self, "Load matrix spec", "", "JSON (*.json)")
        if not path:
            return
        try:
            self.show_spec(load_spec(path))
        except InspectorError as exc:
            self.error.setText(str(exc))

    def save(self) -> None:
        """Save the spec as ticked to a JSON file (docs/matrix.md's schema)."""
        spec = self.built()
        if spec is None or dialogs.headless_instead("Save matrix spec: needs the window"):
            return
        path, _ = QFileDialog.getSaveFileName(self, "Save matrix spec", "matrix-spec.json",
                                              "JSON (*.json)")  # fmt: skip
        if not path:
            return
        try:
            with open(path, "wb") as f:
                f.write(orjson.dumps(spec.to_json(), option=orjson.OPT_INDENT_2) + b"\n")
        except OSError as exc:
            self.error.setText(f"{path}: cannot write: {exc.strerror or exc}")
