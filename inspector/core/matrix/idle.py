"""Why a matrix would run no session at all: no targets, no scenarios, or every target it
would run skipped (no key).

Invariants:
- A matrix that would run nothing is refused before anything starts, with the reason, so no
  command succeeds on nothing: ``matrix`` exits 2 (:class:`NothingToRun`, one line) and the
  window says it in its status line. A matrix some of whose targets are skipped still runs
  the others (exit 0, its files written: the skipped cells say why).
- Pure: which targets are skipped (their key is not set) is the runner's to say; this module
  only decides from it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from inspector.core.base.errors import InspectorError
from inspector.core.matrix.spec import MatrixSpec


class NothingToRun(InspectorError):
    """A matrix that would run no session (one line: why)."""


def idle_reason(
    spec: MatrixSpec,
    skipped: Mapping[str, str],
    cells: Iterable[tuple[str, str]] | None = None,
) -> str | None:
    """Why ``spec`` would run no session, or None when it runs at least one.

    ``skipped``: target name -> why it is skipped (targets absent from it run); ``cells``:
    only these (target, scenario) cells (a rerun), by default every cell."""
    if not spec.targets:
        return "the matrix has no targets"
    if not spec.scenarios:
        return "the matrix has no scenarios"
    names = [t.name for t in spec.targets]
    if cells is not None:
        chosen = list(dict.fromkeys(target for target, _scenario in cells))
        if not chosen:
            return "no cell is chosen"
        names = [n for n in names if n in chosen]
    if all(n in skipped for n in names):
        why = "; ".join(f"{n}: {skipped[n]}" for n in names)
        which = "the only target is" if len(names) == 1 else f"all {len(names)} targets are"
        return f"{which} skipped ({why})"
    return None
