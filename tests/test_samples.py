"""The reference runs' samples and what the top-level READMEs quote of them.

reference/tinyplays/samples/<version>.txt is the sample.txt of the version's reference run on
tinyplays: for v1-v7, the default prompt (a newline, the vocabulary's first character) then the
default number of generated characters. v8 fills in blanks instead: tests/test_v8_bert_mlm.py
checks its sample.

README.md and README.zh-CN.md have:
`<!-- samples -->`, then one ```text block for each of SHOWN (the first and the last rung that
writes text), with nothing but blank lines between them. A block's first line is `# <version>`;
the rest is the start of that version's sample (past its prompt), at least MIN_EXCERPT characters
of it.
"""

import pytest

from conftest import CAUSAL_VERSIONS, ROOT, load

SAMPLES = ROOT / "reference" / "tinyplays" / "samples"
CORPUS = ROOT / "data" / "tinyplays.txt"
TOP_DOCS = ["README.md", "README.zh-CN.md"]
MIN_EXCERPT = 80  # characters of a sample a README shows, at least
SHOWN = [CAUSAL_VERSIONS[0], CAUSAL_VERSIONS[-1]]  # v1 and v7


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
    assert [head for head, _ in blocks] == [f"# {v}" for v in SHOWN], (
        f"{doc}: the blocks after <!-- samples --> should be headed # <version>, for "
        f"{' and '.join(SHOWN)}")
    for version, (_, excerpt) in zip(SHOWN, blocks):
        prompt, _ = prompt_and_length(version)
        sample = read_sample(version)[len(prompt):]
        assert len(excerpt) >= MIN_EXCERPT, (
            f"{doc}: {version}'s excerpt has {len(excerpt)} characters, fewer than {MIN_EXCERPT}")
        assert sample.startswith(excerpt), (
            f"{doc}: {version}'s excerpt is not the start of "
            f"reference/tinyplays/samples/{version}.txt")
