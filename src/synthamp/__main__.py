"""``python -m synthamp``: the same as the ``synthamp`` console script."""

import sys

from synthamp.cli import main

sys.exit(main())
