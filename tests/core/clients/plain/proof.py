"""The check every proof test makes: on a stream the plain predicate accepts, each replica
that declares the dialect plain gives, from the plain reading, exactly what its real code
gives when replayed over every event (calls, errors, agreement, ``diverges_at``)."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from inspector.core.analysis.attempt import AttemptView
from inspector.core.analysis.session import Analysis
from inspector.core.base.settings import Settings
from inspector.core.capture.reader import load
from inspector.core.clients.base import Exchange
from inspector.core.clients.judge import (
    ClientResult,
    exchange_of,
    expected_calls,
    judged_plain,
    run_replica,
)
from inspector.core.clients.registry import REPLICAS
from inspector.core.providers import REGISTRY

DECLARING = [r for r in REPLICAS if r.plain]


def outcome(result: ClientResult) -> dict[str, Any]:
    """Everything a report says of a result, but how it was judged."""
    error = result.error
    return {
        "calls": [c.to_json() for c in result.calls],
        "hosted": [c.to_json() for c in result.hosted],
        "error": None if error is None else (error.type, error.message),
        "error_after": result.error_after,
        "agrees": result.agrees,
        "diverges_at": result.diverges_at,
    }


def view_of(body: bytes, tmp: Path, dialect: str = "openai-chat") -> AttemptView:
    """``body`` as ``analyze`` reads a raw ``.sse`` file."""
    path = tmp / "body.sse"
    path.write_bytes(body)
    analysis = Analysis.from_capture(load(str(path)), Settings(dialect=dialect), providers=REGISTRY)
    return analysis.final


def judged_both_ways(view: AttemptView, exchange: Exchange | None = None) -> bool:
    """Is ``view``'s body plain? When it is, assert each declaring replica's shortcut equals
    its replay (``exchange``: what the client saw, ``exchange_of(view)`` unless given)."""
    exchange = exchange or exchange_of(view)
    expected, failed = expected_calls(view), view.failed
    plain = False
    for replica in DECLARING:
        if exchange.dialect not in replica.dialects:
            continue
        short = judged_plain(replica, view, expected, failed)
        if short is None:
            continue
        plain = True
        replay = run_replica(replica, dataclasses.replace(exchange), expected, failed)
        assert outcome(short) == outcome(replay), (
            f"{replica.name}: the plain reading differs from the replay\n"
            f"  plain:  {outcome(short)}\n  replay: {outcome(replay)}"
        )
    return plain
