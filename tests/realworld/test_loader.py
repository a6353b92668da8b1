"""The realworld loader reads every stream with its ground truth and fails loudly without them."""

from __future__ import annotations

from pathlib import Path

import pytest

from realworld.loader import SPOKEN, MissingFixtures, realworld_streams


def test_the_four_spoken_dialects_give_112_streams_and_142_items() -> None:
    streams = realworld_streams()
    assert len(streams) == 112
    assert {s.dialect for s in streams} == SPOKEN
    assert sum(len(s.items) for s in streams) == 142
    assert sum(i.client_side for s in streams for i in s.items) == 58


def test_all_adds_the_dialects_not_spoken_today() -> None:
    assert len(realworld_streams(spoken=False)) > 112


def test_a_missing_folder_fails_loudly(tmp_path: Path) -> None:
    with pytest.raises(MissingFixtures, match="is missing"):
        realworld_streams(tmp_path / "nowhere")


def test_an_empty_folder_fails_loudly(tmp_path: Path) -> None:
    with pytest.raises(MissingFixtures, match="holds no"):
        realworld_streams(tmp_path)


def test_a_stream_without_ground_truth_fails_loudly(tmp_path: Path) -> None:
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "x.sse").write_bytes(b"data: {}\n\n")
    with pytest.raises(MissingFixtures, match="no ground truth"):
        realworld_streams(tmp_path)
