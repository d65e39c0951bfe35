"""The frozen skeleton: consecutive train.py files differ only in their docstring, hyperparameters
and model, so that `diff -u` between two versions shows one idea."""
import ast
import difflib
import re

import pytest

from conftest import ROOT, VERSIONS

SECTIONS = ["hyperparameters", "data", "model", "training", "sampling", "command line"]
MAY_DIFFER = {"docstring", "hyperparameters", "model"}
MARKER = re.compile(r"^# -+ ([a-z ]+)$")


def sections(version):
    """{section name: its lines}, split at the `# ----- name` markers; the module docstring is its
    own section."""
    source = (ROOT / version / "train.py").read_text(encoding="utf-8")
    lines = source.splitlines()
    doc_end = ast.parse(source).body[0].end_lineno
    parts, name = {"docstring": lines[:doc_end], "imports": []}, "imports"
    for line in lines[doc_end:]:
        m = MARKER.match(line)
        if m:
            name = m.group(1)
            assert name not in parts, f"{version}: section {name!r} appears twice"
            parts[name] = []
        parts[name].append(line)
    return parts


@pytest.mark.parametrize("version", VERSIONS)
def test_every_version_has_the_same_sections_in_order(version):
    assert list(sections(version)) == ["docstring", "imports", *SECTIONS]


@pytest.mark.parametrize("older,newer", list(zip(VERSIONS, VERSIONS[1:])))
def test_only_docstring_hyperparameters_and_model_change(older, newer):
    a, b = sections(older), sections(newer)
    for name in a.keys() - MAY_DIFFER:
        diff = "\n".join(difflib.unified_diff(a[name], b[name], older, newer, lineterm=""))
        assert a[name] == b[name], (
            f"section {name!r} differs between {older} and {newer}:\n{diff}")


# v7 replaces v6's Block with HuggingFace's BertLayer rebuilt class by class (a config, seven
# classes, chunking, cross-attention, a KV cache): a larger component, so a larger budget; every
# other step keeps 120.
MAX_CHANGED_LINES = {"v7_bert_layer": 400}


@pytest.mark.parametrize("older,newer", list(zip(VERSIONS, VERSIONS[1:])))
def test_each_step_stays_small(older, newer):
    """A step adds one component: its diff stays readable (under 120 changed lines, or its own
    budget above)."""
    a = (ROOT / older / "train.py").read_text(encoding="utf-8").splitlines()
    b = (ROOT / newer / "train.py").read_text(encoding="utf-8").splitlines()
    changed = [l for l in difflib.unified_diff(a, b, lineterm="", n=0)
               if l[:1] in "+-" and l[:3] not in ("+++", "---")]
    assert 0 < len(changed) < MAX_CHANGED_LINES.get(newer, 120), (
        f"{older} -> {newer}: {len(changed)} changed lines")


def test_train_scripts_are_self_contained():
    """No version imports from another folder of the repository."""
    for version in VERSIONS:
        tree = ast.parse((ROOT / version / "train.py").read_text(encoding="utf-8"))
        imported = {n.name.split(".")[0] for node in ast.walk(tree)
                    if isinstance(node, ast.Import) for n in node.names}
        imported |= {node.module.split(".")[0] for node in ast.walk(tree)
                     if isinstance(node, ast.ImportFrom)}
        assert imported <= {"argparse", "csv", "dataclasses", "os", "re", "sys", "time", "pathlib",
                            "torch", "tqdm", "matplotlib"}, (
            version, imported)
