"""Tool calls written as text in the assistant's content, read as the servers' tool parsers
read them (vLLM's ``tool_parsers``, llama.cpp's chat templates), while the text streams.

A model served without a tool parser (Ollama, vLLM, llama.cpp) writes its calls into the
content; the provider hands them over as text and every client library treats them as text.
The inspector reads them into calls of their own, marked as written in text
(:class:`TextCall`), so they are shown in lanes, validated and counted like the calls the
wire carries. The formats:

==========  ==================================================================================
hermes      ``<tool_call>{"name": …, "arguments": …}</tool_call>`` (Hermes 2 Pro, Qwen)
mistral     ``[TOOL_CALLS][{"name": …, "arguments": …}, …]`` (before v11) or
            ``[TOOL_CALLS]name[CALL_ID]id[ARGS]{…}`` per call (v11+; ``[CALL_ID]…`` and
            ``[ARGS]`` optional)
llama       ``<|python_tag|>{"name": …, "parameters": …}``, several joined by ``;`` (Llama 3)
json        a content that starts with a call object (``"name"`` and ``"arguments"`` or
            ``"parameters"``), or an array of them, several objects also joined by ``;``
==========  ==================================================================================

Invariants:
- Incremental: each text delta is read once, in arrival order (O(delta)); only a possible
  marker's first characters (fewer than a marker's length) are held back to the next delta.
  Nothing is re-scanned.
- Identity as received: a call's name and id are the JSON values written in the text (the
  id OMITTED when none is written: a tool reply echoes the repaired one); its arguments are
  the raw text of the ``arguments`` / ``parameters`` value (or, v11 Mistral, of the JSON
  value after the name), handed on as it arrives, each piece a fragment stamped with the
  ``seq`` of the wire event that carried it (:mod:`inspector.core.calls.textobject`).
- A marker opens a call only when the JSON (or, v11 Mistral, a name) follows it: text that
  merely mentions ``<tool_call>`` or ``[TOOL_CALLS]`` is no call. A content opens a ``json``
  call only when its object has a name and arguments: a JSON answer is no call.
- After a marker, an object that ends without a name, or whose own syntax breaks (a key not
  in quotes, a missing colon or comma), is an invalid call, never dropped: its arguments hold
  the text as written (the object's, then what follows a break, up to ``</tool_call>``;
  other formats: to the end of the text), ``TextCall.problem`` says what broke, and it has
  no name when none was read. In ``json`` such an object is no call.
- :meth:`TextCalls.end` (a finish, the end marker, the end of the body) closes what is
  open; a call the text ended inside is ``truncated``.
- Text calls live in the accumulator's ``calls`` list (so their slots follow the wire calls
  they arrive among) but never in its routing: no wire fragment is routed to them by index
  or id, and closing rules for wire calls do not touch them. Pure: no I/O.
"""

from __future__ import annotations

import re
from typing import Final

from inspector.core.base.model import OMITTED, ToolCallDelta
from inspector.core.calls.textjson import ValueScan
from inspector.core.calls.textobject import CallObject, TextCall, fragment
from inspector.core.calls.toolcall import ToolCall

MARKERS: Final = {"<tool_call>": "hermes", "[TOOL_CALLS]": "mistral", "<|python_tag|>": "llama"}
"""Each text marker that opens a call, and its format."""
FORMS: Final = ("hermes", "mistral", "llama", "json")
"""The formats, as ``TextCall.form`` names them."""

_MARKER: Final = re.compile("|".join(re.escape(m) for m in MARKERS))
_PREFIXES: Final = frozenset(m[:n] for m in MARKERS for n in range(1, len(m)))
_LONGEST: Final = max(len(m) for m in MARKERS)
_CLOSE_TAG: Final = "</tool_call>"
_TAGS: Final = (("[ARGS]", "args_start"), ("[CALL_ID]", "call_id"))
_NAME_CHAR: Final = re.compile(r"[A-Za-z0-9_.:\-]+")
_SPACE: Final = " \t\r\n"


MARKED_BY: Final = {
    "hermes": "<tool_call>",
    "mistral": "[TOOL_CALLS]",
    "llama": "<|python_tag|>",
    "json": "a JSON call object",
}
"""What a call of each format is written with, as views name it."""


def written_as(call: object) -> str | None:
    """``hermes <tool_call>`` for a call written in the text, and what broke its object if
    something did (``…; the call object has no name``); None for a wire call."""
    if not isinstance(call, TextCall):
        return None
    said = f"{call.form} {MARKED_BY[call.form]}"
    return f"{said}; {call.problem}" if call.problem else said


def from_text(call: object) -> bool:
    """Was ``call`` written in the assistant text (not carried as a call by the wire)?"""
    return isinstance(call, TextCall)


def written_notes(calls: list[ToolCall]) -> list[tuple[int, str]]:
    """(the chunk where it opened, a note) per call written in text, for the quirk that says
    the provider left them as text; the note counts them by format. O(calls)."""
    written = [c for c in calls if isinstance(c, TextCall)]
    if not written:
        return []
    forms = ", ".join(f for f in FORMS if any(c.form == f for c in written))
    note = f"{len(written)} call(s) in the text, {forms}"
    return [(c.fragments[0].seq, note) for c in written]


class TextCalls:
    """Reads the calls written in one stream's text into ``calls`` (the accumulator's list)."""

    def __init__(self, calls: list[ToolCall]) -> None:
        self.calls = calls
        self._state = "start"
        self._form = ""
        self._tail = ""
        self._seq = 0
        self._in_array = False
        self._obj: CallObject | None = None
        self._scan: ValueScan | None = None
        self._call: TextCall | None = None  # a v11 Mistral call, or a broken one, being read
        self._name: list[str] = []
        self._id: list[str] = []

    def feed(self, seq: int, piece: str) -> None:
        """Read one text delta of wire event ``seq``."""
        self._seq = seq
        text, self._tail = self._tail + piece, ""
        self._run(text)

    def end(self, seq: int | None, reason: str) -> None:
        """The text is over (a finish, the end marker, the end of the body): close what is
        open; a call the text ended inside is truncated."""
        if self._obj is not None:
            self._obj.close(seq, reason, cut=True)
        if self._call is not None:
            self._call.finish(seq, reason, cut=self._state == "value")
        self._reset("text")

    def _run(self, text: str) -> None:
        pos = 0
        while pos < len(text):
            pos = getattr(self, "_on_" + self._state)(text, pos)

    def _reset(self, state: str) -> None:
        self._state, self._tail, self._in_array = state, "", False
        self._obj = self._scan = self._call = None
        self._name, self._id = [], []

    def _new(self, first: ToolCallDelta) -> TextCall:
        call = TextCall(len(self.calls), first, self._form)
        self.calls.append(call)
        return call

    # -- looking for a call --------------------------------------------------------------
    def _on_start(self, text: str, pos: int) -> int:
        """The content so far is blank: a call object (or array) here is a ``json`` call."""
        pos = _skip(text, pos)
        if pos < len(text):
            self._form = "json"
            self._state = "bracket" if text[pos] == "[" else "after_marker"
            return pos + 1 if text[pos] == "[" else pos
        return pos

    def _on_bracket(self, text: str, pos: int) -> int:
        """A content that begins with ``[``: an array of call objects, or text (which may be
        ``[TOOL_CALLS]``: read again from the bracket)."""
        pos = _skip(text, pos)
        if pos < len(text):
            if text[pos] == "{":
                self._state, self._in_array = "array", True
                return pos
            self._state = "text"
            self._run("[" + text[pos:])
        return len(text)

    def _on_text(self, text: str, pos: int) -> int:
        m = _MARKER.search(text, pos)
        if m is not None:
            self._form = MARKERS[m.group()]
            self._state = "after_marker"
            return m.end()
        for i in range(max(pos, len(text) - _LONGEST + 1), len(text)):
            if text[i:] in _PREFIXES:  # a marker may begin here: read it with the next delta
                self._tail = text[i:]
                break
        return len(text)

    def _on_after_marker(self, text: str, pos: int) -> int:
        pos = _skip(text, pos)
        if pos == len(text):
            return pos
        c, form = text[pos], self._form
        if c == "{":
            self._obj = CallObject(self._seq, self._form, self._new)
            self._state = "object"
            return pos + 1
        if c == "[" and form == "mistral" and not self._in_array:
            self._state, self._in_array = "array", True
            return pos + 1
        self._state = "name" if form == "mistral" and _NAME_CHAR.match(c) else "text"
        return pos  # "text": a marker merely mentioned, or a content that is no call

    def _on_array(self, text: str, pos: int) -> int:
        """Between the elements of an array of calls: ``,`` and the next, or ``]``."""
        pos = _skip(text, pos)
        if pos == len(text):
            return pos
        c = text[pos]
        if c == "{":
            self._obj = CallObject(self._seq, self._form, self._new)
            self._state = "object"
        elif c != ",":  # "]" ends the array; anything else is no call
            self._reset("text")
            return pos + 1 if c == "]" else pos
        return pos + 1

    def _on_after_object(self, text: str, pos: int) -> int:
        """After a ``llama`` or ``json`` call object: ``;`` and another one, or text."""
        pos = _skip(text, pos)
        if pos < len(text):
            self._state = "after_marker" if text[pos] == ";" else "text"
            return pos + 1 if text[pos] == ";" else pos
        return pos

    # -- a call object -------------------------------------------------------------------

    def _on_object(self, text: str, pos: int) -> int:
        obj = self._obj
        assert obj is not None
        end = obj.feed(self._seq, text, pos)
        if obj.over:
            self._obj = None
            broken = obj.close(self._seq, "close", cut=False)
            if broken is not None:
                self._call, self._state = broken, "broken"  # it takes the text that follows
            elif obj.scan.error is not None:
                self._reset("text")  # a JSON answer whose text is no JSON object
            elif self._in_array:
                self._state = "array"
            else:
                self._state = "text" if self._form == "hermes" else "after_object"
        return end

    def _on_broken(self, text: str, pos: int) -> int:
        """A broken call takes the text up to ``</tool_call>`` (other formats: to the end)."""
        call = self._call
        assert call is not None
        end = text.find(_CLOSE_TAG, pos) if self._form == "hermes" else -1
        stop = end
        if end < 0:
            stop = len(text)
            if self._form == "hermes":
                for i in range(max(pos, len(text) - len(_CLOSE_TAG) + 1), len(text)):
                    if _CLOSE_TAG.startswith(text[i:]):  # the tag may begin here
                        self._tail, stop = text[i:], i
                        break
        if stop > pos:
            call.add(fragment(self._seq, text[pos:stop]))
        if end < 0:
            return len(text)
        call.finish(self._seq, "close", False)
        self._reset("text")
        return end + len(_CLOSE_TAG)

    # -- v11 Mistral: [TOOL_CALLS]name[CALL_ID]id[ARGS]{…} ---------------------------------

    def _on_name(self, text: str, pos: int) -> int:
        return self._word(text, pos, self._name)

    def _on_call_id(self, text: str, pos: int) -> int:
        return self._word(text, pos, self._id)

    def _word(self, text: str, pos: int, into: list[str]) -> int:
        """The name (or id) up to ``[ARGS]``, ``[CALL_ID]`` (after a name) or the value."""
        m = _NAME_CHAR.match(text, pos)
        if m is not None:
            into.append(m.group())
            return m.end()
        rest = text[pos:]
        for tag, state in _TAGS:
            if state == "call_id" and into is not self._name:
                continue
            if rest.startswith(tag):
                self._state = state
                return pos + len(tag)
            if tag.startswith(rest):
                self._tail = rest  # a tag split across deltas
                return len(text)
        if text[pos] in "{[" and self._name:
            self._state = "args_start"
            return pos
        self._reset("text")  # [TOOL_CALLS] merely mentioned
        return pos

    def _on_args_start(self, text: str, pos: int) -> int:
        pos = _skip(text, pos)
        if pos == len(text):
            return pos
        if text[pos] not in "{[" or not self._name:
            self._reset("text")
            return pos
        ident = "".join(self._id) if self._id else OMITTED
        self._call = self._new(fragment(self._seq, OMITTED, "".join(self._name), ident))
        self._scan = ValueScan(text[pos])
        self._state = "value"
        return pos

    def _on_value(self, text: str, pos: int) -> int:
        scan, call = self._scan, self._call
        assert scan is not None and call is not None
        end = scan.feed(text, pos)
        if end > pos:
            call.add(fragment(self._seq, text[pos:end]))
        if scan.done:
            call.finish(self._seq, "close", False)
            self._reset("text")
        return end


def _skip(text: str, pos: int) -> int:
    """The first position from ``pos`` that is no whitespace (``len(text)`` if none)."""
    while pos < len(text) and text[pos] in _SPACE:
        pos += 1
    return pos
