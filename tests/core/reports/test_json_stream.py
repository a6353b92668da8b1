"""The analyze report written as it is made (inspector.core.reports.jsonstream, jsonreport,
report.text_lines): the same bytes as the whole document dumped by orjson, for hand-made edge
cases and for every capture of the clients corpus and every recorded stream, with one item of
a lazy array alive at a time."""

from __future__ import annotations

import array
import io
import weakref
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from conftest import TESTS, all_real_fixtures

from inspector.core.analysis.session import Analysis
from inspector.core.base.settings import Settings
from inspector.core.capture.reader import load
from inspector.core.providers import REGISTRY
from inspector.core.reports import jsonreport, report
from inspector.core.reports.clients import clients_verdict
from inspector.core.reports.jsonreport import clients_json, json_doc, quirk_json
from inspector.core.reports.jsonstream import BATCH, materialize, write_json

CORPUS = TESTS / "clients" / "corpus"
CAPTURES = sorted(CORPUS.rglob("*.jsonl")) + all_real_fixtures()


def written(doc: Any) -> bytes:
    out = io.BytesIO()
    write_json(doc, out)
    return out.getvalue()


def dumped(doc: Any) -> bytes:
    return orjson.dumps(doc, option=orjson.OPT_INDENT_2) + b"\n"


EDGES: dict[str, Callable[[], Any]] = {
    "empty lazy array": lambda: iter(()),
    "empty dict": lambda: {},
    "empty list": lambda: [],
    "scalars": lambda: iter([None, True, False, 0, -1, 1.5, 1e300, "", "x"]),
    "nested empties": lambda: {
        "a": iter([[], {}, iter([]), {"b": iter([])}, [[]], [{}]]),
        "c": {"d": {"e": iter([{}])}},
        "f": [],
        "g": {},
    },
    "unicode and escapes": lambda: {
        "é": iter(["\u2028\u2029", '\x00\x1f\n\r\t"\\', "日本語", "😀"]),
        "k\n": "v",
    },
    "huge strings": lambda: {"a": iter(["x" * 3_000_000, "é" * 100_000]), "b": "y" * 100_000},
    "deferred values": lambda: {"t": lambda: "text", "n": lambda: lambda: iter([1]), "z": 0},
    "compact sequences": lambda: {
        "range": range(BATCH * 2 + 3),
        "array": array.array("q", range(BATCH + 1)),
        "tuple": (1, (2, ())),
    },
    "deep lazy": lambda: iter([iter([iter([{"a": iter([{"b": iter([1, 2])}])}])])]),
    "lazy after big plain": lambda: {"big": "z" * 100_000, "later": iter([{"x": [1, {}]}])},
    "mixed batch": lambda: iter([1, 2, {"a": 1}, 3, [], "s", iter(["t"]), 4]),
}


@pytest.mark.parametrize("name", sorted(EDGES))
def test_written_is_orjson_dump_of_the_materialized_doc(name: str) -> None:
    make = EDGES[name]
    assert written(make()) == dumped(materialize(make()))


def test_plain_documents_are_dumped_exactly_as_orjson_does() -> None:
    doc = {"a": [1, {"b": []}], "c": {"d": None}, "e": "é", "f": 1.25}
    assert written(doc) == dumped(doc)
    assert materialize(doc) is doc  # nothing lazy: not copied


def test_what_orjson_refuses_is_refused_not_written_wrong() -> None:
    with pytest.raises(TypeError):
        written({"a": iter([{1: "non-str key"}])})
    with pytest.raises(TypeError):
        written({"a": [iter([1])]})  # a lazy part inside a plain list: refused, never guessed
    with pytest.raises(TypeError):
        written({"a": iter([b"bytes"])})


class Item(dict[str, Any]):
    """A dict that a weak reference can watch."""


def test_a_lazy_array_keeps_one_item_alive_at_a_time() -> None:
    previous: list[weakref.ref[Item]] = []
    alive_when_made: list[int] = []

    def items() -> Iterator[Item]:
        for n in range(200):
            alive_when_made.append(sum(ref() is not None for ref in previous))
            item = Item(n=n, text="x" * 1000, nested=[n])
            previous.append(weakref.ref(item))
            yield item
            del item

    class Sink:
        largest = 0

        def write(self, data: bytes) -> None:
            self.largest = max(self.largest, len(data))

    sink = Sink()
    write_json({"items": items(), "numbers": range(100_000)}, sink)
    assert len(alive_when_made) == 200 and max(alive_when_made) == 0
    assert 1000 < sink.largest < 100_000  # one item, or one batch of numbers, per write


def analysis_of(path: Path, **settings: str) -> Analysis:
    return Analysis.from_capture(load(str(path)), Settings(**settings), None, providers=REGISTRY)


@pytest.mark.parametrize("path", CAPTURES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_every_capture_written_as_made_is_the_whole_dump(path: Path) -> None:
    analysis = analysis_of(path)
    clients = clients_verdict(analysis)
    whole = report.to_json(analysis, str(path), clients)
    assert written(json_doc(analysis, str(path), clients)) == dumped(whole)
    assert materialize(clients_json(clients)) == clients.to_json()  # the same shapes
    for quirk in analysis.final.quirks:
        assert materialize(quirk_json(quirk)) == quirk.to_json()
    assert whole["tool_calls"] == whole["attempts"][-1]["tool_calls"]
    assert whole["quirks"] == whole["attempts"][-1]["quirks"]
    lines = list(report.text_lines(analysis, str(path), True, clients))
    assert report.to_text(analysis, str(path), True, clients) == "\n".join(lines) + "\n"


def test_the_report_makes_one_call_dict_at_a_time(monkeypatch: pytest.MonkeyPatch) -> None:
    path = CORPUS / "openai-chat" / "demo-parallel-index-0.jsonl"
    analysis = analysis_of(path, validation="strict")
    made: list[weakref.ref[Item]] = []
    alive_when_made: list[int] = []
    call_json = jsonreport.call_json

    def watched(*args: Any) -> Item:
        alive_when_made.append(sum(ref() is not None for ref in made))
        item = Item(call_json(*args))
        made.append(weakref.ref(item))
        return item

    monkeypatch.setattr(jsonreport, "call_json", watched)
    out = written(json_doc(analysis, str(path)))
    calls = len(analysis.final.verdicts)
    assert calls >= 2 and len(alive_when_made) == 2 * calls  # top level and the attempt's
    assert max(alive_when_made) == 0
    monkeypatch.undo()
    assert out == dumped(report.to_json(analysis, str(path)))


def test_a_quirk_is_written_in_its_own_shape_its_chunks_streamed() -> None:
    analysis = analysis_of(CORPUS / "openai-chat" / "demo-keepalives.jsonl")
    quirks = analysis.final.quirks
    assert "keepalive_comments" in [q.code for q in quirks]
    for quirk in quirks:
        lazy = quirk_json(quirk)
        assert not isinstance(lazy["chunks"], list)  # the quirk's own sequence, not a copy
        assert materialize(lazy) == quirk.to_json()
