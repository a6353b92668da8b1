"""Header bytes pass through the proxy as bytes, UTF-8 or not.

aiohttp's parsers decode a header's bytes as UTF-8 with ``surrogateescape`` (a byte that is not
UTF-8 becomes a lone surrogate), but its compiled writer drops lone surrogates when it writes
headers: ``caf\\xc3\\xa9\\xff\\xfe`` arrived and ``café`` left. :func:`install` puts a
serializer in front of aiohttp's: headers that are all ASCII (nearly every request) go to
aiohttp's own; any other is written by the same rules (no CR, LF or other control character:
``ValueError``, as aiohttp) but encoded with ``surrogateescape``, so every byte received is
the byte sent on — to the upstream and, for response headers, to the agent.

Invariant: it changes what aiohttp writes only for header text holding lone surrogates, which
aiohttp itself would have dropped; it is installed once, when the proxy's client opens.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, Final

from aiohttp import http_writer

_FORBIDDEN: Final = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")
_installed: list[Callable[[str, Any], bytes]] = []


def serialize_headers(status_line: str, headers: Any) -> bytes:
    """The status line and headers as bytes (see the module doc)."""
    items = list(headers.items())
    if status_line.isascii() and all(k.isascii() and v.isascii() for k, v in items):
        return _installed[0](status_line, headers)
    lines = [status_line, *(f"{k}: {v}" for k, v in items)]
    for line in lines:
        if _FORBIDDEN.search(line) is not None:
            raise ValueError(
                "Forbidden control character detected in headers. "
                "Potential header injection attack."
            )
    return ("\r\n".join(lines) + "\r\n\r\n").encode("utf-8", "surrogateescape")


def install() -> None:
    """Put :func:`serialize_headers` in front of aiohttp's writer (once)."""
    if not _installed:
        _installed.append(http_writer._serialize_headers)
        http_writer._serialize_headers = serialize_headers
