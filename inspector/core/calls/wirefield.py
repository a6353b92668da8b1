"""A wire value read as received, whatever its type: what may name a call's lane.

Wire data is untrusted: any field may hold any JSON value. The stages below the dialects never
raise on such a value: they read it as received and use it only where its type allows (an
index that is not a JSON integer or string routes like a missing one; a finish reason that is
not a string is no known reason). The dialect records a field of the wrong type as a delta of
its own (:mod:`inspector.core.quirks.events.wrongtype`), which the quirk scan reports.
"""

from __future__ import annotations

from typing import Any


def is_key(value: Any) -> bool:
    """Can ``value`` name a call's lane: a JSON integer or string (a boolean is neither)?"""
    t = type(value)
    return t is int or t is str
