"""Delete nothing you did not make. Each test is one class of what a careless user meets, tried on
a train.py's run (its plumbing is the same in every version) and on tools/common.py's new_folder,
the other writer of a folder:

1. a run removes only what it made: folders above --out only while empty, nothing recursively;
   what a run that died left is put back or kept, never deleted;
2. the swap looks at --out again: a file the user put there meanwhile is never moved;
3. the lock dies with its process (SIGKILL, SIGHUP), and SIGHUP saves as SIGTERM does;
4. tools write nothing into a run's folder, nor where a run they start will write, by one rule;
   train.py and tools/common.py agree on what a run's folder is."""
import ast
import errno
import fcntl
import os
import pathlib
import shutil
import signal
import subprocess
import sys
import time
import warnings

import pytest
import torch

from conftest import (ROOT, VERSIONS, folder_bytes, load, load_tool, on_call,
                      tiny_args)
from test_bad_input import assert_one_line_error
from test_run_folder import stop_on_call

sys.path.insert(0, str(ROOT / "tools"))
import common  # noqa: E402


def TRAINED(folder):  # what new_folder may replace: a folder that holds a table, as steps.py's
    return (folder / "steps.csv").is_file()


def others_work(exp, trained):
    """What another run and the user put into exp meanwhile: a finished run, and notes."""
    exp.mkdir(exist_ok=True)
    shutil.copytree(trained["v1_bigram"], exp / "b")
    (exp / "notes.txt").write_text("mine")


# ------------------------------------------------------------------ 1. only what it made
@pytest.mark.parametrize("how", ["ctrl-c before the first step", "a prompt it cannot write",
                                 "a nan"])
def test_a_run_that_saves_nothing_removes_only_the_empty_folders_it_made(how, run, trained,
                                                                         tiny_corpus, tmp_path,
                                                                         monkeypatch):
    """--out exp/a, exp new: meanwhile another run finishes into exp/b and the user writes
    exp/notes.txt. The run that saves nothing leaves both."""
    module = load("v6_block")
    exp = tmp_path / "exp"
    real = module.read_data
    monkeypatch.setattr(module, "read_data", lambda path: (others_work(exp, trained),
                                                           real(path))[1])
    flags = []
    if how == "ctrl-c before the first step":
        stop_on_call(monkeypatch, module, 1, None)
    elif how == "a prompt it cannot write":
        flags = ["--prompt", "\u00e9"]
    else:
        nan = torch.tensor(float("nan"), requires_grad=True)
        monkeypatch.setattr(module.F, "cross_entropy", lambda *args, **kwargs: nan * 1)
    code, _, err = run("v6_block", tiny_args(tiny_corpus, exp / "a", *flags))
    assert code in (1, 130) and err.count("\n") == 1
    assert sorted(os.listdir(exp)) == ["b", "notes.txt"]
    assert folder_bytes(exp / "b") == folder_bytes(trained["v1_bigram"])


def test_what_a_run_that_died_left_is_put_back_or_kept(run, trained, tiny_corpus, tmp_path,
                                                       monkeypatch, capsys):
    """Killed between the two renames of its swap: .run.partial/old holds the user's previous run
    and run/ is missing; a finished run it never swapped in is in .run.partial/new. The next run
    puts the first back, keeps the second under a name it says, and deletes neither."""
    partial = tmp_path / ".run.partial"
    partial.mkdir()
    shutil.copytree(trained["v1_bigram"], partial / "old")
    shutil.copytree(trained["v4_multihead"], partial / "new")
    (partial / "notes.txt").write_text("mine")  # a file of the user's, put there by hand
    (partial / "lock").touch()
    stop_on_call(monkeypatch, load("v1_bigram"), 1, None)  # then stopped before its first step
    code, _, err = run("v1_bigram", tiny_args(tiny_corpus, tmp_path / "run"))
    assert code == 130
    assert folder_bytes(tmp_path / "run") == folder_bytes(trained["v1_bigram"])
    kept = sorted(p for p in tmp_path.iterdir() if p.name.startswith("run.kept-"))
    assert len(kept) == 2 and all(str(p) in err for p in kept)
    assert folder_bytes(kept[0]) == folder_bytes(trained["v4_multihead"])  # new, then notes.txt
    assert kept[1].read_text() == "mine"
    assert not partial.exists()


def test_a_folder_put_back_that_is_not_a_run_is_refused_before_training(run, tiny_corpus,
                                                                         tmp_path, monkeypatch):
    """What a run that died had moved aside is the user's folder, not a run: back it goes, and
    the run stops there, before any training."""
    (tmp_path / ".run.partial" / "old").mkdir(parents=True)
    (tmp_path / ".run.partial" / "old" / "notes.txt").write_text("mine")
    monkeypatch.setattr(load("v1_bigram"), "train", lambda *args: pytest.fail("it trained"))
    code, _, err = run("v1_bigram", tiny_args(tiny_corpus, tmp_path / "run"))
    note, error = err.splitlines()  # what it put back, then why it stops
    assert code == 1 and "is back" in note and "holds files that are not a run's" in error
    assert folder_bytes(tmp_path / "run") == {"notes.txt": b"mine"}
    assert sorted(os.listdir(tmp_path)) == ["run"]


def test_new_folder_takes_over_what_a_command_that_died_left(tmp_path):
    """steps.py --train killed: its .trained.partial holds a half-written new folder; the next
    command keeps it under a name it says, and writes the folder."""
    partial = tmp_path / ".trained.partial"
    (partial / "new").mkdir(parents=True)
    (partial / "new" / "steps.csv").write_text("half")
    (partial / "lock").touch()
    with common.new_folder(tmp_path / "trained", "--out", TRAINED, "a training") as new:
        (new / "steps.csv").write_text("whole")
    assert (tmp_path / "trained" / "steps.csv").read_text() == "whole"
    kept = [p for p in tmp_path.iterdir() if p.name.startswith("trained.kept-")]
    assert len(kept) == 1 and (kept[0] / "steps.csv").read_text() == "half"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["trained", kept[0].name])


def test_new_folder_removes_only_the_empty_folders_it_made(tmp_path):
    """A stop inside the block: the folders made above go while empty, not one the user filled."""
    with pytest.raises(KeyboardInterrupt):
        with common.new_folder(tmp_path / "a" / "b" / "trained", "--out", TRAINED, "x"):
            (tmp_path / "a" / "notes.txt").write_text("mine")
            raise KeyboardInterrupt
    assert sorted(os.listdir(tmp_path)) == ["a"]
    assert sorted(os.listdir(tmp_path / "a")) == ["notes.txt"]


# ------------------------------------------------------------------ 2. look again at the swap
@pytest.mark.parametrize("before", ["a run", "empty"])
def test_a_file_put_into_out_while_the_run_trains_is_never_moved(before, run, trained,
                                                                 tiny_corpus, tmp_path,
                                                                 monkeypatch, capsys):
    out = tmp_path / "run"
    if before == "a run":
        shutil.copytree(trained["v1_bigram"], out)
    else:
        out.mkdir()
    old = folder_bytes(out)
    on_call(monkeypatch, load("v1_bigram"), 2 * 2 + 5, lambda: (out / "loss.png").write_text("x"))
    code, _, err = run("v1_bigram", tiny_args(tiny_corpus, out, "--seed", 7))
    assert_one_line_error((code, "", err), str(out), "not a run's")
    assert folder_bytes(out) == {**old, "loss.png": b"x"}
    kept = [p for p in tmp_path.iterdir() if p.name.startswith("run.kept-")]
    assert len(kept) == 1 and str(kept[0]) in err
    assert sorted(os.listdir(kept[0])) == ["ckpt.pt", "metrics.csv", "sample.txt"]
    assert torch.load(kept[0] / "ckpt.pt", weights_only=True)["hyperparameters"]["seed"] == 7


def test_a_link_at_the_partial_name_is_never_followed(run, tiny_corpus, tmp_path):
    """.run.partial, a link to a folder of the user's: nothing in that folder moves."""
    (tmp_path / "mine" / "photos").mkdir(parents=True)
    (tmp_path / "mine" / "photos" / "p.jpg").write_text("p")
    (tmp_path / ".run.partial").symlink_to(tmp_path / "mine")
    before = folder_bytes(tmp_path / "mine" / "photos")
    assert_one_line_error(run("v1_bigram", tiny_args(tiny_corpus, tmp_path / "run")), "a link")
    with pytest.raises(common.UserError, match="a link"):
        with common.new_folder(tmp_path / "run", "--out", TRAINED, "a training"):
            pass
    assert folder_bytes(tmp_path / "mine" / "photos") == before
    assert sorted(os.listdir(tmp_path)) == [".run.partial", "mine"]


def test_new_folder_never_moves_a_file_put_there_meanwhile(tmp_path):
    folder = tmp_path / "trained"
    folder.mkdir()
    with pytest.raises(common.UserError, match="now holds files"):
        with common.new_folder(folder, "--out", TRAINED, "a training") as new:
            (new / "steps.csv").write_text("new")
            (folder / "notes.txt").write_text("mine")
    assert folder_bytes(folder) == {"notes.txt": b"mine"}
    kept = [p for p in tmp_path.iterdir() if p.name.startswith("trained.kept-")]
    assert len(kept) == 1 and (kept[0] / "steps.csv").read_text() == "new"


# ------------------------------------------------------------------ 3. the lock dies with it
def test_a_run_killed_leaves_no_lock_that_refuses_the_next(run, tiny_corpus, tmp_path):
    """A run killed with kill -9 (here, a process that holds the lock as a run does) leaves its
    .partial folder and lock file, but no lock: flock's lock dies with its process, and the next
    run takes over."""
    partial = tmp_path / ".run.partial"
    partial.mkdir()
    holder = subprocess.Popen([sys.executable, "-c", (
        "import fcntl, sys\n"
        f"lock = open({str(partial / 'lock')!r}, 'a')\n"
        "fcntl.flock(lock, fcntl.LOCK_EX)\n"
        "print('held', flush=True)\n"
        "sys.stdin.read()\n")], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline() == "held\n"
    out = tmp_path / "run"
    assert_one_line_error(run("v1_bigram", tiny_args(tiny_corpus, out)), "another run is writing")
    holder.kill()  # SIGKILL: no handler, no cleanup
    holder.wait()
    code, _, err = run("v1_bigram", tiny_args(tiny_corpus, out))
    assert (code, err) == (0, "") and sorted(os.listdir(tmp_path)) == ["run"]


def test_sighup_saves_as_sigterm_does_even_with_the_terminal_gone(tiny_corpus, tmp_path,
                                                                   monkeypatch):
    """The terminal closed: SIGHUP, and stderr goes nowhere (a pipe whose reader has gone)."""
    reader, writer = os.pipe()
    os.close(reader)
    monkeypatch.setattr(sys, "stderr", open(writer, "w"))
    stop_on_call(monkeypatch, load("v1_bigram"), 2 * 2 + 3 + 1, signal.SIGHUP)  # at step 3
    out = tmp_path / "run"
    assert load("v1_bigram").main([str(a) for a in tiny_args(tiny_corpus, out)]) == 130
    assert sorted(os.listdir(tmp_path)) == ["run"]
    assert torch.load(out / "ckpt.pt", weights_only=True)["step"] == 3


def test_a_second_run_is_refused_while_the_first_holds_the_lock(run, tiny_corpus, tmp_path):
    partial = tmp_path / ".run.partial"
    partial.mkdir()
    with open(partial / "lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)  # as a live run holds it
        assert_one_line_error(run("v1_bigram", tiny_args(tiny_corpus, tmp_path / "run")),
                              "another run is writing")
        with pytest.raises(common.UserError, match="another command is writing"):
            with common.new_folder(tmp_path / "run", "--out", TRAINED, "x"):
                pass
    assert sorted(os.listdir(partial)) == ["lock"]  # the holder's, untouched
    assert run("v1_bigram", tiny_args(tiny_corpus, tmp_path / "run"))[0] == 0


def test_a_tool_killed_leaves_its_folder_locked_while_its_runs_live(tmp_path):
    """steps.py killed with kill -9: its runs, in sessions of their own, train on; they hold its
    lock, so no second command takes over the folder they write until the last has ended."""
    child = tmp_path / "child.py"  # a run that trains until it is told to stop
    child.write_text(f"import pathlib, time\npathlib.Path({str(tmp_path / 'started')!r})."
                     f"write_text('')\nwhile not pathlib.Path({str(tmp_path / 'stop')!r})."
                     "exists():\n    time.sleep(0.05)\n")
    tool = tmp_path / "tool.py"
    tool.write_text(f"import sys\nsys.path.insert(0, {str(ROOT / 'tools')!r})\nimport common\n"
                    f"with common.new_folder({str(tmp_path / 'trained')!r}, '--out', "
                    "lambda f: (f / 'steps.csv').is_file(), 'x') as new:\n"
                    f"    common.train_all([('a', {str(child)!r}, new / 'a', [])])\n")
    proc = subprocess.Popen([sys.executable, str(tool)])
    for _ in range(400):
        if (tmp_path / "started").exists():
            break
        time.sleep(0.05)
    proc.kill()  # no handler, no cleanup: its run lives on
    proc.wait()
    with pytest.raises(common.UserError, match="another command is writing"):
        with common.new_folder(tmp_path / "trained", "--out", TRAINED, "a training"):
            pass
    (tmp_path / "stop").write_text("")  # the run ends, and the lock with it
    for _ in range(200):
        try:
            with common.new_folder(tmp_path / "trained", "--out", TRAINED, "a training") as new:
                (new / "steps.csv").write_text("whole")
            break
        except common.UserError:
            time.sleep(0.05)
    assert (tmp_path / "trained" / "steps.csv").read_text() == "whole"


# ------------------------------------------------------------------ 4. tools, by one rule
def test_ladder_writes_no_table_where_its_runs_will_write(tmp_path, capsys):
    """--csv into the folder of a run the ladder is about to start: refused before any run."""
    ladder = load_tool("ladder")
    for csv in [tmp_path / "ladder" / "v1_bigram" / "metrics.csv",
                tmp_path / "ladder" / "v1_bigram" / "table.csv", tmp_path / "ladder" / "v1_bigram"]:
        code = ladder.main(["--versions", "v1_bigram", "--out", str(tmp_path / "ladder"),
                            "--csv", str(csv), "--", "--max-iters", "2"])
        assert code == 2 and "where a run this tool starts will write" in capsys.readouterr().err
    assert not (tmp_path / "ladder").exists()


def test_train_py_and_common_agree_on_what_a_run_s_folder_is(trained, tmp_path):
    folders = {"a run": trained["v1_bigram"], "empty": tmp_path / "empty",
               "a fourth file": tmp_path / "four", "a folder named ckpt.pt": tmp_path / "dir",
               "two files": tmp_path / "two", "links to a run's files": tmp_path / "links"}
    (tmp_path / "empty").mkdir()
    shutil.copytree(trained["v1_bigram"], tmp_path / "four")
    (tmp_path / "four" / "loss.png").write_text("x")
    shutil.copytree(trained["v1_bigram"], tmp_path / "dir")
    (tmp_path / "dir" / "ckpt.pt").unlink()
    (tmp_path / "dir" / "ckpt.pt").mkdir()
    shutil.copytree(trained["v1_bigram"], tmp_path / "two")
    (tmp_path / "two" / "sample.txt").unlink()
    (tmp_path / "links").mkdir()
    for name in common.RUN_FILES:
        (tmp_path / "links" / name).symlink_to(trained["v1_bigram"] / name)
    said = {case: (load(v).is_run(f), common.is_run_folder(f)) for case, f in folders.items()
            for v in VERSIONS}
    assert all(a == b for a, b in said.values()), said
    assert [case for case, (a, _) in said.items() if a] == ["a run", "links to a run's files"]
    assert load("v1_bigram").RUN_FILES == common.RUN_FILES


# ------------------------------------------------------------------ boring plumbing
def test_the_plumbing_is_boring():
    """No walrus, and no `or`/`and` that returns a value other than a truth (print() or 130)."""
    source = (ROOT / "v1_bigram" / "train.py").read_text(encoding="utf-8")
    tree = ast.parse(source[source.index("# " + "=" * 26):])
    assert not [n.lineno for n in ast.walk(tree) if isinstance(n, ast.NamedExpr)]
    tests = set()  # the conditions of if, while, assert, comprehensions and conditional exprs
    for node in ast.walk(tree):
        if isinstance(node, (ast.If, ast.While, ast.IfExp, ast.Assert)):
            tests.add(id(node.test))
        if isinstance(node, ast.comprehension):
            tests.update(id(c) for c in node.ifs)
    for node in ast.walk(tree):
        if isinstance(node, ast.BoolOp) and id(node) not in tests:
            for value in node.values:  # returned: each part must itself be a truth
                assert isinstance(value, (ast.Compare, ast.UnaryOp, ast.BoolOp, ast.Call)) \
                    and not (isinstance(value, ast.Call) and getattr(value.func, "id", "") ==
                             "print"), f"line {node.lineno}: a value-returning {ast.dump(value)}"


# ------------------------------------------------------------------ the list
def test_a_path_with_a_newline_is_escaped_on_one_line(run, tiny_corpus, tmp_path, capsys):
    mine = tmp_path / "my\nnotes"
    mine.mkdir()
    (mine / "notes.txt").write_text("mine")
    assert_one_line_error(run("v1_bigram", tiny_args(tiny_corpus, mine)), "my\\nnotes")
    assert_one_line_error(run("v1_bigram", ["--data", str(tmp_path / "a\nb.txt"), "--out",
                              str(tmp_path / "r")]), "a\\nb.txt")
    plot = load_tool("plot_losses")
    assert plot.main([str(tmp_path / "no\nrun"), "-o", str(tmp_path / "p.png")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no\\nrun" in err


def test_a_full_disk_names_the_file_and_says_the_training_is_lost(run, trained, tiny_corpus,
                                                                  tmp_path, monkeypatch):
    out = tmp_path / "run"
    shutil.copytree(trained["v1_bigram"], out)
    before = folder_bytes(out)
    real = pathlib.Path.write_bytes

    def write_bytes(self, data):  # as a full disk fails: at the write, with no file name
        if self.name == "ckpt.pt":
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real(self, data)

    monkeypatch.setattr(pathlib.Path, "write_bytes", write_bytes)
    assert_one_line_error(run("v1_bigram", tiny_args(tiny_corpus, out)), "ckpt.pt",
                          "No space left on device", "the training is lost", "as it was")
    assert folder_bytes(out) == before and sorted(os.listdir(tmp_path)) == ["run"]


def test_a_huge_head_count_is_the_lesson_s_rule_not_a_memory_error(run, tiny_corpus, tmp_path):
    for n_head in ("5", "1000000"):
        assert_one_line_error(run("v6_block", tiny_args(tiny_corpus, tmp_path / "r", "--n-head",
                                                        n_head)), "must be a multiple of n_head")


def test_torch_s_pickle_warning_does_not_come_before_the_error_line(run, trained, tmp_path):
    out = tmp_path / "run"
    shutil.copytree(trained["v1_bigram"], out)
    ckpt = torch.load(out / "ckpt.pt", weights_only=True)
    ckpt["chars"] = ckpt["chars"][::-1]  # a hand edit: the characters in another order
    torch.save(ckpt, out / "ckpt.pt", pickle_protocol=4)
    with warnings.catch_warnings(record=True) as shown:
        warnings.simplefilter("always")  # as a script shows a warning the first time
        code, printed, err = run("v1_bigram", ["--generate", "--out", out])
    assert code == 1 and err.count("\n") == 1 and err.startswith("error: cannot load"), err
    assert not printed and not shown, [str(w.message) for w in shown]


@pytest.mark.parametrize("edit", ["reversed", "one duplicated"])
def test_a_checkpoint_whose_characters_were_edited_is_refused(edit, run, trained, tmp_path):
    out = tmp_path / "run"
    shutil.copytree(trained["v4_multihead"], out)
    ckpt = torch.load(out / "ckpt.pt", weights_only=True)
    chars = ckpt["chars"]
    ckpt["chars"] = {"reversed": chars[::-1], "one duplicated": chars[0] + chars[:-1]}[edit]
    torch.save(ckpt, out / "ckpt.pt")
    assert_one_line_error(run("v4_multihead", ["--generate", "--out", out]), "cannot load")
