"""What the inspector shows of the real recorded streams, against their ground truth.

Invariants:
- The expected kind of an item is decided here from the ground truth and the Responses /
  Messages documentation, never from inspector code: ``function`` (and a client-side
  ``custom_tool_call``: ``custom``) for the agent's calls; ``apply_patch_call`` and
  ``local_shell_call`` are ``builtin``; a ``shell_call`` is ``builtin`` on the agent's machine
  and ``hosted`` in a container the stream names; a ``tool_search_call`` is ``builtin`` when
  its ``execution`` is ``client``; every other item type is ``hosted``.
- An item is *shown* when one of the inspector's lanes has its id (or, for items without an
  id, its name, in order); *shown right* when that lane's kind and item type are the expected
  ones. A client-side call is *exact* when its lane has the id, name and arguments as
  streamed (:func:`same_arguments`). A lane judged invalid whose item is well-formed
  (:func:`well_formed`) is a *false invalid* (one stream splices a second message into a
  call cut mid-arguments: that call is rightly invalid).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from inspector.core.analysis.session import Analysis
from inspector.core.base.model import plain
from inspector.core.capture.reader import load

from .loader import RealStream, TruthItem

SHELL_ON_AGENT = frozenset({"openai-shell-tool.1", "openai-shell-local-multiturn.1"})
"""Streams whose ``shell_call`` names no container: the agent runs it (``builtin``)."""
CLIENT_TOOL_SEARCH = frozenset({"openai-client-tool-search.1"})
"""Streams whose ``tool_search_call`` says ``"execution": "client"``."""

FUNCTION_ITEM_TYPE = {
    "openai-chat": "function",
    "openai-responses": "function_call",
    "anthropic": "tool_use",
    "gemini": "functionCall",
}


def expected_kind(stream: RealStream, item: TruthItem) -> str:
    """The kind the item must be shown with (see the module docstring)."""
    t = item.item
    if t == "function":
        return "function"
    if t == "custom_tool_call":
        return "custom" if item.client_side else "hosted"
    if t in ("apply_patch_call", "local_shell_call"):
        return "builtin"
    if t == "shell_call":
        return "builtin" if stream.name in SHELL_ON_AGENT else "hosted"
    if t == "tool_search_call":
        return "builtin" if stream.name in CLIENT_TOOL_SEARCH else "hosted"
    return "hosted"


def expected_item_type(stream: RealStream, item: TruthItem) -> str:
    """The wire item type the item's lane must say."""
    if item.item == "function":
        return FUNCTION_ITEM_TYPE[stream.dialect]
    return item.item


@dataclass
class Lane:
    """One lane of the inspector, as the measure reads it."""

    id: Any
    item_id: Any
    name: Any
    arguments: str
    kind: str
    item_type: str
    valid: bool | None
    whole: bool  # its input arrived whole, as an object (no argument string on the wire)


@dataclass
class StreamResult:
    stream: RealStream
    lanes: list[Lane]
    items: int = 0
    shown: int = 0
    shown_right: int = 0
    client_side: int = 0
    exact: int = 0
    false_invalid: int = 0
    misses: list[str] = field(default_factory=list)
    quirks: list[str] = field(default_factory=list)
    valid: bool | None = None


def lanes_of(analysis: Analysis) -> list[Lane]:
    """Every lane of every attempt, in order (orphan id-only entries left out)."""
    views = analysis.attempts or [analysis.final]
    out = []
    for view in views:
        for v in view.verdicts:
            if v.orphan:
                continue
            c = v.call
            extra = getattr(c, "extra", None) or {}
            out.append(Lane(plain(c.id), extra.get("item_id") if isinstance(extra, dict) else None,
                            plain(c.name), c.arguments, getattr(c, "kind", "function"),
                            getattr(c, "item_type", "function"), v.valid,
                            any(f.args_object for f in c.fragments)))  # fmt: skip
    return out


def _match(item: TruthItem, lanes: list[Lane], used: set[int]) -> int | None:
    for i, lane in enumerate(lanes):
        if i in used:
            continue
        if item.id is not None and item.id in (lane.id, lane.item_id):
            return i
    if item.id is None:
        for i, lane in enumerate(lanes):
            if i not in used and lane.name == item.name:
                return i
    return None


def well_formed(item: TruthItem) -> bool:
    """The item's input is well-formed for its kind: a function call's streamed arguments are
    JSON (or empty); other items' inputs are the provider's own, taken as well-formed."""
    if item.item != "function" or not isinstance(item.arguments, str) or not item.arguments:
        return True
    try:
        json.loads(item.arguments)
    except ValueError:
        return False
    return True


def same_arguments(lane: Lane, truth: Any) -> bool:
    """The lane's arguments are the item's as streamed: the same text; for an item whose
    input is an object on the wire (Gemini's ``args``, an Anthropic block's whole ``input``)
    the same JSON value (the ground truth writes such an object with its own spacing, or
    ``""`` when no fragment streamed). A null truth (no argument string
    on the wire) compares nothing."""
    if truth is None:  # no argument string on the wire: nothing to compare
        return True
    if isinstance(truth, str) and lane.arguments == truth:
        return True
    if not lane.whole:
        return False
    if truth == "":
        return True
    try:
        want = json.loads(truth) if isinstance(truth, str) else truth
        return bool(json.loads(lane.arguments) == want)
    except ValueError:
        return False


def measure(stream: RealStream) -> StreamResult:
    """Analyze one stream as a raw body and hold it against its ground truth."""
    from inspector.core.providers import REGISTRY

    analysis = Analysis.from_capture(load(stream.path), providers=REGISTRY)
    lanes = lanes_of(analysis)
    r = StreamResult(stream, lanes, valid=analysis.all_valid)
    r.quirks = sorted({q.code for view in (analysis.attempts or [analysis.final])
                       for q in view.quirks})  # fmt: skip
    used: set[int] = set()
    for item in stream.items:
        r.items += 1
        kind = expected_kind(stream, item)
        if item.client_side:
            r.client_side += 1
        i = _match(item, lanes, used)
        label = f"{item.item} {item.id or item.name!r}"
        if i is None:
            r.misses.append(f"not shown: {label} (expected {kind})")
            continue
        used.add(i)
        lane = lanes[i]
        r.shown += 1
        itype = expected_item_type(stream, item)
        if lane.kind == kind and lane.item_type == itype:
            r.shown_right += 1
        else:
            r.misses.append(f"shown as {lane.kind}/{lane.item_type}, expected {kind}/{itype}: "
                            f"{label}")  # fmt: skip
        if lane.valid is False:
            if well_formed(item):
                r.false_invalid += 1
                r.misses.append(f"judged invalid although well-formed: {label}")
            else:
                r.misses.append(f"(rightly) judged invalid, its input is cut: {label}")
        if item.client_side:
            got = (lane.id, lane.name, lane.arguments)
            want = (item.id if item.id is not None else lane.id, item.name, item.arguments)
            if got[:2] == want[:2] and same_arguments(lane, item.arguments):
                r.exact += 1
            else:
                r.misses.append(f"not exact: {label}: got {got!r}, truth {want!r}")
    for i, lane in enumerate(lanes):
        if i not in used:
            r.misses.append(f"extra lane: {lane.kind}/{lane.item_type} {lane.id!r} {lane.name!r}")
            if lane.valid is False:
                r.false_invalid += 1
    return r
