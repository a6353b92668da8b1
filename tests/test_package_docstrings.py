"""Every package says what it owns: its ``__init__.py`` opens with a docstring that a reader
can take as the folder's label, and the modules it names are its own.

- Each package of ``inspector/`` has a docstring of a sentence at least (``MIN_WORDS`` words:
  what the folder holds, not just its name), and every module it names as `` :mod:`.name` ``
  (or `` :mod:`.name.sub` ``) exists in that package: a docstring that lists a module which
  moved away says something untrue about the folder.
- Each folder of the mirrored tests (``tests/core``, ``tests/net``, ``tests/ui``, ``tests/cli``
  and their folders) that holds test files is a package whose docstring's first line names
  the source folder it mirrors, which exists: a package, so two folders may hold test files of
  the same name (``tests/core/providers/<dialect>/test_framing.py``). The helper packages
  (``tests/clients``, ``tests/har``, ``tests/fuzz``) say what they hold. Other folders of
  ``tests/`` are free: a helper folder that is no package imports its siblings by their bare
  names, and a package there would shadow any installed library of its name.
  ``tests/`` itself is not a package: its ``conftest.py`` is the module ``conftest`` the tests
  import helpers from, and ``PYTHONPATH=tests`` runs the helpers (``python -m fuzz``).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from conftest import REPO, TESTS

MIN_WORDS = 6
MIRRORED = ("core", "net", "ui", "cli")
NAMED = re.compile(r":mod:`(?:~)?\.([\w.]+)`")


def packages(root: Path) -> list[Path]:
    """Every folder under ``root`` (``root`` included) with an ``__init__.py``, sorted."""
    return sorted(p.parent for p in root.rglob("__init__.py") if "__pycache__" not in p.parts)


def docstring(package: Path) -> str:
    return ast.get_docstring(ast.parse((package / "__init__.py").read_text("utf-8"))) or ""


def problems(package: Path) -> list[str]:
    """What is wrong with ``package``'s docstring: missing, too short to say what the folder
    owns, or naming a module that is not in it."""
    text = docstring(package)
    if not text:
        return ["no docstring"]
    found = []
    if len(text.split()) < MIN_WORDS:
        found.append(f"a docstring of {len(text.split())} words says too little: {text!r}")
    for name in sorted(set(NAMED.findall(text))):
        path = package.joinpath(*name.split("."))
        if not (path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()):
            found.append(f"names :mod:`.{name}`, which is not in the package")
    return found


def mirror_problems(folder: Path, tests: Path = TESTS, repo: Path = REPO) -> list[str]:
    """What is wrong with a folder of tests: not a package, or not saying (in its docstring's
    first line) the source folder it mirrors, or mirroring none."""
    if not (folder / "__init__.py").is_file():
        return ["no __init__.py (every folder of tests is a package)"]
    mirrored = Path("inspector", folder.relative_to(tests))
    if not (repo / mirrored).is_dir():
        return [f"mirrors no source folder: {mirrored}/ does not exist"]
    first = docstring(folder).split("\n", 1)[0]
    if f"{mirrored.as_posix()}/" not in first:
        return [f"its docstring does not say it holds the tests of {mirrored.as_posix()}/"]
    return []


def test_every_package_of_the_product_says_what_it_owns() -> None:
    found = packages(REPO / "inspector")
    assert len(found) > 40  # every package: core's stages, each dialect and replica, ui's parts
    bad = [f"{p.relative_to(REPO)}: {why}" for p in found for why in problems(p)]
    assert not bad, "package docstrings:\n" + "\n".join(bad)


def test_every_folder_of_tests_mirrors_a_source_folder_and_says_which() -> None:
    folders = sorted({p.parent for root in MIRRORED for p in (TESTS / root).rglob("test_*.py")})
    assert len(folders) > 20  # tests/core/<stage>/, tests/ui/<feature>/, …
    bad = [f"{f.relative_to(REPO)}: {why}" for f in folders for why in mirror_problems(f)]
    assert not bad, "test folders:\n" + "\n".join(bad)
    assert not (TESTS / "__init__.py").exists()  # conftest stays the module `conftest`


def test_the_test_helper_packages_say_what_they_hold() -> None:
    helpers = [TESTS / name for name in ("clients", "har", "fuzz")]
    bad = [f"{h.relative_to(REPO)}: {why}" for h in helpers for why in problems(h)]
    assert not bad, "test helper packages:\n" + "\n".join(bad)


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        ({"__init__.py": '"""The quirk codes\' registry: one entry per code."""\n'}, []),
        ({"__init__.py": "x = 1\n"}, ["no docstring"]),
        ({"__init__.py": '"""Helpers."""\n'}, ["a docstring of 1 words says too little"]),
        (
            {
                "__init__.py": '"""It owns :mod:`.scan`, :mod:`.gone`, :mod:`.sub.deep` here."""',
                "scan.py": "",
                "sub/__init__.py": '"""The sub-package of this test\'s package here."""',
                "sub/deep.py": "",
            },
            ["names :mod:`.gone`, which is not in the package"],
        ),
    ],
)
def test_a_package_that_does_not_say_what_it_owns_is_found(
    tmp_path: Path, files: dict[str, str], expected: list[str]
) -> None:
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    found = problems(tmp_path)
    assert len(found) == len(expected)
    assert all(f.startswith(e) for f, e in zip(found, expected, strict=True)), found


@pytest.mark.parametrize(
    ("folder", "init", "expected"),
    [
        ("core/calls", '"""Tests of ``inspector/core/calls/``."""', ""),
        ("core/calls", None, "no __init__.py"),
        ("core/callz", '"""Tests of ``inspector/core/callz/``."""', "mirrors no source folder"),
        ("core/calls", '"""Tests of the calls."""', "its docstring does not say"),
    ],
)
def test_a_test_folder_that_mirrors_nothing_is_found(
    tmp_path: Path, folder: str, init: str | None, expected: str
) -> None:
    (tmp_path / "inspector" / "core" / "calls").mkdir(parents=True)
    (tmp_path / "tests" / folder).mkdir(parents=True)
    if init is not None:
        (tmp_path / "tests" / folder / "__init__.py").write_text(init)
    found = mirror_problems(tmp_path / "tests" / folder, tmp_path / "tests", tmp_path)
    assert [f[: len(expected)] for f in found] == ([expected] if expected else [])
