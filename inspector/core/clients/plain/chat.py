"""The plain Chat Completions stream: the one shape every OpenAI-compatible client reads alike.

:func:`chat_calls` reads a body in one pass (a split and one ``orjson.loads`` per event, no
value kept) and returns its calls when the body is plain, None at the first thing that is not.

Plain, exactly (anything else is refused, however harmless it may be):
- status 200, a ``text/event-stream`` content type, a clean end of the body;
- the body is ``data: <JSON>\\n\\n`` events and nothing else (no comment, no other field, no
  CR, no line inside an event), ending with ``data: [DONE]\\n\\n``; every event valid UTF-8
  JSON (orjson's strict reading: no lone surrogate, no integer wider than 64 bits);
- each chunk an object of ``id`` (string), ``object`` (``chat.completion.chunk``: without
  it openai-python fails an assertion), ``created`` (integer), ``model`` (string), all four
  present, and of these only and ``system_fingerprint`` / ``service_tier`` (string or
  null), ``obfuscation`` (string), ``x_groq`` (an object), ``choices`` and ``usage`` (null,
  or an object of numbers and objects of numbers or null); ``choices`` one choice, or none
  in a chunk with a usage object;
- the choice: ``index`` 0, a ``delta`` object, ``logprobs`` null, ``finish_reason`` null,
  ``tool_calls`` or ``stop``; after a finish reason, only usage chunks;
- Azure's: a first chunk of only ``id``, ``object``, ``model`` (strings, empty ones too),
  ``created`` (integer), ``choices`` ``[]`` and ``prompt_filter_results`` (a list), read as
  nothing; ``content_filter_results`` (an object) in any choice;
- the delta: ``role`` ``assistant`` (once, before anything else; ``null`` anywhere, as if
  absent), ``content``,
  ``reasoning_content``, ``reasoning`` (string or null), ``refusal`` null, ``tool_calls``
  (a non-empty array, or null: as if absent);
- a call starts once, at the next index in order (0, 1, 2 …), with ``index``, a non-empty
  string ``id`` no other call has, ``type`` ``function`` and ``function`` holding a
  non-empty string ``name`` and string ``arguments``; every later entry of it holds only
  ``index`` (its own: calls are never interleaved), ``function.arguments`` (a string) and
  optionally ``type`` ``function`` again;
- each call's arguments, joined, are a JSON object, ``{`` first and ``}`` last (no
  whitespace around it: a library that hands a call over at the first parsable prefix, the
  AI SDK, then hands over exactly this text), or nothing at all (a call without arguments:
  LiteLLM, LangChain and the AI SDK hand it over as ``{}``, the others as ``""``: each
  replica's ``plain_calls``). A stream of text alone (no call) is plain too.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import islice, repeat
from operator import getitem
from typing import Any, Final

import orjson

from inspector.core.clients.base import Exchange, HandedCall
from inspector.core.clients.plain.prototype import PROTOTYPE

_TOP: Final = frozenset(
    {
        "id", "object", "created", "model", "system_fingerprint", "service_tier", "choices",
        "usage", "obfuscation", "x_groq", "prompt_filter_results",
    }
)  # fmt: skip
_CHOICE: Final = frozenset(
    {"index", "delta", "logprobs", "finish_reason", "content_filter_results"}
)
_PROMPT: Final = frozenset({"id", "object", "created", "model", "choices", "prompt_filter_results"})
"""Azure's first chunk: its prompt's filter results, no choice (and empty identity fields)."""
_DELTA: Final = frozenset(
    {"role", "content", "refusal", "tool_calls", "reasoning_content", "reasoning"}
)
_TEXTS: Final = ("content", "reasoning_content", "reasoning")
_FIRST: Final = frozenset({"index", "id", "type", "function"})
_NAMED: Final = frozenset({"name", "arguments"})
_FINISH: Final = frozenset({"tool_calls", "stop"})
_CLOSING: Final = b"\n\ndata: [DONE]\n\n"
"""How a plain body ends: its last event, then ``[DONE]``."""


_loads = orjson.loads
_prototype = PROTOTYPE.search
"""Every event read the long way is searched for a ``__proto__``/``constructor`` key
(:mod:`.prototype`); an event read by the shortcut or in a run (:func:`_template`,
:func:`_run`) is the head and tail of one so searched around a JSON string's content, which
holds no unescaped quote and is followed by ``,`` or ``}`` (JSON), so no key is there; nor is
one across events (each starts with ``data:``, no ``:`` or whitespace): no key the search of
the whole body would find is missed."""
_Error = orjson.JSONDecodeError
SLAB: Final = 1 << 18
"""Bytes of the body a run of continuation chunks is read from at once (:func:`_run`)."""
WINDOW: Final = 1 << 18
"""Bytes of the body's pieces joined at a time (:func:`_windows`)."""


def _event_stream(content_type: str | None) -> bool:
    return (content_type or "").split(";")[0].strip().lower() == "text/event-stream"


def chat_calls(
    exchange: Exchange,
    pieces: Iterable[bytes] | None = None,
    expected: Sequence[str] | None = None,
    *,
    slab: int = SLAB,
    window: int = WINDOW,
) -> list[HandedCall] | None:
    """The calls of a plain Chat Completions body (module docstring), None when not plain.
    ``pieces``: the body in the pieces it was received in (then ``exchange.body`` is not
    read), never joined whole: it is read ``window`` bytes at a time (:func:`_windows`).
    ``slab``: bytes of the body a run of continuations is read from at once (:func:`_run`);
    0 reads every event alone. The calls, and whether there are any, are the same for every
    way of cutting the body and every ``slab`` and ``window``
    (``tests/core/clients/plain/test_runs.py`` holds it)."""
    if not _event_stream(exchange.content_type):
        return None
    ids: list[str] = []
    names: list[str] = []
    args: list[list[str]] = []
    seen: set[str] = set()
    role = False  # a role was seen (or something else came first: no role may follow)
    finished = False
    head, tail, cut = b"", b"", 0  # the last continuation chunk around its arguments' text
    before = after = 0
    growing: list[str] = []  # the pieces of the call's text being read
    done = 0  # calls whole (:func:`_whole`)
    wait = 0  # events to read one at a time before a run is tried again (one failed)
    whole = (exchange.body,) if pieces is None else pieces
    for body, stop in _windows(whole, window):
        if stop < 0:
            return None
        find, pos, last = body.find, 0, False
        while not last:  # each event in turn (``body[:stop].split(b"\n\n")``, one at a time)
            if head and slab:
                if wait:
                    wait -= 1
                else:
                    pos, count = _run(body, pos, stop, head, tail, slab, growing)
                    if count <= 0:
                        wait = -count
            end = find(b"\n\n", pos, stop)
            if end < 0:
                end, last = stop, True
            part, pos = body[pos:end], end + 2
            if head and part.startswith(head) and part.endswith(tail) and len(part) >= cut:
                # the same chunk but for its arguments' text: only that text is read, as a JSON
                # string on its own between the quotes ending ``head`` and starting ``tail``;
                # what is no string there (an unescaped quote: more JSON between head and tail,
                # or a cut escape) is read the long way below
                try:
                    growing.append(_loads(part[before : len(part) - after]))
                    continue
                except _Error:
                    pass
            if part[:6] != b"data: " or b"\n" in part or _prototype(part):
                return None
            try:
                chunk = _loads(part[6:])
            except _Error:
                return None
            if type(chunk) is not dict or not chunk.keys() <= _TOP:
                return None
            if not role and not ids and _prompt_filters(chunk):
                continue
            if not _head(chunk):
                return None
            usage = chunk.get("usage")
            if usage is not None and not _usage(usage):
                return None
            choices = chunk.get("choices")
            if type(choices) is not list:
                return None
            if not choices:
                if usage is None:
                    return None
                continue
            if finished or len(choices) != 1:
                return None
            choice = choices[0]
            if type(choice) is not dict or not choice.keys() <= _CHOICE:
                return None
            if choice.get("index", -1) != 0 or type(choice["index"]) is not int:
                return None
            if choice.get("logprobs") is not None:
                return None
            if type(choice.get("content_filter_results", {})) is not dict:
                return None
            reason = choice.get("finish_reason")
            if reason is not None:
                if type(reason) is not str or reason not in _FINISH:
                    return None
                finished = True
            delta = choice.get("delta")
            if type(delta) is not dict or not delta.keys() <= _DELTA:
                return None
            if delta.get("role") is not None and (role or delta["role"] != "assistant"):
                return None
            role = True
            if delta.get("refusal") is not None:
                return None
            for key in _TEXTS:
                text = delta.get(key)
                if text is not None and type(text) is not str:
                    return None
            calls = delta.get("tool_calls")
            if calls is not None:
                if not _entries(calls, ids, names, args, seen):
                    return None
                while done < len(args) - 1:  # a call started: those before it are whole
                    if not _whole(args, done, expected):
                        return None
                    done += 1
            head, tail, cut = _template(part, chunk, delta, finished)
            if head:
                before, after, growing = len(head) - 1, len(tail) - 1, args[-1]
    for k in range(done, len(args)):
        if not _whole(args, k, expected):
            return None
    return [HandedCall(i, n, text) for i, n, (text,) in zip(ids, names, args, strict=True)]


def _whole(args: list[list[str]], k: int, expected: Sequence[str] | None) -> bool:
    """Call ``k``'s text, whole: its pieces joined in place (and dropped as they are: never
    held twice); False when it is no JSON object (``{`` first, ``}`` last) or, given
    ``expected``, not the ``k``-th of them (then the stream is not plain: its calls must be
    the inspector's). Given ``expected``, an equal text is ``expected``'s own string (no
    copy made)."""
    texts = args[k]
    if expected is None:
        text = "".join(texts)
    elif k < len(expected) and _pieces_of(expected[k], texts):
        text = expected[k]  # the same characters: compared piece by piece, never joined
    else:
        return False
    texts.clear()
    if not text:  # a call without arguments
        texts.append(text)
        return True
    if text[:1] != "{" or text[-1:] != "}":
        return False
    try:  # its UTF-8 not cached on the string (orjson would, read as a str)
        if type(_loads(text.encode())) is not dict:
            return False
    except _Error:
        return False
    texts.append(text)
    return True


def _pieces_of(text: str, pieces: list[str]) -> bool:
    """``"".join(pieces) == text``, without the join."""
    at, starts = 0, text.startswith
    for piece in pieces:
        if not starts(piece, at):
            return False
        at += len(piece)
    return at == len(text)


def _template(
    part: bytes, chunk: dict[str, Any], delta: dict[str, Any], finished: bool
) -> tuple[bytes, bytes, int]:
    """A continuation chunk's bytes before and after its arguments' text (each kept as
    is: a later chunk equal but for that text is the same continuation of the same call);
    empty for any other chunk. The text starts after the chunk's first ``"arguments":"``
    (quotes inside strings are escaped: the sequence is a key and its string's quote) and
    ends at its first unescaped quote. Proven, not assumed: the chunk with that text
    replaced by another must decode to the chunk with that arguments value (a key written
    twice, or with escapes, or anything else that would make the text not the value, fails
    it), so a later chunk of that head and tail decodes alike with its own text. ``chunk``
    is changed (its arguments replaced): it is not read again."""
    if finished or len(delta) != 1 or len(delta.get("tool_calls") or ()) != 1:
        return _NONE
    entry = delta["tool_calls"][0]
    function = entry["function"]
    if len(entry) != 2 or len(function) != 1:
        return _NONE
    key = part.find(_KEY)
    if key < 0:
        return _NONE
    start = end = key + len(_KEY)
    while True:
        end = part.index(b'"', end)
        text = part[start:end]
        if (len(text) - len(text.rstrip(b"\\"))) % 2 == 0:
            break
        end += 1
    head, tail = part[:start], part[end:]
    function["arguments"] = _PROBE_TEXT
    try:
        if _loads((head + _PROBE + tail)[6:]) != chunk:
            return _NONE
    except _Error:
        return _NONE
    return head, tail, start + len(part) - end


def _windows(pieces: Iterable[bytes], size: int) -> Iterator[tuple[bytes, int]]:
    """The body ``pieces`` make, as ``(window, stop)``: every event of the body but the
    ``[DONE]`` is in exactly one window's ``window[:stop].split(b"\\n\\n")``, in order, as
    ``body[:len(body) - len(_CLOSING)].split(b"\\n\\n")`` gives them; ``stop`` -1 (and
    nothing after): the body holds a CR or does not end with :data:`_CLOSING` (not plain).

    A window is what was left of the last one (the start of an event) and at least ``size``
    more bytes, or as many as it holds (so an event longer than a window is joined in as
    many rounds as it doubles: linear). It ends before its last ``\\n\\n`` that ends
    at least ``len(_CLOSING)`` bytes before its end, so no event is cut there and that
    separator is one of ``body[:len(body) - len(_CLOSING)]``'s; the last window holds the
    whole :data:`_CLOSING`, and is the body's end."""
    source = iter(pieces)
    carry, more, each = b"", True, 1 << 12  # each: a piece's size, as the last ones were
    while more:
        new: list[bytes] = [carry]
        got, need = 0, max(size, len(carry))
        while got < need:  # pieces taken in batches (a capture may have a million)
            batch = list(islice(source, (need - got) // each + 1))
            if not batch:
                more = False
                break
            new += batch
            count = sum(map(len, batch))
            got += count
            each = max(1, count // len(batch))
        window = b"".join(new)
        del new
        if b"\r" in window:
            yield b"", -1
            return
        if not more:
            if window.endswith(_CLOSING):
                yield window, len(window) - len(_CLOSING)
            else:
                yield b"", -1
            return
        stop = window.rfind(b"\n\n", 0, len(window) - len(_CLOSING))
        if stop < 0:
            carry = window
            continue
        yield window, stop
        carry = window[stop + 2 :]


def _run(
    body: bytes, pos: int, stop: int, head: bytes, tail: bytes, slab: int, pieces: list[str]
) -> tuple[int, int]:
    """Read the continuation chunks from ``pos`` on that are the last one's ``head`` and
    ``tail`` around a text, as long as they follow each other within ``slab`` bytes:
    ``(the offset of the first event not read, how many were read)``; read, their texts are
    appended to ``pieces`` (joined: one string for the run). Nothing is read when one of
    them is not what reading that chunk alone reads (:func:`_template`'s shortcut):
    ``(pos, -n)``, n the events the attempt covered (to be read alone).

    Exactly the shortcut, in C passes: the slab is split on ``tail[1:] + b"\\n\\n"`` (the
    end of such an event); every piece but the last (which is not followed by it) must start
    with ``head``, and ``piece[len(head) - 1:]`` (the text between its quotes) must read as
    a JSON string alone, as the shortcut reads it. Such a text holds no raw newline (JSON
    forbids control characters in a string), and neither do ``head`` and ``tail`` (they are
    of a chunk read the long way, which has none): so the pieces are the body's own events,
    ``head + text + tail``, each followed by ``\\n\\n``, as its split on ``\\n\\n`` gives them.
    The run stops at the first piece that does not start with ``head`` (another chunk)."""
    end = tail[1:] + b"\n\n"
    texts = body[pos : min(stop, pos + slab)].split(end)
    texts.pop()  # not followed by an event's end: read alone
    starts = list(map(bytes.startswith, texts, repeat(head)))
    if False in starts:
        del texts[starts.index(False) :]
    count = len(texts)
    if not count:
        return pos, 0
    size = sum(map(len, texts)) + count * len(end)
    try:
        quoted = map(_cut, texts, repeat(slice(len(head) - 1, None)))  # '"text"', each
        pieces.append("".join(map(_loads, quoted)))
    except _Error:
        return pos, -count
    return pos + size, count


_cut: Final[Callable[[bytes, slice], bytes]] = getitem  # type: ignore[assignment]
"""``data[cut]``, as a C function for :func:`map`."""
_NONE: Final = (b"", b"", 0)
_KEY: Final = b'"arguments":"'
_PROBE: Final = b"\\u0000probe"
_PROBE_TEXT: Final = "\x00probe"


def _head(chunk: dict[str, Any]) -> bool:
    """The chunk's own fields are of the plain types."""
    get = chunk.get
    return (
        type(get("id")) is str
        and get("object") == "chat.completion.chunk"  # openai-python asserts it
        and type(get("created")) is int
        and type(get("model")) is str
        and type(get("system_fingerprint", "")) in (str, type(None))
        and type(get("service_tier", "")) in (str, type(None))
        and type(get("obfuscation", "")) is str
        and type(get("x_groq", {})) is dict
    )


def _usage(usage: Any) -> bool:
    """A usage object of counts (numbers, null, or objects of them)."""
    if type(usage) is not dict:
        return False
    for value in usage.values():
        if type(value) is dict:
            if not all(v is None or type(v) in _NUMBER for v in value.values()):
                return False
        elif value is not None and type(value) not in _NUMBER:
            return False
    return True


_NUMBER: Final = (int, float)


def _entries(
    entries: Any, ids: list[str], names: list[str], args: list[list[str]], seen: set[str]
) -> bool:
    """Read one delta's ``tool_calls`` into the calls so far (False: not plain)."""
    if type(entries) is not list or not entries:
        return False
    for entry in entries:
        if type(entry) is not dict:
            return False
        index = entry.get("index")
        if type(index) is not int:
            return False
        fn = entry.get("function")
        if type(fn) is not dict:
            return False
        text = fn.get("arguments")
        if type(text) is not str:
            return False
        if index == len(ids):  # a new call: its identity, once
            if not entry.keys() <= _FIRST or entry.get("type") != "function":
                return False
            id_, name = entry.get("id"), fn.get("name")
            if type(id_) is not str or not id_ or id_ in seen:
                return False
            if type(name) is not str or not name or not fn.keys() <= _NAMED:
                return False
            seen.add(id_)
            ids.append(id_)
            names.append(name)
            args.append([text])
        elif index == len(ids) - 1 and len(fn) == 1 and _continuation(entry):
            args[index].append(text)  # the call being streamed: only its arguments
        else:
            return False
    return True


def _continuation(entry: dict[str, Any]) -> bool:
    """A continuation entry's keys: ``index`` and ``function``, and ``type: function`` again
    (every client reads a repeated type as nothing)."""
    return len(entry) == 2 or (len(entry) == 3 and entry.get("type") == "function")


def _prompt_filters(chunk: dict[str, Any]) -> bool:
    """Azure's first chunk (:data:`_PROMPT`): ``choices`` ``[]``, ``prompt_filter_results``
    a list, ``id``/``object``/``model`` strings (empty ones too) and ``created`` an integer."""
    get = chunk.get
    return (
        chunk.keys() == _PROMPT
        and get("choices") == []
        and type(get("prompt_filter_results")) is list
        and type(get("id")) is str
        and type(get("object")) is str
        and type(get("model")) is str
        and type(get("created")) is int
    )
