"""What a lane says of its item's kind: a badge in full words beside the wire item type, the
muted look of an item the provider runs, and the results the stream reported beside the call.

Invariants:
- The kind and the item type, on the lane header's first line, are the core's words
  (:func:`~inspector.core.reports.kinds.kind_word`,
  :func:`~inspector.core.reports.kinds.item_type_word`): the lane says what ``analyze``'s table
  and ``--json`` say, in full words (``hosted by the provider``, never ``hosted`` alone).
- A hosted item (the provider runs it) is drawn muted (a greyed background and a grey badge)
  and says it is not one of the agent's calls; the agent's kinds (function, custom, built-in)
  keep the normal lane look, each with a badge colour of its own.
- A custom tool's input is free-form text (:func:`text_input`): the lane shows it as text and
  the fragment table does not judge it as JSON.
- Results are the RESULT deltas the stream itself carried for the call
  (:meth:`~inspector.core.calls.stream.StreamState.results_of`), shown as one summary line and
  as JSON in a tab of their own; they are read again only when the stream's number of results
  changed (:func:`results_for` is called once per flush and lane).
"""

from __future__ import annotations

import json
from html import escape
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFont, QPalette
from PySide6.QtWidgets import QLabel, QPlainTextEdit

from inspector.core.base.kinds import CallKind
from inspector.core.reports.kinds import item_type_word, kind_word
from inspector.ui.base import theme

KIND: dict[str, tuple[str, str, str, str]] = {
    CallKind.FUNCTION: (
        "function call", "#1565c0", "#90caf9", "JSON arguments; the agent runs it",
    ),
    CallKind.CUSTOM: (
        "custom tool", "#6a1b9a", "#ce93d8",
        "free-form input, checked against the format the request declared (text, regex or"
        " grammar), never as JSON; the agent runs it",
    ),
    CallKind.BUILTIN: (
        "built-in tool", "#e65100", "#ffb74d",
        "a provider-defined tool the agent runs (apply_patch, shell…), checked against its"
        " documented shape",
    ),
    CallKind.HOSTED: (
        "hosted by the provider", "#616161", "#bdbdbd",
        "the provider runs it: not one of the agent's calls, never changes the verdict",
    ),
}  # fmt: skip
"""Kind -> (badge words, light colour, dark colour, what it means: the badge's tooltip)."""

MUTED = ("#dcdcdc", "#383838")
"""A hosted lane's background (light, dark)."""

RESULT_LIMIT = 64 * 1024
"""Characters of results JSON shown at most (with a note beyond)."""


def kind_of_lane(call: Any) -> str:
    """The lane's kind (``function`` for a call written in the text)."""
    return kind_word(call)


def is_hosted(call: Any) -> bool:
    """Does the provider run this item (a muted lane, not one of the agent's calls)?"""
    return kind_word(call) == CallKind.HOSTED


def text_input(call: Any) -> bool:
    """Is the item's input free-form text (a custom tool's), never to be read as JSON?"""
    return call is not None and kind_word(call) == CallKind.CUSTOM


def kind_html(call: Any) -> str:
    """``[hosted by the provider] web_search_call`` as rich text: the badge, then the type."""
    kind = kind_word(call)
    words, light, dark, _ = KIND.get(kind, (kind, "#757575", "#9e9e9e", ""))
    dark_theme = theme.is_dark()  # a filled badge: the words on the kind's colour
    c, fg = (dark, "#000000") if dark_theme else (light, "#ffffff")
    badge = f'<span style="background-color:{c}; color:{fg}">&nbsp;<b>{escape(words)}</b>&nbsp;'
    badge += "</span>"
    item = escape(item_type_word(call))
    caller = _caller(call)
    return f"{badge} <code>{item}</code>{caller}"


def kind_tooltip(call: Any) -> str:
    """What the kind means, in a sentence."""
    kind = kind_word(call)
    meaning = KIND[kind][3] if kind in KIND else ""
    return f"{KIND.get(kind, (kind,))[0]} ({item_type_word(call)}): {meaning}"


def _caller(call: Any) -> str:
    """`` · called by code_execution_20250825`` for an Anthropic programmatic call."""
    frags = getattr(call, "fragments", None)
    extra = frags[0].extra if frags else None
    caller = extra.get("caller") if isinstance(extra, dict) else None
    if not isinstance(caller, dict) or caller.get("type") in (None, "direct"):
        return ""
    return f" · called by <code>{escape(str(caller.get('type')))}</code>"


def results_for(state: Any, call: Any) -> list[Any]:
    """The RESULT deltas the stream reported for ``call`` (none when it reported none)."""
    if call is None or not getattr(state, "results", None):
        return []
    return list(state.results_of(call))


def _count(value: dict[str, Any]) -> str:
    """``5 sources`` / ``3 results``: the longest list the result holds, named by its key."""
    best: tuple[int, str] = (0, "")
    for key, v in value.items():
        if isinstance(v, dict):
            for k2, v2 in v.items():
                if isinstance(v2, list) and len(v2) > best[0]:
                    best = (len(v2), k2)
        elif isinstance(v, list) and len(v) > best[0]:
            best = (len(v), key)
    n, key = best
    if not n:
        return ""
    return f"{n} {'item' if key == 'content' else key.rstrip('s')}{'' if n == 1 else 's'}"


def results_line(results: list[Any]) -> str:
    """``⇦ reported by the stream: web_search_tool_result · 5 items`` (rich text)."""
    parts = []
    for d in results:
        v = d.value if isinstance(d.value, dict) else {}
        bits = [str(v.get("item_type") or "result")]
        if isinstance(v.get("status"), str):
            bits.append(v["status"])
        if n := _count(v):
            bits.append(n)
        parts.append(" · ".join(escape(b) for b in bits))
    return "⇦ <b>reported by the stream</b>: " + "; ".join(parts)


def results_json(results: list[Any]) -> str:
    """The reported results as indented JSON, one object per RESULT (cut at the limit)."""
    values = [d.value for d in results]
    text = json.dumps(values[0] if len(values) == 1 else values, indent=2,
                      ensure_ascii=False, default=str)  # fmt: skip
    if len(text) > RESULT_LIMIT:
        text = text[:RESULT_LIMIT] + f"\n… ({len(text) - RESULT_LIMIT:,} more characters)"
    return text


# -- on a lane -------------------------------------------------------------------------------


def widgets() -> tuple[QLabel, QPlainTextEdit]:
    """A lane's reported-results line (hidden until some) and its tab. (The kind is said on
    the header's first line: a row of its own made every lane taller than a short lane area.)"""
    line = QLabel()
    line.setObjectName("lane-reported")
    line.setTextFormat(Qt.TextFormat.RichText)
    line.setWordWrap(True)
    line.hide()
    tab = QPlainTextEdit(readOnly=True)
    tab.setFont(QFont("monospace"))
    return line, tab


def name_html(call: Any, ident: Any) -> str:
    """The lane header's name line: the name as received, or, for an item whose type carries
    no name (a hosted ``web_search_call``), that its wire type names it."""
    if kind_word(call) != CallKind.FUNCTION and not isinstance(getattr(call, "name", None), str):
        item = escape(item_type_word(call))
        return f"name <i>none: the item type names it</i> (<code>{item}</code>)"
    return str(ident("name", call.name))


def show_kind(lane: Any) -> None:
    """The lane's kind tooltip (the badge is on its header's first line), its muted look
    (hosted) and whether its input is read as JSON; only a change touches a widget."""
    call = lane.call
    tip = kind_tooltip(call) if call is not None else ""
    if tip != lane.header.toolTip():
        lane.header.setToolTip(tip)
    lane.model.free_text = free = free_text(call)
    wanted = None if free else lane.parsed.document()  # free text is not coloured as JSON
    if lane._highlighter.document() is not wanted:
        lane._highlighter.setDocument(wanted)
    muted = call is not None and is_hosted(call)
    if bool(lane.property("hosted")) != muted:
        lane.setProperty("hosted", muted)
        lane.setAutoFillBackground(muted)
        palette = lane.palette()
        if muted:
            palette.setColor(lane.backgroundRole(), QColor(MUTED[1 if theme.is_dark() else 0]))
        else:
            palette = lane.parentWidget().palette() if lane.parentWidget() else QPalette()
        lane.setPalette(palette)


def free_text(call: Any) -> bool:
    """Is the input read as text, not JSON: a custom tool's, or an item of another kind whose
    input is no JSON object (a code interpreter's code, a shell command)?"""
    if call is None:
        return False
    kind = kind_word(call)
    if kind == CallKind.CUSTOM:
        return True
    if kind == CallKind.FUNCTION or call.open:
        return False
    return call.arguments.lstrip()[:1] not in ("{", "[", "")


def show_reported(lane: Any, state: Any) -> None:
    """Results the stream reported for the lane's call: a line and a "Reported" tab (read
    again only when the call or the stream's number of results changed)."""
    call = lane.call
    n = len(state.results) if state is not None and call is not None else 0
    key = (call, n)
    if key == lane._reported_for:
        return
    lane._reported_for = key
    results = results_for(state, call) if n else []
    idx = lane.tabs.indexOf(lane.reported)
    if not results:
        lane.reported_line.hide()
        if idx >= 0:
            lane.tabs.removeTab(idx)
        return
    lane.reported_line.setText(results_line(results))
    lane.reported_line.show()
    lane.reported.setPlainText(results_json(results))
    if idx < 0:
        lane.tabs.addTab(lane.reported, "Reported")
