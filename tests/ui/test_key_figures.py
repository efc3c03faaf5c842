"""Key figures: one markdown table, names made inert."""

from __future__ import annotations

from ui.widgets.key_figures import key_figures_markdown


def test_labels_over_bold_values_with_markdown_escaped() -> None:
    text = key_figures_markdown([("Owned [USD/Mtok]", "$1.50"), ("A | B", "÷3")])
    assert text.splitlines() == [
        r"| Owned \[USD/Mtok\] | A \| B |",
        "|:--|:--|",
        r"| **\$1\.50** | **÷3** |",
    ]


def test_a_name_cannot_smuggle_a_link_or_html() -> None:
    text = key_figures_markdown([("[x](http://evil) <b>", "1")])
    assert "](" not in text
    assert "<b>" not in text


def test_a_title_gives_one_row_per_figure() -> None:
    text = key_figures_markdown([("AR tok/s", "1,223"), ("Swing", "÷9.4")], title="At batch 16")
    assert text.splitlines() == [
        "| At batch 16 | value |",
        "|:--|--:|",
        "| AR tok/s | **1,223** |",
        r"| Swing | **÷9\.4** |",
    ]
