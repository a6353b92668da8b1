"""JSON syntax colouring for the parsed-arguments view (run on completion, never per token)."""

from __future__ import annotations

import re

from PySide6.QtGui import QColor, QSyntaxHighlighter, QTextCharFormat, QTextDocument

from inspector.ui.base import theme

_TOKENS = re.compile(
    r'(?P<key>"(?:[^"\\]|\\.)*"(?=\s*:))|(?P<str>"(?:[^"\\]|\\.)*")'
    r"|(?P<num>-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)|(?P<lit>\b(?:true|false|null)\b)"
)
_LIGHT = {"key": "#1f4e9b", "str": "#2e7d32", "num": "#ad1457", "lit": "#6a1b9a"}
_DARK = {"key": "#8ab4f8", "str": "#a5d6a7", "num": "#f48fb1", "lit": "#ce93d8"}


class JsonHighlighter(QSyntaxHighlighter):
    """Colours keys, strings, numbers and literals, line by line."""

    def __init__(self, document: QTextDocument) -> None:
        super().__init__(document)
        colours = _DARK if theme.is_dark() else _LIGHT
        self._formats: dict[str, QTextCharFormat] = {}
        for name, c in colours.items():
            fmt = QTextCharFormat()
            fmt.setForeground(QColor(c))
            self._formats[name] = fmt

    def highlightBlock(self, text: str) -> None:
        for m in _TOKENS.finditer(text):
            kind = m.lastgroup
            if kind:
                self.setFormat(m.start(), m.end() - m.start(), self._formats[kind])
