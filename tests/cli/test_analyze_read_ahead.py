"""``analyze`` of a large capture reads it as the window does: its head here, the rest decoded
by the read-ahead process, each batch fed to the Analysis as it is read. The report is the
plain path's byte for byte (text and JSON, exit code and errors alike), whatever the file
holds: a malformed event mid-file is a problem in a complete report, a cut-off file is read to
its last whole line with a warning, a line that is not UTF-8 is the same one-line error, a
body that is not UTF-8 the same finding.

The threshold is lowered (``analyzeread.PAST``) so a 3 MB sample takes the read-ahead path;
the read-ahead process is the real one (``python -m inspector.core.capture.ahead``)."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest
from conftest import TESTS

from inspector.cli import analyzeread, main
from inspector.core.capture import readahead
from inspector.core.quirks.codes import UNDECODABLE_DATA
from inspector.core.replay.readfeed import ReadAndFeed

SAMPLE = TESTS.parent / "resources" / "samples" / "large-arguments.jsonl"
SMALL_PAST = 1 << 18
"""The read-ahead threshold in these tests: a file of 512 KiB or more is read ahead."""


class Spy:
    """What the read-ahead path did in one run: the feeding's result, messages taken."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.results: list[Any] = []
        self.messages: list[str] = []
        spy = self

        class Feeder(ReadAndFeed):
            def result(self) -> Any:
                got = super().result()
                spy.results.append(got)
                return got

        get = readahead.ProcessAhead.get

        def counted(process: readahead.ProcessAhead, timeout: float) -> Any:
            message = get(process, timeout)
            if message is not None:
                spy.messages.append(message[0])
            return message

        monkeypatch.setattr(analyzeread, "ReadAndFeed", Feeder)
        monkeypatch.setattr(readahead.ProcessAhead, "get", counted)


def _analyze(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, past: int, *args: str
) -> tuple[int, str, str]:
    with monkeypatch.context() as m:
        m.setattr(analyzeread, "PAST", past)
        code = main(["analyze", *args])
    out, err = capsys.readouterr()
    return code, out, err


def _both_ways(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, path: Path, *args: str
) -> tuple[tuple[int, str, str], Spy]:
    """The run read ahead (asserted equal to the plain run) and what it did."""
    plain = _analyze(capsys, monkeypatch, 1 << 40, str(path), *args)
    spy = Spy(monkeypatch)
    ahead = _analyze(capsys, monkeypatch, SMALL_PAST, str(path), *args)
    assert ahead == plain
    return ahead, spy


def _lines(path: Path = SAMPLE) -> list[bytes]:
    return path.read_bytes().splitlines(keepends=True)


def _chunk_ending_an_event(lines: list[bytes], after: int) -> int:
    """The index of the first chunk line from ``after`` on whose text ends an SSE event."""
    for i in range(after, len(lines)):
        record = json.loads(lines[i])
        if record.get("type") == "chunk" and record.get("text", "").endswith("\n\n"):
            return i
    raise AssertionError("no chunk ends an event")


def _write(tmp_path: Path, lines: list[bytes], name: str = "big.jsonl") -> Path:
    path = tmp_path / name
    path.write_bytes(b"".join(lines))
    return path


def _chunk(text: str | None = None, b64: bytes | None = None) -> bytes:
    record: dict[str, Any] = {"type": "chunk", "attempt": 1, "t": 9.0}
    if b64 is not None:
        record["b64"] = base64.b64encode(b64).decode()
    else:
        record["text"] = text
    return json.dumps(record).encode() + b"\n"


@pytest.mark.parametrize("form", [("--json",), ()], ids=["json", "text"])
def test_a_large_capture_is_fed_as_read_ahead_and_reports_as_read_whole(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, form: tuple[str, ...]
) -> None:
    (code, out, _), spy = _both_ways(capsys, monkeypatch, SAMPLE, "--no-clients", *form)
    assert code == 0 and out
    assert spy.messages.count("chunks") >= 3, "the process decoded batches of chunk records"
    assert spy.messages[-1] == "end"
    assert spy.results and spy.results[-1] is not None, "the fed Analysis was the one used"


def test_with_the_clients_judged_too(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (code, out, _), spy = _both_ways(capsys, monkeypatch, SAMPLE, "--json")
    assert code == 0 and json.loads(out)["clients_judged"] is True
    assert spy.results[-1] is not None


def test_a_malformed_event_mid_file_is_a_problem_in_a_complete_report(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    lines = _lines()
    at = _chunk_ending_an_event(lines, len(lines) * 2 // 3)
    lines.insert(at + 1, _chunk('data: {"choices": [{"delta": {broken\n\n'))
    path = _write(tmp_path, lines)
    (code, out, _), spy = _both_ways(capsys, monkeypatch, path, "--json", "--no-clients")
    doc = json.loads(out)
    assert doc["tool_calls"] and doc["exit"]["code"] == code
    assert [q["code"] for q in doc["quirks"]] == [UNDECODABLE_DATA]
    assert spy.results[-1] is not None and "chunks" in spy.messages


def test_a_cut_off_file_is_read_to_its_last_whole_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    lines = _lines()
    cut = len(lines) * 4 // 5
    path = _write(tmp_path, [*lines[:cut], lines[cut][: len(lines[cut]) // 2]])
    (code, out, _), spy = _both_ways(capsys, monkeypatch, path, "--json", "--no-clients")
    assert code == 1, "no end record: the attempt was interrupted"
    assert f"line {cut + 1} is cut off" in out
    assert spy.results[-1] is not None


def test_a_line_that_is_not_utf8_is_the_same_one_line_error(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    lines = _lines()
    at = len(lines) * 2 // 3
    lines.insert(at, b'{"type": "chunk", "attempt": 1, "t": 9.0, "text": "\xff\xfe"}\n')
    path = _write(tmp_path, lines)
    (code, out, err), spy = _both_ways(capsys, monkeypatch, path, "--json")
    assert code == 2 and not out
    assert f"line {at + 1}" in err and len(err.strip().splitlines()) == 1
    assert "lines" in spy.messages, "the process handed the batch back as its raw lines"


def test_a_body_that_is_not_utf8_is_found_past_the_head(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    lines = _lines()
    at = _chunk_ending_an_event(lines, len(lines) * 2 // 3)
    lines.insert(at + 1, _chunk(b64=b"data: \xff\xfe not text\n\n"))
    path = _write(tmp_path, lines)
    (code, out, _), spy = _both_ways(capsys, monkeypatch, path, "--no-clients")
    assert code == 1 and "UTF-8" in out
    assert spy.results[-1] is not None


def test_a_tool_loop_event_mid_file_is_analysed_whole(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    lines = _lines()
    at = _chunk_ending_an_event(lines, len(lines) * 2 // 3)
    event = {"type": "event", "attempt": 1, "t": 9.0, "kind": "note", "data": {"text": "hi"}}
    lines.insert(at + 1, json.dumps(event).encode() + b"\n")
    path = _write(tmp_path, lines)
    (code, out, _), spy = _both_ways(capsys, monkeypatch, path, "--json", "--no-clients")
    assert json.loads(out)["tool_calls"] and code == json.loads(out)["exit"]["code"]
    assert spy.results == [None], "events merge with chunks by time: the feeding stopped"


def test_a_tools_file_that_cannot_be_read_is_said_after_the_capture_was_read(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    lines = _lines()
    path = _write(tmp_path, [*lines[: len(lines) // 2], b"{not json\n", *lines[len(lines) // 2 :]])
    missing = str(tmp_path / "no-tools.json")
    (code, _, err), _ = _both_ways(capsys, monkeypatch, path, "--tools", missing)
    assert code == 2 and "not valid JSON" in err, "the capture's error comes first, as ever"
