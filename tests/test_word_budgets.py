"""The English docs stay short: a word budget for the prose of each.

Prose words: the text without its ``` fenced blocks, without table lines (those that start
with |, leading blanks aside) and without its "## Try it" section (experiments, outside the
budget), split on whitespace. Headings, links and inline code count.
"""
import re

import pytest

from conftest import ROOT, VERSIONS

BUDGETS = {"README.md": 600, **{f"{v}/README.md": 650 for v in VERSIONS},
           "v7_bert_layer/README.md": 1000}
if (ROOT / "v8_bert_mlm" / "README.md").is_file():
    BUDGETS["v8_bert_mlm/README.md"] = 800


def prose_words(text):
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    text = re.sub(r"^## Try it\n.*?(?=^## |\Z)", "", text, flags=re.S | re.M)
    lines = [line for line in text.splitlines() if not line.lstrip().startswith("|")]
    return len("\n".join(lines).split())


@pytest.mark.parametrize("doc,budget", BUDGETS.items())
def test_english_docs_keep_to_their_word_budget(doc, budget):
    words = prose_words((ROOT / doc).read_text(encoding="utf-8"))
    assert words <= budget, f"{doc} has {words} words of prose, over its budget of {budget}"


def test_prose_words_leave_out_code_and_tables():
    text = "One two.\n\n```python\nx = 1\n```\n| a | b |\n  |---|---|\nthree `four`\n"
    assert prose_words(text) == 4
    tried = "## Try it\n\n- Run it.\n\n## Next\n\nfive six\n"
    assert prose_words(text + tried) == 4 + 4  # "## Next five six"
