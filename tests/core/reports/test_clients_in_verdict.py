"""The clients in the verdict (inspector/core/reports/{headline,clientreport}.py), with a toy
replica passed explicitly: the headline, the text's clients section, the JSON section, the
--client gate, and the session-level reason for a body that is not UTF-8."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import REPO

from core.clients.test_driver import CLEAN, MERGED, Toy, _chunk, _tc
from inspector.core.analysis.session import Analysis
from inspector.core.base.settings import Settings
from inspector.core.capture.reader import load, load_bytes
from inspector.core.clients.base import Exchange
from inspector.core.clients.judge import run_replica
from inspector.core.providers import REGISTRY
from inspector.core.reports import report
from inspector.core.reports.clientreport import (
    ClientUsageError,
    check_speaks,
    clients_lines,
    gate_lines,
    gated_status,
    named_replicas,
)
from inspector.core.reports.clients import ClientsVerdict, clients_verdict
from inspector.core.reports.exitcodes import session_status
from inspector.core.reports.headline import headline, session_word
from inspector.core.reports.words import CLIENT_BREAKS, client_word

TOY = [Toy()]


def _analysis(body: bytes, validation: str = "structural") -> Analysis:
    settings = Settings(dialect="openai-chat", validation=validation)
    return Analysis.from_capture(load_bytes(body, "t.sse"), settings, providers=REGISTRY)


def _said(analysis: Analysis) -> tuple[str, ClientsVerdict]:
    verdict = clients_verdict(analysis, TOY)
    return headline(analysis, verdict), verdict


CUT = _chunk(_tc(0, "call_a", "get_weather", '{"city": "Pa')) + b"data: [DONE]\n\n"
TEXT = b'data: {"choices": [{"index": 0, "delta": {"content": "caf'


def test_the_headline_says_assemblable_and_which_clients_break() -> None:
    assert _said(_analysis(CLEAN))[0] == "valid — every client agrees"
    assert _said(_analysis(MERGED))[0] == "valid — breaks 1 client: toy (merged)"
    assert _said(_analysis(CLEAN, "off"))[0] == "not checked — every client agrees"
    assert _said(_analysis(CUT))[0] == "INVALID — every client agrees"  # same invalid call


def test_the_headline_of_a_stream_still_arriving_runs_no_replica() -> None:
    analysis = Analysis(Settings(dialect="openai-chat"), providers=REGISTRY)
    analysis.begin_attempt(None)
    analysis.feed(CLEAN[:60])
    assert session_word(analysis) == "streaming"
    assert headline(analysis, ClientsVerdict(TOY, {}, {}, {})) == "streaming"


def _capture(tmp_path: Path, *records: dict[str, object]) -> Path:
    header = {"format": "toolcall-inspector-capture", "version": 1, "meta": {}}
    path = tmp_path / "c.jsonl"
    lines = [header, *({"attempt": 1, **r} for r in records)]
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    return path


def test_a_failed_request_is_never_valid_and_its_clients_raise_with_it(tmp_path: Path) -> None:
    path = _capture(
        tmp_path,
        {"type": "request", "t": 0, "method": "POST", "url": "http://x/v1/chat/completions"},
        {"type": "response", "t": 0.1, "status": 401, "headers": {}},
        {"type": "chunk", "t": 0.1, "text": '{"error": {"message": "bad key"}}'},
        {"type": "end", "t": 0.2, "reason": "error", "error": "HTTP 401: bad key"},
    )
    settings = Settings(dialect="openai-chat")
    analysis = Analysis.from_capture(load(path), settings, providers=REGISTRY)
    said, verdict = _said(analysis)
    assert said == "failed — HTTP 401"
    assert verdict.words["toy"] == "agrees" and verdict.results["toy"].error is not None
    doc = report.to_json(analysis, clients=verdict)
    assert doc["valid"] is False and doc["headline"] == said and doc["exit"]["code"] == 1
    assert "raises APIStatusError: Error code: 401" in clients_lines(verdict)[1]


def test_a_client_that_raises_nothing_for_a_failed_request_fails_silently() -> None:
    html = Exchange([], b"<html>sign in</html>", status=200, content_type="text/html")
    result = run_replica(Toy(), html, [], failed=True)  # the toy reads no content type
    assert result.agrees is False and result.error is None and result.calls == []
    assert client_word(result, []) == "silent failure" and "silent failure" in CLIENT_BREAKS


def test_bytes_that_are_not_utf8_are_a_session_failure_every_client_shares() -> None:
    body = TEXT + b'\xff"}, "finish_reason": null}]}\n\n' + CLEAN
    analysis = _analysis(body)
    bad = body.index(b"\xff")
    at = f"the body is not valid UTF-8 at byte {bad}"
    line = at + ": a client raises there or reads U+FFFD in its place"
    status = session_status(analysis)
    assert status.code == 1 and status.reasons == [line] and status.broken
    said, verdict = _said(analysis)
    assert said == f"INVALID — {at}; every client agrees"  # the toy reads U+FFFD
    doc = report.to_json(analysis, clients=verdict)
    assert doc["valid"] is False and doc["exit"]["reasons"] == [line]
    text = report.to_text(analysis, clients=verdict)
    assert text.splitlines()[1] == said and f"\n{line}\n" in text


def test_the_json_section_is_every_replica_with_its_word_and_version() -> None:
    analysis = _analysis(MERGED)
    verdict = clients_verdict(analysis, TOY)
    doc = report.to_json(analysis, "m.sse", verdict)
    assert doc["format_version"] == 4
    toy = doc["clients"]["toy"]
    assert toy["word"] == "merged" and toy["agrees"] is False and toy["diverges_at"] == 1
    assert (toy["library"], toy["version"], toy["verified"]) == ("toy", "0", False)
    assert (toy["applies"], toy["attempt"], toy["error"]) == (True, 1, None)
    assert toy["calls"] == [
        {"id": "call_acall_b", "name": "get_weatherget_weather",
         "arguments": '{"city": "Paris"}{"city": "Rome"}'}
    ]  # fmt: skip
    assert doc["exit"] == {"code": 0, "reasons": []}  # no --client: the table is unchanged


def test_the_text_lists_one_line_per_client_with_what_it_handed_over() -> None:
    analysis = _analysis(MERGED)
    verdict = clients_verdict(analysis, TOY)
    text = report.to_text(analysis, "m.sse", clients=verdict)
    assert text.splitlines()[1] == "valid — breaks 1 client: toy (merged)"
    head, line = text.splitlines()[-2:]
    assert head == "clients:"
    assert line.startswith("  ✗ merged  toy (unverified)  hands over 1 call: get_weatherget_")
    assert line.endswith(", diverges at chunk 1")
    clean = clients_lines(clients_verdict(_analysis(CLEAN), TOY))
    assert clean == ["clients:", "  ✓ agrees  toy (unverified)  hands over the inspector's 2 calls"]


def _anthropic() -> Analysis:
    start = {"type": "message_start", "message": {"id": "m", "type": "message", "content": []}}
    body = b"event: message_start\ndata: " + json.dumps(start).encode() + b"\n\n"
    settings = Settings(dialect="anthropic")
    return Analysis.from_capture(load_bytes(body, "a.sse"), settings, providers=REGISTRY)


def test_a_client_of_another_dialect_is_listed_as_not_applicable() -> None:
    verdict = clients_verdict(_anthropic(), TOY)
    assert clients_lines(verdict)[1] == "  n/a  toy (unverified)  speaks openai-chat only"


def test_the_client_gate_adds_a_reason_per_breaking_client_and_removes_none() -> None:
    assert named_replicas(["toy", "toy"], TOY) == ["toy"]
    with pytest.raises(ClientUsageError) as unknown:
        named_replicas(["nope"], TOY)
    assert str(unknown.value) == "--client nope: no such client replica (known: toy)"
    merged = _analysis(MERGED)
    verdict = clients_verdict(merged, TOY)
    status = gated_status(merged, verdict, ["toy"])
    assert status.code == 1
    assert status.reasons == ["client toy (unverified): merged, diverges at chunk 1"]
    assert gated_status(merged, verdict).code == 0  # without names: the table unchanged
    assert gate_lines(verdict, ["toy"]) == [
        "client toy (unverified): ✗ merged: would not get the inspector's calls, "
        "diverges at chunk 1"
    ]
    cut = _analysis(CUT)
    status = gated_status(cut, clients_verdict(cut, TOY), ["toy"])
    assert status.code == 1 and status.clients == [] and len(status.calls) == 1
    other = clients_verdict(_anthropic(), TOY)
    with pytest.raises(ClientUsageError) as mute:
        check_speaks(other, ["toy"], "anthropic")
    assert str(mute.value) == "--client toy does not speak anthropic (it speaks openai-chat)"


def test_the_clients_bench_runs_and_times_each_replica_beside_the_ingest(
    capsys: pytest.CaptureFixture[str],
) -> None:
    import importlib.util

    path = REPO / "bench" / "clients.py"
    spec = importlib.util.spec_from_file_location("bench_clients", path)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    assert bench.main(["--calls", "1", "--kib", "1", "--rounds", "1"]) == 0
    out = capsys.readouterr().out
    assert "openai-chat: " in out and "  inspector ingest" in out
    assert "  by-index " in out and "× ingest" in out  # a hand-written loop, timed
