"""``python -m inspector.cli`` runs the command-line entry point, as ``python -m inspector``."""

import sys

from inspector.cli.main import main

sys.exit(main())
