"""A new user's install, end to end (slow: ``make test-install``; it downloads the app's
dependencies into a fresh virtualenv): ``python -m build`` makes an sdist and, from it, a
wheel; both pass ``twine check``; the wheel installs into a fresh virtualenv, and from a
temporary folder (not the checkout) the installed ``toolcall-inspector`` runs ``--version``,
``analyze`` on a packaged sample, ``record`` of a demo scenario, the default ``matrix --out``
(its scenarios shipped), ``demo-server`` answering the openai SDK, ``proxy`` forwarding its
request, and ``open --screenshot`` offscreen, with File ▸ Samples listing the samples."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tarfile
from importlib.metadata import version
from pathlib import Path

import pytest
from userflow import demo_and_proxy, run
from wheelbuild import REPO, shipped_files, source_copy

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1800)]

SAMPLE = "glm-empty-string-continuations.jsonl"
LIST_SAMPLES = """
from PySide6.QtWidgets import QApplication
from inspector.ui.shell.mainwindow import MainWindow
app = QApplication([])
w = MainWindow()
print("\\n".join(a.text() for a in w.samples_menu.actions()))
w.persist_layout = False
"""


def check(args: list[str], cwd: Path, timeout: float = 900) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, (args, done.stdout[-3000:], done.stderr[-3000:])
    return done


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """``python -m build`` (isolated: its own setuptools) on a copy of the checkout."""
    work = tmp_path_factory.mktemp("build")
    src = source_copy(work / "src")
    check([sys.executable, "-m", "build", "--outdir", str(work / "dist"), str(src)], work)
    (sdist,) = (work / "dist").glob("toolcall_inspector-*.tar.gz")
    (wheel,) = (work / "dist").glob("toolcall_inspector-*.whl")
    return {"sdist": sdist, "wheel": wheel}


@pytest.fixture(scope="module")
def venv(built: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh virtualenv with only the wheel (and its dependencies) installed."""
    env = tmp_path_factory.mktemp("venv") / "v"
    check([sys.executable, "-m", "venv", str(env)], env.parent)
    check([str(env / "bin" / "python"), "-m", "pip", "install", "--quiet", str(built["wheel"])],
          env.parent)  # fmt: skip
    return env


@pytest.fixture
def user(tmp_path: Path, venv: Path) -> tuple[list[str], Path, dict[str, str]]:
    """The installed command, a folder that is not the checkout, and an environment that
    points at no checkout (offscreen Qt for the pictures)."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env.update(QT_QPA_PLATFORM="offscreen", HOME=str(tmp_path / "home"))
    (tmp_path / "home").mkdir()
    work = tmp_path / "work"
    work.mkdir()
    return [str(venv / "bin" / "toolcall-inspector")], work, env


def test_sdist_and_wheel_pass_twine_check_and_hold_the_resources(built: dict[str, Path]) -> None:
    done = check([sys.executable, "-m", "twine", "check", "--strict",
                  str(built["sdist"]), str(built["wheel"])], REPO)  # fmt: skip
    assert done.stdout.count("PASSED") == 2, done.stdout
    with tarfile.open(built["sdist"]) as tar:
        names = {n.split("/", 1)[1] for n in tar.getnames() if "/" in n}
    assert {"LICENSE", "README.md", "setup.py", "pyproject.toml"} <= names
    for folder, package in (("resources", "inspector/resources"), ("docs", "inspector/docs")):
        wanted = {n.replace(package, folder, 1) for n in shipped_files() if n.startswith(package)}
        assert sorted(wanted - names) == [], folder


def test_the_installed_app_works_outside_the_checkout(
    user: tuple[list[str], Path, dict[str, str]], venv: Path
) -> None:
    cli, cwd, env = user
    assert run(cli, ["--version"], cwd, env).stdout.strip() == (
        f"toolcall-inspector {version('toolcall-inspector')}"
    )
    where = run([str(venv / "bin" / "python"), "-c",
                 "from inspector.core.base.resources import resource; print(resource('samples'))"],
                [], cwd, env).stdout.strip()  # fmt: skip
    samples = Path(where)
    assert samples.is_relative_to(venv) and not samples.is_relative_to(REPO), samples
    # Help's viewer from the installed docs: every page with its pictures and links
    viewer = (
        "from PySide6.QtWidgets import QApplication; app = QApplication([]);"
        "from inspector.core.base.resources import doc;"
        "from inspector.ui.shell.docviewer import DocViewer;"
        "pages = sorted(doc().glob('*.md'));"
        "print(doc(), len(pages), [(p.name, DocViewer(p).broken()) for p in pages"
        " if DocViewer(p).broken()], len(DocViewer(doc('getting-started.md')).references()[0]))"
    )
    shown = run([str(venv / "bin" / "python"), "-c", viewer], [], cwd,
                {**env, "QT_QPA_PLATFORM": "offscreen"}).stdout.split()  # fmt: skip
    assert Path(shown[0]).is_relative_to(venv) and int(shown[1]) >= 8, shown
    assert shown[2:] == ["[]", "4"], shown

    done = run(cli, ["analyze", str(samples / SAMPLE)], cwd, env)
    assert done.returncode == 0 and "valid — breaks 1 client: by-id" in done.stdout, done

    args = ["--profile", "demo", "--scenario", "weather", "--model", "demo-parallel-index-0"]
    done = run(cli, ["record", *args, "--out", "s.jsonl"], cwd, env)
    assert done.returncode == 0 and "valid — breaks 4 clients" in done.stdout, done
    assert (cwd / "s.jsonl").stat().st_size > 0

    done = run(cli, ["matrix", "--out", "m"], cwd, env)
    assert done.returncode == 0, done
    result = json.loads((cwd / "m" / "matrix.json").read_text())
    assert len(result["scenarios"]) >= 6 and len(result["targets"]) >= 40, result.keys()
    assert "× 0 scenarios" not in done.stdout

    seen = demo_and_proxy(cli, cwd, env)
    assert [n for n, _a in seen["proxied"]] == ["get_weather"] == [n for n, _a in seen["direct"]]
    assert "1 call" in seen["proxy_line"] and len(seen["captures"]) == 1

    done = run(cli, ["open", str(samples / SAMPLE), "--screenshot", "w.png"], cwd, env)
    assert done.returncode == 0 and (cwd / "w.png").read_bytes()[:4] == b"\x89PNG", done
    listed = run([str(venv / "bin" / "python"), "-c", LIST_SAMPLES], [], cwd, env)
    assert listed.returncode == 0, listed
    assert sorted(listed.stdout.split()) == sorted(p.stem for p in samples.glob("*.jsonl"))
    assert len(listed.stdout.split()) >= 8
