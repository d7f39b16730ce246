"""``python -m policy_engine`` runs the ``policy`` command."""

import sys

from .cli import main

sys.exit(main())
