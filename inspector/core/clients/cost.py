"""About how long the replicas take to read a session, before they are run (a window decides
from it whether to run them unasked).

Invariant: :func:`cost` reads only the session's ended attempts' event counts and dialects; it
runs no replica.
"""

from __future__ import annotations

from typing import Final

from inspector.core.analysis.session import Analysis
from inspector.core.clients import registry

SECONDS_PER_EVENT: Final = 13e-6
"""What one replica takes per wire event it reads, on average over the replicas speaking the
dialect: measured on a shared 2-core machine, about 10 µs over the six OpenAI-compatible
replicas on the large-arguments sample (21,763 events: 5 µs openai-python, which skips its
chunks, to 14 µs langchain) and 13 µs on ``make bench``'s 8 calls x 16 KiB chat stream (27k
events: 6 µs by-id to 22 µs openai-python)."""


def cost(a: Analysis) -> tuple[float, float]:
    """About how many seconds the replicas that speak ``a``'s dialects take to read its ended
    attempts: in all, and the slowest single (replica, attempt) run."""
    ended = [len(v.state.events) for v in a.attempts if v.state.ended]
    dialects = {v.state.dialect_name for v in a.attempts}
    speaking = sum(1 for r in registry.REPLICAS if r.dialects & dialects)
    most = max(ended, default=0) if speaking else 0
    return sum(ended) * speaking * SECONDS_PER_EVENT, most * SECONDS_PER_EVENT
