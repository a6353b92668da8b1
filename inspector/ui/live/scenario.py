"""Edit a live scenario (prompt and tools as JSON) and the session's timeouts.

Invariant: the dialog never accepts something the session could not send: the tools must be
a JSON array the core's tool registry reads (its warnings are shown, not hidden), and every
number is bounded by the spin boxes.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace

from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)

from inspector.core.providers import REGISTRY
from inspector.core.requests.scenarios import Scenario
from inspector.core.verdicts.tools import ToolRegistry


@dataclass(frozen=True)
class Timeouts:
    """The live session's limits (the streaming retry's attempt budget included)."""

    connect: float = 10.0
    """Seconds to establish the connection."""
    read: float = 60.0
    """Seconds without a byte before the read times out."""
    budget: float = 120.0
    """Seconds an attempt and its retry may take together."""
    loop_options: tuple[tuple[str, ...], tuple[tuple[str, float], ...]] | None = None
    """Tool loop: (disabled tool names, (name, seconds) slow tools); None = the scenario's."""


class ScenarioDialog(QDialog):
    """Prompt, system text, tools JSON, and the three timeouts."""

    def __init__(
        self, scenario: Scenario, timeouts: Timeouts, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"Scenario: {scenario.title}")
        self.resize(720, 640)
        self._base = scenario
        self.prompt = QPlainTextEdit(scenario.prompt)
        self.prompt.setMaximumHeight(90)
        self.system = QLineEdit(scenario.system or "")
        self.tools = QPlainTextEdit(json.dumps(scenario.tools, indent=2, ensure_ascii=False))
        self.tools.setFont(QFont("monospace"))
        self.connect_s = self._seconds(timeouts.connect, 1, 120)
        self.read_s = self._seconds(timeouts.read, 1, 600)
        self.budget_s = self._seconds(timeouts.budget, 5, 3600)
        disabled, slow = timeouts.loop_options or ((), ())
        self.disabled = QLineEdit(", ".join(disabled))
        self.disabled.setPlaceholderText("e.g. fail, search_files")
        self.slow = QLineEdit(", ".join(f"{n}:{s:g}" for n, s in slow))
        self.slow.setPlaceholderText("e.g. get_weather:2.5")
        self.problem = QLabel()
        self.problem.setWordWrap(True)
        form = QFormLayout()
        form.addRow("Prompt", self.prompt)
        form.addRow("System", self.system)
        form.addRow("Tools (JSON array, any provider's shape)", self.tools)
        form.addRow("Connect timeout (s)", self.connect_s)
        form.addRow("Read-idle timeout (s)", self.read_s)
        form.addRow("Attempt budget (s)", self.budget_s)
        form.addRow("Tool loop: disabled tools", self.disabled)
        form.addRow("Tool loop: slow tools (name:seconds)", self.slow)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self._accept)
        buttons.rejected.connect(self.reject)
        lay = QVBoxLayout(self)
        lay.addLayout(form)
        lay.addWidget(self.problem)
        lay.addWidget(buttons)
        self.result_scenario: Scenario | None = None
        self.result_timeouts: Timeouts | None = None

    @staticmethod
    def _seconds(value: float, low: float, high: float) -> QDoubleSpinBox:
        box = QDoubleSpinBox()
        box.setRange(low, high)
        box.setDecimals(1)
        box.setValue(value)
        return box

    def _accept(self) -> None:
        try:
            tools = json.loads(self.tools.toPlainText() or "[]")
        except ValueError as exc:
            self.problem.setText(f"✖ tools are not valid JSON: {exc}")
            return
        if not isinstance(tools, list):
            self.problem.setText("✖ tools must be a JSON array of tool definitions")
            return
        warnings = ToolRegistry.from_definitions(tools, REGISTRY).warnings
        if warnings and not self.problem.text().startswith("⚠"):
            self.problem.setText("⚠ " + "; ".join(warnings) + " — press OK again to use them")
            return
        self.result_scenario = replace(
            self._base,
            prompt=self.prompt.toPlainText().strip(),
            system=self.system.text().strip() or None,
            tools=tools,
        )
        items = [item.split(":", 1) for item in self.slow.text().split(",") if item.strip()]
        try:
            slow = tuple((pair[0].strip(), float(pair[1])) for pair in items)
        except (ValueError, IndexError):
            self.problem.setText("✖ slow tools are written name:seconds, e.g. get_weather:2.5")
            return
        disabled = tuple(n.strip() for n in self.disabled.text().split(",") if n.strip())
        self.result_timeouts = Timeouts(
            self.connect_s.value(), self.read_s.value(), self.budget_s.value(), (disabled, slow)
        )
        self.accept()
