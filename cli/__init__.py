"""The command line: ``python -m economics <subcommand> ...`` (see :mod:`cli.main`).

A package of its own, outside the pure core: it reads files through :mod:`economics.io`, calls the core, and
writes the meeting pack through :mod:`reporting`. ``economics`` never imports it; ``economics/__main__.py`` is
the one-line shim that keeps ``python -m economics`` working. Run it with :func:`cli.main.main` (this
``__init__`` binds nothing, so ``cli.main`` stays the module).
"""
