"""A body fed in network reads (chunks of many whole events and a cut one carried on) takes
the plain-run path (``StreamState._feed_reads``: the decoder's ``feed_lazy``, the dialect's
``feed_run``) and gives exactly what feeding it line by line, chunk by chunk, gives: the same
events (seq, data, times: an event's time is its completing chunk's), the same deltas, calls
and errors, and the same event log read back, wherever the reads cut the events."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from itertools import pairwise
from typing import Any
from unittest.mock import patch

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from inspector.core.calls.stream import StreamState
from inspector.core.events import sse as sse_module
from inspector.core.events.sse import SSEDecoder
from inspector.core.providers import REGISTRY


def _event(obj: dict[str, Any]) -> bytes:
    return b"data: " + json.dumps(obj, ensure_ascii=False).encode() + b"\n\n"


def _start(index: int, name: str) -> bytes:
    call = {"index": index, "id": f"call_{index}", "type": "function"}
    call["function"] = {"name": name, "arguments": ""}
    return _event({"choices": [{"index": 0, "delta": {"tool_calls": [call]}}]})


def _args(index: int, text: str) -> bytes:
    call = {"index": index, "function": {"arguments": text}}
    return _event({"choices": [{"index": 0, "delta": {"tool_calls": [call]}}]})


_FINISH = _event({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]})
_ODD = {
    "comment": b": keep-alive\n\n",
    "typed": b'event: message\ndata: {"choices":[]}\n\n',
    "crlf": _args(0, "cr").replace(b"\n", b"\r\n"),
    "malformed": b'data: {"choices": [\n\n',
    "invalid utf-8": b"data: \xff\xfe\n\n",
}


def _body(odd: list[bytes], fragments: int = 240, every: int = 40) -> bytes:
    """An OpenAI chat body of two calls whose argument fragments hold non-ASCII text; the
    ``odd`` events come one by one among the fragments, one every ``every`` (a read holding
    one goes line by line, so the reads between them are plain)."""
    parts = [_start(0, "write_file")]
    texts = ['{"path": "a.txt", "text": "', "héllo ", "日本 ", "🚀", "plain ascii " * 3]
    for i in range(fragments):
        parts.append(_args(0, texts[1 + i % 4]))
        if odd and i % every == 5:
            parts.append(odd[(i // every) % len(odd)])
    parts[1:1] = [_args(0, texts[0])]
    parts += [_args(0, '"}'), _start(1, "read_file"), _args(1, '{"path": "b"}'), _FINISH]
    return b"".join(parts) + b"data: [DONE]\n\n"


@contextmanager
def _line_by_line() -> Iterator[None]:
    """No fast path at all: what defines the result."""
    with ExitStack() as stack:
        stack.enter_context(patch.object(sse_module, "_MANY", 1 << 62))
        stack.enter_context(patch.object(sse_module, "chunk_values", lambda datas: None))
        yield


def _reads(body: bytes, cuts: list[int]) -> list[tuple[float, bytes]]:
    points = sorted({c for c in cuts if 0 < c < len(body)})
    edges = [0, *points, len(body)]
    return [(0.25 * i, body[a:b]) for i, (a, b) in enumerate(pairwise(edges))]


def _fed(chunks: list[tuple[float, bytes]], many: bool) -> StreamState:
    state = StreamState(REGISTRY.dialect("openai-chat"))
    if many:
        state.feed_many(chunks)
    else:
        for t, data in chunks:
            state.feed(data, t)
    state.end()
    return state


def _seen(state: StreamState) -> tuple[Any, ...]:
    events = list(state.events)
    deltas = [(d.seq, d.kind, getattr(d, "value", None)) for d in state.deltas]
    calls = [
        (c.index, c.id, c.name, c.arguments, c.truncated, c.close_seq, c.fragment_count)
        for c in state.calls
    ]
    errors = [(d.seq, getattr(d, "value", None)) for d in state.errors]
    return events, [ev.t for ev in events], deltas, calls, errors, state.events.offsets()


def _assert_same_as_line_by_line(
    chunks: list[tuple[float, bytes]], cut_at_once: bool | None = True
) -> StreamState:
    """``cut_at_once``: whether some read must be cut at once (None: either; a read ending
    between the two LFs of an event leaves a line behind, and the next read goes line by
    line)."""
    with _line_by_line():
        want = _fed(chunks, many=False)
    runs: list[int] = []
    feed_lazy = SSEDecoder.feed_lazy

    def spy(self: SSEDecoder, *args: Any) -> Any:
        out = feed_lazy(self, *args)
        runs.extend(len(run.values) for run in out[1])
        return out

    with patch.object(SSEDecoder, "feed_lazy", spy):
        got = _fed(chunks, many=True)
    assert _seen(got) == _seen(want)
    if cut_at_once is not None:
        assert bool(runs) == cut_at_once, "the plain-run path not taken as expected"
    return got


def test_reads_of_many_events_take_the_run_path_with_the_same_result() -> None:
    body = _body([])
    cuts = list(range(4096, len(body), 4096))
    got = _assert_same_as_line_by_line(_reads(body, cuts))
    # Every event lying inside one read cut at once (all but the short last one) is read
    # back, non-ASCII ones too; those crossing a read's start keep their text.
    log = list(got.events)
    inside = [ev for ev in log if ev.start // 4096 == (ev.end - 1) // 4096 and ev.end <= cuts[-1]]
    assert len(inside) > len(log) * 0.9
    assert not all(map(str.isascii, (ev.data for ev in inside)))
    kept = {ev.seq for ev in log} - {ev.seq for ev in inside}
    assert got.events.derived >= len(inside)
    assert got.events.derived <= len(log) - len([s for s in kept if log[s].end <= cuts[-1]])


def _at(body: bytes, marker: bytes, shift: int) -> list[int]:
    """Cuts a read at ``shift`` bytes past each place ``marker`` occurs."""
    cuts, pos = [], body.find(marker, 3000)
    while pos >= 0:
        cuts.append(pos + shift)
        pos = body.find(marker, pos + 2500)
    return cuts


@pytest.mark.parametrize(
    ("marker", "shift"),
    [
        (b"data: ", 3),  # inside "data:"
        (b"data: ", 6),  # right after "data: "
        ("日".encode(), 1),  # inside a UTF-8 character
        ("🚀".encode(), 3),  # inside a four-byte one
        (b"\n\n", 1),  # between the two newlines
        (b"\r\n", 1),  # inside a CRLF
        (b"\n\n", 2),  # exactly at an event's end
    ],
    ids=["in-data", "after-data", "in-utf8", "in-utf8-4", "between-lfs", "in-crlf", "at-end"],
)
def test_a_read_cut_anywhere_gives_the_same_events(marker: bytes, shift: int) -> None:
    body = _body(list(_ODD.values()))
    cuts = sorted(set(_at(body, marker, shift) + list(range(5000, len(body), 5000))))
    _assert_same_as_line_by_line(
        _reads(body, cuts), cut_at_once=None if marker == b"\n\n" and shift == 1 else True
    )


@pytest.mark.parametrize("odd", list(_ODD), ids=list(_ODD))
def test_an_odd_event_mid_run_is_taken_in_order(odd: str) -> None:
    body = _body([_ODD[odd]])
    got = _assert_same_as_line_by_line(_reads(body, list(range(3000, len(body), 3000))))
    assert [c.name for c in got.calls] == ["write_file", "read_file"]
    kinds = [d.kind for d in got.deltas]
    if odd in ("malformed", "invalid utf-8"):  # a problem, and the calls still complete
        assert "unknown" in kinds
        assert got.calls[0].arguments.endswith('"}')


@settings(max_examples=60, deadline=None)
@given(
    cuts=st.lists(st.integers(min_value=1, max_value=20000), max_size=24),
    odd=st.lists(st.sampled_from(list(_ODD.values())), max_size=4),
)
def test_any_reads_give_the_same_events(cuts: list[int], odd: list[bytes]) -> None:
    body = _body(odd, fragments=60, every=17)
    with patch.object(sse_module, "_MANY", 0):  # every read, however small, tries the cut
        with _line_by_line():
            want = _fed(_reads(body, cuts), many=False)
        got = _fed(_reads(body, cuts), many=True)
    assert _seen(got) == _seen(want)
