"""Defaults a security reviewer expects: XSRF and CORS on, the upload cap equal to the largest valid file, no
``unsafe_allow_html`` with user text anywhere in the app, and only http(s) URLs in generated files."""

from __future__ import annotations

import ast
import math
import tomllib
from html.parser import HTMLParser
from pathlib import Path

import pytest

from economics.io.scenarios import MAX_SCENARIO_BYTES, load_preset
from reporting.meeting_pack import build_pack, render_html

ROOT = Path(__file__).resolve().parents[2]
APP_FILES = sorted([ROOT / "app.py", *(ROOT / "pages").glob("*.py"), *(ROOT / "ui").rglob("*.py")])


def test_streamlit_keeps_xsrf_and_cors_on_and_caps_uploads_at_the_largest_valid_file() -> None:
    server = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())["server"]
    assert server["enableXsrfProtection"] is True
    assert server["enableCORS"] is True
    # Streamlit counts maxUploadSize in MB (2**20 B): the cap admits the largest valid file and not much more
    assert server["maxUploadSize"] == math.ceil(MAX_SCENARIO_BYTES / 2**20)


def unsafe_html_calls(source: str) -> list[int]:
    """Lines of calls passing ``unsafe_allow_html=`` anything but False, unless the HTML is a string literal."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        for kw in node.keywords:
            if kw.arg != "unsafe_allow_html":
                continue
            if isinstance(kw.value, ast.Constant) and kw.value.value is False:
                continue
            literal = bool(node.args) and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)
            if not literal:
                lines.append(node.lineno)
    return lines


@pytest.mark.parametrize("path", APP_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_unsafe_allow_html_with_text_built_at_run_time(path: Path) -> None:
    assert unsafe_html_calls(path.read_text(encoding="utf-8")) == [], path


def test_the_html_checker_can_fail() -> None:
    bad = 'import streamlit as st\nst.markdown(f"<b>{name}</b>", unsafe_allow_html=True)\n'
    ok = 'st.markdown("<br>", unsafe_allow_html=True)\nst.markdown(x, unsafe_allow_html=False)\n'
    assert unsafe_html_calls(bad) == [2]
    assert unsafe_html_calls(ok) == []


def test_a_pack_refuses_a_non_http_app_url_and_links_only_http() -> None:
    scenario = load_preset("batch-shop")
    with pytest.raises(ValueError, match="http"):
        build_pack(scenario, app_url="javascript:alert(1)", uncertainty=False)
    html = render_html(build_pack(scenario, app_url="https://llm.example.org/", uncertainty=False))
    links = _links(html)
    assert any(u.startswith("https://llm.example.org/?s=v1.") for u in links), links
    for url in links:
        assert url.startswith(("https://", "http://", "#")), url


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.urls += [v or "" for k, v in attrs if k in ("href", "src", "action", "formaction")]


def _links(html: str) -> list[str]:
    """Every URL in an HTML attribute (script bodies are not attributes: plotly.js's own code is skipped)."""
    parser = _Links()
    parser.feed(html)
    return parser.urls
