"""The fuzzing harness: hostile bytes through the whole headless path, none may raise.

The inspector is opened on exactly the streams that are broken, so no input may make the core
fail: a field of the wrong type is one ``wire_field_type`` problem on its event
(``inspector/core/calls/wirefield.py``, docs/quirks.md), a capture that cannot be read is one
line of error, and everything else is judged. This package checks that.

- :mod:`fuzz.target`: ``run(bytes, variant)``, the path ``analyze`` and the window take (read,
  gate, judge, JSON and text reports, findings, lanes' progress; by variant also a fork and a
  comparison, another validation mode, a live-like feed and a progressive load), under every
  dialect and ``auto``, both empty-id policies and every validation mode. Any exception but a
  clean ``InspectorError`` refusal is a crash, located at its innermost core frame.
- :mod:`fuzz.strategies`: hypothesis strategies for the four dialects' events (the right
  shape, fields of wrong types, missing fields, odd values), SSE framing, tool definitions,
  tool-loop events and captures whose records may hold wrong types.
- :mod:`fuzz.mutate`: byte-level mutation (flip, insert, delete, splice, duplicate or drop
  lines, truncate, swap a JSON value for one of another type) of the recorded streams in
  ``../shared/fixtures/real`` and the samples in ``resources/samples``.

Three ways to run it:

- ``make test`` runs ``tests/core/test_fuzz_profile.py``: a derandomised hypothesis profile and a
  fixed-seed mutation loop (a few hundred and a few thousand inputs, ~10 s).
- ``make fuzz`` (``FUZZ_N``, default 1,000,000; ``FUZZ_SEED``): ``python -m fuzz`` on every
  core; prints inputs, crashes, distinct crash sites and wall time, saves crashing inputs under
  ``build/fuzz-crashes/<site>/``, exits 1 on any crash. ``PYTHONPATH=tests python -m fuzz
  --replay FILE`` re-runs a saved input under every variant and prints the traceback.
- ``make fuzz FUZZ_ENGINE=atheris``: the same target, coverage-guided (:mod:`fuzz.coverage`:
  libFuzzer through atheris, which ``make`` installs; one process per core, seeded with the
  recordings and samples), with the same figures. About ten times slower per input than the
  default engine, it finds what random mutation does not reach by chance.
- Every crash found becomes a case in ``tests/core/test_hostile_wire.py``, with its minimal input.
"""
