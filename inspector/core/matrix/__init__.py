"""The compatibility matrix: targets (profile + model) x scenarios, each cell judged over runs.

The top stage of the core: it reads what the stages below say about one session (the
Analysis, the scenario's ``expect`` block, the client replicas' verdict) and turns it into a
cell. Pure like the rest of the core: the sessions themselves are run by
:mod:`inspector.net.matrix`.

Modules: :mod:`.spec` (what to run: :class:`~.spec.MatrixSpec`, read from and written to
JSON), :mod:`.expect` (a run's calls against the scenario's ``expect`` block), :mod:`.cells`
(one run: :class:`~.cells.CellRun`, its word; a cell over runs: :class:`~.cells.Cell`),
:mod:`.judge` (a finished session's Analysis -> a CellRun), :mod:`.result`
(:class:`~.result.MatrixResult`: ``matrix.json``, ``format_version`` 1, its JSON schema).
docs/matrix.md documents both JSON files.
"""
