from kartalint.cli import main

raise SystemExit(main())
