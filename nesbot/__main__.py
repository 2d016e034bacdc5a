from nesbot.cli import main

raise SystemExit(main())
