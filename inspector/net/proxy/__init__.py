"""The recording proxy: point an agent's base URL at it, and every request it makes is
forwarded to the upstream unchanged, streamed back chunk by chunk, and each LLM exchange is
recorded to a capture and judged live against the request's own tools.

Modules: :mod:`.routes` (where a request goes, what it is, what of it is secret),
:mod:`.relay` (the upstream's response relayed to the agent, drained once it left),
:mod:`.body` (the decoded copy a recording session reads),
:mod:`.exchange` (one request as listed, and the session recording an LLM one),
:mod:`.server` (:class:`RecordingProxy`: the server, forwarding, recording, faults).
"""

from .exchange import Exchange, ProxySession
from .relay import Drain, Ending
from .routes import DEFAULT_LISTEN, ProxyError, Upstream, parse_listen
from .server import RecordingProxy

__all__ = [
    "DEFAULT_LISTEN",
    "Drain",
    "Ending",
    "Exchange",
    "ProxyError",
    "ProxySession",
    "RecordingProxy",
    "Upstream",
    "parse_listen",
]
