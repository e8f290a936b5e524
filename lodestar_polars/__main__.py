"""``python -m lodestar_polars``: the same as the ``lodestar-polars`` command."""

from __future__ import annotations

from lodestar_polars.cli import main

if __name__ == "__main__":
    main()
