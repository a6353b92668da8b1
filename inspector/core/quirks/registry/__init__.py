"""The one registry of quirk codes: per code, its family, scope, severity, one-line meaning,
doc anchor, detector, public reports and what its dialect's documentation says should have
come instead (:class:`~.info.QuirkInfo`).

Each family's entries sit in a module of their own (:mod:`.lanes`, :mod:`.events`,
:mod:`.calls`, :mod:`.turn`), beside nothing else; :data:`REGISTRY` puts them in report order
(:data:`inspector.core.quirks.codes.ORDER`).

Invariants (checked at import: a registry that breaks one does not load):
- Every code of :mod:`inspector.core.quirks.codes` has exactly one entry, and every entry's
  family is that of the module it sits in.
- :data:`PROVIDER_CHECKS` are the provider-dependent codes: a provider lists those that apply
  to its streams in ``Provider.checks``; the others apply to every dialect.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

from inspector.core.quirks.codes import ORDER
from inspector.core.quirks.registry import calls, events, lanes, turn
from inspector.core.quirks.registry.info import PROVIDER_DEPENDENT, QuirkInfo


def _assembled() -> tuple[QuirkInfo, ...]:
    by_code: dict[str, QuirkInfo] = {}
    for family, entries in (
        (lanes.LANES, lanes.ENTRIES),
        (events.EVENTS, events.ENTRIES),
        (calls.CALLS, calls.ENTRIES),
        (turn.TURN, turn.ENTRIES),
    ):
        for entry in entries:
            if entry.code in by_code or entry.family != family:
                raise ValueError(f"quirk registry: {entry.code!r} twice, or in another family")
            by_code[entry.code] = entry
    if set(by_code) != set(ORDER):
        raise ValueError(
            f"quirk registry: codes without an entry or entries without a code: "
            f"{sorted(set(by_code) ^ set(ORDER))}"
        )
    return tuple(by_code[code] for code in ORDER)


REGISTRY: Final = _assembled()
"""Every quirk code's entry, in report order."""

BY_CODE: Final[Mapping[str, QuirkInfo]] = MappingProxyType({q.code: q for q in REGISTRY})
"""Code -> its entry (iterates in report order)."""

PROVIDER_CHECKS: Final = frozenset(q.code for q in REGISTRY if q.scope == PROVIDER_DEPENDENT)
"""Quirk checks that apply only to the providers that list them in ``Provider.checks``: each
rests on a fact of that provider's wire format."""
