"""The shipped files are found through the package (inspector/core/base/resources.py), never
by walking up from a module's ``__file__``: found in this install, copied out of a zip
install, and a clear one-line error where an install lacks them."""

from __future__ import annotations

import io
import sys
import tokenize
import zipfile
from pathlib import Path

import pytest

from inspector.core.base import resources
from inspector.core.base.resources import ResourcesMissing, doc, resource

PACKAGE = Path(resources.__file__).resolve().parents[2]  # tests may walk; the package may not


def test_no_module_in_the_package_finds_a_file_from_its_own_location() -> None:
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        tokens = tokenize.generate_tokens(io.StringIO(path.read_text()).readline)
        if any(t.type == tokenize.NAME and t.string == "__file__" for t in tokens):
            offenders.append(str(path.relative_to(PACKAGE.parent)))
    assert len(list(PACKAGE.rglob("*.py"))) > 100
    assert offenders == [], "read shipped files through inspector.core.base.resources"


def test_the_shipped_folders_are_found() -> None:
    assert len(list(resource("samples").glob("*.jsonl"))) >= 8
    assert {p.stem for p in resource("scenarios").glob("*.json")} >= {"weather", "tool-loop"}
    assert (resource("sample-files") / "travel.md").is_file()
    assert doc("quirks.md").is_file() and doc("images", "lanes-absent.png").is_file()


def test_something_missing_is_one_line_naming_it() -> None:
    with pytest.raises(ResourcesMissing, match=r"^resources/samples/nope\.jsonl is not in this"):
        resource("samples", "nope.jsonl")
    resources.root.cache_clear()
    try:
        with pytest.raises(ResourcesMissing, match=r"this install has no inspector\.nothing"):
            resources.root("inspector.nothing")
    finally:
        resources.root.cache_clear()


def test_a_zip_install_is_copied_out_once_as_real_folders(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    archive = tmp_path / "site.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("zipped_data/__init__.py", "")
        z.writestr("zipped_data/samples/a.jsonl", '{"type": "meta"}\n')
        z.writestr("zipped_data/notes/deep/todo.md", "weather in Paris")
    monkeypatch.syspath_prepend(str(archive))
    resources.root.cache_clear()
    try:
        folder = resources.root("zipped_data")
        assert resources.root("zipped_data") is folder  # once per process
    finally:
        resources.root.cache_clear()
        sys.modules.pop("zipped_data", None)
    assert isinstance(folder, Path) and folder.is_dir() and not str(folder).startswith(str(archive))
    assert (folder / "samples" / "a.jsonl").read_text() == '{"type": "meta"}\n'
    assert (folder / "notes" / "deep" / "todo.md").read_text() == "weather in Paris"
