"""``python -m policy_engine`` runs the ``policy`` command."""

import sys

from .client import main

sys.exit(main())
