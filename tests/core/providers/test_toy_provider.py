"""A provider is one module: the Provider protocol is all the pipeline knows of one.

The proof is a fifth provider written here alone — a line-oriented "toy" wire with its own
closing rule (the next call closes the previous one, a finish closes nothing, ``end N``
closes call N), its own quirk checks, end marker, tool finish, request, continuation, error
body and key header — registered in a registry of its own and analyzed end to end. Nothing
in ``inspector/`` learns its name.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from inspector.core.analysis.continuation import ToolResult, build_continuation
from inspector.core.analysis.session import Analysis
from inspector.core.base.model import (
    OMITTED,
    AnyDelta,
    Delta,
    DeltaKind,
    EventKind,
    SSEEvent,
    ToolCallDelta,
)
from inspector.core.base.provider import (
    IN_ORDER,
    LIKELY,
    NO,
    PROVES,
    Closing,
    Dialect,
    Head,
    Provider,
    Recognition,
    ToolDefinition,
    ToolShape,
    Turn,
    TurnResult,
    WireRequest,
)
from inspector.core.base.settings import Settings, dialect_choices
from inspector.core.capture.reader import load_bytes
from inspector.core.events.sse import SSE, decode_all
from inspector.core.providers import REGISTRY, Registry, analyze_bytes, sniff, sniff_url
from inspector.core.providers.sniff import recognise
from inspector.core.quirks.registry import PROVIDER_CHECKS
from inspector.core.requests.scenarios import Profile, Scenario, build_request
from inspector.core.verdicts.tools import ToolRegistry

# -- the toy provider, defined here and nowhere else --------------------------------------------


class ToyDialect:
    """``text …``, ``call N ID NAME``, ``args N TEXT``, ``end N``, ``stop REASON``, ``oops …``,
    ``bye``, and two odd ones (``whole ID NAME JSON``: a call without an index whose arguments
    are an object; ``pair N``: two entries for index N in one event): one word, then its
    operands, per SSE data line."""

    fallback = False

    def __init__(self, provider: Provider) -> None:
        self.provider = provider

    @property
    def direct(self) -> Dialect:
        return self

    def feed(self, ev: SSEEvent, out: list[AnyDelta]) -> None:
        seq = ev.seq
        if ev.kind != EventKind.EVENT:
            out.append(Delta(seq, DeltaKind.KEEPALIVE, ev.comment))
            return
        word, _, rest = ev.data.partition(" ")
        if word == "text":
            out.append(Delta(seq, DeltaKind.TEXT, rest))
        elif word == "call":
            index, call_id, name = rest.split(" ")
            out.append(ToolCallDelta(seq, 0, int(index), call_id, name, OMITTED))
        elif word == "args":
            index, _, text = rest.partition(" ")
            out.append(ToolCallDelta(seq, 0, int(index), OMITTED, OMITTED, text))
        elif word == "whole":
            call_id, name, args = rest.split(" ", 2)
            out.append(ToolCallDelta(seq, 0, OMITTED, call_id, name, args, args_object=True))
        elif word == "pair":
            out.append(ToolCallDelta(seq, 0, int(rest), "p1", "get_weather", ""))
            out.append(ToolCallDelta(seq, 1, int(rest), OMITTED, OMITTED, '{"city": "Rome"}'))
        elif word == "end":
            out.append(Delta(seq, DeltaKind.CLOSE, int(rest)))
        elif word == "stop":
            out.append(Delta(seq, DeltaKind.FINISH, rest))
        elif word == "oops":
            out.append(Delta(seq, DeltaKind.ERROR, self.provider.error_message(rest), rest))
        elif word == "bye":
            out.append(Delta(seq, DeltaKind.DONE))
        else:
            out.append(Delta(seq, DeltaKind.UNKNOWN, ev.data))

    def finish(self, out: list[AnyDelta]) -> None:
        pass


WORDS = ("text", "call", "args", "whole", "pair", "end", "stop", "oops", "bye")


class Toy:
    name = "toy"
    title = "Toy Talk"
    closing = Closing(on_finish=False, on_next_index=True)
    checks = frozenset({"sparse_index"})
    end_marker = "bye"
    key_header = "x-toy-key"
    version_segment = "/toy1"
    framing = SSE

    def recognises(self, head: Head, content_type: str | None, url: str | None) -> Recognition:
        """Its URL proves it; a data line that starts with one of its words is likely its."""
        if url is not None and url.endswith("/toy1/talk"):
            return PROVES
        events = [ev for ev in head.events if ev.kind == EventKind.EVENT]
        return LIKELY if any(ev.data.split(" ")[0] in WORDS for ev in events) else NO

    def dialect(self) -> ToyDialect:
        return ToyDialect(self)

    def is_tool_finish(self, reason: Any, calls: int) -> bool:
        return calls > 0 and reason == "tools"

    def error_message(self, body: Any) -> str:
        return f"toy says {body}"

    def error_body(self, status: int, message: str) -> dict[str, Any]:
        return {"toy_error": message, "status": status}

    def tools(self, neutral: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [{"tool": t["function"]["name"]} for t in neutral]

    def tool_shape(self, entry: dict[str, Any], label: str, listed_as: str) -> ToolShape | None:
        """``{"tool": NAME}``: a tool without parameters."""
        if set(entry) != {"tool"}:
            return None
        return ToolShape(PROVES, (ToolDefinition(label, entry["tool"], None, None),))

    def request(
        self, base_url: str, model: str, messages: list[dict[str, Any]], tools: list[dict[str, Any]]
    ) -> WireRequest:
        lines = [f"{m['role']} {m['content']}" for m in messages]
        body = {"model": model, "lines": lines, "tools": self.tools(tools)}
        return WireRequest(f"{base_url}/talk", body, {"x-toy-wire": "lines"})

    def append_turn(self, body: dict[str, Any], turn: Turn, results: Sequence[TurnResult]) -> None:
        lines = body.setdefault("lines", [])
        lines += [f"call {c.id} {c.name} {c.arguments}" for c in turn.calls]
        lines += [f"result {r.call_id} {r.text}" for r in results]


TOY = Toy()
PROVIDERS = Registry([*REGISTRY, TOY])
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}},
                "required": ["city"],
            },
        },
    }
]


def toy_body(*lines: str) -> bytes:
    return "".join(f"data: {line}\n\n" for line in lines).encode()


TWO_CALLS = toy_body(
    "text Checking two cities.",
    "call 1 t1 get_weather",
    'args 1 {"city":',
    'args 1  "Paris"}',
    "call 3 t3 get_weather",  # closes call 1: the toy's calls stream one at a time
    'args 3 {"city": "Oslo"}',
    "stop tools",  # closes nothing in the toy
    "end 3",
    "bye",
)


def analyze(body: bytes, providers: Registry = PROVIDERS, dialect: str = "toy") -> Analysis:
    tools = ToolRegistry.from_definitions(TOOLS, REGISTRY)
    analysis = Analysis(Settings(dialect=dialect), tools, providers=providers)
    analysis.feed(body)
    analysis.end()
    return analysis


# -- the fifth dialect, end to end --------------------------------------------------------------


def test_a_toy_provider_registered_from_outside_is_analyzed_end_to_end() -> None:
    analysis = analyze(TWO_CALLS)
    view = analysis.final
    assert analysis.dialect == "toy" and view.state.provider is TOY and not analysis.warnings
    first, second = view.state.calls
    assert [(c.index, c.id, c.name) for c in (first, second)] == [
        (1, "t1", "get_weather"),
        (3, "t3", "get_weather"),
    ]
    assert (first.arguments, second.arguments) == ('{"city": "Paris"}', '{"city": "Oslo"}')
    assert (first.close_reason, second.close_reason) == ("next_index", "close")
    assert not first.truncated and not second.truncated
    assert all(v.valid for v in view.verdicts) and analysis.all_valid
    assert view.state.full_text == "Checking two cities."
    codes = {q.code for q in view.quirks}
    assert codes == {"sparse_index"}  # the toy lists that check; indexes 1 and 3 have gaps


def test_the_toy_decides_its_own_closing_end_marker_and_tool_finish() -> None:
    cut = toy_body("call 0 t0 get_weather", 'args 0 {"city": "Oslo"}', "stop stop")
    view = analyze(cut).final
    (call,) = view.state.calls
    assert call.truncated and call.close_reason == "end_of_stream"  # a finish closed nothing
    codes = {q.code for q in view.quirks}
    assert {"missing_done", "finish_reason_mismatch"} <= codes
    notes = {q.code: q.message for q in view.quirks}
    assert notes["missing_done"].endswith("no bye")
    # The rule is the provider's: the same events under a toy whose finish closes calls.
    closing = Registry([type("ClosingToy", (Toy,), {"name": "closing-toy", "closing": IN_ORDER})()])
    (closed,) = analyze(cut, closing, dialect="closing-toy").final.state.calls
    assert not closed.truncated and closed.close_reason == "finish"


def test_the_checks_a_provider_lists_are_the_ones_that_run() -> None:
    odd = toy_body(
        'whole w1 get_weather {"city":"Oslo"}',  # no index, object arguments, whole in one chunk
        "pair 5",  # index 5 twice in one event (and indexes that do not start at 0)
        "call 7 null get_time",  # a named call whose only id is "null": no id at all
        "stop tools",
        "oops overloaded",
        "bye",
    )
    strict = Registry([type("StrictToy", (Toy,), {"name": "strict", "checks": PROVIDER_CHECKS})()])
    toy = analyze(odd).final
    every = analyze(odd, strict, dialect="strict").final
    assert {q.code for q in every.quirks} & PROVIDER_CHECKS == PROVIDER_CHECKS
    codes = {q.code for q in toy.quirks}
    assert codes & PROVIDER_CHECKS == {"sparse_index"} and "error_after_200" in codes
    assert toy.state.errors[0].value == "toy says overloaded"


def test_the_toy_builds_its_request_and_continuation() -> None:
    profile = Profile("toy-local", "toy", "http://h/toy1/", "tiny", key_env="TOY_KEY")
    spec = build_request(
        profile, Scenario("s", "S", "weather?", TOOLS, system="be brief"), providers=PROVIDERS
    )
    assert spec.url == "http://h/toy1/talk" and spec.key_header == "x-toy-key"
    assert spec.headers["x-toy-wire"] == "lines"
    assert spec.body == {
        "model": "tiny",
        "lines": ["system be brief", "user weather?"],
        "tools": [{"tool": "get_weather"}],
    }
    demo = Profile("toy-demo", "toy", "demo", "tiny").resolved("http://127.0.0.1:9", PROVIDERS)
    assert demo.base_url == "http://127.0.0.1:9/toy1"
    analysis = analyze(TWO_CALLS)
    turn = analysis.assistant_turn(analysis.final)
    results = [ToolResult.of(c.id, c.name, f"{(c.input or {})['city']}: 18 °C") for c in turn.calls]
    following = build_continuation(TOY, spec.body, turn, results[::-1])  # any result order
    assert following["lines"][2:] == [
        'call t1 get_weather {"city": "Paris"}',
        'call t3 get_weather {"city": "Oslo"}',
        "result t1 Paris: 18 °C",
        "result t3 Oslo: 18 °C",
    ]
    assert len(spec.body["lines"]) == 2  # the previous body is left as it was


def test_a_capture_replays_in_the_toy_dialect() -> None:
    capture = load_bytes(TWO_CALLS)
    replayed = Analysis.from_capture(capture, Settings(dialect="toy"), providers=PROVIDERS)
    assert [c.id for c in replayed.final.state.calls] == ["t1", "t3"]
    one_shot = analyze_bytes(TWO_CALLS, "toy", providers=PROVIDERS)
    assert [c.arguments for c in one_shot.calls] == [
        c.arguments for c in replayed.final.state.calls
    ]


# -- the registry -------------------------------------------------------------------------------


def test_registering_is_explicit_and_leaves_the_built_in_registry_alone() -> None:
    assert "toy" in PROVIDERS and "toy" not in REGISTRY
    assert PROVIDERS.names() == (*REGISTRY.names(), "toy")
    with pytest.raises(ValueError, match="unknown dialect 'toy'"):
        REGISTRY.get("toy")
    with pytest.raises(ValueError, match="again"):
        Registry([TOY, TOY])
    with pytest.raises(ValueError, match="again"):
        Registry([]).register(type("Auto", (Toy,), {"name": "auto"})())
    assert dialect_choices(PROVIDERS) == ("auto", *REGISTRY.names(), "toy")  # from the registry
    assert Settings.from_strings("toy", providers=PROVIDERS).dialect == "toy"
    with pytest.raises(ValueError, match=r"unknown dialect 'toy' \(known: auto, openai-chat"):
        Settings.from_strings("toy", providers=REGISTRY)
    with pytest.raises(ValueError, match="unknown dialect 'klingon'"):
        Settings(dialect="toy").with_strings(PROVIDERS, dialect="klingon")


# -- every built-in provider satisfies the protocol ---------------------------------------------

PROTOCOL = sorted(n for n in vars(Provider) if not n.startswith("_"))


@pytest.mark.parametrize("provider", list(REGISTRY), ids=REGISTRY.names())
def test_every_built_in_provider_satisfies_the_protocol(provider: Provider) -> None:
    assert (
        sorted(
            [
                "append_turn",
                "checks",
                "closing",
                "dialect",
                "end_marker",
                "error_body",
                "error_message",
                "framing",
                "is_tool_finish",
                "key_header",
                "name",
                "recognises",
                "request",
                "tool_shape",
                "title",
                "tools",
                "version_segment",
            ]
        )
        == PROTOCOL
    )
    assert all(hasattr(provider, n) for n in PROTOCOL)
    assert REGISTRY.get(provider.name) is provider
    assert isinstance(provider.closing, Closing) and provider.checks <= PROVIDER_CHECKS
    assert provider.end_marker is None or isinstance(provider.end_marker, str)
    assert provider.title and provider.title != provider.name
    assert provider.key_header  # a version segment starts with "/", or is none (Bedrock's)
    assert provider.version_segment == "" or provider.version_segment.startswith("/")
    dialect: Dialect = provider.dialect()
    assert dialect.provider is provider and dialect.direct is dialect and not dialect.fallback
    assert dialect is not provider.dialect()  # fresh per body
    assert not provider.is_tool_finish("tool_calls", 0)  # never without calls
    message = provider.error_message({"error": {"type": "x", "message": "Overloaded"}})
    assert message.endswith("Overloaded")
    assert provider.error_message(provider.error_body(502, "upstream gone")).endswith(
        "upstream gone"
    )
    wire = provider.request("http://h/v9", "m", [{"role": "user", "content": "hi"}], TOOLS)
    assert wire.url.startswith("http://h/v9/")
    # tools offered, unless the API has none (legacy completions: ``tool_calls = False``);
    # Bedrock offers them under toolConfig
    offered = "tools" in wire.body or "tools" in wire.body.get("toolConfig", {})
    assert offered is getattr(provider, "tool_calls", True)
    body: dict[str, Any] = {}
    analysis = Analysis(providers=REGISTRY)
    provider.append_turn(body, analysis.assistant_turn(analysis.final), [])
    assert body  # the history list the provider appends to


def test_auto_names_the_provider_it_chose() -> None:
    state = analyze_bytes(b'data: {"type":"message_start","message":{}}\n\n')
    assert state.provider is REGISTRY.get("anthropic") and state.dialect_name == "anthropic"
    assert not state.dialect.fallback and state.dialect.direct is not state.dialect
    unknown = analyze_bytes(b"data: {}\n\n")
    assert unknown.dialect.fallback and unknown.provider is REGISTRY.get("openai-chat")


def test_auto_asks_every_registered_provider_so_the_toy_is_sniffed_too() -> None:
    state = analyze_bytes(TWO_CALLS, providers=PROVIDERS)
    assert state.provider is TOY and not state.dialect.fallback
    assert [c.id for c in state.calls] == ["t1", "t3"]
    assert sniff(list(decode_all(TWO_CALLS)), PROVIDERS) == "toy"
    assert sniff_url("http://h/toy1/talk", PROVIDERS) == "toy"
    assert sniff_url("http://h/toy1/talk") is None  # the built-in registry has no toy
    unknown = Analysis(Settings(), providers=REGISTRY)  # nobody there recognises it:
    unknown.feed(TWO_CALLS)  # openai-chat is assumed, with a warning (until "unknown" exists)
    unknown.end()
    assert unknown.dialect == "openai-chat" and unknown.final.state.dialect.fallback
    assert any("openai-chat" in w for w in unknown.warnings)


def _answering(name: str, answer: Recognition) -> Provider:
    def recognises(self: Toy, head: Head, content_type: str | None, url: str | None) -> Recognition:
        return answer

    provider: Provider = type(name, (Toy,), {"name": name, "recognises": recognises})()
    return provider


@pytest.mark.parametrize(
    ("answers", "chosen"),
    [
        ((PROVES, LIKELY, NO), "a"),  # the one that proves
        ((LIKELY, PROVES, LIKELY), "b"),
        ((NO, LIKELY, NO), "b"),  # else the only likely one
        ((PROVES, PROVES, NO), None),  # two that prove: unknown (likely ones do not count then)
        ((PROVES, PROVES, LIKELY), None),
        ((LIKELY, LIKELY, NO), None),  # two likely ones: unknown
        ((NO, NO, NO), None),
    ],
)
def test_the_sniffer_takes_the_one_that_proves_else_the_only_likely_one(
    answers: tuple[Recognition, ...], chosen: str | None
) -> None:
    providers = Registry([_answering(n, a) for n, a in zip("abc", answers, strict=True)])
    found = recognise(providers, Head(decode_all(TWO_CALLS)))
    assert (found.name if found is not None else None) == chosen


def test_tool_definitions_are_read_by_the_provider_whose_shape_they_are_in() -> None:
    mixed = [{"tool": "get_time"}, *TOOLS]
    registry = ToolRegistry.from_definitions(mixed, PROVIDERS)
    assert [(s.name, s.shape) for s in registry] == [
        ("get_time", "toy"),
        ("get_weather", "openai-chat"),
    ]
    assert not registry.warnings
    built_in = ToolRegistry.from_definitions(mixed, REGISTRY)  # nobody there reads the toy's
    assert built_in.names() == ("get_weather",)
    assert built_in.warnings == ["tools[0]: not a tool definition"]


def test_two_providers_that_claim_one_tool_definition_alike_leave_it_out() -> None:
    claims = type("ClaimsToy", (Toy,), {"name": "claims"})()
    registry = ToolRegistry.from_definitions([{"tool": "t"}], Registry([TOY, claims]))
    assert registry.names() == ()
    assert registry.warnings == [
        "tools[0]: a tool definition in more than one shape (toy, claims); skipped"
    ]


@pytest.mark.parametrize("provider", [*REGISTRY, TOY], ids=[*REGISTRY.names(), "toy"])
def test_every_provider_reads_back_the_tool_definitions_it_writes(provider: Provider) -> None:
    written = provider.tools(TOOLS)
    if not getattr(provider, "tool_calls", True):  # an API without tools writes none
        assert written == []
        return
    registry = ToolRegistry.from_definitions(written, PROVIDERS)
    (spec,) = registry
    assert (spec.name, registry.warnings) == ("get_weather", [])
    # its own shape, or one it shares with the provider that proves it (Cohere v2 writes
    # Chat's, Interactions the Responses API's): never claimed by both
    own = provider.tool_shape(written[0], "tools[0]", "tools") is not None
    assert (spec.shape == provider.name) is own
    assert own or spec.shape in REGISTRY.names()
    assert spec.required == (() if provider is TOY else ("city",))


# -- a framing of its own -----------------------------------------------------------------------


class LineDecoder:
    """One event per line (LF-ended, no ``data:``): a framing that is not SSE."""

    def __init__(self) -> None:
        self.offset = self.marked = self._seq = self._start = 0
        self.plain = None
        self._pending = b""

    @property
    def fresh(self) -> bool:
        return self.offset == 0

    def _event(self, line: bytes, end: int, t: float) -> SSEEvent:
        ev = SSEEvent(self._seq, EventKind.EVENT, "message", line.decode(), None, None,
                      self._start, end, t)  # fmt: skip
        self._seq, self._start = self._seq + 1, end
        return ev

    def feed(self, data: bytes, t: float = 0.0) -> list[SSEEvent]:
        self.offset += len(data)
        *lines, self._pending = (self._pending + data).split(b"\n")
        return [self._event(line, self._start + len(line) + 1, t) for line in lines]

    def feed_many(
        self, chunks: Sequence[tuple[float, bytes]], bounds: list[int] | None = None
    ) -> list[SSEEvent]:
        return [ev for t, data in chunks for ev in self.feed(data, t)]

    def feed_plain(self, chunks: Sequence[tuple[float, bytes]], bounds: list[int]) -> None:
        return None

    def close(self, t: float | None = None) -> list[SSEEvent]:
        line, self._pending = self._pending, b""
        return [self._event(line, self.offset, t or 0.0)] if line else []


class Lines:
    name = "lines"
    reads_back = False

    def decoder(self) -> LineDecoder:
        return LineDecoder()


LINE_TOY = type("LineToy", (Toy,), {"name": "line-toy", "framing": Lines()})()
LINES = Registry([LINE_TOY])


def test_a_provider_frames_its_own_bytes_and_the_event_log_keeps_its_frames() -> None:
    body = TWO_CALLS.replace(b"data: ", b"").replace(b"\n\n", b"\n")
    view = analyze(body, LINES, dialect="line-toy").final
    assert [(c.id, c.arguments) for c in view.state.calls] == [
        ("t1", '{"city": "Paris"}'),
        ("t3", '{"city": "Oslo"}'),
    ]
    events = list(view.state.events)  # what the raw pane lists: the framing's events
    assert [ev.data for ev in events] == body.decode().splitlines()
    assert all(body[ev.start : ev.end] == ev.data.encode() + b"\n" for ev in events)
    replayed = Analysis.from_capture(load_bytes(body), Settings("line-toy"), providers=LINES)
    assert [ev.data for ev in replayed.final.state.events] == [ev.data for ev in events]
    assert [c.arguments for c in replayed.final.state.calls] == [
        c.arguments for c in view.state.calls
    ]
