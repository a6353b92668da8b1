"""Serving a capture as a provider: what each recorded attempt answers (:mod:`.plan`) and the
loopback server that answers it, at the recorded pace or faster (:mod:`.server`).

The bytes served are the bytes recorded (a capture never held a secret: see
:mod:`inspector.core.capture.redaction`); only the framing headers are the server's own.
"""

from inspector.net.serve.plan import Reply, Speed, parse_speed, replies_of
from inspector.net.serve.server import CaptureServer

__all__ = ["CaptureServer", "Reply", "Speed", "parse_speed", "replies_of"]
