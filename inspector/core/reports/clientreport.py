"""The clients in ``analyze``'s outputs: the text report's ``clients:`` section, and the
``--client NAME`` gate ("would my stack break on this capture?").

Invariants:
- One line per replica, in registry order: its symbol and word (:func:`.words.label`), its
  name (``(unverified)`` when it has no passing goldens), what it handed over or raised, and
  ``diverges at chunk N`` (the wire event's seq) when it breaks.
- ``--client`` names are checked before the file is read: an unknown name is bad usage (exit
  2, one line naming the known replicas). A named client that speaks none of the session's
  dialects is bad usage too (exit 2, ``does not speak <dialect>``), decided before anything
  is printed: a CI gate must notice it is checking a client that cannot apply, never pass it.
- A named client adds an exit-1 reason exactly when its word is in
  :data:`.words.CLIENT_BREAKS`; it never removes one (an invalid call still exits 1 for a
  client that agrees with the inspector: it hands the agent the same invalid call).
"""

from __future__ import annotations

from collections.abc import Sequence

from inspector.core.analysis.session import Analysis
from inspector.core.base.errors import InspectorError
from inspector.core.clients.base import HandedCall, Replica
from inspector.core.clients.registry import REPLICAS
from inspector.core.reports.clients import ClientsVerdict
from inspector.core.reports.exitcodes import FOUND, OK, SessionStatus, session_status
from inspector.core.reports.words import CLIENT_BREAKS, label

WIDTH = 110
"""Characters of a client line's detail before it is clipped."""


class ClientUsageError(InspectorError):
    """``--client`` names no known replica, or one that cannot judge this stream (exit 2)."""


def named_replicas(names: Sequence[str], replicas: Sequence[Replica] = REPLICAS) -> list[str]:
    """``names`` without repeats, in the order given; :class:`ClientUsageError` (one line
    naming the known replicas) for a name no replica has."""
    known = [r.name for r in replicas]
    for name in names:
        if name not in known:
            listed = ", ".join(known) if known else "none registered"
            raise ClientUsageError(f"--client {name}: no such client replica (known: {listed})")
    return list(dict.fromkeys(names))


def check_speaks(verdict: ClientsVerdict, names: Sequence[str], dialect: str | None) -> None:
    """:class:`ClientUsageError` when a named client speaks none of the session's dialects
    (its result is ``n/a``): ``--client anthropic-sdk does not speak openai-chat (it speaks
    anthropic)``."""
    by_name = {r.name: r for r in verdict.replicas}
    for name in names:
        if not verdict.results[name].applies:
            speaks = ", ".join(sorted(by_name[name].dialects)) or "no dialect"
            raise ClientUsageError(
                f"--client {name} does not speak {dialect or 'this stream'} (it speaks {speaks})"
            )


def gated_status(
    analysis: Analysis, verdict: ClientsVerdict, names: Sequence[str] = ()
) -> SessionStatus:
    """:func:`.exitcodes.session_status` with the ``--client`` gate applied: each named client
    that breaks adds a reason (:func:`client_reasons`), and the code is 1 when any reason
    stands. Without names it is :func:`session_status` unchanged."""
    status = session_status(analysis)
    if names:
        status.clients = client_reasons(verdict, names)
        status.code = FOUND if status.reasons else OK
    return status


def client_reasons(verdict: ClientsVerdict, names: Sequence[str]) -> list[str]:
    """One exit-1 reason per named client that would not get the inspector's calls:
    ``client openai-python: doubled id, diverges at chunk 3``."""
    out = []
    for name in names:
        word = verdict.words[name]
        if word in CLIENT_BREAKS:
            spoken = verdict.spoken(name)
            out.append(f"client {verdict.shown_name(name)}: {spoken}{_where(verdict, name)}")
    return out


def gate_lines(verdict: ClientsVerdict, names: Sequence[str]) -> list[str]:
    """The text report's closing lines under ``--client``: one per named client, breaking or
    not (``client litellm: ✓ agrees (gets the inspector's calls)``)."""
    out = []
    for name in names:
        word = verdict.words[name]
        if word in CLIENT_BREAKS:
            what = f"{label(word)}: would not get the inspector's calls{_where(verdict, name)}"
        else:
            what = f"{label(word)} (gets the inspector's calls)"
        out.append(f"client {verdict.shown_name(name)}: {what}")
    return out


def clients_lines(verdict: ClientsVerdict) -> list[str]:
    """The text report's ``clients:`` section (see the module's invariants)."""
    if verdict.skipped:
        return ["clients: not judged (--no-clients)"]
    rows = []
    for replica in verdict.replicas:
        name = replica.name
        rows.append((label(verdict.words[name]), verdict.shown_name(name), _detail(verdict, name)))
    if not rows:
        return ["clients: no client replica registered"]
    w0 = max(len(r[0]) for r in rows)
    w1 = max(len(r[1]) for r in rows)
    lines = ["clients:"]
    for word, name, detail in rows:
        lines.append(f"  {word.ljust(w0)}  {name.ljust(w1)}  {detail}".rstrip())
    return lines


def _detail(verdict: ClientsVerdict, name: str) -> str:
    result = verdict.results[name]
    if not result.applies:
        replica = next(r for r in verdict.replicas if r.name == name)
        return f"speaks {', '.join(sorted(replica.dialects))} only"
    if result.agrees is None:
        return ""
    hosted = _hosted(result.hosted)
    if result.error is not None and result.calls:
        what = f"{verdict.spoken(name)}: {result.error.type}: {result.error.message}"
    elif result.error is not None:
        what = f"raises {result.error.type}: {result.error.message}"
    elif result.agrees:
        count = len(result.calls)
        return f"hands over the inspector's {count} call{'s' if count != 1 else ''}{hosted}"
    else:
        what = _handed(result.calls) + hosted
    where = _where(verdict, name)
    return _clip(what, WIDTH - len(where)) + where


def _where(verdict: ClientsVerdict, name: str) -> str:
    at = verdict.results[name].diverges_at
    return "" if at is None else f", diverges at chunk {at}"


def _hosted(items: Sequence[HandedCall]) -> str:
    """`` (+ 3 hosted items)``: what the library also hands over of the provider's own
    tools (never the agent's calls), or ``""``."""
    n = len(items)
    return f" (+ {n} hosted item{'s' if n != 1 else ''})" if n else ""


def _handed(calls: Sequence[HandedCall]) -> str:
    count = f"hands over {len(calls)} call{'s' if len(calls) != 1 else ''}"
    if not calls:
        return count
    shown = "; ".join(f"{c.name or '(no name)'} [{c.id or 'no id'}] {c.arguments}" for c in calls)
    return f"{count}: {shown}"


def _clip(text: str, width: int) -> str:
    text = " ".join(text.split())  # one line whatever the message or arguments hold
    return text if len(text) <= width else text[: max(width - 1, 0)] + "…"
