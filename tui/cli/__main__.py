"""``python -m chunkscope.tui.cli``: the `chunkscope` command."""

import sys

from chunkscope.tui.cli import main

sys.exit(main())
