"""``python -m nbayes``: the ``nbayes`` command (as ``python -m nbayes.cli``)."""

from .cli import main

raise SystemExit(main())
