"""The pictures of Help ▸ Getting started (``docs/getting-started.md``): pieces of the README's
1280x800 screenshots (``make screenshots``) cut at full size, never scaled down, so their text
reads as on the screen. ``make screenshots`` runs this after taking the screenshots.

Usage: ``python scripts/help_pictures.py [DOCS_IMAGES]`` (default ``docs/images``).
"""

from __future__ import annotations

import sys
from pathlib import Path

from PySide6.QtGui import QImage

PIECES = {
    # name: (screenshot, x, y, width, height): at most 920 wide (the viewer's page width)
    "start-live.png": ("lanes-absent.png", 0, 0, 900, 440),
    "start-proxy.png": ("proxy.png", 0, 584, 920, 180),
    "start-matrix.png": ("matrix.png", 0, 0, 920, 330),
    "start-clients.png": ("clients.png", 336, 470, 920, 220),
}


def main(argv: list[str]) -> int:
    images = Path(argv[0] if argv else "docs/images")
    for name, (source, x, y, w, h) in PIECES.items():
        image = QImage(str(images / source))
        if image.isNull():
            print(f"{images / source}: cannot read it (run make screenshots)", file=sys.stderr)
            return 2
        piece = image.copy(x, y, min(w, image.width() - x), min(h, image.height() - y))
        if not piece.save(str(images / name)):
            print(f"{images / name}: cannot write it", file=sys.stderr)
            return 2
        print(f"{images / name}: {piece.width()}x{piece.height()} from {source}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
