"""``python -m samsa`` is the ``samsa`` command."""

import sys

from samsa.cli import main

sys.exit(main())
