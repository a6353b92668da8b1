"""Progressive opening (core.loading): a file read and fed a slice at a time ends in exactly the
state a replay of the whole capture ends in, whether the early feeding could be used or not."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import all_real_fixtures

from core.replay.test_replay_positions import SAMPLES, _glm_like, snapshot, two_attempt_capture
from inspector.core.base.settings import Settings
from inspector.core.capture.format import CaptureError
from inspector.core.capture.reader import load
from inspector.core.capture.writer import CaptureWriter
from inspector.core.providers import REGISTRY
from inspector.core.replay import loading
from inspector.core.replay.loading import ProgressiveLoad
from inspector.core.replay.replayer import Replayer, replay_plan


def _load_slowly(path: Path, settings: Settings) -> tuple[ProgressiveLoad, list[int]]:
    """Step with no time budget (one read per step); the events on show after each step."""
    loader = ProgressiveLoad(path.read_bytes(), str(path), settings)
    shown: list[int] = []
    for _ in range(100_000):
        done = loader.step(0.0)
        shown.append(sum(len(v.state.events) for v in loader.analysis.attempts))
        if done:
            return loader, shown
    raise AssertionError("never finished")


def _expected(path: Path, settings: Settings) -> list[Any]:
    replayer = Replayer(load(path), settings)
    replayer.finish()
    return snapshot(replayer.analysis)


def _odd_captures(tmp: Path) -> dict[str, Path]:
    """Captures whose file order is not the replay's order, and a few edge shapes."""
    out = {}
    out["two-attempts"] = tmp / "two.jsonl"
    two_attempt_capture(out["two-attempts"])
    body = _glm_like()
    pieces = [body[i : i + 40] for i in range(0, len(body), 40)]
    with CaptureWriter(out.setdefault("interleaved", tmp / "interleaved.jsonl")) as w:
        for i, piece in enumerate(pieces):  # attempt 1 gets a chunk after attempt 2 began
            w.chunk(1 if i % 3 else 2, 0.01 * i, piece)
    with CaptureWriter(out.setdefault("late-attempt", tmp / "late.jsonl")) as w:
        for piece in pieces:
            w.chunk(2, 0.1, piece)
        w.chunk(1, 0.1, pieces[0])  # attempt 1 shows up after attempt 2
    with CaptureWriter(out.setdefault("events", tmp / "events.jsonl")) as w:
        for i, piece in enumerate(pieces):
            w.chunk(1, 0.01 * i, piece)
            if i == 2:
                w.event(1, 0.025, "note", {"text": "between chunks"})
    with CaptureWriter(out.setdefault("chunkless-first", tmp / "nochunks.jsonl")) as w:
        w.request(1, "POST", "https://x.test/v1", {}, {"stream": True})
        w.end(1, 0.5, "error", "connection refused")
        w.attempt(2, "transport_error", "retry_streaming")
        for piece in pieces:
            w.chunk(2, 0.1, piece)
        w.end(2, 0.2, "eof")
        w.request(3, "POST", "https://x.test/v1", {}, {"stream": True})  # trailing, empty
    CaptureWriter(out.setdefault("empty", tmp / "empty.jsonl")).close()
    return out


ALL = {p.stem: p for p in [*all_real_fixtures(), *SAMPLES]}
IN_ORDER = {"two-attempts", "chunkless-first", "empty"}


@pytest.fixture(params=[1, 3, 1000], ids=lambda n: f"{n}-records-per-read")
def reads(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> int:
    monkeypatch.setattr(loading, "RECORDS_PER_READ", request.param)
    monkeypatch.setattr(loading, "STEPS_PER_FEED", 2)
    monkeypatch.setattr(loading, "SPLIT_BYTES", 7 * request.param)  # raw bodies split in pieces
    return int(request.param)


@pytest.mark.parametrize("name", sorted(ALL))
def test_recorded_files_end_as_their_replay(name: str, reads: int) -> None:
    path = ALL[name]
    for settings in (Settings(), Settings(empty_id="literal", validation="strict")):
        loader, shown = _load_slowly(path, settings)
        assert loader.done and loader.replayer is not None
        assert loader.analysis is loader.replayer.analysis
        assert snapshot(loader.analysis) == _expected(path, settings)
        assert loader.replayer.plan == replay_plan(load(path))
        assert shown == sorted(shown)  # what is on show only grows
        if path.suffix == ".jsonl":  # captures feed while reading; a raw body is split later
            assert loader.in_order
            if reads == 1:
                assert len(set(shown)) > 2, "events should show while the file is read"


def test_odd_file_orders_fall_back_to_a_replay_from_the_start(tmp_path: Path, reads: int) -> None:
    for name, path in _odd_captures(tmp_path).items():
        loader, _ = _load_slowly(path, Settings())
        if reads == 1:  # read whole in one slice, any file order is the replay's order
            assert loader.in_order == (name in IN_ORDER), name
        assert snapshot(loader.analysis) == _expected(path, Settings()), name
        assert loader.replayer is not None and loader.replayer.at_end
        assert loader.replayer.plan == replay_plan(load(path)), name


def test_a_settings_flip_while_loading_is_kept(tmp_path: Path) -> None:
    path = next(p for p in SAMPLES if p.stem == "glm-empty-string-continuations")
    loader = ProgressiveLoad(path.read_bytes(), str(path), Settings())
    loader.step(0.0)
    loader.analysis.apply(Settings(empty_id="literal"))
    while not loader.step(0.0):
        pass
    assert snapshot(loader.analysis) == _expected(path, Settings(empty_id="literal"))


def test_progress_runs_to_the_file_size(tmp_path: Path, reads: int) -> None:
    path = next(p for p in SAMPLES if p.stem == "large-arguments")
    loader = ProgressiveLoad(path.read_bytes(), str(path), Settings())
    seen = [loader.progress]
    while not loader.step(0.0):
        seen.append(loader.progress)
    assert all(total == path.stat().st_size for _, total in seen)
    assert [done for done, _ in seen] == sorted(done for done, _ in seen)


def test_a_corrupt_middle_line_fails_with_its_line(tmp_path: Path, reads: int) -> None:
    path = tmp_path / "bad.jsonl"
    good = next(p for p in SAMPLES if p.stem == "large-arguments").read_bytes().splitlines()
    path.write_bytes(b"\n".join([*good[:5], b"{not json", *good[5:]]) + b"\n")
    loader = ProgressiveLoad(path.read_bytes(), str(path), Settings())
    with pytest.raises(CaptureError, match=r"bad.jsonl: line 6: corrupt record"):
        while not loader.step(0.0):
            pass


def test_the_core_makes_no_reference_cycles() -> None:
    """The window freezes the garbage collector's view of everything read (gc.freeze) so
    collections do not rescan it: that keeps nothing alive only if the core, once dropped,
    is freed by reference counting alone."""
    import gc

    from inspector.core.analysis.session import Analysis

    path = next(p for p in SAMPLES if p.stem == "glm-empty-string-continuations")
    gc.collect()
    gc.disable()
    try:
        loader, _ = _load_slowly(path, Settings())
        assert loader.replayer is not None
        loader.replayer.seek(3)  # a backward seek drops one Analysis for another
        loader.replayer.finish()
        loader.analysis.apply(Settings(empty_id="literal"))
        for view in loader.replayer.analysis.attempts:
            assert view.quirks is not None and view.verdicts is not None
        Analysis.from_capture(loader.reader.capture, providers=REGISTRY).judge()
        del loader
        assert gc.collect() == 0
    finally:
        gc.enable()
