"""Identity strings come out of every dialect shared (core.providers.wire.fields.shared): a name,
type or id repeated across a stream's tool-call deltas is one string object, and still the
value received."""

from __future__ import annotations

from collections import defaultdict

from conftest import TESTS

from inspector.core.base.model import OMITTED, ToolCallDelta
from inspector.core.capture.reader import load
from inspector.core.events.sse import decode_all
from inspector.core.providers import REGISTRY

CORPUS = TESTS / "clients" / "corpus"


def _deltas(dialect: str, body: bytes) -> list[ToolCallDelta]:
    mapper = REGISTRY.get(dialect).dialect()
    out: list[object] = []
    for ev in decode_all(body):
        mapper.feed(ev, out)  # type: ignore[arg-type]
    mapper.finish(out)  # type: ignore[arg-type]
    return [d for d in out if isinstance(d, ToolCallDelta)]


def test_repeated_identity_strings_are_one_object_in_every_dialect() -> None:
    shared_in: set[str] = set()
    for folder in sorted(CORPUS.iterdir()):
        for path in sorted(folder.glob("demo-*.jsonl")):
            for attempt in load(path).attempts:
                seen: dict[str, list[int]] = defaultdict(list)
                for d in _deltas(folder.name, attempt.body):
                    for value in (d.id, d.name, d.type):
                        if type(value) is str:
                            seen[value].append(id(value))
                assert all(len(set(ids)) == 1 for ids in seen.values()), path
                if any(len(ids) > 1 for ids in seen.values()):
                    shared_in.add(folder.name)
    assert shared_in == {"openai-chat", "anthropic", "openai-responses", "cohere-v2"}


def test_a_name_repeated_in_every_call_is_one_string() -> None:
    chunk = (
        'data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":%d,"id":"call_%d",'
        '"type":"function","function":{"name":"lookup","arguments":"{}"}}]}}]}\n\n'
    )
    body = "".join(chunk % (i, i) for i in range(500)).encode()
    deltas = _deltas("openai-chat", body)
    assert len(deltas) == 500
    assert {d.name for d in deltas} == {"lookup"} and {d.type for d in deltas} == {"function"}
    assert len({id(d.name) for d in deltas}) == len({id(d.type) for d in deltas}) == 1
    assert len({d.id for d in deltas}) == 500 and deltas[0].arguments == "{}"
    assert all(d.index is not OMITTED for d in deltas)


def test_gemini_names_and_ids_are_shared() -> None:
    part = '{"functionCall":{"id":"c1","name":"lookup","args":{"q":%d}}}'
    chunk = 'data: {"candidates":[{"content":{"parts":[%s]}}]}\n\n'
    body = "".join(chunk % part % i for i in range(50)).encode()
    deltas = _deltas("gemini", body)
    assert len(deltas) == 50 and {(d.id, d.name) for d in deltas} == {("c1", "lookup")}
    assert len({id(d.name) for d in deltas}) == len({id(d.id) for d in deltas}) == 1


def test_responses_fragments_of_one_item_share_their_extra() -> None:
    added = (
        'data: {"type":"response.output_item.added","output_index":0,"item":{"type":'
        '"function_call","id":"fc_1","call_id":"call_1","name":"lookup","arguments":""}}\n\n'
    )
    delta = (
        'data: {"type":"response.function_call_arguments.delta","item_id":"fc_1"%s,"delta":"x"}\n\n'
    )
    body = (added + delta % ',"output_index":0' * 3 + delta % "" * 3).encode()
    deltas = _deltas("openai-responses", body)[1:]
    assert len(deltas) == 6 and all(d.index == 0 for d in deltas)
    assert [d.extra for d in deltas] == [{"item_id": "fc_1"}] * 3 + [
        {"item_id": "fc_1", "index_from_item_id": True}
    ] * 3
    assert len({id(d.extra) for d in deltas[:3]}) == len({id(d.extra) for d in deltas[3:]}) == 1


def test_unique_ids_keep_no_table_that_grows_with_the_stream() -> None:
    """A stream of calls each with its own id shares nothing, so it must hold nothing: the
    sharing table stays bounded (sys.intern's would hold an entry per live id)."""
    from inspector.core.providers.wire import fields as common

    chunk = (
        'data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":%d,"id":"call_u%d",'
        '"type":"function","function":{"name":"lookup","arguments":"{}"}}]}}]}\n\n'
    )
    body = "".join(chunk % (i, i) for i in range(3000)).encode()
    deltas = _deltas("openai-chat", body)
    assert len({d.id for d in deltas}) == 3000
    assert len(common._IDS) <= common._IDS_MAX < 3000
    assert len({id(d.name) for d in deltas}) == 1  # a name seen in every call is still shared
