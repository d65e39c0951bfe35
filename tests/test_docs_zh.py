"""The Chinese docs use the terms of 《动手学深度学习》 (d2l.ai, zh), one term per idea, and tell a
Chinese-only reader where a link leads to a page in English.
"""
import re

import pytest

from conftest import ROOT, repo_docs

ZH_DOCS = repo_docs("**/*.zh-CN.md")
# a term the docs settled on, and the other words for the same idea they no longer use
TERMS = {
    "残差连接": ["残差通路", "跳跃连接", "恒等通路", "残差路径"],
    "层规范化": ["层归一化", "层标准化"],
    "批量规范化": ["批归一化", "批量归一化"],
    "前置规范化": ["前归一化", "前置归一化"],
    "后置规范化": ["后归一化", "后置归一化"],
    "掩蔽语言模型": ["掩码语言模型", "遮蔽语言模型", "遮盖语言模型"],
    "掩蔽": ["遮住", "遮掉", "遮盖", "屏蔽"],
    "掩蔽词元": ["掩码词元"],
    "词元": ["令牌"],
    "提示词": ["提示文本", "提示语"],
    "上下文长度": ["块大小"],
    "分段": ["分块", "切块"],
    "输出层": ["输出头"],
    "注意力权重": ["注意力概率"],
    "准确率": ["猜对率", "正确率"],
    "基于位置的前馈网络": ["逐位置的前馈网络", "位置前馈网络"],
    "词元嵌入": ["词嵌入", "字符嵌入"],
    "批量": ["批次"],
    "前馈网络": ["前馈层"],
    "课程": ["讲座"],  # Karpathy's lecture, "Let's build GPT"
}


def avoided(text, others):
    """The words of others that text uses. An avoided word that is part of a term TERMS settled
    on does not count where it stands inside that term, so the preferred form is never flagged."""
    found = []
    for w in others:
        kept = [t for t in TERMS if w in t and t != w]
        rest = re.sub("|".join(map(re.escape, kept)), "\0", text) if kept else text
        if w in rest:
            found.append(w)
    return found


def prose(text):
    """text without code blocks and inline code: where a term is a word, not a name."""
    return re.sub(r"`[^`\n]*`", "", re.sub(r"^```.*?^```", "", text, flags=re.S | re.M))


@pytest.mark.parametrize("doc", ZH_DOCS)
def test_one_term_per_idea(doc):
    text = prose((ROOT / doc).read_text(encoding="utf-8"))
    for term, others in TERMS.items():
        used = avoided(text, others)
        assert not used, f"{doc} writes {used} for {term}"
    # the module's name stays in code; the prose says 层规范化
    assert "LayerNorm" not in text.replace("BertSelfOutput.LayerNorm", ""), (
        f"{doc} says LayerNorm in its prose: write 层规范化 (the module name goes in backticks)")
    # `lm_head` is 输出层; 掩蔽语言模型头 is the masked-LM head, `cls`
    assert not re.search(r"(?<!掩蔽)语言模型头", text), f"{doc}: `lm_head` is 输出层"
    # HF's `decoder` in the masked-LM head is an output projection, not a Transformer decoder
    assert "解码器（decoder" not in text and "解码器（`decoder" not in text, (
        f"{doc}: the head's `decoder` is 输出投影, not 解码器")


@pytest.mark.parametrize("doc", ZH_DOCS)
def test_each_doc_ends_with_a_short_summary(doc):
    """小结: the doc's last section, two or three lines of prose."""
    text = (ROOT / doc).read_text(encoding="utf-8").rstrip()
    head, _, last = text.rpartition("\n## ")
    assert head and last.startswith("小结"), f"{doc} does not end with ## 小结"
    lines = [line for line in last.splitlines()[1:] if line.strip()]
    assert 2 <= len(lines) <= 3, f"{doc}: its 小结 has {len(lines)} lines: write 2 or 3"


@pytest.mark.parametrize("doc", ZH_DOCS)
def test_known_errors_stay_fixed(doc):
    text = prose((ROOT / doc).read_text(encoding="utf-8"))
    # 15% of a window's positions are chosen, not 15% of the input hidden
    assert not re.search(r"遮住\s*15", text), f"{doc}: 15% are chosen, of which 80% masked"
    # in N(mu, sigma^2) notation 0.02 would read as a variance: say 标准差 0.02
    assert "N(0, 0.02)" not in text, f"{doc}: write 均值 0、标准差 0.02 的正态分布"
    assert "最小的浮点数" not in text, f"{doc}: it is the most negative finite float"


@pytest.mark.parametrize("doc", ZH_DOCS)
def test_links_to_english_only_pages_say_so(doc):
    """A link to one of the repo's Markdown pages that has no Chinese version says （英文）, at the
    end of its text or right after it."""
    path = ROOT / doc
    text = path.read_text(encoding="utf-8")
    for m in re.finditer(r"\[([^\]]*)\]\(([^)\s#]+\.md)(#[^)]*)?\)", text):
        label, link = m.group(1), m.group(2)
        target = (path.parent / link).resolve()
        if re.match(r"[a-z]+:", link) or target.name.endswith(".zh-CN.md"):
            continue
        if target.with_name(target.stem + ".zh-CN.md").exists():
            continue  # e.g. README.md beside README.zh-CN.md: a link to the other language
        after = text[m.end():m.end() + 6]
        assert label.endswith("（英文）") or after.startswith("（英文）"), (
            f"{doc}: the link to {link} leads to a page in English: add （英文） after it")


@pytest.mark.parametrize("doc", ZH_DOCS)
def test_every_exercise_command_a_chinese_doc_shows_keeps_lang_zh(doc):
    text = (ROOT / doc).read_text(encoding="utf-8")
    for command in re.findall(r"`(python tools/exercise\.py[^`]*)`", text):
        assert "--lang zh" in command, f"{doc}: {command}"
