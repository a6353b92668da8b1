"""Markdown as Qt renders it, with its headings whole.

Qt's Markdown importer gives a heading's format (bold, a larger size by level) to the first
text fragment of the heading only: a code span resets it, and what follows the span is body
text (``# `code` in a stream`` showed as a plain line; 46 headings of ``docs/quirks.md`` and
every bug report's title did). :func:`whole_headings` merges the heading's format into every
fragment of each heading block, keeping each fragment's own (a code span stays monospace).

Invariant: only heading blocks change, and only their weight and size adjustment; the text,
links and anchors are untouched, so it can run after every load of a page.
"""

from __future__ import annotations

from PySide6.QtGui import QFont, QTextCharFormat, QTextCursor, QTextDocument, QTextFormat

_SIZE = QTextFormat.Property.FontSizeAdjustment


def whole_headings(doc: QTextDocument) -> int:
    """Give every fragment of each heading its heading's format; how many headings."""
    count = 0
    block = doc.firstBlock()
    while block.isValid():
        level = block.blockFormat().headingLevel()
        if level > 0 and block.length() > 1:
            fmt = QTextCharFormat()
            fmt.setFontWeight(QFont.Weight.Bold)
            fmt.setProperty(_SIZE, 4 - level)  # Qt's own: h1 +3 … h4 0, h5 -1, h6 -2
            cursor = QTextCursor(block)
            cursor.movePosition(
                QTextCursor.MoveOperation.EndOfBlock, QTextCursor.MoveMode.KeepAnchor
            )
            cursor.mergeCharFormat(fmt)
            count += 1
        block = block.next()
    return count
