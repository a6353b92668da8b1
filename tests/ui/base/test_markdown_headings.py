"""Headings render whole in Qt's Markdown (inspector.ui.base.markdown): a heading that holds a
code span is bold and sized over all its text, in the documentation viewer (every ``## `code```
heading of quirks.md) and in the bug report's preview (its title)."""

from __future__ import annotations

from typing import Any

from PySide6.QtGui import QFont, QTextBlock, QTextDocument, QTextFormat

from inspector.core.base.resources import doc
from inspector.ui.base.markdown import whole_headings
from inspector.ui.shell.docviewer import DocViewer

SIZE = QTextFormat.Property.FontSizeAdjustment


def fragments(block: QTextBlock) -> list[tuple[str, int, Any, bool]]:
    """(text, weight, size adjustment, monospace) of each fragment of ``block``."""
    out = []
    it = block.begin()
    while not it.atEnd():
        f = it.fragment()
        cf = f.charFormat()
        out.append((f.text(), cf.fontWeight(), cf.property(SIZE), cf.fontFixedPitch()))
        it += 1
    return out


def heading_is_whole(block: QTextBlock) -> bool:
    level = block.blockFormat().headingLevel()
    return all(w == QFont.Weight.Bold and s == 4 - level for _t, w, s, _f in fragments(block))


def test_a_heading_with_a_code_span_is_styled_over_all_its_text() -> None:
    d = QTextDocument()
    d.setMarkdown("# Quirk `empty_id` in a stream\n\nbody `code` text\n\n### `x` after\n")
    assert not heading_is_whole(d.firstBlock())  # Qt's own import: only the first fragment
    assert whole_headings(d) == 2
    title = d.firstBlock()
    assert heading_is_whole(title) and title.text() == "Quirk empty_id in a stream"
    code = fragments(title)[1]
    assert code[0] == "empty_id" and code[3]  # the code span keeps its monospace family
    body = title.next()
    assert all(w != QFont.Weight.Bold for _t, w, _s, _f in fragments(body))  # body untouched
    assert heading_is_whole(body.next())


def test_the_quirks_page_shows_every_code_heading_whole(qtbot: Any) -> None:
    viewer = DocViewer(doc("quirks.md"))
    qtbot.addWidget(viewer)
    block, coded = viewer.browser.document().firstBlock(), 0
    while block.isValid():
        if block.blockFormat().headingLevel() and any(f[3] for f in fragments(block)):
            coded += 1
            assert heading_is_whole(block), block.text()
        block = block.next()
    assert coded >= 40  # the `code` headings of quirks.md
    viewer.show_page(doc("glossary.md"))
    viewer.browser.backward()  # a page shown again is whole again
    assert viewer.page.name == "quirks.md"
    block = viewer.browser.document().firstBlock()
    while not any(f[3] for f in fragments(block)) or not block.blockFormat().headingLevel():
        block = block.next()
    assert heading_is_whole(block), block.text()
