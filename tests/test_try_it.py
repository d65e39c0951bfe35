"""Every version doc ends with experiments to try, and the figures it promises are measured ones.

In README.md and README.zh-CN.md of each version, each experiment is marked by a line
`<!-- try: FLAGS -->`; the text after it, up to the next marker or heading, gives the command
`python VERSION/train.py FLAGS` and the figures to expect. tools/maintainers/try_it.py ran the
defaults and each marked experiment at one seed and wrote reference/try_it/VERSION.csv. Here: both
languages mark the same experiments in the same order, the table holds exactly them, and every
figure the text quotes (4-decimal losses, v8's 1-decimal percentages) is one of the run's, the
defaults' or the version's ten-seed min / mean / max.
"""
import csv
import re
from pathlib import Path

import torch

import pytest

from conftest import ROOT, VERSIONS, import_path, reference_results
from test_docs import spread

try_it = import_path(ROOT / "tools" / "maintainers" / "try_it.py", "try_it")
DOCS = [(v, name) for v in VERSIONS for name in ("README.md", "README.zh-CN.md")]
LOSS = re.compile(r"(?<![\d.])\d\.\d{4}(?!\d)")
PERCENT = re.compile(r"(?<![\d.])\d{1,3}\.\d%")


def measured(version):
    """{flags: row} of reference/try_it/VERSION.csv; '' is the defaults."""
    with open(ROOT / "reference" / "try_it" / f"{version}.csv", newline="") as f:
        return {row["flags"]: row for row in csv.DictReader(f)}


def passages(text):
    """[(flags, the text the marker introduces)] in the doc's order."""
    marks = list(try_it.MARKER.finditer(text))
    found = []
    for i, m in enumerate(marks):
        end = marks[i + 1].start() if i + 1 < len(marks) else len(text)
        heading = re.search(r"^#", text[m.end():end], re.M)
        found.append((m.group(1).strip(),
                      text[m.end():m.end() + heading.start() if heading else end]))
    return found


def figures(row):
    """The figures a row gives, as a doc writes them: losses to 4 decimals, v8's shares right
    (the *_right columns) as percentages to 1 decimal."""
    out = {f"{float(row[k]):.4f}" for k in ("train_loss", "val_loss")}
    out |= {f"{float(v) * 100:.1f}%" for k, v in row.items() if k.endswith("_right") and v}
    return out


def sweep(version):
    """The version's ten-seed min, mean and max on tinyplays, as the docs write them."""
    return set(spread("tinyplays", version))


@pytest.mark.parametrize("version,name", DOCS)
def test_try_it_figures_are_measured(version, name):
    text = (ROOT / version / name).read_text(encoding="utf-8")
    found = passages(text)
    assert [f for f, _ in found] == try_it.experiments(version), (
        f"{version}/{name} should mark the experiments README.md marks, in its order")
    assert len(found) >= 2, f"{version}/{name}: give two or three experiments"
    rows = measured(version)
    assert list(rows) == ["", *try_it.experiments(version)], (
        f"reference/try_it/{version}.csv is not the doc's experiments: "
        f"run python tools/maintainers/try_it.py {version}")
    allowed = figures(rows[""]) | sweep(version)
    for flags, passage in found:
        command = f"python {version}/train.py {flags}"
        assert re.search(re.escape(command) + r"[ `]", passage), (
            f"{version}/{name}: the experiment {flags!r} does not give `{command}`")
        quoted = set(LOSS.findall(passage)) | set(PERCENT.findall(passage))
        own = figures(rows[flags])
        assert quoted & own, f"{version}/{name}: {flags!r} quotes none of its figures {own}"
        stray = quoted - own - allowed
        assert not stray, f"{version}/{name}: {flags!r} quotes {sorted(stray)}, not measured"


@pytest.mark.parametrize("version", VERSIONS)
def test_try_it_defaults_repeat_the_reference_run(version):
    """The defaults row is the reference run again: the experiments and the ladder table are
    measured alike. The same seed and flags give the same figures to the last digit on the same
    processor; the experiments ran on another one than the reference runs (an AMD EPYC), whose
    vector instructions round some sums differently: v1, v4, v7 and v8 repeat to the last digit,
    v5 and v6 end up to 0.0009 away. Two seeds differ by 0.01 or more."""
    defaults, reference = measured(version)[""], reference_results("tinyplays")[version]
    for key in ("params", "steps"):
        assert int(defaults[key]) == int(reference[key]), (version, key)
    for key in ("train_loss", "val_loss"):
        drift = abs(float(defaults[key]) - float(reference[key]))
        assert drift < 0.004, (version, key, drift)


def test_try_it_refuses_a_doc_without_experiments(tmp_path, monkeypatch):
    (tmp_path / "v1_bigram").mkdir()
    (tmp_path / "v1_bigram" / "README.md").write_text("# v1\n\nNo experiments here.\n")
    monkeypatch.setattr(try_it, "ROOT", tmp_path)
    with pytest.raises(try_it.UserError, match="marks no experiment"):
        try_it.experiments("v1_bigram")


def test_folder_names_are_the_flags():
    assert try_it.folder_name("") == "defaults"
    assert try_it.folder_name("--n-head 1") == "n-head_1"
    assert try_it.folder_name("--hidden-act gelu_new") == "hidden-act_gelu_new"


@pytest.mark.parametrize("argv,fragment", [
    (["v9_gpt"], "v9_gpt"),
    (["v4_multihead", "--jobs", "0"], "--jobs must be from 1"),
    (["v4_multihead", "--seed", "-3"], "v4_multihead (defaults): argument --seed: -3 is not from"),
    (["v4_multihead", "--csv", "README.md/x.csv"], "which is a file, not a folder"),
    (["v4_multihead", "--csv", "reference"], "exists and is not a regular file"),
    (["v4_multihead", "--out", "README.md"], "README.md/defaults is not a folder, or is in a file"),
])
def test_try_it_refuses_bad_input_before_any_run(argv, fragment, monkeypatch, capsys):
    monkeypatch.setattr(try_it, "train_all", lambda *a: pytest.fail("a run started"))
    assert try_it.main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and fragment in err and err.count("\n") == 1, err


def test_try_it_writes_into_reference_only_when_asked(monkeypatch, tmp_path, capsys):
    """Its table goes to runs/try_it/VERSION.csv unless --csv names the committed one."""
    def runs(jobs, n):
        rows = [{"step": "3", "train_loss": "2.5", "val_loss": "2.6"}]
        for _, _, out, _ in jobs:
            out.mkdir(parents=True, exist_ok=True)
        return [rows] * len(jobs)

    monkeypatch.setattr(try_it, "train_all", runs)
    monkeypatch.setattr(try_it, "load_run", lambda folder, version: (None, torch.nn.Linear(2, 3)))
    monkeypatch.chdir(tmp_path)
    committed = (ROOT / "reference" / "try_it" / "v4_multihead.csv").read_bytes()
    assert try_it.main(["v4_multihead"]) == 0
    table = (tmp_path / "runs" / "try_it" / "v4_multihead.csv").read_text().splitlines()
    assert table[1] == "v4_multihead,,1337,9,3,2.5,2.6" and len(table) == 2 + len(
        try_it.experiments("v4_multihead"))
    assert (ROOT / "reference" / "try_it" / "v4_multihead.csv").read_bytes() == committed
    assert try_it.main(["v4_multihead", "--csv", "mine.csv"]) == 0 and Path("mine.csv").is_file()


@pytest.mark.parametrize("name", ["v8_bert_mlm/README.md", "v8_bert_mlm/README.zh-CN.md",
                                  "reference/README.md"])
def test_v8_accuracies_are_its_default_run_s(name):
    """v8's doc, and reference/README.md's table of what each accuracy counts, mark passages
    `<!-- accuracies -->` (each up to the next blank line): every percentage there is one that
    tools/maintainers/try_it.py measured on the default run (reference/try_it/v8_bert_mlm.csv),
    and "N of M" blanks is what the reference sample.txt says."""
    text = (ROOT / name).read_text(encoding="utf-8")
    marked = re.findall(r"<!-- accuracies -->\n(.*?)(?:\n\s*\n|\Z)", text, re.S)
    assert marked, f"{name} marks no passage <!-- accuracies -->"
    own = figures(measured("v8_bert_mlm")[""])
    sample = (ROOT / "reference" / "tinyplays" / "samples" / "v8_bert_mlm.txt").read_text()
    blanks = re.search(r"\((\d+) of (\d+) blanks right\)", sample).groups()
    for passage in marked:
        quoted = set(PERCENT.findall(passage))
        assert quoted, f"{name}: a marked passage quotes no percentage"
        assert quoted <= own, f"{name}: {sorted(quoted - own)} are not measured"
        counted = re.findall(r"(\d+) of (\d+)", passage) + [
            (n, m) for m, n in re.findall(r"(\d+) 个空猜对 (\d+)", passage)]
        assert all(c == blanks for c in counted), f"{name}: sample.txt says {blanks}"
