"""The built-in demo tools, their registry, the tool-loop scenario and ``record --loop``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from inspector.cli import main
from inspector.core.capture.reader import load
from inspector.core.replay.replayer import Replayer
from inspector.core.requests.scenarios import find_scenario
from inspector.net.tools import ToolBox, ToolDisabled, UnknownTool, sample_files, scenario_options


async def test_search_is_confined_to_the_sample_folder(tmp_path: Path) -> None:
    box = ToolBox.builtin()
    hits = await box.call("search_files", {"pattern": "*.md", "query": "weather in Paris"})
    assert {h["path"] for h in hits} == {"travel.md", "notes/todo.md"}
    assert all(not h["path"].startswith("/") for h in hits)
    for bad in ("../*", "/etc/*", "notes/../../*", "C:/x", "..\\*"):
        with pytest.raises(ValueError, match="refused"):
            await box.call("search_files", {"pattern": bad})
    outside = tmp_path / "secret.txt"
    outside.write_text("weather in Paris")
    (tmp_path / "root").mkdir()
    (tmp_path / "root" / "link.txt").symlink_to(outside)
    linked = ToolBox.builtin(root=tmp_path / "root")
    assert await linked.call("search_files", {"pattern": "*"}) == []  # symlinks cannot lead out
    assert sample_files().is_dir()


async def test_registry_refuses_unknown_and_disabled_and_delays_slow() -> None:
    box = ToolBox.builtin(sleep_cap=0.05)
    with pytest.raises(UnknownTool):
        await box.call("rm_rf", {})
    box.configure({"disabled": ["fail"], "slow": {"get_weather": 0.01}})
    with pytest.raises(ToolDisabled):
        await box.call("fail", {})
    assert "fail" not in json.dumps(box.definitions())
    assert box.tools["get_weather"].slow == 0.01
    slept = await box.call("sleep", {"seconds": 99})
    assert slept["metadata"] == {"requested": 99, "slept": 0.05}
    weather = await box.call("get_weather", {"city": "Lima"})
    assert weather == await box.call("get_weather", {"city": "Lima"})  # fake but stable
    assert set(weather) == {"output", "title", "metadata"}
    with pytest.raises(KeyError):
        box.disable("nope")
    box.disable("fail", False)
    with pytest.raises(RuntimeError, match="always fails"):
        await box.call("fail", {})


def test_tool_loop_scenario_offers_the_builtins() -> None:
    scenario = find_scenario("tool-loop")
    names = [t["function"]["name"] for t in scenario.tools]
    assert names == ToolBox.builtin().names()
    assert scenario_options("tool-loop") == {"disabled": [], "slow": {"search_files": 0.2}}
    assert scenario_options("weather") == {}


def test_record_loop_then_analyze_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "loop.jsonl"
    code = main(["record", "--profile", "demo", "--model", "demo-parallel", "--scenario",
                 "tool-loop", "--out", str(out), "--loop", "--header", "x-demo-chunk-delay: 0",
                 "--disable-tool", "sleep", "--slow-tool", "get_time:0.01"])  # fmt: skip
    text = capsys.readouterr().out
    assert code == 0, text
    assert "tool loop: 2 round(s), streaming dispatch, ended by finish" in text
    assert "Weather in Paris: Paris:" in text and "final text: 'Here is what the tools said" in text
    assert main(["analyze", str(out), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["loop"]["end_reason"] == "finish" and doc["loop"]["mode"] == "streaming"
    r1, r2 = doc["rounds"]
    assert [r["name"] for r in r1["tool_results"]] == ["get_weather", "get_time", "search_files"]
    assert {c["id"] for c in r1["tool_calls"]} == {r["call_id"] for r in r1["tool_results"]}
    assert r1["tool_results"][0]["title"] == "Weather in Paris"
    assert r2["tool_results"] == [] and [a["round"] for a in doc["attempts"]] == [1, 2]
    assert "sleep" not in json.dumps(load(out).tools)
    replayed = Replayer(load(out))
    replayed.finish()
    assert [e.kind for e in replayed.analysis.events][-1] == "loop_end"


def test_loop_options_need_loop(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["record", "--profile", "demo", "--scenario", "tool-loop", "--out",
            str(tmp_path / "x.jsonl")]  # fmt: skip
    assert main([*args, "--sequential"]) == 2
    assert main([*args, "--loop", "--disable-tool", "nope"]) == 2
    assert "unknown tool" in capsys.readouterr().err


def test_loop_options_naming_no_tool_are_a_one_line_error() -> None:
    box = ToolBox.builtin()
    with pytest.raises(ValueError, match=r"name no tool 'nope' \(known: .*get_weather"):
        box.configure({"disabled": ["nope"]})
    with pytest.raises(ValueError, match="name no tool 'nope'"):
        box.configure({"slow": {"nope": 1}})
    with pytest.raises(ValueError, match="negative"):
        box.configure({"slow": {"get_weather": -1}})


def test_disabled_tools_are_not_offered() -> None:
    box = ToolBox.builtin()
    box.configure({"disabled": ["fail"]})
    fail = {"type": "function", "function": {"name": "fail", "parameters": {"type": "object"}}}
    defs = [*box.definitions(["get_weather"]), fail]
    assert [d["function"]["name"] for d in box.offered(defs)] == ["get_weather"]
