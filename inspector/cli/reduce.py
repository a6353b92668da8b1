"""``toolcall-inspector reduce CAPTURE --keep WHAT --out SMALL``: shrink a capture to a
minimal one that still shows WHAT (:mod:`inspector.core.reduce`).

Prints the events and bytes before and after. Exit codes: 0 written; 2 bad usage, an
unreadable capture, a capture that does not show WHAT, or a timing fault (a stall: not
reducible by events, the line says why).
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from inspector.core.base.errors import InspectorError
from inspector.core.base.settings import (
    DEFAULT_EMPTY_ID,
    DEFAULT_MODE,
    EMPTY_ID_POLICIES,
    VALIDATION_MODES,
    Settings,
    dialect_choices,
)
from inspector.core.providers import REGISTRY
from inspector.core.reduce.keep import GRAMMAR, parse_keep


def add_reduce_parser(sub: Any) -> None:
    """The ``reduce`` subcommand's options, on the subparsers ``sub``."""
    r = sub.add_parser(
        "reduce",
        help="shrink a capture to a minimal one that still shows a quirk, an invalid call, "
        "a client failure or a settings difference",
        description="Shrink a capture to a minimal one that still shows WHAT.",
    )
    r.add_argument("path", help="a capture (.jsonl), a HAR or a raw response body")
    r.add_argument("--keep", required=True, metavar="WHAT", help=GRAMMAR)
    r.add_argument("--out", required=True, metavar="SMALL", help="where to write the result")
    r.add_argument("--entry", type=int, metavar="N", help="of a HAR: the session at entry N")
    r.add_argument("--validation", choices=VALIDATION_MODES, default=DEFAULT_MODE)
    r.add_argument("--empty-id", choices=EMPTY_ID_POLICIES, default=DEFAULT_EMPTY_ID)


def reduce(args: argparse.Namespace) -> int:
    """``toolcall-inspector reduce``: 0 written, 2 otherwise (one line on stderr)."""
    from inspector.api import load
    from inspector.core.clients.registry import REPLICAS
    from inspector.core.reduce.reducer import reduce_capture

    keep = parse_keep(
        args.keep,
        [r.name for r in REPLICAS],
        {
            "empty-id": EMPTY_ID_POLICIES,
            "validation": VALIDATION_MODES,
            "dialect": tuple(dialect_choices(REGISTRY)),
        },
    )
    capture = load(args.path, entry=args.entry)
    settings = Settings(validation=args.validation, empty_id=args.empty_id)
    result = reduce_capture(capture, keep, settings, REGISTRY)
    try:
        with open(args.out, "wb") as out:
            out.write(result.data)
    except OSError as exc:
        raise InspectorError(f"{args.out}: cannot write: {exc.strerror or exc}") from exc
    print(f"{result.summary(keep)}; written to {os.fspath(args.out)}", file=sys.stdout)
    return 0
