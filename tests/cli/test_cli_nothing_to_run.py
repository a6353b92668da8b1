"""No command succeeds on nothing: a matrix that would run no session exits 2 with the
reason and writes nothing; ``toolcall-inspector PATH`` on a missing file says "no such file"
(exit 2); ``--version`` is the installed metadata's."""

from __future__ import annotations

import json
from importlib.metadata import version
from pathlib import Path

import pytest

from inspector.cli import main

NO_KEY = "TOOLCALL_IDLE_TEST_NO_SUCH_KEY"


@pytest.fixture
def no_key(monkeypatch: pytest.MonkeyPatch) -> None:
    import keyring

    monkeypatch.delenv(NO_KEY, raising=False)
    monkeypatch.setattr(keyring, "get_password", lambda service, user: None)


def one_line(err: str) -> str:
    line = err.strip()
    assert "\n" not in line and "Traceback" not in line, err
    return line


def test_a_matrix_whose_every_target_is_skipped_exits_2_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], no_key: None
) -> None:
    spec = {
        "targets": [{"profile": "openai", "model": "gpt-x", "name": "gpt", "key_env": NO_KEY}],
        "scenarios": ["weather"],
    }
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(spec))
    out = tmp_path / "out"
    assert main(["matrix", str(path), "--out", str(out)]) == 2
    err = one_line(capsys.readouterr().err)
    assert err == (
        "toolcall-inspector: nothing to run: the only target is skipped "
        f"(gpt: no key: {NO_KEY} is not set)"
    )
    assert not out.exists()


def test_the_default_matrix_without_scenarios_exits_2_saying_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("inspector.net.matrix.default.load_scenarios", lambda: [])
    assert main(["matrix", "--out", str(tmp_path / "m")]) == 2
    err = one_line(capsys.readouterr().err)
    assert "nothing to run: the matrix has no scenarios" in err
    assert "the built-in matrix" in err
    assert not (tmp_path / "m").exists()


@pytest.mark.parametrize("missing", ["/missing/file", "no-such-capture.jsonl", "sub/dir"])
def test_a_missing_file_is_no_such_file(
    missing: str,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main([missing]) == 2
    assert one_line(capsys.readouterr().err) == f"toolcall-inspector: no such file: {missing}"


def test_a_mistyped_command_still_lists_the_commands(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["analyse"])
    assert exc.value.code == 2
    assert "invalid choice: 'analyse'" in capsys.readouterr().err


def test_version_is_the_installed_metadata(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    assert capsys.readouterr().out.strip() == f"toolcall-inspector {version('toolcall-inspector')}"
    assert version("toolcall-inspector") != "0+unknown"
