"""The in-app documentation viewer (inspector.ui.shell.docviewer): every shipped page renders
from its Markdown with its pictures loaded and its local links resolving; a link to another page
opens it here (Back / Forward / Contents walk them), a web link goes to the browser, a link to
a file the install lacks says so; Help never goes through the desktop for a page."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QDialog

from inspector.core.base.resources import doc
from inspector.ui.shell import help
from inspector.ui.shell.docviewer import DocViewer
from inspector.ui.shell.mainwindow import MainWindow

PAGES = sorted(p.name for p in doc().glob("*.md"))


@pytest.fixture
def desktop(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """What was handed to the desktop (it opens nothing)."""
    seen: list[str] = []

    def open_url(url: QUrl) -> bool:
        seen.append(url.toString())
        return True

    monkeypatch.setattr(QDesktopServices, "openUrl", staticmethod(open_url))
    return seen


def test_the_pages_are_found_through_the_shipped_docs() -> None:
    assert "getting-started.md" in PAGES and "matrix.md" in PAGES and len(PAGES) >= 8


@pytest.mark.parametrize("page", PAGES)
def test_every_page_renders_with_its_pictures_and_links(qtbot: Any, page: str) -> None:
    viewer = DocViewer(doc(page))
    qtbot.addWidget(viewer)
    assert viewer.page == doc(page)
    assert viewer.browser.toPlainText().strip(), page
    assert "](" not in viewer.browser.toPlainText()  # rendered Markdown, not its source
    assert viewer.broken() == [], page


def test_getting_started_covers_live_proxy_matrix_and_clients_in_readable_pictures(
    qtbot: Any,
) -> None:
    viewer = DocViewer(doc("getting-started.md"))
    qtbot.addWidget(viewer)
    text = viewer.browser.toPlainText()
    for part in ("Live", "Run", "Proxy", "Matrix", "Clients", "Spec…", "Export…", "Lanes"):
        assert part in text, part
    images, links = viewer.references()
    assert len(images) == 4 and {"proxy.md", "matrix.md", "quirks.md"} <= set(links)
    for name in images:  # cut at full size from 1280x800 screenshots: never scaled down
        from PySide6.QtGui import QImage

        picture = QImage(str(doc(name)))
        assert 600 <= picture.width() <= 920 and picture.height() >= 150, name


def test_links_open_pages_here_and_web_links_in_the_browser(
    qtbot: Any, desktop: list[str], tmp_path: Path
) -> None:
    viewer = DocViewer(doc("getting-started.md"))
    qtbot.addWidget(viewer)
    assert viewer.follow(QUrl("proxy.md"))
    assert viewer.page == doc("proxy.md") and desktop == []
    assert "recording proxy" in viewer.browser.toPlainText().lower()
    assert viewer.buttons["back"].isEnabled()
    viewer.buttons["back"].click()
    assert viewer.page == doc("getting-started.md")
    assert viewer.buttons["forward"].isEnabled()
    viewer.buttons["forward"].click()
    assert viewer.page == doc("proxy.md")
    viewer.buttons["home"].click()
    assert viewer.page == doc("getting-started.md")
    assert viewer.follow(QUrl("matrix.md#spec")) and viewer.page == doc("matrix.md")
    assert viewer.follow(QUrl("#cell-words"))  # a heading of this page: stays here
    assert viewer.page == doc("matrix.md")
    assert viewer.follow(QUrl("https://example.org/x")) and desktop == ["https://example.org/x"]
    assert not viewer.follow(QUrl("gone.md"))
    assert "Not in this install" in viewer.status.text() and viewer.page == doc("matrix.md")
    sample = tmp_path / "a.jsonl"
    sample.write_text("{}")
    assert viewer.follow(QUrl.fromLocalFile(str(sample)))  # not a page: the desktop opens it
    assert desktop[-1] == QUrl.fromLocalFile(str(sample)).toString()
    assert viewer.page == doc("matrix.md")


def test_help_items_open_in_the_viewer_never_through_the_desktop(
    qtbot: Any, desktop: list[str]
) -> None:
    w = MainWindow()
    qtbot.addWidget(w)
    w.show()
    for act in w.menuBar().actions()[-1].menu().actions():
        if "docs/" in act.text():
            act.trigger()
            viewer = w.findChild(QDialog, "help-docs").findChild(DocViewer)
            assert viewer.isVisible() and viewer.page.name in act.text(), act.text()
    assert desktop == []
    start = help.getting_started(w)
    assert start.findChild(DocViewer).page == doc("getting-started.md")
    assert start.width() <= w.screen().availableGeometry().width()
