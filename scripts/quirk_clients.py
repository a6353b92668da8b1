"""Which client replicas each quirk breaks, measured: write a "Breaks" line per quirk into
docs/quirks.md.

Usage: ``python scripts/quirk_clients.py`` (rewrite the lines) or ``--check`` (exit 1 when the
document differs from the measurement;
``tests/core/quirks/test_clients_each_quirk_breaks.py`` runs that comparison, so the lines
cannot go stale).

Measured, not guessed: every capture of the demo provider's scenarios in
``tests/clients/corpus/<dialect>/<scenario>.jsonl`` is judged as ``analyze`` judges it (its
header's dialect, default settings), every registered replica runs on it
(:func:`inspector.core.reports.clients.clients_verdict`), and each quirk's line lists, per
stream that shows the quirk, the replicas that would not get the inspector's calls there, in
the inspector's words. A stream that shows other quirks too says so ("also shows …"): a break
there may be theirs. A stream in a dialect no replica speaks says that instead of "none".

Invariants:
- The lines sit between ``<!-- breaks: CODE -->`` and ``<!-- /breaks -->`` at the end of the
  quirk's section; everything else in the document is left as it is. A section without
  markers gets them (before its trailing blank lines) on the first write.
- Deterministic: streams in id order, replicas in registry order.
"""

from __future__ import annotations

import argparse
import re
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

from inspector.core.analysis.session import Analysis
from inspector.core.base.settings import Settings
from inspector.core.capture.reader import load
from inspector.core.providers import REGISTRY
from inspector.core.quirks.codes import ORDER
from inspector.core.reports.clients import clients_verdict
from inspector.core.reports.gate import header_settings

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO / "tests" / "clients" / "corpus"
DOC = REPO / "docs" / "quirks.md"
WIDTH = 96
"""Where the Markdown lines wrap (the document's own width)."""

_SECTION = re.compile(r"^## `(\w+)`\n", re.M)
_BLOCK = re.compile(r"<!-- breaks: (\w+) -->\n.*?<!-- /breaks -->\n", re.S)


@dataclass
class Seen:
    """One stream that shows a quirk, and what the replicas made of it."""

    stream: str
    """``<dialect>/<scenario>``."""
    others: list[str]
    """The other quirks the stream shows, in report order."""
    broken: list[str]
    """``name (word)`` per replica that would not get the inspector's calls."""
    speakers: int
    """How many replicas speak the stream's dialect."""


def measure(corpus: Path = CORPUS) -> dict[str, list[Seen]]:
    """Per quirk code (in :data:`ORDER` order), every corpus stream that shows it."""
    out: dict[str, list[Seen]] = {code: [] for code in ORDER}
    for path in sorted(corpus.glob("*/*.jsonl")):
        capture = load(path)
        settings = header_settings(capture, Settings(), REGISTRY)
        analysis = Analysis.from_capture(capture, settings, providers=REGISTRY)
        shown = {q.code for view in analysis.attempts for q in view.quirks}
        verdict = clients_verdict(analysis)
        broken = [f"{verdict.shown_name(n)} ({verdict.words[n]})" for n in verdict.broken]
        stream = f"{path.parent.name}/{path.stem}"
        for code in shown:
            others = [c for c in ORDER if c in shown and c != code]
            out[code].append(Seen(stream, others, broken, len(verdict.applicable)))
    return out


def breaks_text(code: str, seen: list[Seen]) -> str:
    """The Markdown between the markers of ``code``: one bullet, wrapped."""
    if not seen:
        body = "no demo-provider stream shows it, so nothing was measured."
    else:
        parts = []
        for s in seen:
            head = f"`{s.stream}`"
            if s.others:
                head += " (also shows " + ", ".join(f"`{c}`" for c in s.others) + ")"
            if not s.speakers:
                what = "no replica speaks its dialect"
            else:
                what = ", ".join(s.broken) if s.broken else f"none of {s.speakers}"
            parts.append(f"{head}: {what}")
        body = "; ".join(parts) + "."
    bullet = textwrap.fill(
        "- **Breaks (measured):** " + body,
        WIDTH,
        subsequent_indent="  ",
        break_on_hyphens=False,
        break_long_words=False,
    )
    return f"<!-- breaks: {code} -->\n{bullet}\n<!-- /breaks -->\n"


def render(doc: str, measured: dict[str, list[Seen]]) -> str:
    """``doc`` with every quirk's block replaced by (or given) its measured text."""
    doc = _BLOCK.sub(lambda m: _placeholder(m.group(1)), doc)
    starts = [(m.start(), m.group(1)) for m in _SECTION.finditer(doc)]
    pieces = []
    ends = [s for s, _ in starts[1:]] + [len(doc)]
    pieces.append(doc[: starts[0][0]] if starts else doc)
    for (start, code), end in zip(starts, ends, strict=True):
        section = doc[start:end]
        block = breaks_text(code, measured.get(code, []))
        if _placeholder(code) in section:
            section = section.replace(_placeholder(code), block)
        else:
            body = section.rstrip("\n")
            trail = section[len(body) :]
            section = body + "\n\n" + block + (trail[1:] if trail else "")
        pieces.append(section)
    return "".join(pieces)


def _placeholder(code: str) -> str:
    return f"\x00breaks:{code}\x00"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--check", action="store_true", help="exit 1 when docs/quirks.md is stale")
    args = p.parse_args(argv)
    doc = DOC.read_text(encoding="utf-8")
    new = render(doc, measure())
    if args.check:
        if new != doc:
            print("docs/quirks.md: the Breaks lines differ from the measurement; run "
                  "python scripts/quirk_clients.py", file=sys.stderr)  # fmt: skip
            return 1
        return 0
    if new != doc:
        DOC.write_text(new, encoding="utf-8")
    print(f"docs/quirks.md: {sum(1 for _ in _BLOCK.finditer(new))} Breaks lines")
    return 0


if __name__ == "__main__":
    sys.exit(main())
