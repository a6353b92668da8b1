"""The embedded default matrix: every demo-provider model (its quirk and fault "models") x
the built-in scenarios, offline, no key: what ``toolcall-inspector matrix --out DIR`` runs
without a spec.

Invariants:
- Each model runs in the first dialect where it has its own behaviour (a Gemini-only quirk
  on the Gemini demo profile, most on the ``demo`` profile's), so every row shows what the
  model is for; the row is named for the model, with the dialect when it is not the ``demo``
  profile's.
- Its columns are the built-in scenarios that offer function tools only (``sql``'s custom
  tool is declared in Responses alone: a column every other dialect answers without it
  would say nothing about the models).
- Frames follow each other with no pause (``x-demo-chunk-delay: 0``) and ``fault-stall``
  holds its stream :data:`STALL` seconds instead of 30: the whole matrix takes well under a
  minute on two cores.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Final

from inspector.core.base.settings import DEFAULT_MODE
from inspector.core.matrix.spec import MatrixSpec, Target, Timeouts
from inspector.core.requests.scenarios import BUILTIN_PROFILES, find_profile, load_scenarios

from ..demo.scenarios import SCENARIOS

STALL: Final = 3.0
"""Seconds the default matrix's ``fault-stall`` holds its stream."""


def default_spec(models: list[str] | None = None, scenarios: list[str] | None = None) -> MatrixSpec:
    """The default matrix (``models`` / ``scenarios``: only those, for tests)."""
    demo_profiles = {p.dialect: p for p in BUILTIN_PROFILES if p.is_demo}
    home = find_profile("demo").dialect  # the demo's own profile: rows in it need no label
    targets = []
    for name, model in SCENARIOS.items():
        if models is not None and name not in models:
            continue
        dialect = next(iter(model.dialects), home)
        headers = {"x-demo-chunk-delay": "0"}
        if model.fault == "stall":
            headers["x-demo-stall"] = str(STALL)
        profile = replace(demo_profiles[dialect], model=name,
                          headers={**demo_profiles[dialect].headers, **headers})  # fmt: skip
        label = name if dialect == home else f"{name} ({dialect})"
        targets.append(Target(label, profile, concurrency=4))
    cols = [s for s in load_scenarios()
            if (s.name in scenarios if scenarios is not None else s.functions_only)]  # fmt: skip
    return MatrixSpec(tuple(targets), tuple(cols), tuple(s.name for s in cols), runs=1,
                      validation=DEFAULT_MODE, retry=True,
                      timeouts=Timeouts(connect=5.0, read=10.0, session=30.0),
                      concurrency=16)  # fmt: skip
