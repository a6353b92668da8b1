"""Matrix specs (inspector/core/matrix/spec.py) and scenarios' expect blocks: what reads,
what round-trips, and the one-line error for each bad spec."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from inspector.core.matrix.spec import MatrixSpec, MatrixSpecError, load_spec
from inspector.core.requests.scenarios import ScenarioError, load_scenario, load_scenarios
from inspector.core.requests.scenarios_expect import Expect, parse_expect

GOOD = {
    "targets": [
        {"profile": "openai", "model": "gpt-x"},
        {"profile": "openrouter", "model": "z-ai/glm-4.6", "name": "glm", "concurrency": 2},
        {"profile": "local", "dialect": "openai-chat", "base_url": "http://localhost:8000/v1",
         "model": "qwen", "headers": {"x-a": "1"}, "options": {"max_tokens": 64}},
        {"profile": "demo", "model": "demo-parallel-index-0"},
    ],
    "scenarios": ["weather", "parallel"],
    "runs": 3,
    "validation": "strict",
    "retry": False,
    "timeouts": {"connect": 5, "read": 20},
    "concurrency": 8,
}  # fmt: skip


def test_a_spec_reads_resolves_profiles_and_round_trips() -> None:
    spec = MatrixSpec.from_json(GOOD)
    names = [t.name for t in spec.targets]
    assert names == ["openai/gpt-x", "glm", "local/qwen", "demo/demo-parallel-index-0"]
    openai, glm, local, demo = spec.targets
    assert openai.profile.key_env == "OPENAI_API_KEY" and openai.model == "gpt-x"
    assert glm.concurrency == 2 and openai.concurrency == 4
    assert local.profile.dialect == "openai-chat" and local.profile.key_env is None
    assert dict(local.profile.headers) == {"x-a": "1"}
    assert local.profile.options == {"max_tokens": 64}
    assert demo.profile.is_demo
    assert [s.name for s in spec.scenarios] == ["weather", "parallel"]
    assert (spec.runs, spec.validation, spec.retry, spec.concurrency) == (3, "strict", False, 8)
    assert (spec.timeouts.connect, spec.timeouts.read, spec.timeouts.session) == (5, 20, 120)
    assert spec.sessions == 4 * 2 * 3
    again = MatrixSpec.from_json(json.loads(json.dumps(spec.to_json())))
    assert again == spec and again.to_json() == spec.to_json()


def test_a_scenario_file_is_read_beside_the_spec(tmp_path: Path) -> None:
    (tmp_path / "mine").mkdir()
    scenario = {"prompt": "refund order 7", "tools": [], "expect": {"calls": {"min": 0}}}
    (tmp_path / "mine" / "refund.json").write_text(json.dumps(scenario))
    path = tmp_path / "spec.json"
    path.write_text(
        json.dumps({"targets": [{"profile": "demo"}], "scenarios": ["mine/refund.json"]})
    )
    spec = load_spec(path)
    assert spec.scenarios[0].name == "refund" and spec.scenarios[0].expect.calls_min == 0
    assert spec.to_json()["scenarios"] == ["mine/refund.json"]


BAD = [
    ([], "a matrix spec is a JSON object"),
    ({"targets": [], "scenarios": ["weather"]}, "'targets' must be a non-empty list"),
    ({"targets": [{"profile": "demo"}], "scenarios": []}, "'scenarios' must be a non-empty"),
    ({"targets": [{"model": "x"}], "scenarios": ["weather"]}, "targets[0] has no 'profile'"),
    ({"targets": [{"profile": "nope"}], "scenarios": ["weather"]}, "unknown profile 'nope'"),
    ({"targets": [{"profile": "x", "dialect": "klingon", "base_url": "http://h", "model": "m"}],
      "scenarios": ["weather"]}, "dialect must be one of"),
    ({"targets": [{"profile": "demo", "colour": 1}], "scenarios": ["weather"]},
     "targets[0]: unknown field(s) colour"),
    ({"targets": [{"profile": "demo"}, {"profile": "demo"}], "scenarios": ["weather"]},
     "two targets are named 'demo/demo-glm-empty-string'"),
    ({"targets": [{"profile": "demo"}], "scenarios": ["nope"]}, "unknown scenario 'nope'"),
    ({"targets": [{"profile": "demo"}], "scenarios": ["weather", "weather"]}, "listed twice"),
    ({"targets": [{"profile": "demo"}], "scenarios": ["weather"], "runs": 0}, "'runs' must be"),
    ({"targets": [{"profile": "demo"}], "scenarios": ["weather"], "runs": True}, "'runs' must"),
    ({"targets": [{"profile": "demo"}], "scenarios": ["weather"], "validation": "lax"},
     "'validation' must be one of off, structural, strict"),
    ({"targets": [{"profile": "demo"}], "scenarios": ["weather"], "timeouts": {"read": -1}},
     "timeouts.read must be seconds"),
    ({"targets": [{"profile": "demo"}], "scenarios": ["weather"], "timeouts": {"total": 1}},
     "timeouts: unknown field(s) total"),
    ({"targets": [{"profile": "demo", "concurrency": 0}], "scenarios": ["weather"]},
     "'concurrency' must be a whole number"),
    ({"targets": [{"profile": "demo", "headers": {"a": 1}}], "scenarios": ["weather"]},
     "'headers' must be an object of strings"),
    ({"targets": [{"profile": "demo"}], "scenarios": ["weather"], "extra": 1},
     "unknown field(s) extra"),
    ({"targets": [{"profile": "demo", "headers": {"Authorization": "Bearer sk-1"}}],
      "scenarios": ["weather"]}, "header 'Authorization' would hold a credential"),
    ({"targets": [{"profile": "x", "dialect": "openai-chat", "model": "m",
                   "base_url": "https://u:sk-1@h/v1"}], "scenarios": ["weather"]},
     "'base_url' would hold a credential"),
]  # fmt: skip


@pytest.mark.parametrize(("obj", "message"), BAD)
def test_a_bad_spec_is_one_line_naming_the_field(obj: object, message: str) -> None:
    with pytest.raises(MatrixSpecError) as err:
        MatrixSpec.from_json(obj, "spec.json")
    text = str(err.value)
    assert message in text and text.startswith("spec.json") and "\n" not in text


def test_a_spec_file_that_is_no_json_or_missing_is_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{nope")
    with pytest.raises(MatrixSpecError, match=r"bad\.json: not valid JSON"):
        load_spec(bad)
    with pytest.raises(MatrixSpecError, match="cannot read"):
        load_spec(tmp_path / "missing.json")


def test_every_builtin_scenario_has_an_expect_block() -> None:
    scenarios = load_scenarios()
    assert len(scenarios) >= 6
    for s in scenarios:
        raw = json.loads(Path(f"resources/scenarios/{s.name}.json").read_text())
        assert "expect" in raw, s.name
        assert parse_expect(raw["expect"]) == s.expect == parse_expect(s.expect.to_json())
    parallel = next(s for s in scenarios if s.name == "parallel")
    assert parallel.expect.parallel is True and parallel.expect.calls_max is None
    weather = next(s for s in scenarios if s.name == "weather")  # once for Paris, no more asked
    assert weather.expect.calls_max is None and weather.expect.arguments == {"city": "Paris"}


@pytest.mark.parametrize(
    ("block", "message"),
    [
        ([], "'expect' must be an object"),
        ({"tool": ["x"]}, "unknown field(s) tool"),
        ({"tools": "get_weather"}, "'expect.tools' must be a list"),
        ({"calls": {"min": 3, "max": 2}}, "0 <= min <= max"),
        ({"calls": {"least": 1}}, "'min' and/or 'max'"),
        ({"parallel": "yes"}, "'expect.parallel' must be true or false"),
        ({"arguments": ["city"]}, "'expect.arguments' must be an object"),
    ],
)
def test_a_bad_expect_block_names_the_file(tmp_path: Path, block: object, message: str) -> None:
    path = tmp_path / "s.json"
    path.write_text(json.dumps({"prompt": "p", "expect": block}))
    with pytest.raises(ScenarioError) as err:
        load_scenario(path)
    assert message in str(err.value) and str(path) in str(err.value)


def test_a_scenario_without_expect_expects_one_call_or_more() -> None:
    assert parse_expect(None) == Expect() and Expect().calls_min == 1 and Expect().to_json() == {}
