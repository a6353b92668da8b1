"""The golden harness: every client replica (``inspector/core/clients``) held to its real library.

Run with ``PYTHONPATH=tests`` (``make verify-clients`` does). The pieces:

- :mod:`.streams`: every stream the replicas are held to (``demo/<dialect>/<scenario>``: a
  capture in ``corpus/``; ``real/<name>``: a recorded stream in ``../shared/fixtures/real``,
  never copied), loaded as the inspector loads it, with the request's tools.
- :mod:`.record`: re-records ``corpus/`` from the demo provider (``--record``).
- :mod:`.serve`: a loopback server that answers any request with one stream's exact bytes.
- :mod:`.real`: one :class:`~.real.Runner` per replica, running the real library against
  that server (``RUNNERS``).
- :mod:`.verify`: runs every runner over every stream it speaks and writes
  ``goldens/<replica>.json`` (``python -m clients.verify``).

``tests/core/clients/test_goldens.py`` compares each verified replica with its goldens offline;
``tests/core/clients/test_live_libraries.py`` re-runs the real Python libraries on a few
streams, so a drifted golden or library cannot hide; ``tests/core/clients/test_golden_harness.py``
tests the harness.
"""
