"""Test-session setup shared by every test: the one hypothesis profile (see :mod:`tests.strategies`)."""

from __future__ import annotations

import os

from hypothesis import settings

import tests.strategies  # noqa: F401  (registers the profiles)

settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "house"))
