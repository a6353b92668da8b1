"""Escaped surrogate pairs split across fragments, read as clients read them.

Invariants:
- A provider may cut an escaped pair (``"\\ud83d"`` then ``"\\ude00"``) across two chunks;
  each chunk then decodes to a lone surrogate (:func:`~inspector.core.providers.wire.events.
  lenient_loads`). A JavaScript client concatenates UTF-16 units and reads the character;
  :func:`paired` gives the joined text that reading. A lone surrogate with no partner stays.
- Free for text without surrogates: one regex search of a non-ASCII text, none of ASCII text.
"""

from __future__ import annotations

import re
from typing import Final

_SURROGATE: Final = re.compile("[\ud800-\udfff]")


def paired(text: str) -> str:
    """``text`` with each surrogate pair joined into its character."""
    if text.isascii() or _SURROGATE.search(text) is None:
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")
