"""Issue 25: ``matrix --out DIR`` never writes through a symlink, never into a foreign folder
without ``--force``, replaces a previous matrix (its stale captures gone), and gives target
names that collide as file names distinct capture names."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from inspector.cli import main
from inspector.net.matrix.session import slug

SPEC = {
    "targets": [
        {"profile": "demo", "model": "demo-clean", "name": "a/b",
         "headers": {"x-demo-chunk-delay": "0"}},
        {"profile": "demo", "model": "demo-clean", "name": "a-b",
         "headers": {"x-demo-chunk-delay": "0"}},
    ],
    "scenarios": ["weather"],
}  # fmt: skip


@pytest.fixture
def spec(tmp_path: Path) -> str:
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(SPEC))
    return str(path)


def _run(spec: str, out: Path, *extra: str) -> int:
    return main(["matrix", spec, "--out", str(out), *extra])


@pytest.mark.parametrize("name", ["matrix.md", "matrix.html", "matrix.json", "captures"])
def test_a_symlink_among_the_files_is_never_written_through(
    spec: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("precious")
    out = tmp_path / "m"
    out.mkdir()
    (out / "matrix.json").write_text("{}")  # a previous matrix, so only the link is wrong
    if name == "matrix.json":
        (out / "matrix.json").unlink()
    (out / name).symlink_to(outside)
    assert _run(spec, out, "--force") == 2
    err = capsys.readouterr().err
    assert "symlink" in err and err.count("\n") == 1
    assert outside.read_text() == "precious"


def test_a_symlinked_capture_is_refused_too(spec: str, tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("precious")
    out = tmp_path / "m"
    (out / "captures").mkdir(parents=True)
    (out / "matrix.json").write_text("{}")
    (out / "captures" / f"{slug('a/b')}__weather__1.jsonl").symlink_to(outside)
    assert _run(spec, out) == 2 and outside.read_text() == "precious"


def test_a_foreign_folder_needs_force_and_a_previous_matrix_is_replaced(
    spec: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "m"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    assert _run(spec, out) == 2
    assert "--force" in capsys.readouterr().err and not (out / "matrix.json").exists()
    assert _run(spec, out, "--force") == 0
    assert (out / "notes.txt").read_text() == "mine"
    stale = out / "captures" / "gone__weather__1.jsonl"
    stale.write_text("old")
    assert _run(spec, out) == 0  # a previous matrix: replaced without --force
    assert not stale.exists()
    captures = sorted(p.name for p in (out / "captures").iterdir())
    assert len(captures) == 2 and captures[0] != captures[1]
    assert not [p for p in out.rglob("*.tmp")]
    cells = json.loads((out / "matrix.json").read_text())["cells"]
    assert len({run["capture"] for cell in cells for run in cell["runs"]}) == 2


def test_names_that_collide_as_file_names_get_distinct_slugs() -> None:
    assert slug("a-b") == "a-b"
    names = ["a/b", "a-b", "a_b", ".", "..", "café", "x"]
    assert len({slug(n) for n in names}) == len(names)
    assert all(s and not s.startswith(".") for s in map(slug, names))
