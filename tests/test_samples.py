"""The reference runs' samples and what the top-level READMEs quote of them.

reference/tinyplays/samples/<version>.txt is the sample.txt of the version's reference run on
tinyplays: for v1-v7, the default prompt (a newline, the vocabulary's first character) then the
default number of generated characters. v8 fills in blanks instead: tests/test_v8_bert_mlm.py
checks its sample.

README.md and README.zh-CN.md have:
- `<!-- samples -->`, then one ```text block per version, in the ladder's order, with nothing but
  blank lines between them. A block's first line is `# <version>`; the rest is the start of that
  version's sample (past its prompt), at least MIN_EXCERPT characters of it.
- `<!-- real-words -->`, introducing one line (the rest of the comment's line, or the next line
  that is not blank) that gives, per version in order, the share of the words of its sample that
  are words of data/tinyplays.txt, as a whole percentage: see real_word_share.
"""
import re

import pytest

from conftest import CAUSAL_VERSIONS, ROOT, load, marked_line

SAMPLES = ROOT / "reference" / "tinyplays" / "samples"
CORPUS = ROOT / "data" / "tinyplays.txt"
TOP_DOCS = ["README.md", "README.zh-CN.md"]
MIN_EXCERPT = 80  # characters of a sample a README shows, at least


def read_sample(version):
    # bytes, then decode: no newline translation, the file as the run wrote it
    return (SAMPLES / f"{version}.txt").read_bytes().decode("utf-8")


def prompt_and_length(version):
    """The prompt a run starts its sample with and the sample's length, at the defaults."""
    module = load(version)
    args = module.parse_args([])
    chars, _ = module.read_data(CORPUS)
    prompt = args.prompt or chars[0]  # as sample(): an empty prompt means the first character
    return prompt, len(prompt) + args.sample_chars


def real_word_share(sample, vocab_words, prompt="\n"):
    """The percentage (a whole number) of the words of sample, past its prompt, that vocab_words
    holds, lower-cased. A word is a run of ASCII letters."""
    assert sample.startswith(prompt), "a sample starts with its prompt"
    words = re.findall(r"[A-Za-z]+", sample[len(prompt):])
    assert words, "a sample without words has no share"
    return round(100 * sum(w.lower() in vocab_words for w in words) / len(words))


def corpus_words():
    return {w.lower() for w in re.findall(r"[A-Za-z]+", CORPUS.read_text(encoding="utf-8"))}


@pytest.mark.parametrize("version", CAUSAL_VERSIONS)
def test_every_version_has_its_reference_sample(version):
    path = SAMPLES / f"{version}.txt"
    assert path.is_file(), f"{path.relative_to(ROOT)} is missing"
    sample = read_sample(version)
    prompt, length = prompt_and_length(version)
    assert prompt == "\n", "the default prompt is a newline"
    assert sample.startswith(prompt), f"{version}'s sample does not start with the default prompt"
    assert len(sample) == length, f"{version}'s sample has {len(sample)} characters, not {length}"
    strangers = set(sample) - set(CORPUS.read_text(encoding="utf-8"))
    assert not strangers, f"{version}'s sample has characters tinyplays lacks: {strangers}"


def top_doc(doc):
    path = ROOT / doc
    assert path.is_file(), f"{doc} is missing"
    return path.read_text(encoding="utf-8")


def sample_blocks(text):
    """[(first line, rest joined by newlines)] of the ```text blocks that follow
    <!-- samples --> with only blank lines between them; None without the marker."""
    _, marker, after = text.partition("<!-- samples -->")
    if not marker:
        return None
    lines, blocks, i = after.split("\n")[1:], [], 0
    while i < len(lines):
        if not lines[i].strip():
            i += 1
            continue
        if lines[i].rstrip() != "```text":
            break
        end = lines.index("```", i + 1) if "```" in lines[i + 1:] else None
        assert end is not None, "a ```text block after <!-- samples --> is not closed"
        body = lines[i + 1:end]
        blocks.append((body[0] if body else "", "\n".join(body[1:])))
        i = end + 1
    return blocks


@pytest.mark.parametrize("doc", TOP_DOCS)
def test_readme_samples_are_the_reference_samples(doc):
    blocks = sample_blocks(top_doc(doc))
    assert blocks is not None, f"{doc} has no <!-- samples --> marker"
    assert [head for head, _ in blocks] == [f"# {v}" for v in CAUSAL_VERSIONS], (
        f"{doc}: the blocks after <!-- samples --> should be headed # <version>, one per version "
        "in the ladder's order")
    for version, (_, excerpt) in zip(CAUSAL_VERSIONS, blocks):
        prompt, _ = prompt_and_length(version)
        sample = read_sample(version)[len(prompt):]
        assert len(excerpt) >= MIN_EXCERPT, (
            f"{doc}: {version}'s excerpt has {len(excerpt)} characters, fewer than {MIN_EXCERPT}")
        assert sample.startswith(excerpt), (
            f"{doc}: {version}'s excerpt is not the start of "
            f"reference/tinyplays/samples/{version}.txt")


@pytest.mark.parametrize("doc", TOP_DOCS)
def test_readme_real_word_shares_are_the_samples(doc):
    lines = marked_line(top_doc(doc), "real-words")
    assert lines, f"{doc} has no <!-- real-words --> line"
    vocab = corpus_words()
    expected = []
    for version in CAUSAL_VERSIONS:
        prompt, _ = prompt_and_length(version)
        expected.append(real_word_share(read_sample(version), vocab, prompt))
    for line in lines:
        quoted = [int(p) for p in re.findall(r"(\d+)%", line)]
        assert quoted == expected, (f"{doc}: the real-words line gives {quoted}%; the samples "
                                    f"give {expected}% ({', '.join(CAUSAL_VERSIONS)})")


def test_real_word_share_counts_words_not_characters():
    vocab = {"the", "king"}
    assert real_word_share("\nThe KING and the queen, thee.", vocab) == 50  # 3 of 6
    assert real_word_share("\nxq zzv", vocab) == 0
    assert real_word_share("\nking's", vocab) == 50  # king, s
    assert real_word_share("\nthe king kin", vocab) == 67  # 2 of 3, rounded
    assert real_word_share("xyz the", vocab, prompt="xyz ") == 100  # the prompt is not counted
