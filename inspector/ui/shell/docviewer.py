"""The in-app documentation viewer: a shipped ``docs/`` page rendered from its Markdown by Qt
(:class:`QTextBrowser`), with its pictures and its links.

Invariants:
- Help never depends on the desktop: a page is always shown here (a desktop with no Markdown
  viewer made ``xdg-open`` fail while Qt reported success, so a Help item did nothing).
- Pages are found through the shipped ``docs/`` (:func:`inspector.core.base.resources.doc`),
  the same lookup from a checkout, an editable install and a wheel; pictures and links are
  relative to the page, so they resolve in every install alike.
- A link to another page (``proxy.md``, ``matrix.md#spec``) opens here; a web or mail link
  opens in the desktop's browser; a local file that is not a page (a sample, a script) opens
  through the desktop; a link to a file this install lacks says so on the viewer's status line
  and changes nothing. Back / Forward / Contents walk the pages seen.
- A heading is styled whole, code spans included (:mod:`inspector.ui.base.markdown`), on
  every load of a page (back and forward too).
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QUrl
from PySide6.QtGui import QDesktopServices, QImage, QTextDocument
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QTextBrowser, QVBoxLayout, QWidget

from inspector.ui.base.markdown import whole_headings

PAGE_SUFFIXES = (".md", ".markdown")
"""Links to these open in the viewer (as Markdown)."""
WEB_SCHEMES = ("http", "https", "mailto")


class DocViewer(QWidget):
    """A page of ``docs/`` and its neighbours (see the module docstring)."""

    def __init__(self, page: Path, home: Path | None = None) -> None:
        super().__init__()
        self.home = home or page
        self.browser = QTextBrowser()
        self.browser.setObjectName("doc-browser")
        self.browser.setOpenLinks(False)  # every link goes through follow()
        self.browser.anchorClicked.connect(self.follow)
        self.browser.sourceChanged.connect(lambda _url: whole_headings(self.browser.document()))
        self.status = QLabel()
        self.status.setObjectName("doc-status")
        self.status.setWordWrap(True)
        self.buttons: dict[str, QPushButton] = {}
        bar = QHBoxLayout()
        for text, name, slot in (
            ("◀ Back", "back", self.browser.backward),
            ("Forward ▶", "forward", self.browser.forward),
            ("Contents", "home", lambda: self.show_page(self.home)),
        ):
            b = self.buttons[name] = QPushButton(text)
            b.setObjectName(f"doc-{name}")
            b.setAutoDefault(False)
            b.clicked.connect(lambda _checked=False, s=slot: s())
            bar.addWidget(b)
        bar.addStretch(1)
        self.browser.backwardAvailable.connect(self.buttons["back"].setEnabled)
        self.browser.forwardAvailable.connect(self.buttons["forward"].setEnabled)
        self.buttons["back"].setEnabled(False)
        self.buttons["forward"].setEnabled(False)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addLayout(bar)
        lay.addWidget(self.browser, 1)
        lay.addWidget(self.status)
        self.show_page(page)

    @property
    def page(self) -> Path:
        """The file on show."""
        return Path(self.browser.source().toLocalFile())

    def show_page(self, path: Path, fragment: str = "") -> bool:
        """Render ``path`` (Markdown); False, said on the status line, when it is missing."""
        if not path.is_file():
            self.status.setText(f"Not in this install: {path}")
            return False
        url = QUrl.fromLocalFile(str(path))
        if fragment:
            url.setFragment(fragment)
        kind = QTextDocument.ResourceType.MarkdownResource
        if path.suffix.lower() not in PAGE_SUFFIXES:
            kind = QTextDocument.ResourceType.UnknownResource
        self.browser.setSource(url, kind)
        self.status.setText(str(path))
        self.window().setWindowTitle(f"{path.name} — Tool-Call Inspector")
        return True

    def follow(self, link: QUrl) -> bool:
        """Where a clicked link goes (see the module docstring); True when it went."""
        if link.scheme() in WEB_SCHEMES:
            return QDesktopServices.openUrl(link)
        if link.isRelative() and not link.path() and link.fragment():
            self.browser.scrollToAnchor(link.fragment())  # a heading of this page
            return True
        target = self.browser.source().resolved(link) if link.isRelative() else link
        path = Path(target.toLocalFile())
        if not target.isLocalFile() or not path.exists():
            self.status.setText(f"Not in this install: {path if path.name else link.toString()}")
            return False
        if path.suffix.lower() in PAGE_SUFFIXES:
            return self.show_page(path, target.fragment())
        self.status.setText(f"Opened with the desktop: {path}")
        return QDesktopServices.openUrl(QUrl.fromLocalFile(str(path)))

    def references(self) -> tuple[list[str], list[str]]:
        """The page's pictures and links, as written (``images/x.png``, ``proxy.md#spec``)."""
        images, links = [], []
        block = self.browser.document().begin()
        while block.isValid():
            it = block.begin()
            while not it.atEnd():
                fmt = it.fragment().charFormat()
                if fmt.isImageFormat():
                    images.append(fmt.toImageFormat().name())
                elif fmt.isAnchor() and fmt.anchorHref():
                    links.append(fmt.anchorHref())
                it += 1
            block = block.next()
        return images, list(dict.fromkeys(links))

    def broken(self) -> list[str]:
        """What on the page on show would not work: a picture that does not load, a link to a
        local file this install lacks (web links are not followed)."""
        images, links = self.references()
        base = self.browser.source()
        out = [f"picture {i}" for i in images if QImage(_local(base, i)).isNull()]
        for link in links:
            url = QUrl(link)
            if url.scheme() in WEB_SCHEMES or (not url.path() and url.fragment()):
                continue
            if not Path(_local(base, link)).exists():
                out.append(f"link {link}")
        return out


def _local(base: QUrl, ref: str) -> str:
    """``ref`` (as written on the page at ``base``) as a local path."""
    url = QUrl(ref)
    return (base.resolved(url) if url.isRelative() else url).toLocalFile()
