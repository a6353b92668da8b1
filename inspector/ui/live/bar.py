"""The Live toolbar: where a run is set up and started, in one row that fits a laptop screen.

``Live: [profile] model [model] [▶ Run] [■ Stop] | scenario [scenario] [Edit…] [Options] |
state | what the chosen model does``

Invariants:
- Every control a run needs is in this one row at 1280 px: the two lines of text at its end
  have small size hints, so the toolbar never overflows into its "»" menu, and a change of
  text never lays it out again. The state elides what does not fit; the model's description
  is shown whole or not at all (never a stub), and is always whole in the model box's tooltip
  and, word-wrapped under each name, in the model list.
- Widgets only emit the user's intent (``start_requested``, ``stop_requested``,
  ``models_wanted``); the window starts and stops sessions.
- The model list offers the demo provider's scenarios (each with its description, from its
  ``GET /v1/models``) for a demo profile, and the profile's own model for any other: a model
  chosen from the list is what Run (or Enter in the model box) sends.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import (
    QSettings,
    Qt,
    Signal,
)
from PySide6.QtGui import QAction, QFont
from PySide6.QtWidgets import (
    QComboBox,
    QLabel,
    QMenu,
    QSizePolicy,
    QStyle,
    QToolBar,
    QToolButton,
    QWidget,
)

from inspector.core.base.errors import InspectorError
from inspector.core.requests.scenarios import (
    BUILTIN_PROFILES,
    Profile,
    Scenario,
    find_profile,
    load_scenarios,
)
from inspector.net.demo.applies import NotPlayed
from inspector.ui.live.scenario import ScenarioDialog, Timeouts
from inspector.ui.live.widgets import ElidedLabel, ModelBox

LONGEST_STATE = " running tools · round 10 · attempt 2 "
"""The state label is as wide as this (what does not fit is elided, whole in the tooltip)."""
WHOLE_STATE = " running tools · round 9 · attempt 2 "
"""… and never narrower than this, so every state of a run (connecting, streaming, running
tools, done; rounds below 10) stays whole on a 1152 px window (the first start at 1280×800),
all options on: the model's description gives up its room first."""
PROFILE_CHARACTERS = 9
"""The profile box's width in characters: the longest names elide in it (the list and the
tooltips have them whole), leaving the row's room to the state."""
REMEMBERED = ("profile", "model", "scenario")
"""The choices kept in QSettings (under ``live/``) from one run to the next."""


class LiveToolBar(QToolBar):
    """Profile, model, Run/Stop, scenario, options — and what the session is doing."""

    start_requested = Signal()
    stop_requested = Signal()
    models_wanted = Signal()
    """The model list was opened before the demo provider's models were listed."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Live", parent)
        self.setObjectName("live-toolbar")
        self._demo_models: list[tuple[str, str]] = []
        self._entries: dict[str, dict[str, Any]] = {}  # the demo provider's, by model name
        self.addWidget(QLabel(" Live: "))
        self.profile = self._combo(
            "live-profile",
            [
                (p.name, f"{p.dialect} at {'the demo provider' if p.is_demo else p.base_url}")
                for p in BUILTIN_PROFILES
            ],
        )
        self.profile.setMinimumContentsLength(PROFILE_CHARACTERS)
        self.profile.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.profile.view().setMinimumWidth(self.profile.view().sizeHintForColumn(0) + 24)
        self.addWidget(QLabel(" model "))
        self.model = ModelBox(self.models_wanted)
        self.addWidget(self.model)
        self.start = self._button("Run", "live-run", "Stream the model's answer (Enter)")
        self.start.setFont(_bold(self.start.font()))
        self._icon(self.start, QStyle.StandardPixmap.SP_MediaPlay)
        self.start.clicked.connect(self.start_requested)
        self.stop = self._button("Stop", "live-stop", "Stop the run (every byte is kept)")
        self._icon(self.stop, QStyle.StandardPixmap.SP_MediaStop)
        self.stop.setEnabled(False)
        self.stop.clicked.connect(self.stop_requested)
        self.addSeparator()
        self.addWidget(QLabel(" scenario "))
        self.scenarios = load_scenarios()
        self.scenario = self._combo("live-scenario", [(s.name, s.title) for s in self.scenarios])
        self.edit = self._button(
            "Edit…", "live-edit", "Edit the scenario's prompt and tools (JSON) and the timeouts"
        )
        self._options()
        self.addSeparator()
        metrics = self.fontMetrics()
        self.state_label = ElidedLabel(
            metrics.horizontalAdvance(LONGEST_STATE), least=metrics.horizontalAdvance(WHOLE_STATE)
        )
        """What the session is doing: "running tools · round 2 · attempt 1"."""
        self.state_label.setObjectName("live-state")
        self.addWidget(self.state_label)
        self.about = ElidedLabel(160, least=20, whole_or_nothing=True)  # gives way first
        """What the chosen model does (a demo scenario's description), or where it runs: shown
        whole when the row has room for it, else not at all (the model box's tooltip and the
        model list have it whole)."""
        self.about.setObjectName("live-about")
        self.about.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        self.addWidget(self.about)
        self.profile.currentIndexChanged.connect(lambda _i: self._profile_changed())
        self.model.currentTextChanged.connect(lambda _t: self._show_about())
        self.model.edit.returnPressed.connect(self._enter)
        self.scenario.currentIndexChanged.connect(lambda _i: self._scenario_changed())
        self._profile_changed()
        self._scenario_changed()

    def _combo(self, name: str, items: list[tuple[str, str]]) -> QComboBox:
        """A list of names (each its own data), each with a tooltip."""
        box = QComboBox()
        box.setObjectName(name)
        for i, (text, tip) in enumerate(items):
            box.addItem(text, text)
            box.setItemData(i, tip, Qt.ItemDataRole.ToolTipRole)
        self.addWidget(box)
        return box

    def _button(self, text: str, name: str, tip: str) -> QToolButton:
        button = QToolButton()
        button.setText(text)
        button.setObjectName(name)
        button.setToolTip(tip)
        self.addWidget(button)
        return button

    def _icon(self, button: QToolButton, icon: QStyle.StandardPixmap) -> None:
        button.setIcon(self.style().standardIcon(icon))
        button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)

    def _options(self) -> None:
        """Tool loop, sequential dispatch and the retry, as checkable items of one button
        whose text says which are on."""
        menu = QMenu(self)
        self.loop = _option(
            menu,
            "Tool loop",
            "Run the built-in demo tools as each call closes "
            "mid-stream and continue round after round (the streaming-dispatch "
            "tool loop)",
        )
        self.sequential = _option(
            menu,
            "Sequential dispatch (tool loop)",
            "Dispatch tools only after the stream ends (for comparison)",
        )
        self.retry = _option(
            menu,
            "Retry an invalid call once",
            "At most one streaming retry of a round when a call is invalid",
        )
        self.retry.setChecked(True)
        self.options = self._button("", "live-options", "")
        self.options.setMenu(menu)
        self.options.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        for act in (self.loop, self.sequential, self.retry):
            act.toggled.connect(lambda _on: self._options_changed())
        self._options_changed()

    def _options_changed(self) -> None:
        """The button says which options are on, in short words (``⚙ loop · seq · retry``:
        all three fit a 1152 px row beside the whole state), ``⚙ options`` when none is; its
        tooltip names each one whole, checked or not."""
        self.sequential.setEnabled(self.loop.isChecked())
        on = [
            word
            for act, word in (
                (self.loop, "loop"),
                (self.sequential, "seq"),
                (self.retry, "retry"),
            )
            if act.isChecked() and act.isEnabled()
        ]
        self.options.setText("⚙ " + (" · ".join(on) or "options"))
        self.options.setToolTip(
            "\n".join(
                f"{'☑' if a.isChecked() else '☐'} {a.text()}"
                for a in (self.loop, self.sequential, self.retry)
            )
        )

    # -- the choices ---------------------------------------------------------------------

    def _profile_changed(self) -> None:
        p = self._profile()
        self.model.fill(self._demo_models if p.is_demo else [(p.model, "")], p.model)
        self._show_about()

    def _profile(self) -> Profile:
        return find_profile(str(self.profile.currentData()))

    def profile_is_demo(self) -> bool:
        """Does the chosen profile run on the embedded demo provider?"""
        return self._profile().is_demo

    def _scenario_changed(self) -> None:
        s = self.current_scenario()
        self.scenario.setToolTip(f"{s.title}\n\n{s.prompt}")

    def _show_about(self) -> None:
        """The line beside: what the chosen model does, or where the request goes."""
        p, name = self._profile(), self.model.currentText().strip()
        about = dict(self._demo_models).get(name) if p.is_demo else None
        gap = NotPlayed.of(self._entries[name], p.dialect) if about is not None else None
        shorter: tuple[str, ...] = ()
        if gap is not None:  # a clean run there would otherwise say nothing of why
            text = f"{gap.short()} · {gap.about()} · {about}"
            shorter = (f" {gap.short()} ", f" ⚠ {gap.where} ", " ⚠ not here ")
        elif about is not None:
            text = about
        elif p.is_demo:
            text = (
                f"{name or 'a model'} on the demo provider (its list says what each model does)"
                if not self._demo_models
                else f"{name or 'no model'}: not one of the demo provider's models"
            )
        else:
            key = f" · key from ${p.key_env}" if p.key_env else ""
            if p.aws_region:  # signed when sent, credentials from the AWS chain
                key = f" · SigV4 ({p.aws_region}), AWS credentials from their usual chain"
            text = f"{p.dialect} at {p.base_url}{key}"
        self.about.set_text(f" {text} ", *shorter)  # whole, else the warning, else nothing
        self.model.setToolTip(f"{name}: {text}" if name and not text.startswith(name) else text)

    def select(self, profile: str, model: str, scenario: str) -> None:
        """Preselect a profile, model and scenario."""
        self.profile.setCurrentIndex(max(0, self.profile.findData(profile)))
        self.model.setEditText(model)
        self.scenario.setCurrentIndex(max(0, self.scenario.findData(scenario)))

    def remember(self, settings: QSettings) -> None:
        """Keep the choices for the next window."""
        values = (
            self.profile.currentData(),
            self.model.currentText().strip(),
            self.scenario.currentData(),
        )
        for key, value in zip(REMEMBERED, values, strict=True):
            settings.setValue(f"live/{key}", str(value))

    def restore(self, settings: QSettings) -> bool:
        """Select the choices of the last run, if any (a profile no longer known is not)."""
        profile, model, scenario = (str(settings.value(f"live/{k}", "")) for k in REMEMBERED)
        try:
            find_profile(profile)
        except InspectorError:
            return False
        self.select(profile, model, scenario)
        return True

    def set_models(self, entries: list[dict[str, Any]]) -> None:
        """The demo provider's scenarios, offered as models: its ``GET /v1/models`` entries
        (the list shows each one's description; the line beside also says when the chosen
        one plays the conforming stream on the profile's dialect)."""
        self._entries = {str(m["id"]): m for m in entries}
        self._demo_models = [(str(m["id"]), str(m.get("description") or "")) for m in entries]
        if self._profile().is_demo:
            self.model.fill(self._demo_models, self.model.currentText())
        self._show_about()

    def current_scenario(self) -> Scenario:
        return self.scenarios[max(0, self.scenario.currentIndex())]

    def edit_scenario(self, timeouts: Timeouts, done: Callable[[Timeouts], None]) -> ScenarioDialog:
        """Open the editor on the current scenario (without blocking the loop); once accepted,
        the edit replaces the scenario for the next runs and ``done`` gets the timeouts."""
        index = max(0, self.scenario.currentIndex())
        dialog = ScenarioDialog(self.current_scenario(), timeouts, self)

        def accepted() -> None:
            if dialog.result_scenario is not None and dialog.result_timeouts is not None:
                self.scenarios[index] = dialog.result_scenario
                done(dialog.result_timeouts)

        dialog.accepted.connect(accepted)
        dialog.open()
        return dialog

    # -- the run -------------------------------------------------------------------------

    def _enter(self) -> None:
        if self.start.isEnabled():
            self.start_requested.emit()

    def show_running(self, running: bool) -> None:
        """A run started (the state says ``starting`` until the session says more: never the
        last run's ``done`` while Stop is enabled) or ended."""
        self.start.setEnabled(not running)
        self.stop.setEnabled(running)
        if running:
            self.show_state("starting")

    def show_state(self, text: str) -> None:
        """The session's state and "round R · attempt N" (see LiveController.state_changed)."""
        self.state_label.setText(f" {text} ")


def _option(menu: QMenu, text: str, tip: str) -> QAction:
    act = menu.addAction(text)
    act.setCheckable(True)
    act.setToolTip(tip)
    act.setStatusTip(tip)
    return act


def _bold(font: QFont) -> QFont:
    font.setBold(True)
    return font
