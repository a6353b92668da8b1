"""About how long the replicas take to read a session, before they are run (a window decides
from it whether to run them unasked).

Invariants:
- :func:`cost` runs no replica. It reads the session's ended attempts' event counts and
  dialects, and, for an attempt of at most :data:`PROBE_EVENTS` events whose dialect has a
  plain-stream predicate that some speaking replica declares, the plain reading
  (:func:`~inspector.core.clients.plain.reading.plain_reading`: cached per attempt and shared
  with the judge, so the judge does not read it again).
- A replica judged from the plain reading costs :data:`PLAIN_SECONDS_PER_EVENT` per event
  (its hand-over: at most a parse and write of the arguments), the reading itself
  :data:`READING_SECONDS_PER_EVENT` once per attempt; every other (replica, attempt) run
  :data:`SECONDS_PER_EVENT`. An attempt too long to probe is counted as replayed.
"""

from __future__ import annotations

from typing import Final

from inspector.core.analysis.attempt import AttemptView
from inspector.core.analysis.session import Analysis
from inspector.core.clients import registry
from inspector.core.clients.base import Replica
from inspector.core.clients.judge import expected_calls, judged_plain
from inspector.core.clients.plain.reading import READERS

SECONDS_PER_EVENT: Final = 13e-6
"""What one replica takes per wire event it reads, on average over the replicas speaking the
dialect: measured on a shared 2-core machine, about 10 µs over the six OpenAI-compatible
replicas on the large-arguments sample (21,763 events: 5 µs openai-python, which skips its
chunks, to 14 µs langchain) and 13 µs on ``make bench``'s 8 calls x 16 KiB chat stream (27k
events: 6 µs by-id to 22 µs openai-python)."""
READING_SECONDS_PER_EVENT: Final = 3e-6
"""The plain reading of an attempt, per event (``bench/analyze.py``: 2.4–5.3 µs on the chat
stream, the Responses and the Anthropic streams)."""
PLAIN_SECONDS_PER_EVENT: Final = 0.3e-6
"""One replica judged from the plain reading, per event of the attempt (its hand-over)."""
PROBE_EVENTS: Final = 100_000
"""The longest attempt whose plain reading :func:`cost` makes (about 0.1–0.4 s): a longer
one is counted as replayed (asked for, its reading is made with the verdict)."""


def cost(a: Analysis) -> tuple[float, float]:
    """About how many seconds the replicas that speak ``a``'s dialects take to read its ended
    attempts: in all, and the slowest single (replica, attempt) run."""
    total = most = 0.0
    for view in a.attempts:
        if not view.state.ended:
            continue
        n = len(view.state.events)
        speaking = [r for r in registry.REPLICAS if view.state.dialect_name in r.dialects]
        plain = _plain(view, speaking, n)
        if plain:
            total += n * READING_SECONDS_PER_EVENT
        for replica in speaking:
            one = n * (PLAIN_SECONDS_PER_EVENT if replica.name in plain else SECONDS_PER_EVENT)
            total += one
            most = max(most, one)
    return total, most


def _plain(view: AttemptView, speaking: list[Replica], n: int) -> set[str]:
    """The speaking replicas judged from ``view``'s plain reading (none when it is not
    plain, or too long to probe)."""
    dialect = view.state.dialect_name
    declaring = [r for r in speaking if dialect in r.plain]
    if not declaring or dialect not in READERS or n > PROBE_EVENTS:
        return set()
    expected, failed = expected_calls(view), view.failed
    return {r.name for r in declaring if judged_plain(r, view, expected, failed) is not None}
