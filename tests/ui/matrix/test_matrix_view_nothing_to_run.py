"""The Matrix view refuses a run that would run no session, saying why in its status line
(no folder made, nothing started); with the key set, or beside a target that runs, it is no
longer refused."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt

from inspector.core.matrix.spec import MatrixSpec
from inspector.ui.matrix.matrix import MatrixWindow

NO_KEY = "TOOLCALL_IDLE_VIEW_NO_SUCH_KEY"


def spec(*targets: dict[str, Any]) -> MatrixSpec:
    return MatrixSpec.from_json({"targets": list(targets), "scenarios": ["weather"]})


KEYED = {"profile": "openai", "model": "gpt-x", "name": "gpt", "key_env": NO_KEY}


@pytest.fixture
def view(qtbot: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> MatrixWindow:
    import keyring

    monkeypatch.delenv(NO_KEY, raising=False)
    monkeypatch.setattr(keyring, "get_password", lambda service, user: None)
    m = MatrixWindow(tmp_path / "matrices")
    qtbot.addWidget(m)
    m.show()
    return m


def test_run_with_every_target_skipped_says_why_and_starts_nothing(
    view: MatrixWindow, qtbot: Any, tmp_path: Path
) -> None:
    view.use_spec(spec(KEYED))
    qtbot.mouseClick(view.buttons["run"], Qt.MouseButton.LeftButton)
    assert view.status.text() == (
        f"Nothing to run: the only target is skipped (gpt: no key: {NO_KEY} is not set)."
    )
    assert not view.runs.running and view.folder is None
    assert not (tmp_path / "matrices").exists()
    assert view.buttons["run"].isEnabled()  # fix the key or the spec, and run again


def test_with_the_key_set_or_a_target_that_runs_it_is_not_refused(
    view: MatrixWindow, monkeypatch: pytest.MonkeyPatch
) -> None:
    from inspector.net.matrix.runner import nothing_to_run

    demo = {"profile": "demo", "model": "demo-clean", "name": "demo"}
    assert nothing_to_run(spec(demo, KEYED)) is None  # partly skipped: it runs
    monkeypatch.setenv(NO_KEY, "sk-test-not-real")
    assert nothing_to_run(spec(KEYED)) is None
