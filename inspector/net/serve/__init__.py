"""Serving a capture as a provider: what each recorded attempt answers (:mod:`.plan`) and the
loopback server that answers it, at the recorded pace or faster (:mod:`.server`).

The bytes served are the bytes recorded (a capture never held a secret: see
:mod:`inspector.core.capture.redaction`); only the framing headers are the server's own.
"""

from typing import TYPE_CHECKING, Any

from inspector.net.serve.plan import Reply, Speed, parse_speed, replies_of

if TYPE_CHECKING:
    from inspector.net.serve.server import CaptureServer


def __getattr__(name: str) -> Any:
    """``CaptureServer`` on first use: the server pulls in aiohttp, and every command line
    run imports :mod:`.plan` (``serve``'s options) through this package."""
    if name == "CaptureServer":
        from inspector.net.serve.server import CaptureServer

        return CaptureServer
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["CaptureServer", "Reply", "Speed", "parse_speed", "replies_of"]
