"""``python -m rankscope.cli``."""

import sys

from . import main

sys.exit(main())
