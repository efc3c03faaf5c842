"""Text someone else typed (a shared scenario's names, an uploaded file's name) is shown in Streamlit markdown
through ``md_escape``. Escaping the markdown characters is not enough: GitHub-flavoured markdown also links a
bare address ("https://…", "www.…", "name@domain") after escapes are undone, so the escape breaks those with
an invisible word joiner. The browser side (no <a> in the alert) is in tests/browser/test_accuracy_upload.py."""

from __future__ import annotations

import re

import pytest

from ui.format import WORD_JOINER, md_escape

# what GitHub-flavoured markdown links in plain text (mdast-util-gfm-autolink-literal's find-and-replace)
LINKED = re.compile(r"(?i)https?://|www\.|[\w.+-]+@[\w-]+\.")


@pytest.mark.parametrize(
    "typed",
    [
        "Review https://evil.example/pay now",
        "HTTP://EVIL.EXAMPLE",
        "see www.evil.example",
        "ask ana.lim@bank.example",
        "[Q4](javascript:alert(1)) ![x](https://x.example/a.png)",
        "<a href='https://x.example'>x</a>",
    ],
)
def test_an_address_typed_by_someone_else_is_not_a_link(typed: str) -> None:
    escaped = md_escape(typed)
    unescaped = re.sub(r"\\(.)", r"\1", escaped)  # what markdown shows once escapes are undone
    assert not LINKED.search(unescaped), unescaped
    assert unescaped.replace(WORD_JOINER, "") == typed  # it still reads exactly as typed


def test_plain_text_is_left_as_it_is() -> None:
    assert md_escape("Singapore bank Q4 review") == "Singapore bank Q4 review"
    assert md_escape("cost: 3 // 4") == "cost\\: 3 // 4"  # a colon not followed by // is only escaped
    assert md_escape("two\nlines") == "two lines"
