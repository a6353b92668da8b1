"""The shape memo (inspector.core.providers.shapememo.shape): every delta it makes is the one
the full path makes (every field), on the real recordings, the demo provider's captures, and
generated streams whose fragments hit every edge of the split (escapes, raw control
characters, lone surrogates, a lone backslash, the shape's own text inside a fragment,
whitespace after colons, obfuscation padding), cut at random chunk boundaries; and it skips the
decode on a uniform stream while a stream whose chunks all differ builds O(log n) shapes."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

import pytest
from conftest import TESTS, all_real_fixtures

from inspector.core.base.model import AnyDelta, SSEEvent, ToolCallDelta
from inspector.core.base.provider import Dialect
from inspector.core.calls.stream import StreamState
from inspector.core.capture.reader import load
from inspector.core.providers.openai_chat import PROVIDER as CHAT
from inspector.core.providers.openai_chat import dialect as openai_chat
from inspector.core.providers.openai_chat.dialect import OpenAIChatDialect
from inspector.core.providers.openai_responses import PROVIDER as RESPONSES
from inspector.core.providers.openai_responses.dialect import ResponsesDialect
from inspector.core.providers.shapememo import shape as openai_chat_shape
from inspector.core.providers.wire import events as common

CORPUS = TESTS / "clients" / "corpus"

# -- comparing ------------------------------------------------------------------------------


def fields(d: Any) -> tuple[Any, ...]:
    """Every field of a delta."""
    if isinstance(d, ToolCallDelta):
        return ("tool", d.seq, d.pos, d.index, d.id, d.name, d.arguments, d.type,
                d.args_object, d.final, d.extra)  # fmt: skip
    return (d.kind, d.seq, d.value, d.raw)


def chat(memo: bool) -> OpenAIChatDialect:
    return OpenAIChatDialect(CHAT, memo=memo)


def streamed(dialect: Dialect, body: bytes, rng: random.Random) -> list[tuple[Any, ...]]:
    """The deltas of ``body`` fed through a StreamState in random pieces."""
    state = StreamState(dialect)
    at = 0
    while at < len(body):
        step = rng.choice((1, 2, 7, 40, 300, 5000))
        state.feed(body[at : at + step])
        at += step
    state.end()
    return [fields(d) for d in state.deltas]


def mapped(dialect: Dialect, datas: list[Any]) -> list[tuple[Any, ...]]:
    """The deltas of events with these data strings (or (event name, data) pairs), fed
    straight to the dialect."""
    out: list[AnyDelta] = []
    for seq, item in enumerate(datas):
        event, data = item if type(item) is tuple else ("message", item)
        dialect.feed(SSEEvent(seq, "event", event, data, None, None, 0, 0), out)
    return [fields(d) for d in out]


@pytest.fixture
def hits(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the deltas the memo made (one list cell)."""
    count = [0]
    for cls in (openai_chat_shape.Shape, openai_chat_shape.HoledShape):
        real = cls.map

        def counted(self: Any, ev: SSEEvent, real: Any = real) -> ToolCallDelta | None:
            got: ToolCallDelta | None = real(self, ev)
            count[0] += got is not None
            return got

        monkeypatch.setattr(cls, "map", counted)
    return count


@pytest.fixture
def decodes(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the chat dialect's whole-payload decodes (one list cell)."""
    count = [0]
    real = openai_chat._loads

    def counted(data: str) -> Any:
        count[0] += 1
        return real(data)

    monkeypatch.setattr(openai_chat, "_loads", counted)
    return count


# -- generated chat streams -----------------------------------------------------------------

SAMPLE = (
    '{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,'
    '"delta":{"tool_calls":[{"index":0,"function":{"arguments":"x"}}]},"logprobs":null,'
    '"finish_reason":null}]}'
)
TAIL = SAMPLE[SAMPLE.index('"x"') + 2 :]
HEAD = SAMPLE[: SAMPLE.index('"x"') + 1]

BODIES = [
    # plain text, raw non-ASCII, characters isprintable() refuses but JSON allows
    *("", "a", "abc def", "{", "}", ": ", "é", "ф", "😀", "\u2028", "\x7f", "\u200b", "\xa0"),
    # escapes
    *('\\"', "\\\\", "\\n", "\\u00e9", "\\ud83d\\ude00", "\\/", 'x\\"y\\\\z', '{\\"path\\": \\"'),
    # not a string body: the whole chunk is not JSON, or the hole is elsewhere
    *("\\", "a\\", "\\\\\\", '"', 'a"b', "\x01", "\n", "\t", "\\ud800", "\\ud83d", "\\x", "\\u12"),
    *("\ud800", "\udfff", 'x","arguments":"y', 'x"}}]},"usage":{"a":1},"z":{"q":"'),
    # the shape's own text inside a fragment
    TAIL,
    TAIL + HEAD,
    json.dumps(TAIL)[1:-1],
    "x" + TAIL[:-1],
    HEAD[-20:],
    '"' + TAIL,
]
PADS = ["", "a", "aZ09", "q" * 37, "é", "\\u00e9", '\\"', "\\\\", '"', "\\", "\x02", "\ud800"]


def chunk(
    index: Any,
    body: str,
    *,
    ident: str = "c",
    call_id: str | None = None,
    name: str | None = None,
    pad: str | None = None,
    spaced: bool = False,
    ascii_only: bool = True,
) -> str:
    """One chat chunk with one tool-call entry whose argument body (and padding) are raw text,
    inserted as they are: the chunk need not be JSON."""
    entry: dict[str, Any] = {"index": index}
    if call_id is not None:
        entry.update(id=call_id, type="function")
    fn: dict[str, Any] = {} if name is None else {"name": name}
    fn["arguments"] = "@ARG@"
    entry["function"] = fn
    obj: dict[str, Any] = {"id": ident, "object": "chat.completion.chunk", "created": 1,
                           "model": "m é", "choices": [{"index": 0, "delta": {
                               "tool_calls": [entry]}, "logprobs": None,
                               "finish_reason": None}]}  # fmt: skip
    if pad is not None:
        obj["obfuscation"] = "@PAD@"
    seps = (", ", ": ") if spaced else (",", ":")
    text = json.dumps(obj, ensure_ascii=ascii_only, separators=seps)
    return text.replace('"@ARG@"', f'"{body}"').replace('"@PAD@"', f'"{pad}"')


def other(kind: str) -> str:
    """A chunk that maps to something else than one tool call."""
    delta: dict[str, Any] = {"content": "hi"} if kind == "text" else {}
    reason = "tool_calls" if kind == "finish" else None
    obj: dict[str, Any] = {"id": "c", "choices": [{"index": 0, "delta": delta,
                                                   "finish_reason": reason}]}  # fmt: skip
    if kind == "usage":
        obj = {"id": "c", "choices": [], "usage": {"total_tokens": 3}}
    return json.dumps(obj)


def random_stream(rng: random.Random) -> list[str]:
    """Data strings of one generated stream: calls in index order, each streamed in fragments
    drawn from BODIES and plain words, with the odd identity change and foreign chunk."""
    pad = rng.random() < 0.4
    spaced = rng.random() < 0.2
    ascii_only = rng.random() < 0.5
    ident = "c"
    datas: list[str] = []
    for index in range(rng.randint(1, 3)):
        datas.append(chunk(index, "", call_id=f"call_{index}", name="f", spaced=spaced))
        for _ in range(rng.randint(0, 40)):
            roll = rng.random()
            body = rng.choice(BODIES) if roll < 0.3 else rng.choice(("ab", "c d", "{", "é", ""))
            kw: dict[str, Any] = {"ident": ident, "spaced": spaced, "ascii_only": ascii_only}
            if pad:
                kw["pad"] = rng.choice(PADS) if rng.random() < 0.3 else "x" * rng.randint(0, 9)
            if roll > 0.97:
                kw["call_id"] = ""  # the empty-id continuation
            elif roll > 0.95:
                kw["name"] = ""
            elif roll > 0.93:
                ident = f"c{len(datas)}"
                kw["ident"] = ident
            elif roll > 0.91:
                kw["spaced"] = not spaced
            elif roll > 0.89:
                datas.append(other(rng.choice(("text", "usage", "finish"))))
            datas.append(chunk(index if roll > 0.005 else index + 1, body, **kw))
    datas.append(other("finish"))
    datas.append("[DONE]")
    return datas


def body_of(datas: list[Any]) -> bytes:
    out = []
    for item in datas:
        event, data = item if type(item) is tuple else (None, item)
        head = b"" if event is None else b"event: " + event.encode() + b"\n"
        out.append(head + b"data: " + data.encode("utf-8", "surrogatepass") + b"\n\n")
    return b"".join(out)


# -- the tests ------------------------------------------------------------------------------


def test_real_recordings_map_the_same_with_and_without_the_memo(hits: list[int]) -> None:
    rng = random.Random(17)
    seen = 0
    for path in all_real_fixtures():
        meta = json.loads(path.with_suffix(".meta.json").read_text())
        if meta["dialect"] != "openai-chat":
            continue
        seen += 1
        body = path.read_bytes()
        assert streamed(chat(True), body, rng) == streamed(chat(False), body, rng), path.name
    assert seen >= 5
    assert hits[0] >= 20  # gpt-4o, deepseek, the gateway and qwen streams hit


def test_demo_captures_map_the_same_with_and_without_the_memo(hits: list[int]) -> None:
    rng = random.Random(3)
    paths = sorted((CORPUS / "openai-chat").glob("*.jsonl"))
    assert len(paths) >= 20
    for path in paths:
        for attempt in load(path).attempts:
            body = b"".join(data for _, data in attempt.chunks)
            assert streamed(chat(True), body, rng) == streamed(chat(False), body, rng), path.name
    assert hits[0] >= 100


def test_generated_streams_map_the_same_through_the_stream_state(hits: list[int]) -> None:
    rng = random.Random(20261202)
    for _ in range(150):
        body = body_of(random_stream(rng))
        assert streamed(chat(True), body, rng) == streamed(chat(False), body, rng)
    assert hits[0] >= 1000


def test_generated_streams_map_the_same_event_by_event(hits: list[int]) -> None:
    """Straight to the dialect: lone surrogates and raw controls reach the memo as they are."""
    rng = random.Random(5)
    for _ in range(150):
        datas = random_stream(rng)
        assert mapped(chat(True), datas) == mapped(chat(False), datas)
    assert hits[0] >= 1000


def uniform(n: int, body: str = "ab", **kw: Any) -> list[str]:
    return [chunk(0, "", call_id="call_0", name="f", **kw)] + [chunk(0, body, **kw)] * n


@pytest.mark.parametrize("kw", [{}, {"pad": "x"}, {"spaced": True}, {"pad": "é", "spaced": True}])
@pytest.mark.parametrize("body", BODIES + PADS)
def test_every_edge_after_a_shape(kw: dict[str, Any], body: str, hits: list[int]) -> None:
    """Each edge fragment (or padding) arrives when a proved shape is in place."""
    datas = uniform(4, **kw)
    if "pad" in kw:
        datas += [chunk(0, "ab", pad=body, spaced=kw.get("spaced", False))]
    datas += [chunk(0, body, **kw), chunk(0, "z", **kw)]
    assert mapped(chat(True), datas) == mapped(chat(False), datas)
    assert hits[0] >= 2  # the shape was in place when the edge arrived


def test_a_uniform_stream_is_decoded_a_handful_of_times(decodes: list[int]) -> None:
    datas = uniform(2000, '{\\"k\\": \\"é') + uniform(2000, "plain", pad="o") + ["[DONE]"]
    want = mapped(chat(False), datas)
    full = decodes[0]
    decodes[0] = 0
    assert mapped(chat(True), datas) == want
    assert full == 4002
    assert decodes[0] <= 20  # first chunks, the chunks before a shape, and the proofs


def test_all_different_chunks_build_log_n_shapes(decodes: list[int]) -> None:
    n = 4096
    datas = [chunk(0, "ab", ident=f"chunk{i}") for i in range(n)]
    dialect = chat(True)
    assert mapped(dialect, datas) == mapped(chat(False), datas)
    memo = dialect._memo
    assert memo is not None
    assert 5 <= memo.built <= 13  # log2(4096) + 1
    assert decodes[0] <= 2 * n + 3 * 13  # each chunk twice (both dialects), proofs


def test_a_shape_with_hits_survives_one_miss_and_resets_the_backoff(hits: list[int]) -> None:
    datas = [*uniform(50), other("text"), chunk(0, "ab", ident="x"), *uniform(50)[1:]]
    dialect = chat(True)
    assert mapped(dialect, datas) == mapped(chat(False), datas)
    assert hits[0] >= 95
    assert dialect._memo is not None and dialect._memo.level == 0


def test_no_shape_is_built_from_a_huge_chunk() -> None:
    """One whole call in a huge line: no search and no proofs over it (a shape from it would
    rarely hit); a chunk just under the limit still gets one."""
    longest = openai_chat_shape.LONGEST
    for size, built in ((longest + 1, 0), (longest, 1)):
        body = "x" * (size - len(chunk(0, "")))
        datas = [chunk(0, body)] * 5
        assert len(datas[0]) == size
        dialect = chat(True)
        assert mapped(dialect, datas) == mapped(chat(False), datas)
        assert dialect._memo is not None and dialect._memo.built == built


def test_no_shape_is_built_from_events_the_fast_path_does_not_cover() -> None:
    datas = [chunk(1, "ab").replace('"index":0', '"index":1')] * 20  # choice 1: an extra
    datas += [chunk(0, "@").replace('"@"', '{"a":1}')] * 20  # object arguments
    dialect = chat(True)
    assert mapped(dialect, datas) == mapped(chat(False), datas)
    assert dialect._memo is not None and dialect._memo.built == 0


Proof = Callable[[SSEEvent], list[AnyDelta]]


def test_an_unproved_shape_is_never_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    """A proof that disagrees (here: the full path made to add a flag) leaves no shape."""
    dialect = chat(True)
    memo = dialect._memo
    assert memo is not None
    real: Proof = dialect._unmemoized

    def lying(ev: SSEEvent) -> list[AnyDelta]:
        return [*real(ev), *real(ev)]

    monkeypatch.setattr(dialect, "_unmemoized", lying)
    datas = uniform(100)
    assert mapped(dialect, datas) == mapped(chat(False), datas)
    assert memo.built == 0 and dialect._shape is None


def test_data_where_the_shape_text_overlaps_is_not_a_match(hits: list[int]) -> None:
    """Data that starts with the text before the hole and ends with the text after it, but
    is shorter than both (they share the quote): no hole at all, so the full path."""
    text = chunk(0, "@")
    at = text.index('"@"')
    overlapping = text[: at + 1] + text[at + 3 :]
    datas = [*uniform(6), overlapping, chunk(0, "ab")]
    assert mapped(chat(True), datas) == mapped(chat(False), datas)
    assert hits[0] >= 3


def test_a_located_literal_that_is_not_the_argument_is_refused_by_the_proof(
    hits: list[int],
) -> None:
    """The argument key spelled with an escape is not where the literal search looks; a decoy
    ``"arguments"`` key with the same value is. Only the proof tells them apart."""
    decoy = '{"arguments":"%s","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,'
    decoy += '"function":{"argument\\u0073":"ab"}}]}}]}'
    datas = [decoy % "ab"] * 6 + [decoy % "cd"] * 6
    dialect = chat(True)
    assert mapped(dialect, datas) == mapped(chat(False), datas)
    assert dialect._memo is not None and dialect._memo.built == 0 and hits[0] == 0


# -- the Responses dialect ------------------------------------------------------------------

ARGS_DELTA = "response.function_call_arguments.delta"
NUMBERS = ["0", "7", "12", "012", "-3", "1e2", "3.0", '"3"', "123456789012345678", "9" * 19]
NUMBERS += ["9" * 400]  # orjson: "number is infinity", the whole event undecodable


def resp(memo: bool) -> ResponsesDialect:
    return ResponsesDialect(RESPONSES, memo=memo)


def args_event(
    body: str, pad: str | None, number: str, *, item: str = "fc_1", keys: tuple[str, ...] = (),
    spaced: bool = False, event: str = ARGS_DELTA,
) -> tuple[str, str]:  # fmt: skip
    """One arguments delta with raw argument body, padding and sequence number text, its keys
    in the order given (default: OpenAI's)."""
    full = {"type": ARGS_DELTA, "sequence_number": "@SEQ@", "item_id": item, "output_index": 0,
            "delta": "@ARG@", "obfuscation": "@PAD@"}  # fmt: skip
    obj = {k: full[k] for k in keys or full if k != "obfuscation" or pad is not None}
    text = json.dumps(obj, separators=(", ", ": ") if spaced else (",", ":"))
    text = text.replace('"@SEQ@"', number).replace('"@ARG@"', f'"{body}"')
    return event, text.replace('"@PAD@"', f'"{pad}"')


def added(item: str, index: int) -> tuple[str, str]:
    call = {"id": item, "type": "function_call", "call_id": "call_" + item, "name": "f"}
    obj = {"type": "response.output_item.added", "output_index": index, "item": call}
    return "response.output_item.added", json.dumps(obj)


def random_responses(rng: random.Random) -> list[tuple[str, str]]:
    """One generated Responses stream: items added, then streamed in arguments deltas."""
    keys = ["type", "sequence_number", "item_id", "output_index", "delta", "obfuscation"]
    if rng.random() < 0.3:
        rng.shuffle(keys)
    spaced = rng.random() < 0.2
    items: list[tuple[str, str]] = []
    for n, item in enumerate(rng.sample(["fc_1", "fc_2", "fc_3"], rng.randint(1, 3))):
        items.append(added(item, n))
        for _ in range(rng.randint(0, 40)):
            roll = rng.random()
            body = rng.choice(BODIES) if roll < 0.3 else rng.choice(("ab", "c d", "{", "é"))
            pad = rng.choice(PADS) if roll > 0.8 else "p" * rng.randint(0, 12)
            number = rng.choice(NUMBERS) if roll > 0.9 else str(len(items))
            use = tuple(keys)
            if roll > 0.97:
                use = tuple(k for k in keys if k != rng.choice(keys))  # one key missing
            event = "message" if 0.95 < roll < 0.96 else ARGS_DELTA
            items.append(args_event(body, pad, number, item=item, keys=use, spaced=spaced,
                                    event=event))  # fmt: skip
    items.append(("response.completed", '{"type":"response.completed","response":{}}'))
    return items


def test_real_and_demo_responses_streams_map_the_same(hits: list[int]) -> None:
    rng = random.Random(11)
    bodies = [p.read_bytes() for p in all_real_fixtures() if p.name.startswith("responses-")]
    assert len(bodies) >= 2
    paths = sorted((CORPUS / "openai-responses").glob("*.jsonl"))
    assert len(paths) >= 10
    for path in paths:
        bodies += [b"".join(d for _, d in a.chunks) for a in load(path).attempts]
    for body in bodies:
        assert streamed(resp(True), body, rng) == streamed(resp(False), body, rng)
    assert hits[0] >= 20


def test_generated_responses_streams_map_the_same(hits: list[int]) -> None:
    rng = random.Random(99)
    for _ in range(120):
        items = random_responses(rng)
        assert mapped(resp(True), items) == mapped(resp(False), items)
        body = body_of(items)
        assert streamed(resp(True), body, rng) == streamed(resp(False), body, rng)
    assert hits[0] >= 1000


@pytest.mark.parametrize("spaced", [False, True])
@pytest.mark.parametrize("hole", ["delta", "obfuscation", "sequence_number"])
def test_every_responses_edge_after_a_shape(hole: str, spaced: bool, hits: list[int]) -> None:
    edges = {"delta": BODIES, "obfuscation": PADS + BODIES, "sequence_number": NUMBERS}[hole]
    for edge in edges:
        items = [added("fc_1", 0)] + [args_event("ab", "pq", str(n), spaced=spaced)
                                      for n in range(5)]  # fmt: skip
        body, pad, number = {"delta": (edge, "x", "9"), "obfuscation": ("ab", edge, "9"),
                             "sequence_number": ("ab", "x", edge)}[hole]  # fmt: skip
        items += [args_event(body, pad, number, spaced=spaced), args_event("z", "", "5")]
        before = hits[0]
        assert mapped(resp(True), items) == mapped(resp(False), items), edge
        assert hits[0] - before >= 2  # the shape was in place when the edge arrived


def test_a_uniform_responses_stream_is_decoded_a_handful_of_times(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    count = [0]
    real = common._loads

    def counted(data: str) -> Any:
        count[0] += 1
        return real(data)

    monkeypatch.setattr(common, "_loads", counted)
    items = [added("fc_1", 0)]
    items += [args_event('\\"é' * (n % 3), "o" * (n % 17), str(n)) for n in range(3000)]
    assert mapped(resp(True), items) == mapped(resp(False), items)
    assert count[0] <= 3001 + 20


def test_a_responses_shape_needs_the_type_field_or_its_event_name(hits: list[int]) -> None:
    """Without ``type`` the event name decides what the data is: a shape is tied to it."""
    keys = ("sequence_number", "item_id", "output_index", "delta")
    items = [added("fc_1", 0)] + [args_event("ab", None, str(n), keys=keys) for n in range(6)]
    items += [args_event("cd", None, "7", keys=keys, event="response.output_text.delta")]
    items += [args_event("ef", None, "8", keys=keys, event="message")]
    assert mapped(resp(True), items) == mapped(resp(False), items)
    assert hits[0] >= 3


def test_a_responses_shape_never_outlives_what_the_dialect_learns(hits: list[int]) -> None:
    """Deltas naming an item not added yet and no index: their index comes from the item
    once it is added, so no shape stands for them."""
    keys = ("type", "sequence_number", "item_id", "delta")
    late = [args_event("ab", None, str(n), item="fc_9", keys=keys) for n in range(6)]
    items = [*late, added("fc_9", 2), *late]
    dialect = resp(True)
    assert mapped(dialect, items) == mapped(resp(False), items)
    assert dialect._memo is not None and dialect._memo.built == 0 and hits[0] == 0


def short_calls(calls: int, fragments: int, index_text: Any = str) -> list[str]:
    datas = []
    for i in range(calls):
        datas.append(chunk(i, "", call_id=f"call_{i}", name="f"))
        for j in range(fragments):
            text = chunk(i, f"a{j}").replace(f'"index":{i},"f', f'"index":{index_text(i)},"f')
            datas.append(text)
    return datas


def test_short_calls_share_one_shape_with_their_index_as_a_hole(hits: list[int]) -> None:
    datas = short_calls(500, 2)
    dialect = chat(True)
    assert mapped(dialect, datas) == mapped(chat(False), datas)
    assert dialect._memo is not None and dialect._memo.built <= 4
    assert hits[0] >= 990


@pytest.mark.parametrize("odd", ["0{}", "-{}", "{}.0", "{}e0", '"{}"', "{}99999999999999999999"])
def test_an_index_hole_takes_only_a_plain_integer(odd: str, hits: list[int]) -> None:
    datas = short_calls(30, 3, lambda i: odd.format(i) if i >= 10 and i % 2 else i)
    assert mapped(chat(True), datas) == mapped(chat(False), datas)
    assert hits[0] >= 20


def test_short_responses_items_build_log_n_shapes(hits: list[int]) -> None:
    """An item's deltas need a shape of their own (the item id is in them): items too short
    to pay for one back off."""
    items = []
    for i in range(400):
        items.append(added(f"fc_{i}", i))
        for j in range(6):
            event, data = args_event(f"a{j}", "p" * j, str(len(items)), item=f"fc_{i}")
            items.append((event, data.replace('"output_index":0', f'"output_index":{i}')))
    dialect = resp(True)
    assert mapped(dialect, items) == mapped(resp(False), items)
    assert dialect._memo is not None and dialect._memo.built <= 12
    assert hits[0] >= 20
