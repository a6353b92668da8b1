"""A client's outcome: calls and/or an error in the order the library emitted them, the
argument type as handed over, hosted items reported and never compared, items that are no
function calls compared as their library hands them (core/clients/{judge,agreement}.py and
their words in core/reports)."""

from __future__ import annotations

from collections.abc import Sequence
from types import SimpleNamespace
from typing import ClassVar

from inspector.core.base.kinds import CallKind, ItemDelta
from inspector.core.base.model import EventKind, SSEEvent
from inspector.core.calls.toolcall import ToolCall
from inspector.core.clients.agreement import same_call
from inspector.core.clients.base import ClientRaised, Exchange, HandedCall, Replica, ReplicaRun
from inspector.core.clients.judge import _expected, run_replica
from inspector.core.reports.clientdiff import comparison, what_happened
from inspector.core.reports.words import client_word, spoken

CALL = HandedCall("call_1", "get_weather", '{"city": "Paris"}')
SEARCH = HandedCall("ws_1", "web_search", "{}", CallKind.HOSTED, "web_search_call")
ERROR = ClientRaised("JSONParseError", "JSON parsing failed")


def _events(n: int) -> list[SSEEvent]:
    return [
        SSEEvent(
            seq=i, kind=EventKind.EVENT, data="{}", event=None, id=None, retry=None, start=0, end=0
        )
        for i in range(n)
    ]


class _Scripted(Replica):
    """A replica whose run reports ``error`` at event ``report_at`` (after ``after`` calls)
    and hands ``calls`` over at the end."""

    name: ClassVar[str] = "scripted"
    library: ClassVar[str] = "scripted"
    version: ClassVar[str] = "0"
    follows: ClassVar[str] = ""
    dialects: ClassVar[frozenset[str]] = frozenset()
    summary: ClassVar[str] = ""

    def __init__(self, calls: Sequence[HandedCall], report_at: int | None = None, after: int = 0):
        self.handed, self.report_at, self.after = list(calls), report_at, after

    def open(self, exchange: Exchange) -> ReplicaRun:
        outer = self

        class Run(ReplicaRun):
            def feed(self, event: SSEEvent) -> None:
                if event.seq == outer.report_at:
                    self.report(ERROR, outer.after)

            def finish(self) -> list[HandedCall]:
                return outer.handed

        return Run()


def test_an_error_part_before_the_calls_is_both_never_agreement() -> None:
    result = run_replica(_Scripted([CALL], report_at=1), Exchange(_events(4)), [CALL], False)
    assert result.agrees is False and result.error is not None and len(result.calls) == 1
    assert result.error_after == 0 and result.diverges_at == 1  # where it reported it
    word = client_word(result, [CALL])
    assert word == "raised with calls" and spoken(word, result) == "raised before 1 call"
    rows, _ = comparison(result, [CALL])
    assert [r.label for r in rows] == ["raised", "#0 id", "#0 name", "#0 arguments"]
    assert rows[0].differs and not any(r.differs for r in rows[1:])


def test_an_error_after_the_calls_is_said_after_them() -> None:
    result = run_replica(
        _Scripted([CALL, CALL], report_at=2, after=2), Exchange(_events(3)), [CALL, CALL], False
    )
    assert spoken(client_word(result, [CALL, CALL]), result) == "raised after 2 calls"
    rows, _ = comparison(result, [CALL, CALL])
    assert [r.label for r in rows][-1] == "raised"
    replica = _Scripted([])
    assert what_happened(replica, result, "raised with calls", [CALL, CALL]).startswith(
        "raised after 2 calls: JSONParseError"
    )


def test_hosted_items_are_reported_never_compared_nor_dropped() -> None:
    result = run_replica(_Scripted([SEARCH, CALL]), Exchange(_events(2)), [CALL], False)
    assert result.agrees is True and list(result.calls) == [CALL]
    assert list(result.hosted) == [SEARCH]
    assert result.to_json()["hosted"][0]["kind"] == "hosted"
    only_hosted = run_replica(_Scripted([SEARCH]), Exchange(_events(2)), [], False)
    assert only_hosted.agrees is True and client_word(only_hosted, []) == "agrees"


def test_the_inspectors_hosted_lanes_are_no_call_a_client_owes() -> None:
    def lane(kind: str) -> SimpleNamespace:
        opener = ItemDelta(0, 0, 0, "x_1", "web_search", "", call_kind=kind, item_type="t")
        return SimpleNamespace(orphan=False, call=ToolCall(0, opener))

    assert not _expected(lane(CallKind.HOSTED))  # type: ignore[arg-type]
    assert _expected(lane(CallKind.BUILTIN))  # type: ignore[arg-type]


def test_arguments_handed_over_as_an_object_never_agree() -> None:
    as_dict = HandedCall("call_1", "get_weather", '{"city":"Paris"}', object=True)
    assert not same_call(CALL, as_dict)
    result = run_replica(_Scripted([as_dict]), Exchange(_events(1)), [CALL], False)
    assert result.agrees is False and client_word(result, [CALL]) == "object arguments"
    rows, _ = comparison(result, [CALL])
    assert rows[-1].label == "#0 type" and rows[-1].differs


def test_items_that_are_no_function_call_compare_as_their_library_hands_them() -> None:
    patch = HandedCall("call_p", None, '{"path": "a"}', CallKind.BUILTIN, "apply_patch_call")
    sdk_patch = HandedCall("call_p", "apply_patch", '{"callId":"call_p","operation":{}}')
    assert same_call(patch, sdk_patch)  # named by its type, its input the SDK's own mapping
    assert not same_call(patch, HandedCall("call_q", "apply_patch", "{}"))  # not another id
    sql = HandedCall("call_s", "write_sql", "SELECT 1", CallKind.CUSTOM, "custom_tool_call")
    assert same_call(sql, HandedCall("call_s", "write_sql", '"SELECT 1"'))  # a JSON string
    assert not same_call(sql, HandedCall("call_s", "write_sql", '"SELECT 2"'))
    assert not same_call(CALL, HandedCall("call_1", "other", CALL.arguments))  # functions: exact
