"""``python -m kartalint``: the command line."""

from kartalint.cli import main

raise SystemExit(main())
