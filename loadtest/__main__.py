"""``python -m loadtest SCENARIO [--out DIR] [--keep] [--profile]``."""

import sys

from loadtest.harness import main

sys.exit(main())
