"""``python -m tui.cli``: the `chunkscope` command."""

import sys

from tui.cli import main

sys.exit(main())
