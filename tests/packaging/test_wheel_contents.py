"""The wheel (built here without network, ``pip wheel --no-deps --no-build-isolation``) holds
what the app needs outside the checkout: every module, every file of ``resources/`` and
``docs/`` (scenarios, samples, the demo tools' files, the help and its pictures) mapped into
the package, the license, and the metadata a package index shows; nothing else. The full
install into a fresh virtualenv is ``make test-install`` (test_install.py)."""

from __future__ import annotations

import email.parser
import tomllib
import zipfile
from collections.abc import Iterator
from importlib.metadata import version

import pytest
from wheelbuild import REPO, SHIPPED, build_wheel, shipped_files


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Iterator[zipfile.ZipFile]:
    with zipfile.ZipFile(build_wheel(tmp_path_factory.mktemp("wheel"))) as z:
        yield z


def test_the_wheel_holds_every_shipped_file_and_module(wheel: zipfile.ZipFile) -> None:
    names = set(wheel.namelist())
    shipped = shipped_files()
    assert {n for n in shipped if n.startswith("inspector/resources/samples/")} >= {
        "inspector/resources/samples/glm-empty-string-continuations.jsonl"
    }
    assert len([n for n in shipped if n.startswith("inspector/resources/scenarios/")]) >= 6
    assert sorted(shipped - names) == [], "resources/ or docs/ files missing from the wheel"
    modules = {
        p.relative_to(REPO).as_posix()
        for p in (REPO / "inspector").rglob("*.py")
        if "__pycache__" not in p.parts
    }
    assert len(modules) > 100 and sorted(modules - names) == []
    assert "inspector/py.typed" in names


def test_the_wheel_holds_nothing_else(wheel: zipfile.ZipFile) -> None:
    names = wheel.namelist()
    assert not [n for n in names if "__pycache__" in n or n.endswith((".pyc", ".tmp"))]
    tops = {n.split("/", 1)[0] for n in names}
    assert tops == {"inspector", f"toolcall_inspector-{version('toolcall-inspector')}.dist-info"}
    assert not [n for n in names if n.startswith("inspector/") and not (
        n.endswith(".py") or n == "inspector/py.typed"
        or any(n.startswith(p + "/") for p in SHIPPED.values())
    )]  # fmt: skip


def test_the_metadata_a_package_index_shows(wheel: zipfile.ZipFile) -> None:
    info = f"toolcall_inspector-{version('toolcall-inspector')}.dist-info"
    meta = email.parser.Parser().parsestr(wheel.read(f"{info}/METADATA").decode())
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    assert meta["Name"] == "toolcall-inspector"
    assert meta["Version"] == project["version"] == version("toolcall-inspector")
    assert meta["Summary"] == project["description"]
    assert meta["Requires-Python"] == ">=3.11"
    assert meta["License-Expression"] == "MIT" and meta.get_all("License-File") == ["LICENSE"]
    assert wheel.read(f"{info}/licenses/LICENSE") == (REPO / "LICENSE").read_bytes()
    classifiers = meta.get_all("Classifier")
    assert "Environment :: X11 Applications :: Qt" in classifiers
    assert "Programming Language :: Python :: 3.11" in classifiers
    assert not [c for c in classifiers if c.startswith("License ::")]  # the expression says it
    assert meta.get_all("Project-URL") is None  # none until the project has a public home
    assert meta["Description-Content-Type"] == "text/markdown"
    assert meta.get_payload().strip() == (REPO / "README.md").read_text().strip()
    requires = meta.get_all("Requires-Dist")
    assert any(r.startswith("PySide6-Essentials") for r in requires)
    assert not [r for r in requires if "extra ==" not in r and r.split()[0] in ("pytest", "mypy")]
    entry = wheel.read(f"{info}/entry_points.txt").decode()
    assert "toolcall-inspector = inspector.cli:main" in entry


def test_the_version_has_one_source() -> None:
    written = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["version"]
    literal = [
        p.relative_to(REPO).as_posix()
        for p in (REPO / "inspector").rglob("*.py")
        if f'"{written}"' in p.read_text() or f"'{written}'" in p.read_text()
    ]
    assert literal == [], "read the version from the installed metadata (inspector.__version__)"
    import inspector

    assert inspector.__version__ == written
