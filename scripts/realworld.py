"""Measure what the inspector shows of the real recorded streams (``../shared/fixtures/realworld``).

Usage: ``python scripts/realworld.py [--verbose] [--all]``

Over the streams of the four dialects spoken today (OpenAI Chat family, OpenAI Responses,
Anthropic, Gemini; ``--all`` adds the others), prints: tool-call items shown, and shown with
the right kind and item type, against the ground truth's items; client-side calls exact (id,
name, arguments as streamed); calls judged invalid although well-formed; and, with
``--verbose``, every stream's misses. Exits 1 when the folder is missing.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from realworld.loader import MissingFixtures, realworld_streams
from realworld.measure import measure


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--verbose", "-v", action="store_true", help="every stream's misses")
    parser.add_argument("--all", action="store_true", help="also the dialects not spoken today")
    args = parser.parse_args(argv)
    try:
        streams = realworld_streams(spoken=not args.all)
    except MissingFixtures as e:
        print(f"realworld: {e}", file=sys.stderr)
        return 1
    totals: Counter[str] = Counter()
    by_dialect: dict[str, Counter[str]] = {}
    for stream in streams:
        r = measure(stream)
        counts = by_dialect.setdefault(stream.dialect, Counter())
        for key in ("items", "shown", "shown_right", "client_side", "exact", "false_invalid"):
            totals[key] += getattr(r, key)
            counts[key] += getattr(r, key)
        totals["streams"] += 1
        counts["streams"] += 1
        if args.verbose and r.misses:
            print(f"{stream.key}:")
            for miss in r.misses:
                print(f"  {miss}")
    if args.verbose:
        print()
    for dialect, c in sorted(by_dialect.items()):
        print(f"{dialect:40} {c['streams']:3} streams  shown {c['shown']}/{c['items']} "
              f"(right kind {c['shown_right']})  exact {c['exact']}/{c['client_side']}  "
              f"false invalid {c['false_invalid']}")  # fmt: skip
    t = totals
    print(f"{t['streams']} streams: items shown {t['shown']}/{t['items']}, with the right kind "
          f"{t['shown_right']}/{t['items']}; client-side calls exact {t['exact']}/"
          f"{t['client_side']}; false invalid {t['false_invalid']}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
