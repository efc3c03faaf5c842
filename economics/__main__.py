"""``python -m economics``: a shim that runs the command line in :mod:`cli.main`.

The CLI lives in the top-level package ``cli/``, outside the pure core (it imports ``reporting`` and writes
files). This module stays because ``python -m economics ...`` is the documented command (README, the CLI's own
help, scripts and saved runbooks); ``economics`` itself never imports ``cli``: only running this file does.
"""

from cli.main import main

if __name__ == "__main__":
    raise SystemExit(main())
