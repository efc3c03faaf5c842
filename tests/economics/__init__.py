"""Tests of the economics core, one file per module (STYLE.md habit 9)."""
