"""The window on a stream no provider recognises: the lanes' place says "unknown dialect" with
what was seen, never lanes judged as another dialect; the dialect the user then chooses reads
it. A Cohere stream opens as its own dialect, with its calls in lanes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import SHARED

from inspector.core.providers import COHERE_V2
from inspector.ui.shell.mainwindow import MainWindow

WIKI = (
    b'event: message\ndata: {"$schema":"/mediawiki/recentchange/1.0.0","type":"edit"}\n\n'
    b'event: message\ndata: {"$schema":"/mediawiki/recentchange/1.0.0","type":"log"}\n\n'
)


@pytest.fixture
def window(qtbot: Any) -> MainWindow:
    w = MainWindow()
    w.persist_layout = False
    qtbot.addWidget(w)
    w.show()
    return w


def test_an_unknown_body_is_a_notice_in_the_lanes_place_until_a_dialect_is_chosen(
    window: MainWindow, tmp_path: Path
) -> None:
    path = tmp_path / "wiki.sse"
    path.write_bytes(WIKI)
    window.open(str(path))
    notice = window.doc.notice or ""
    assert notice.startswith(f"unknown dialect: {path}: no provider recognises this stream")
    assert 'first event: data \'{"$schema"' in notice
    assert window.views.notice.text() == notice and window.views.notice.isVisible()
    assert window.doc.source is None and window.doc.analysis is None  # nothing judged
    box = window.dialect_box  # asked without blocking the loop (window-modal, open())
    assert box is not None and box.isVisible() and not window.doc.analysis
    box.reject()  # cancelled: the notice stays
    assert window.doc.notice == notice and window.doc.analysis is None
    window.open(str(path))  # asked again: now read as the dialect chosen
    box = window.dialect_box
    assert box is not None and box.isVisible()
    box.setTextValue("openai-chat")
    box.accept()
    assert window.doc.notice is None and window.doc.analysis is not None
    assert window.doc.analysis.dialect == "openai-chat"
    assert not window.views.notice.isVisible()


def test_a_cohere_stream_opens_in_its_own_dialect_with_its_calls(window: MainWindow) -> None:
    path = SHARED / "fixtures" / "realworld" / "cohere" / "cohere-tool-call.sse"
    if not path.is_file():
        pytest.fail(f"missing shared fixture {path}", pytrace=False)
    assert window.open(str(path))
    analysis = window.doc.analysis
    assert window.doc.notice is None and analysis is not None and analysis.dialect == COHERE_V2
    assert len(window.lanes.lanes) == 2


def test_a_hosted_search_without_a_name_reads_as_its_item_type_in_the_attempts_tree(
    window: MainWindow,
) -> None:
    path = SHARED / "fixtures" / "realworld" / "google-interactions" / "google-search.sse"
    if not path.is_file():
        pytest.fail(f"missing shared fixture {path}", pytrace=False)
    assert window.open(str(path))
    top = window.attempts.topLevelItem(0)
    assert [top.child(i).text(0) for i in range(top.childCount())] == [
        "#0 google_search_call · hosted"
    ]
