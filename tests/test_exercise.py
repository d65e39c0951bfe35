"""tools/exercise.py: every exercise's target passes, its starting file fails, and every mistake
in the catalogue, applied to the target, fails with its own hint (a mutation test). Then the
command line: writing an exercise, never over one, checking, listing, bad input."""
import os

import pytest

from conftest import ROOT, load_tool

exercise = load_tool("exercise")
catalogue = exercise.catalogue
EVERY = exercise.exercises()
NAMES = [name for name, _, _ in EVERY]
CACHE = {}  # each target and its mistakes loaded once for the whole module


def run_check(name, text, tmp_path, lang="en"):
    """(passed, what the check said) for the program text checked as the exercise name."""
    path = tmp_path / "train.py"
    path.write_text(text, encoding="utf-8")
    lines = []
    target = dict((n, t) for n, _, t in EVERY)[name]
    passed = exercise.check(name, target, path, lang, say=lines.append, cache=CACHE)
    return passed, "\n".join(lines)


def test_every_rung_from_v4_and_every_step_is_an_exercise():
    steps = sorted(p.parent.parent.name + "/" + p.stem for p in ROOT.glob("v*/steps/*.diff"))
    assert sorted(n for n in NAMES if "/" in n) == steps
    assert [n for n in NAMES if "/" not in n] == exercise.VERSIONS[1:]
    assert set(catalogue.TASKS) == set(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_the_target_passes(name, tmp_path):
    passed, said = run_check(name, dict((n, t) for n, _, t in EVERY)[name], tmp_path)
    assert passed, said
    assert "python exercises/" in said and "expect a val loss near" in said


@pytest.mark.parametrize("name", NAMES)
def test_the_starting_file_fails(name, tmp_path):
    start, target = dict((n, (s, t)) for n, s, t in EVERY)[name]
    passed, said = run_check(name, exercise.starting_file(name, start, target, "en"), tmp_path)
    assert not passed, said


MUTANTS = [(m["exercise"], i, m) for i, m in enumerate(catalogue.MISTAKES)]
RUNG_MUTANTS = [(name, m) for name in exercise.VERSIONS[1:] for m in
                catalogue.mistakes_for(name, dict((n, t) for n, _, t in EVERY)[name])]


@pytest.mark.parametrize("name, index, mistake", MUTANTS,
                         ids=[f"{n}-{i}" for n, i, _ in MUTANTS])
def test_each_mistake_fails_with_its_own_hint(name, index, mistake, tmp_path):
    target = dict((n, t) for n, _, t in EVERY)[name]
    applied = [m for m in catalogue.mistakes_for(name, target) if m["edits"] == mistake["edits"]]
    assert applied, f"mistake {index}'s edit does not apply to {name}'s program"
    passed, said = run_check(name, applied[0]["text"], tmp_path)
    assert not passed and mistake["hint"][0] in said, said


@pytest.mark.parametrize("name, mistake", RUNG_MUTANTS,
                         ids=[f"{n}-{m['exercise'].split('/')[-1]}" for n, m in RUNG_MUTANTS])
def test_a_step_s_mistake_made_in_the_whole_rung_fails_too(name, mistake, tmp_path):
    passed, said = run_check(name, mistake["text"], tmp_path)
    assert not passed, said


def test_each_mistake_names_a_doc_section_that_exists():
    for m in catalogue.MISTAKES:
        rung, en, zh = m["doc"]
        assert f"## {en}\n" in (ROOT / rung / "README.md").read_text(encoding="utf-8"), m
        assert f"## {zh}\n" in (ROOT / rung / "README.zh-CN.md").read_text(encoding="utf-8"), m
