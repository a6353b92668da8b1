"""Reduce to a minimal capture… in the real window: a quirk row's and a breaking client row's
context menu reduce the capture on show, write the result beside the original and open it in a
window of its own (the original stays on show); a row with nothing to keep offers nothing."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import qasync
from conftest import TESTS

import inspector.api as api
from inspector.ui.shell.mainwindow import MainWindow
from ui.waiting import until

GLM = TESTS / "clients" / "corpus" / "openai-chat" / "demo-glm-empty-string.jsonl"


@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    seen: list[str] = []
    monkeypatch.setattr("inspector.ui.reduce.reduce.launch", lambda p: seen.append(p) or True)
    return seen


def _loaded(window: MainWindow, qloop: qasync.QEventLoop, path: Path) -> None:
    assert window.open(str(path))
    qloop.run_until_complete(
        until(lambda: window.doc.analysis is not None and window.views.problems.model_.rowCount())
    )


def test_a_quirk_row_reduces_to_a_capture_beside_the_original(
    window: MainWindow, qloop: qasync.QEventLoop, tmp_path: Path, opened: list[str]
) -> None:
    source = tmp_path / "glm.jsonl"
    shutil.copy(GLM, source)
    _loaded(window, qloop, source)
    pane = window.views.problems
    rows = [r for r in range(pane.model_.rowCount()) if pane.keep_of(r)]
    row = next(r for r in rows if pane.keep_of(r) == "quirk:empty_string_continuation_id")
    menu = pane.context_menu_for(row)
    assert menu is not None
    (act,) = menu.actions()
    assert act.text() == "Reduce to a minimal capture…"
    act.trigger()
    assert opened and Path(opened[0]).parent == tmp_path, opened
    reduced = api.analyze(opened[0])
    assert "empty_string_continuation_id" in reduced.quirk_codes
    assert Path(opened[0]).stat().st_size < source.stat().st_size
    assert window.doc.path == str(source)  # the original stays on show


def test_a_breaking_client_row_reduces_and_an_agreeing_one_offers_nothing(
    window: MainWindow, qloop: qasync.QEventLoop, tmp_path: Path, opened: list[str]
) -> None:
    source = tmp_path / "glm.jsonl"
    shutil.copy(GLM, source)
    _loaded(window, qloop, source)
    window.show_clients()
    qloop.run_until_complete(until(lambda: window.views.clients.verdict is not None))
    pane = window.views.clients
    names = [r.name for r in pane.verdict.replicas]  # type: ignore[union-attr]
    assert pane.context_menu_for(names.index("openai-python")) is None  # it agrees
    menu = pane.context_menu_for(names.index("by-id"))
    assert menu is not None
    menu.actions()[0].trigger()
    assert opened and "client-by-id" in opened[0]
    assert api.analyze(opened[0]).clients.words["by-id"] == "cut arguments"
