"""``python -m chunkscope``: the `chunkscope` command."""

import sys

from chunkscope.tui.cli import main

sys.exit(main())
