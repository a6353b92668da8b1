"""The ``calls`` family's detector: what one call's fragments show, and what the accumulator
concluded about it.

Invariants:
- :func:`scan_call` is a pure function of a call's fragments and what the accumulator
  concluded about it; :class:`~inspector.core.quirks.detect.QuirkScan` runs it again only
  when that changed. It is cheap on long calls: only a zero-length call is walked whole; the
  rest looks at the first fragments and at the last ones.
- Only a function call's arguments are scanned (done events restating them, how they
  streamed): another kind's input (an object shown once done, a hosted tool's code) is not a
  function's streamed arguments; identity changes and late fragments are checked for all.
- Checks on a call's fragments read every fragment routed to it, dropped ones too (the
  provider sent them), so they do not depend on the empty-id policy; a cut the finish hides
  is the ``turn`` family's, judged per wire lane (:mod:`inspector.core.quirks.turn.scan`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import orjson

from inspector.core.base.kinds import CallKind
from inspector.core.base.model import OMITTED, ToolCallDelta
from inspector.core.base.provider import Provider
from inspector.core.calls.toolcall import ToolCall
from inspector.core.quirks.codes import (
    ARGUMENTS_ONLY_IN_DONE,
    ARGUMENTS_REPLAYED,
    CUMULATIVE_ARGUMENTS,
    DONE_ARGUMENTS_MISMATCH,
    FRAGMENT_AFTER_CLOSE,
    ID_CHANGED_MID_CALL,
    NAME_CHANGED_MID_CALL,
    OPENER_REPLAYED,
    ORPHAN_ID_ONLY_ENTRY,
    TRAILING_EMPTY_ARGUMENTS,
    WHOLE_CALL_SINGLE_CHUNK,
    ZERO_ARG_EMPTY_STRING,
)
from inspector.core.quirks.seen import Seen, real

FUNCTION = CallKind.FUNCTION


def scan_call(call: ToolCall, seen: Seen, provider: Provider | None, orphan: bool) -> None:
    frags = call.fragments
    first = frags[0]
    if orphan and call.kind in CallKind.AGENT:  # a hosted item has no agent's name to miss
        seen.add(ORPHAN_ID_ONLY_ENTRY, first.seq, f"id {call.id!r}")
    for seq, new_id in call.id_changes:
        seen.add(ID_CHANGED_MID_CALL, seq, f"{call.id!r} then {new_id!r}")
    for seq, new_name in call.name_changes:
        seen.add(NAME_CHANGED_MID_CALL, seq, f"{call.name!r} then {new_name!r}")
    for seq in call.late_fragments:
        seen.add(FRAGMENT_AFTER_CLOSE, seq)
    if call.kind != FUNCTION:  # an item's input is not a function's streamed arguments
        return
    if call.args_from_final or call.final_mismatch is not None:
        _scan_finals(call, seen)
    _scan_arguments(call, seen, provider)


def _scan_finals(call: ToolCall, seen: Seen) -> None:
    """Done events restating the arguments, as the accumulator reads them (non-strings by
    repr); looked for only when the accumulator says one supplied or contradicted them."""
    frags = call.fragments
    finals = [
        (f.seq, f.arguments if isinstance(f.arguments, str) else repr(f.arguments))
        for f in frags
        if f.final and f.arguments is not OMITTED and f.arguments is not None
    ]
    if call.args_from_final:  # the done event that supplied the arguments
        seen.add(ARGUMENTS_ONLY_IN_DONE, next((seq for seq, a in finals if a), frags[-1].seq))
    if call.final_mismatch is not None:  # every done event that disagrees with the deltas
        for seq, a in finals:
            if a != call.arguments:
                seen.add(DONE_ARGUMENTS_MISMATCH, seq)


def _texts(frags: Iterable[ToolCallDelta]) -> Iterator[tuple[int, str]]:
    """(seq, arguments) of the streamed fragments with string arguments, dropped ones too
    (the provider sent them), lazily: most checks look only at the first or last few."""
    for f in frags:
        if not f.final and isinstance(f.arguments, str):
            yield f.seq, f.arguments


def _scan_arguments(call: ToolCall, seen: Seen, provider: Provider | None) -> None:
    """Cheap on long calls: only a zero-length call is walked whole; the rest looks at the
    first fragments and at the empty ones at the end (this runs on every flush)."""
    frags = call.fragments
    if call.length == 0 and call.name not in (OMITTED, None, ""):
        texts = list(_texts(frags))
        if texts and all(a == "" for _, a in texts):
            seen.add(ZERO_ARG_EMPTY_STRING, texts[0][0], f"{call.name!r}")
            return
    _scan_tail(call, seen)
    whole = _scan_replay(frags, seen)  # a one-fragment call's text: decoded once, not twice
    _scan_cumulative(((seq, a) for seq, a in _texts(frags) if a), seen)
    # The opener alone carries id, name and complete arguments (judged on that wire entry, not
    # on what a policy routed after it, so ``absent`` and ``literal`` agree).
    opener = next((f for f in frags if not f.final), None)
    if (
        opener is not None
        and provider is not None
        and WHOLE_CALL_SINGLE_CHUNK in provider.checks
        and real(opener.id)
        and real(opener.name)
        and (opener.arguments is whole or _complete_object(opener.arguments))
    ):
        seen.add(WHOLE_CALL_SINGLE_CHUNK, opener.seq, f"{call.name!r}")


def _scan_tail(call: ToolCall, seen: Seen) -> None:
    """What follows a call's last non-empty fragment: ``""`` fragments (trailing) and entries
    shaped like its opener (same real id and name, no arguments: replayed). Only the tail is
    walked; nothing is reported when the call has no argument text at all."""
    trailing: list[int] = []
    replays: list[int] = []
    frags = call.fragments
    for f in reversed(frags):
        if f.final:
            continue
        a = f.arguments
        if isinstance(a, str) and a:
            break
        if f is frags[0]:
            return
        if real(f.id) and f.id == call.id and real(f.name) and f.name == call.name:
            replays.append(f.seq)
        elif isinstance(a, str):
            trailing.append(f.seq)
    else:
        return
    for seq in reversed(trailing):
        seen.add(TRAILING_EMPTY_ARGUMENTS, seq)
    for seq in reversed(replays):
        seen.add(OPENER_REPLAYED, seq, f"{call.id!r}")


def _scan_replay(frags: list[ToolCallDelta], seen: Seen) -> str | None:
    """The last non-empty fragment is the complete arguments, and the text streamed before it
    already ends with them: concatenation doubles the object. Costs O(its length). Returns
    that fragment's text when it is a whole JSON object (so it is not decoded again)."""
    texts = ((seq, a) for seq, a in _texts(reversed(frags)) if a)
    last = next(texts, None)
    if last is None or not last[1].rstrip().endswith("}") or not _complete_object(last[1]):
        return None
    seq, whole = last
    tail: list[str] = []
    got = 0
    for _, a in texts:
        tail.append(a)
        got += len(a)
        if got >= len(whole):
            break
    if got >= len(whole) and "".join(reversed(tail)).endswith(whole):
        seen.add(ARGUMENTS_REPLAYED, seq, f"{len(whole)} characters sent again")
    return whole


def _scan_cumulative(texts: Iterator[tuple[int, str]], seen: Seen) -> None:
    """Cumulative streams repeat the whole buffer: every fragment, from the very first, starts
    with the one before it. Two fragments that merely share a few characters ('e fram' then
    'e frame r' in prose) are not that, so the chain must start at the call's first fragment.
    A chain of one counts only when the call has just those two fragments."""
    chain: list[int] = []
    first = next(texts, None)
    if first is None:
        return
    before = first[1]
    whole = True  # the chain ran to the last fragment
    for seq, after in texts:
        if len(after) > len(before) and after.startswith(before):
            chain.append(seq)
            before = after
        else:
            whole = False
            break
    if chain and (whole or len(chain) >= 2):
        for seq in chain:
            seen.add(CUMULATIVE_ARGUMENTS, seq)


def _complete_object(arguments: Any) -> bool:
    """Is ``arguments`` the text of a whole JSON object?"""
    if not isinstance(arguments, str) or not arguments.lstrip().startswith("{"):
        return False
    try:
        orjson.loads(arguments)
    except orjson.JSONDecodeError:
        return False
    return True
