"""Every `python ...` command a doc shows runs as shown. Each command in the docs' code blocks and
code spans, English and Chinese, is read by its script's own parser; the train.py ones then run,
cut to a few steps on the tiny corpus (a training) or against a tiny trained run (--generate)."""
import argparse
import re
import shlex
import shutil

import pytest

from conftest import ROOT, VERSIONS, call_main, import_path, load, repo_docs, tiny_args

DOCS = [ROOT / doc for doc in sorted({*repo_docs("*.md"), *repo_docs("*/README*.md"),
                                      *repo_docs("reference/*.md")})]
TINY = ["--max-iters", "2", "--eval-interval", "1", "--eval-iters", "1", "--batch-size", "2",
        "--sample-chars", "5"]  # last on the line: argparse keeps a flag's last value


def commands(text):
    """Each `python FILE.py ...` command in text's fenced blocks (continued lines joined) and
    code spans, as argv lists without `python`."""
    found = []
    for block in re.findall(r"^```[^\n]*\n(.*?)^```", text, re.M | re.S):
        found += [line.strip() for line in block.replace("\\\n", " ").splitlines()]
    found += re.findall(r"`(python [^`]+)`", text)
    argvs = []
    for line in found:
        line = line.removeprefix("$ ")
        for part in re.split(r"\s*(?:&&|;|\|)\s*", line):  # the python part of a pipe too
            argv = shlex.split(part, comments=True)[1:] if part.startswith("python ") else []
            template = any(re.match(r"[<\[]|\.\.\.$", a) for a in argv)  # <version>, [...]
            if argv and argv[0].endswith(".py") and not template:
                argvs.append(argv)
    return argvs


SHOWN = {}  # each command, once, with the first doc that shows it (a zh doc repeats the en's)
for doc in DOCS:
    for argv in commands(doc.read_text(encoding="utf-8")):
        SHOWN.setdefault(tuple(argv), doc.relative_to(ROOT).as_posix())
ALL = sorted((doc, argv) for argv, doc in SHOWN.items())


def test_the_docs_show_commands_of_every_kind():
    scripts = {argv[0] for _, argv in ALL}
    assert {f"{v}/train.py" for v in VERSIONS} <= scripts
    assert any(s.startswith("tools/") for s in scripts) and len(ALL) > 30


class Parsed(Exception):
    """Raised once a script's own parser has read its flags: the command stops there."""


@pytest.mark.parametrize("doc,argv", ALL, ids=[" ".join(a) for _, a in ALL])
def test_each_command_s_parser_accepts_it(doc, argv, monkeypatch, capsys):
    script, *flags = argv
    path = ROOT / script
    assert path.is_file(), f"{doc}: no {script}"
    real = argparse.ArgumentParser.parse_args

    def parse_args(self, args=None, namespace=None):
        real(self, args, namespace)
        raise Parsed

    monkeypatch.setattr(argparse.ArgumentParser, "parse_args", parse_args)
    module = load(path.parent.name) if path.name == "train.py" and path.parent.name in VERSIONS \
        else import_path(path, f"doc_{path.stem}")
    with pytest.raises((Parsed, SystemExit)) as caught:
        module.main(flags)
    if caught.type is SystemExit:  # --help, and nothing else, exits in the parser
        assert "--help" in flags and caught.value.code in (0, None), (doc, capsys.readouterr())
    assert "error" not in capsys.readouterr().err


TRAIN = [(doc, argv) for doc, argv in ALL if re.fullmatch(r"v\w+/train\.py", argv[0])]


@pytest.mark.parametrize("doc,argv", TRAIN, ids=[" ".join(a) for _, a in TRAIN])
def test_each_train_command_runs(doc, argv, trained, tiny_corpus, tmp_path, capsys):
    version, flags = argv[0].split("/")[0], list(argv[1:])
    if "--help" in flags:
        return
    if "--generate" in flags:
        out = tmp_path / "run"
        shutil.copytree(trained[version], out)
        flags += ["--out", out, "--data", tiny_corpus, "--sample-chars", 5]
    else:  # the tiny corpus in place of the doc's text, a folder of the test's own for --out
        for flag in ("--data", "--out"):  # never the repository's runs/: they may be yours
            if flag in flags:
                del flags[flags.index(flag):flags.index(flag) + 2]
        flags = tiny_args(tiny_corpus, tmp_path / "run", *flags) + TINY
    if version != "v1_bigram" and "--block-size" not in argv and "--generate" not in flags:
        flags += ["--block-size", load(version).block_size]
    code = call_main(load(version), flags)
    assert code == 0, (doc, argv, capsys.readouterr().err)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run"], "the run went elsewhere"
