"""Running a compatibility matrix: every session of a :class:`~inspector.core.matrix.spec.
MatrixSpec` on the session runner, concurrently in one asyncio loop, judged into a
:class:`~inspector.core.matrix.result.MatrixResult`.

Modules: :mod:`.runner` (:class:`~.runner.MatrixRunner`: bounds, progress, cancel, reruns),
:mod:`.session` (one session: its request, its capture, a 429's retry-after waited out),
:mod:`.default` (the embedded default spec: the demo provider's models x the built-in
scenarios).
"""
