"""``python -m economics``: see :mod:`economics.cli`."""

from economics.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
