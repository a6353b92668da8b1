"""``toolcall-inspector reduce``: writes a smaller capture that ``analyze`` still finds the
kept quirk in, says the events before and after, and refuses in one line (exit 2) what it
cannot do: an unknown ``--keep``, a property the capture does not show, a stall."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import TESTS

from inspector.cli import main

GLM = TESTS / "clients" / "corpus" / "openai-chat" / "demo-glm-empty-string.jsonl"


def test_reduce_writes_what_analyze_still_finds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "small.jsonl"
    assert main(["reduce", str(GLM), "--keep", "client:by-id", "--out", str(out)]) == 0
    said = capsys.readouterr().out
    assert said.startswith("kept client:by-id: 13 events -> ") and str(out) in said
    assert out.stat().st_size < GLM.stat().st_size
    assert main(["analyze", str(out), "--client", "by-id"]) == 1  # still breaks by-id
    assert "by-id" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("keep", "says"),
    [
        ("quirk:nope", "no quirk code 'nope'"),
        ("quirk:null_id", "does not show quirk:null_id"),
        ("wat", "give quirk:CODE"),
    ],
)
def test_what_cannot_be_reduced_is_one_line_and_exit_2(
    tmp_path: Path, keep: str, says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "small.jsonl"
    assert main(["reduce", str(GLM), "--keep", keep, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert says in err and len(err.strip().splitlines()) == 1
    assert not out.exists()
