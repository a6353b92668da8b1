"""What the client replicas say about a session, in the inspector's words.

Invariants:
- One :class:`ClientsVerdict` per question: the replicas run once (lazily, cached in
  :mod:`inspector.core.clients.judge`) and every view, the headline and ``analyze`` read the
  same results and the same words (:func:`inspector.core.reports.words.client_word`).
- Calls written in the assistant text are no client's calls (each hands them over as text):
  the phrase says how many there are, so the agreement is not read as "no calls".
- A replica that speaks none of the session's dialects is ``n/a``: listed, never counted as
  agreeing or breaking. A replica not in :data:`~inspector.core.clients.registry.VERIFIED`
  is marked ``(unverified)`` wherever its name is shown.
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from inspector.core.analysis.numbering import place_names
from inspector.core.analysis.session import Analysis
from inspector.core.base.settings import ABSENT
from inspector.core.calls.textcalls import from_text
from inspector.core.clients.base import HandedCall, Replica
from inspector.core.clients.judge import (
    ClientResult,
    expected_calls,
    judge_clients,
    judged_attempts,
)
from inspector.core.clients.registry import REPLICAS, VERIFIED
from inspector.core.reports.words import CLIENT_BREAKS, ClientWord, client_word, spoken


@dataclass
class ClientsVerdict:
    """Every replica's result on one session, with its word and the inspector's calls it was
    compared with."""

    replicas: Sequence[Replica]
    results: dict[str, ClientResult]
    words: dict[str, ClientWord]
    expected: dict[str, Sequence[HandedCall]]
    """Per replica: the inspector's calls of the attempt its result describes (one shared
    tuple per attempt, :func:`~inspector.core.clients.judge.expected_calls`)."""
    written: int = 0
    """Calls of the final attempt written in the assistant text: no client expects them."""
    judged: str = ""
    """Which attempts were judged, in words (:func:`judged_phrase`)."""
    skipped: bool = False
    """No replica was run at all (``analyze --no-clients``): nothing is said of any client,
    neither agreement nor breakage (:func:`not_judged`)."""

    @property
    def broken(self) -> list[str]:
        """Replicas that would not get the inspector's calls, in display order."""
        return [name for name, word in self.words.items() if word in CLIENT_BREAKS]

    @property
    def applicable(self) -> list[str]:
        """Replicas that speak the session's dialect, in display order."""
        return [name for name, r in self.results.items() if r.applies]

    def shown_name(self, name: str) -> str:
        """The replica's name as views show it: ``(unverified)`` after it when it has no
        passing goldens."""
        return name if name in VERIFIED else f"{name} (unverified)"

    def phrase(self) -> str:
        """The clients' half of a headline: ``breaks 2 clients: openai-python (doubled id),
        langchain (phantom calls)``, ``every client agrees`` or ``no client replica speaks
        this dialect``."""
        return self._phrase() + self.written_note()

    def _phrase(self) -> str:
        if self.skipped:
            return "clients not judged"
        broken = self.broken
        if not self.applicable:
            return "no client replica speaks this dialect"
        if not broken:
            said = {self.words[n] for n in self.applicable}
            if said == {"stopped"}:
                return "stopped before the stream ended: no client judged"
            return "clients pending" if "pending" in said else "every client agrees"
        count = f"breaks {len(broken)} client{'s' if len(broken) != 1 else ''}"
        return f"{count}: " + ", ".join(f"{n} ({self.spoken(n)})" for n in broken)

    def spoken(self, name: str) -> str:
        """Replica ``name``'s word as a sentence says it (``raised after 2 calls``)."""
        return spoken(self.words[name], self.results[name])

    def written_note(self) -> str:
        """``; 2 calls written as text: every client hands them over as text`` when the final
        attempt has calls written in its text (the lanes show them), else ``""``."""
        n = self.written
        calls = f"{n} call{'s' if n != 1 else ''}"
        them = "them" if n != 1 else "it"
        return f"; {calls} written as text: every client hands {them} over as text" if n else ""

    def to_json(self) -> dict[str, Any]:
        """The ``analyze --json`` ``clients`` section: one entry per replica."""
        return {replica.name: self.entry(replica) for replica in self.replicas}

    def entry(self, replica: Replica, lazy: bool = False) -> dict[str, Any]:
        """One replica's entry of :meth:`to_json` (``lazy``: its calls an iterator)."""
        return {
            **self.results[replica.name].to_json(lazy),
            "word": self.words[replica.name],
            "library": replica.library,
            "version": replica.version,
            "verified": replica.name in VERIFIED,
        }


_CONFORMING: weakref.WeakKeyDictionary[Analysis, tuple[tuple[Any, ...], Analysis]] = (
    weakref.WeakKeyDictionary()
)


def conforming(analysis: Analysis) -> Analysis:
    """``analysis`` read under the conforming empty-id policy (``absent``): what the clients
    are compared with, whatever the toggle shows. The ``literal`` policy reproduces the by-id
    client's bug in the lanes; comparing the other clients with that reading would call their
    right calls wrong. The fork is cached per session and stream length (so the replicas'
    own cache, keyed on its stream states, holds); a session still streaming is not forked."""
    if analysis.settings.empty_id == ABSENT or not analysis.attempts:
        return analysis
    if any(not view.state.ended for view in analysis.attempts):
        return analysis
    key = (analysis.settings, tuple(len(view.state.events) for view in analysis.attempts))
    hit = _CONFORMING.get(analysis)
    if hit is not None and hit[0] == key:
        return hit[1]
    fork = analysis.fork(analysis.with_settings(empty_id=ABSENT))
    _CONFORMING[analysis] = (key, fork)
    return fork


def judged_phrase(analysis: Analysis, attempt: int | None = None) -> str:
    """Which attempts the clients judge (:func:`~inspector.core.clients.judge.judged_attempts`),
    in words: ``the final attempt (round 1 · attempt 2)``, ``attempt 1, as selected (the
    final attempt is attempt 2)``, ``the final attempt of each round (3 rounds)``."""
    views = analysis.attempts
    if not views:
        return ""
    names = place_names(views)
    final = views[-1]
    if attempt is not None and 0 < attempt <= len(views) and attempt != final.number:
        return f"{names[attempt]}, as selected (the final attempt is {names[final.number]})"
    rounds = [r for r in analysis.rounds if r.attempts]
    if len(rounds) > 1:
        return f"the final attempt of each round ({len(rounds)} rounds)"
    chosen = judged_attempts(analysis, attempt)[-1]
    return f"the final attempt ({names[chosen.number]})"


def not_judged() -> ClientsVerdict:
    """The verdict of ``analyze --no-clients``: no replica run, none named, nothing broken
    (the headline says ``clients not judged``; the JSON ``clients`` is null)."""
    return ClientsVerdict((), {}, {}, {}, skipped=True)


def clients_verdict(
    analysis: Analysis, replicas: Sequence[Replica] = REPLICAS, attempt: int | None = None
) -> ClientsVerdict:
    """Run (or read cached) every replica on ``analysis`` and word each result, against the
    inspector's conforming reading (:func:`conforming`): over the final attempt of each
    round, or ``attempt`` when the user selected one (:func:`judged_phrase` says which)."""
    analysis = conforming(analysis)
    results = judge_clients(analysis, replicas, attempt)
    words: dict[str, ClientWord] = {}
    expected: dict[str, Sequence[HandedCall]] = {}
    views = {view.number: view for view in analysis.attempts}
    for name, result in results.items():
        view = views.get(result.attempt) if result.attempt is not None else None
        calls: Sequence[HandedCall] = ()  # a stopped stream: nothing compared
        if view is not None and view.state.ended and not view.cancelled:
            calls = expected_calls(view)
        expected[name] = calls
        stopped = view is not None and view.cancelled and result.applies
        words[name] = "stopped" if stopped else client_word(result, calls)
    written = sum(1 for v in analysis.final.verdicts if not v.orphan and from_text(v.call))
    phrase = judged_phrase(analysis, attempt)
    return ClientsVerdict(replicas, results, words, expected, written, phrase)
