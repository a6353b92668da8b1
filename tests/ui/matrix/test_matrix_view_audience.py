"""The Matrix view says which clients break, overall above the grid and under each target's
name, and hides the client columns n/a on every row; its checkbox shows them again (the same
words as matrix.html: inspector.core.matrix.audience)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from core.matrix.test_matrix_audience import with_speechless_client

from inspector.core.matrix.result import FILE_NAME
from inspector.ui.matrix.matrix import MatrixWindow


@pytest.fixture
def view(qtbot: Any, tmp_path: Path) -> MatrixWindow:
    m = MatrixWindow(tmp_path / "matrices")
    qtbot.addWidget(m)
    m.show()
    return m


def test_an_opened_matrix_says_who_breaks_and_hides_speechless_columns(
    view: MatrixWindow, tmp_path: Path, qtbot: Any
) -> None:
    assert view.breaks.text() == "Which clients break: nothing has run yet."
    assert not view.show_na.isVisible()  # nothing run: nothing is n/a everywhere
    folder = tmp_path / "m1"
    folder.mkdir()
    (folder / FILE_NAME).write_bytes(with_speechless_client().dumps())
    assert view.open_folder(str(folder))
    said = view.breaks.text()
    assert said.startswith("Which clients break: litellm on 1 of 2 (demo/merge|pipe)")
    assert "1 client column hidden (n/a on every row" in said and "anthropic-sdk" in said
    grid = view.grid
    n = len(grid.result.scenarios)  # type: ignore[union-attr]
    speechless = n + grid.result.replicas.index("anthropic-sdk")  # type: ignore[union-attr]
    assert grid.isColumnHidden(speechless) and not grid.isColumnHidden(n)
    tips = [grid.verticalHeaderItem(r).toolTip() for r in range(grid.rowCount())]  # type: ignore[union-attr]
    assert tips[0].startswith("demo/clean: no client breaks\n")
    assert tips[1].startswith("demo/merge|pipe: breaks litellm\n")
    grid.setCurrentCell(1, 0)
    assert view.details.text().startswith("demo/merge|pipe: breaks litellm · ")
    assert view.show_na.isVisible()
    view.show_na.click()
    assert not grid.isColumnHidden(speechless)
    view.show_na.click()
    assert grid.isColumnHidden(speechless)
