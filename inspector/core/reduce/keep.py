"""What ``reduce --keep`` keeps: the grammar and the judgement.

Grammar (one line each; anything else is a :class:`KeepError` naming the choices):
- ``quirk:CODE`` — a code of :mod:`inspector.core.quirks.codes` is reported on some attempt;
- ``invalid`` / ``invalid:PROBLEM`` — a call of the final attempt is invalid (with that
  problem code, e.g. ``invalid_json``, ``missing_required``);
- ``client:NAME`` — the replica NAME (``openai-python`` …) would not get the inspector's calls
  (its word is one of :data:`~inspector.core.reports.words.CLIENT_BREAKS`);
- ``diff:SETTING=A,B`` — the final attempt's calls (index, id, name, arguments, problems)
  differ between SETTING A and SETTING B (``empty-id``, ``validation`` or ``dialect``).

Invariant: a property is judged as ``analyze`` judges — the capture read by the reader, the
header's settings applied (:func:`~inspector.core.reports.gate.header_settings`), the provider
registry, the replicas of :mod:`inspector.core.clients.registry` — on the given settings.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from inspector.core.analysis.session import Analysis
from inspector.core.base.errors import InspectorError
from inspector.core.base.provider import Providers
from inspector.core.base.settings import Settings
from inspector.core.capture.records import Capture
from inspector.core.quirks.codes import ORDER
from inspector.core.reports.clients import clients_verdict
from inspector.core.reports.gate import header_settings
from inspector.core.reports.words import CLIENT_BREAKS
from inspector.core.verdicts.validation import Code

SETTINGS: Final = {"empty-id": "empty_id", "validation": "validation", "dialect": "dialect"}
"""``diff:`` setting names -> the Settings field they set."""
GRAMMAR: Final = "quirk:CODE | invalid[:PROBLEM] | client:NAME | diff:SETTING=A,B"


class KeepError(InspectorError):
    """A ``--keep`` that is not in the grammar, or names nothing known; one line."""


@dataclass(frozen=True)
class Keep:
    """One parsed ``--keep``."""

    kind: str
    """``quirk``, ``invalid``, ``client`` or ``diff``."""
    what: str = ""
    """The code, problem, client name or setting ("" for plain ``invalid``)."""
    values: tuple[str, str] = ("", "")
    """``diff``'s two values."""

    @property
    def text(self) -> str:
        if self.kind == "diff":
            return f"diff:{self.what}={self.values[0]},{self.values[1]}"
        return f"{self.kind}:{self.what}" if self.what else self.kind

    @property
    def uses_clients(self) -> bool:
        return self.kind == "client"

    def holds(self, capture: Capture, settings: Settings, providers: Providers) -> bool:
        """Does ``capture`` show this property under ``settings`` (see the module docstring)?"""
        settings = header_settings(capture, settings, providers)
        if self.kind == "diff":
            a, b = (_with(settings, SETTINGS[self.what], value) for value in self.values)
            return _calls(capture, a, providers) != _calls(capture, b, providers)
        analysis = Analysis.from_capture(capture, settings, None, providers=providers)
        if self.kind == "quirk":
            return any(
                q.code == self.what for r in analysis.rounds for v in r.attempts for q in v.quirks
            )
        if self.kind == "invalid":
            return any(
                p.code == self.what or not self.what
                for v in analysis.final.verdicts
                if not v.orphan
                for p in v.problems
            )
        verdict = clients_verdict(analysis)
        return verdict.words.get(self.what) in CLIENT_BREAKS


def signature(capture: Capture, settings: Settings, providers: Providers) -> frozenset[str]:
    """The faults ``capture`` shows under ``settings``: its quirk codes and its final calls'
    problem codes. A candidate may lose some, never gain one: cutting a stream makes new
    faults (a call cut short, a name missing) that are not the one to keep."""
    analysis = Analysis.from_capture(
        capture, header_settings(capture, settings, providers), None, providers=providers
    )
    quirks = {q.code for r in analysis.rounds for v in r.attempts for q in v.quirks}
    problems = {p.code for v in analysis.final.verdicts if not v.orphan for p in v.problems}
    return frozenset(quirks | {f"problem:{p}" for p in problems})


def _with(settings: Settings, field: str, value: str) -> Settings:
    """``settings`` with one field spelled as a string (checked as flags are)."""
    spelled = {"dialect": settings.dialect, "validation": settings.validation}
    spelled["empty_id"] = settings.empty_id
    spelled[field] = value
    return Settings.from_strings(spelled["dialect"], spelled["validation"], spelled["empty_id"])


def _calls(capture: Capture, settings: Settings, providers: Providers) -> list[Any]:
    analysis = Analysis.from_capture(capture, settings, None, providers=providers)
    return [
        (v.call.index, v.call.id, v.call.name, v.call.arguments, [p.code for p in v.problems])
        for v in analysis.final.verdicts
        if not v.orphan
    ]


def parse_keep(
    text: str, replicas: list[str], settings_choices: dict[str, tuple[str, ...]]
) -> Keep:
    """``--keep TEXT`` parsed and checked against the known codes, replicas and settings."""
    kind, _, rest = text.strip().partition(":")
    if kind == "quirk" and rest:
        if rest not in ORDER:
            raise KeepError(f"--keep {text}: no quirk code {rest!r} (see docs/quirks.md)")
        return Keep("quirk", rest)
    if kind == "invalid":
        problems = [v for k, v in vars(Code).items() if k.isupper()]
        if rest and rest not in problems:
            raise KeepError(f"--keep {text}: no problem {rest!r}; one of {', '.join(problems)}")
        return Keep("invalid", rest)
    if kind == "client" and rest:
        if rest not in replicas:
            raise KeepError(f"--keep {text}: no client {rest!r}; one of {', '.join(replicas)}")
        return Keep("client", rest)
    if kind == "diff" and "=" in rest:
        name, _, pair = rest.partition("=")
        values = pair.split(",")
        choices = settings_choices.get(name)
        if choices is None:
            raise KeepError(f"--keep {text}: no setting {name!r}; one of {', '.join(SETTINGS)}")
        if len(values) != 2 or any(v not in choices for v in values) or values[0] == values[1]:
            raise KeepError(
                f"--keep {text}: give two different {name} values of {', '.join(choices)}"
            )
        return Keep("diff", name, (values[0], values[1]))
    raise KeepError(f"--keep {text!r}: give {GRAMMAR}")
