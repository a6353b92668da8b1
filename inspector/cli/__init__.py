"""The command line, ``toolcall-inspector`` (and ``python -m inspector``): the entry point and
its dispatch (:mod:`.main`), then one module per subcommand. Thin wrappers over the core, the
network layer and the window; no exception reaches the user as a traceback.
"""

from inspector.cli.main import main

__all__ = ["main"]
