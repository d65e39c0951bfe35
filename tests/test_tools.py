"""tools/common.py, the one module every tool shares, and tools/ladder.py: the error idiom, output
written aside, the one train.py runner (a failed or stopped run stops the others at once), and
the ladder table. Stand-in scripts where a real train.py is not needed."""
import csv
import errno
import hashlib
import io
import os
import re
import signal
import subprocess
import sys
import threading
import time

import pytest

from conftest import ROOT, call_main, load, load_tool
from test_bad_input import assert_one_line_error

import common

TINYPLAYS = ROOT / "data" / "tinyplays.txt"
TINY = ["--max-iters", "3", "--eval-interval", "3", "--eval-iters", "1", "--batch-size", "2",
        "--sample-chars", "5"]


def write_metrics(folder, rows):
    folder.mkdir(parents=True)
    lines = ["step,train_loss,val_loss,elapsed_s"] + [f"{s},{t},{v},{e}" for s, t, v, e in rows]
    (folder / "metrics.csv").write_text("\n".join(lines) + "\n")
    return folder


def write_checkpoint(folder, version, data=TINYPLAYS, chars="\n !,.:?ABCDEGHKLMNOPRSTWYaehnot",
                     data_sha256=None, **hyperparameters):
    """folder/ckpt.pt as <version>/train.py saves one, random weights, trained on data (its
    sha256, or data_sha256). hyperparameters: the ones to change from the defaults."""
    import torch

    module = load(version)
    hp = {**{name: getattr(module, name) for name in module.HYPERPARAMETERS}, **hyperparameters}
    model = module.LanguageModel(len(chars), **{name: hp[name] for name in module.MODEL_ARGS})
    sha256 = data_sha256 or hashlib.sha256(data.read_bytes()).hexdigest()
    folder.mkdir(parents=True, exist_ok=True)
    torch.save({"version": version, "step": 0, "chars": chars, "hyperparameters": hp,
                "data_sha256": sha256, "state_dict": model.state_dict()}, folder / "ckpt.pt")
    return folder


# ---------------------------------------------------------------- common.py
def test_common_imports_without_torch():
    """data/prepare.py uses it with the standard library only."""
    code = "import sys; import common; sys.exit('torch' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], cwd=ROOT / "tools").returncode == 0


@pytest.mark.parametrize("raised,code,err", [
    (common.UserError("no file at x\ny: pass one"), 2, "error: no file at x\\ny: pass one\n"),
    (KeyboardInterrupt(), 130, "interrupted\n"),
    (KeyboardInterrupt(""), 130, "interrupted\n"),  # an empty reason: no `interrupted: `
    (KeyboardInterrupt("2 of 3 runs finished"), 130, "interrupted: 2 of 3 runs finished\n"),
    (BrokenPipeError(errno.EPIPE, "Broken pipe"), 130, "interrupted: its output was closed\n"),
    (OSError(errno.ENAMETOOLONG, "File name too long", "x" * 300 + ".png"), 2,
     f"error: {'x' * 300}.png: File name too long: choose another path\n"),
])
def test_command_turns_bad_input_ctrl_c_and_a_closed_pipe_into_one_line(raised, code, err,
                                                                         capsys):
    """`python tools/ladder.py | true`: the tool's print fails once `true` has gone."""
    @common.command
    def main(argv=None):
        print("started")
        raise raised

    assert main([]) == code
    assert capsys.readouterr() == ("started\n", err)


def test_a_second_ctrl_c_waits_for_what_the_first_set_going(capsys):
    """The first Ctrl-C stops the tool; the next, even at once, cannot cut short the stopping."""
    @common.command
    def main(argv=None):
        try:
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(1)
        except KeyboardInterrupt:
            os.kill(os.getpid(), signal.SIGINT)  # while the runs are being stopped
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(0.1)
            raise KeyboardInterrupt("every run stopped") from None

    assert main([]) == 130
    assert capsys.readouterr().err == "interrupted: every run stopped\n"


def test_a_signal_once_the_tool_has_ended_changes_nothing(capsys):
    """Ctrl-C or SIGTERM while Python shuts down, after main() returned: the file is written and
    the exit status is main()'s; Python's own handler would kill the process."""
    @common.command
    def main(argv=None):
        return 0

    assert main([]) == 0
    os.kill(os.getpid(), signal.SIGTERM)
    os.kill(os.getpid(), signal.SIGINT)
    time.sleep(0.05)  # nothing raised
    # ignored by the system, not by a handler of Python's, which its shutdown would set back
    assert signal.getsignal(signal.SIGINT) == signal.getsignal(signal.SIGTERM) == signal.SIG_IGN


def test_two_writers_of_one_file_never_share_a_partial_file(tmp_path):
    """Two plot_losses.py -o the same.png at once: each writes its own file beside it; the last
    to finish wins, whole."""
    out = tmp_path / "same.png"
    with common.aside(out) as first, common.aside(out) as second:
        assert first != second and first.suffix == second.suffix == ".png"
        first.write_text("first")
        second.write_text("second")
    assert out.read_text() == "first" and os.listdir(tmp_path) == ["same.png"]


def test_an_output_name_too_long_to_write_beside_is_refused_before_any_work(tmp_path):
    with pytest.raises(common.UserError, match="File name too long"):
        common.check_output(tmp_path / ("c" * 250 + ".png"), "-o")
    assert list(tmp_path.iterdir()) == []


def test_a_file_is_never_written_into_a_run_s_folder(tmp_path):
    """plot_losses -o RUN/p.png, prepare.py --out RUN/ckpt.pt: a run's folder holds its three
    files and no more (train.py would refuse it next time, and a checkpoint would be lost)."""
    run = in_a_run(tmp_path)
    for name in ("p.png", "ckpt.pt"):
        with pytest.raises(common.UserError, match="a run's folder"):
            common.check_output(run / name, "-o")
    assert sorted(os.listdir(run)) == common.RUN_FILES


def test_a_file_written_aside_gets_the_mode_open_would_give(tmp_path):
    with common.aside(tmp_path / "x.csv") as tmp:
        tmp.write_text("a\n")
    assert (tmp_path / "x.csv").stat().st_mode & 0o777 == 0o666 & ~common.UMASK


def test_the_parser_errors_in_one_line_and_takes_no_abbreviation():
    p = common.ArgumentParser(ROOT / "tools" / "x.py", "A tool.\n\nMore.")
    p.add_argument("--seed", type=int)
    assert p.description == "A tool." and p.prog == "python tools/x.py"
    with pytest.raises(common.UserError, match=r"--se 3: see python tools/x.py --help$"):
        p.parse_args(["--se", "3"])


def test_a_full_disk_leaves_the_old_output_and_no_temporary_file(tmp_path):
    out = tmp_path / "table.csv"
    out.write_text("old\n")
    with pytest.raises(common.UserError, match="cannot write .*table.csv .*it is as it was"):
        with common.aside(out) as tmp:
            tmp.write_text("half a tab")
            raise OSError(errno.ENOSPC, "No space left on device")
    assert out.read_text() == "old\n" and [p.name for p in tmp_path.iterdir()] == ["table.csv"]
    common.write_csv(out, [{"a": 1}])
    assert out.read_text() == "a\n1\n" and len(list(tmp_path.iterdir())) == 1


def stand_in(tmp_path, name, body):
    """A script that takes train.py's --out, runs body, and writes a metrics.csv."""
    path = tmp_path / name
    path.write_text("import sys, time, pathlib\nout = pathlib.Path(sys.argv[2])\n"
                    "out.parent.mkdir(parents=True, exist_ok=True)\n"
                    "pathlib.Path(str(out) + '.started').write_text('')\n" + body +
                    "\nout.mkdir(parents=True)\n"
                    "(out / 'metrics.csv').write_text('step,val_loss\\n1,2.0\\n')\n")
    return path


@pytest.mark.parametrize("stop", ["a run fails", "ctrl-c"])
def test_a_failed_or_stopped_run_stops_the_others_at_once_and_starts_no_more(stop, tmp_path):
    sleeping = f"while not pathlib.Path({str(tmp_path / 'a.started')!r}).exists(): time.sleep(0.01)"
    fails = stand_in(tmp_path, "fails.py", f"{sleeping}\nsys.exit('error: too short')")
    quick = stand_in(tmp_path, "quick.py", "")
    sleeps = stand_in(tmp_path, "sleeps.py", "time.sleep(60)")
    runs = [("sleeper", sleeps, tmp_path / "a", []),
            ("one that fails" if stop == "a run fails" else "quick",
             fails if stop == "a run fails" else quick, tmp_path / "b", []),
            ("queued", quick, tmp_path / "c", [])]

    def done(i, rows):  # Ctrl-C once the sleeping run has started
        while not (tmp_path / "a.started").exists():
            time.sleep(0.01)
        raise KeyboardInterrupt

    start = time.time()
    with pytest.raises(common.UserError if stop == "a run fails" else KeyboardInterrupt) as e:
        common.train_all(runs, jobs=2, done=done)
    assert time.time() - start < 10, "the sleeping run was waited for"
    assert (tmp_path / "a.started").exists() and not (tmp_path / "c.started").exists()
    assert not (tmp_path / "a").exists(), "the sleeping run was not stopped"
    if stop == "a run fails":
        assert str(e.value).startswith("one that fails failed (error: too short): run it alone")


def test_a_terminal_s_ctrl_c_reaches_the_tool_alone_which_stops_each_run_once(tmp_path):
    """A terminal sends Ctrl-C to its whole foreground process group. The runs sit in sessions
    of their own, so only the tool gets it; each run then gets one SIGTERM, saves, and says what
    it saved, and the tool repeats that in its one line."""
    child = tmp_path / "child.py"
    child.write_text(
        "import pathlib, signal, sys, time\n"
        "got = pathlib.Path(sys.argv[2] + '.signals')\n"
        "def note(number, frame):\n"
        "    got.write_text(got.read_text() + signal.Signals(number).name + ' ' if got.exists() "
        "else signal.Signals(number).name + ' ')\n"
        "    if number == signal.SIGTERM:\n"
        "        print('stopped at step 4: saved in ' + sys.argv[2], file=sys.stderr)\n"
        "        sys.exit(130)\n"
        "signal.signal(signal.SIGINT, note)\n"
        "signal.signal(signal.SIGTERM, note)\n"
        "pathlib.Path(sys.argv[2] + '.started').write_text('')\n"
        "time.sleep(60)\n")
    tool = tmp_path / "tool.py"
    tool.write_text(
        f"import sys\nsys.path.insert(0, {str(ROOT / 'tools')!r})\n"
        "import common\n"
        "@common.command\n"
        "def main(argv=None):\n"
        f"    common.train_all([(n, {str(child)!r}, {str(tmp_path)!r} + '/' + n, []) "
        "for n in 'ab'], jobs=2)\n"
        "sys.exit(main())\n")
    proc = subprocess.Popen([sys.executable, str(tool)], stderr=subprocess.PIPE, text=True,
                            start_new_session=True)  # its own group, as a terminal's job is
    while not all((tmp_path / f"{n}.started").exists() for n in "ab"):
        time.sleep(0.01)
    os.killpg(proc.pid, signal.SIGINT)  # what the terminal sends on Ctrl-C
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130
    assert err == (f"interrupted: 0 of 2 runs finished; a: stopped at step 4: saved in "
                   f"{tmp_path}/a; b: stopped at step 4: saved in {tmp_path}/b\n")
    assert [(tmp_path / f"{n}.signals").read_text() for n in "ab"] == ["SIGTERM "] * 2


def test_a_bar_on_a_terminal_counts_the_runs(tmp_path, monkeypatch):
    class Terminal(io.StringIO):
        def isatty(self):
            return True

    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    quick = stand_in(tmp_path, "quick.py", "")
    common.train_all([(name, quick, tmp_path / name, []) for name in "abc"])
    assert "0/3" in terminal.getvalue() and terminal.getvalue().endswith("\r")
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    common.train_all([(name, quick, tmp_path / f"{name}2", []) for name in "abc"])
    assert sys.stderr.getvalue() == ""


@pytest.mark.parametrize("said,code,line", [
    ("stopped at step 4: saved in X\n", 130, "stopped at step 4: saved in X"),
    ("", -15, "stopped while Python started: nothing was written"),  # SIGTERM in import torch
    ("", -9, "killed by signal 9"),  # the next run into its folder takes over what it left
    ("", 0, "finished"),  # it ended just as the others were stopped
    ("", 1, "exit status 1"),
])
def test_what_a_stopped_run_said_is_its_last_line(said, code, line, tmp_path):
    log = open(tmp_path / "log", "w+")
    log.write(said)
    assert common.last_line(log, code) == line


def test_the_runner_returns_each_run_s_rows_in_order(tmp_path):
    quick = stand_in(tmp_path, "quick.py", "")
    runs = [(name, quick, tmp_path / name, []) for name in "abc"]
    assert common.train_all(runs, jobs=2) == [[{"step": "1", "val_loss": "2.0"}]] * 3


# ---------------------------------------------------------------- ladder.py
@pytest.fixture
def ladder(monkeypatch):
    """tools/ladder.py with each run trained in this process: (tool, [the runs it started])."""
    tool, started = load_tool("ladder"), []

    def in_process(runs, jobs=1, done=lambda i, rows: None):
        rows = []
        for i, (name, script, out, flags) in enumerate(runs):
            started.append(name)
            assert call_main(load(name), ["--out", out, *flags]) == 0
            with open(out / "metrics.csv", newline="") as f:
                rows.append(list(csv.DictReader(f)))
            done(i, rows[-1])
        return rows

    monkeypatch.setattr(tool, "train_all", in_process)
    return tool, started


def test_ladder_runs_versions_and_writes_the_table(ladder, tiny_corpus, tmp_path, capsys):
    tool, started = ladder
    argv = ["--data", tiny_corpus, "--out", tmp_path, "--csv", tmp_path / "table.csv",
            "--versions", "v1_bigram", "v8_bert_mlm", "--seed", "1", "2", "--", *TINY]
    assert tool.main([str(a) for a in argv]) == 0, capsys.readouterr().err
    assert started == ["v1_bigram", "v1_bigram", "v8_bert_mlm", "v8_bert_mlm"]
    table = (tmp_path / "table.csv").read_text().splitlines()
    assert table[0] == ("version,seed,params,steps,train_loss,val_loss,loop_s,process_s,"
                        "tokens_per_s") and len(table) == 5
    v8 = load("v8_bert_mlm")
    params = sum(p.numel() for p in v8.LanguageModel(
        len(set(tiny_corpus.read_text())) + 1,
        **{k: getattr(v8, k) for k in v8.MODEL_ARGS}).parameters())  # tied weights once
    assert table[3].split(",")[:4] == ["v8_bert_mlm", "1", str(params), "3"]
    assert "val loss over seeds" in capsys.readouterr().out
    assert (tmp_path / "v1_bigram_seed2" / "ckpt.pt").is_file()


@pytest.mark.parametrize("extra,fragment", [
    (["--seed", "3"], "--seed after -- is this tool's own"),
    (["--out=x"], "--out after -- is this tool's own"),
    (["--generate"], "would only sample"),
    (["--se", "3"], "v4_multihead: "),  # argparse words the rest
    (["--max-iters", "0"], "v4_multihead: argument --max-iters: 0 is not from 1"),
    (["--n-embd", "30", "--n-head", "4"], "v4_multihead: n_embd (30) must be a multiple"),
    (["--help"], "the flags after -- stop v4_multihead before it trains"),
])
def test_ladder_refuses_bad_flags_before_any_run(extra, fragment, ladder, tmp_path, capsys):
    tool, started = ladder
    code = tool.main(["--versions", "v4_multihead", "v1_bigram", "--out", str(tmp_path), "--data",
                      str(TINYPLAYS), "--",
                      *extra])
    assert_one_line_error((code, "", capsys.readouterr().err), fragment)
    assert started == [] and list(tmp_path.iterdir()) == []


def in_a_run(tmp_path):
    """A run's folder as --out: the ladder's runs would go inside it."""
    (tmp_path / "run").mkdir()
    for name in ("ckpt.pt", "metrics.csv", "sample.txt"):
        (tmp_path / "run" / name).write_text("x\n")
    return tmp_path / "run"


def a_file(path, out):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("x\n")
    return out


@pytest.mark.parametrize("make,fragment", [
    (lambda t: a_file(t / "afile", t / "afile"), "is not a folder, or is in a file"),
    (lambda t: a_file(t / "afile", t / "afile" / "runs"), "is not a folder, or is in a file"),
    (lambda t: a_file(t / "runs" / "v1_bigram", t / "runs"),
     "v1_bigram is not a folder, or is in a file"),
    (lambda t: a_file(t / "runs" / "v1_bigram" / "notes.txt", t / "runs"),
     "v1_bigram holds files that are not a run's"),
    # ladder.py --out . in the repository: its runs would go into the source folders
    (lambda t: ROOT, "v1_bigram holds files that are not a run's"),
    (lambda t: in_a_run(t), "a run's folder, which holds its three files and no more"),
])
def test_ladder_refuses_an_out_it_cannot_write_before_any_run(make, fragment, ladder, tmp_path,
                                                              capsys):
    tool, started = ladder
    out = make(tmp_path)
    before = sorted(tmp_path.rglob("*"))
    code = tool.main(["--versions", "v1_bigram", "--out", str(out), "--data", str(TINYPLAYS),
                      "--", *TINY])
    assert_one_line_error((code, "", capsys.readouterr().err), fragment)
    assert started == [] and sorted(tmp_path.rglob("*")) == before


def test_ladder_ctrl_c_is_one_line_saying_what_each_run_saved(monkeypatch, tmp_path, capsys):
    """Ctrl-C while v4 trains, v1 done: v4, stopped once, saves what it trained and says so; the
    tool repeats what it said."""
    tool = load_tool("ladder")

    def ctrl_c_once_v4_runs():
        while not (tmp_path / "runs" / "v4_multihead.started").exists():
            time.sleep(0.01)
        time.sleep(0.2)
        os.kill(os.getpid(), signal.SIGINT)  # what the terminal sends: the tool's alone

    def stopped_in_v4(runs, jobs=1, done=None):
        sleepy = stand_in(tmp_path, "v4.py", "print('stopped at step 7: saved in X', "
                          "file=sys.stderr, flush=True); time.sleep(60)")
        threading.Thread(target=ctrl_c_once_v4_runs, daemon=True).start()
        quick = stand_in(tmp_path, "v1.py", "")
        return common.train_all([(runs[0][0], quick, *runs[0][2:]),
                                 (runs[1][0], sleepy, *runs[1][2:])], done=done)

    monkeypatch.setattr(tool, "train_all", stopped_in_v4)
    monkeypatch.setattr(tool, "result", lambda *a: {k: 0 for k in (
        "params", "steps", "train_loss", "val_loss", "loop_s", "tokens_per_s")})
    argv = ["--versions", "v1_bigram", "v4_multihead", "--out", str(tmp_path / "runs"), "--data",
            str(TINYPLAYS), "--csv", str(tmp_path / "t.csv"), "--", *TINY]
    assert tool.main(argv) == 130
    assert capsys.readouterr().err == ("interrupted: 1 of 2 runs finished; v4_multihead: stopped "
                                       "at step 7: saved in X; --csv not written\n")
    assert not (tmp_path / "t.csv").exists()


def test_ladder_a_failed_run_is_one_line(tiny_corpus, tmp_path, capsys, monkeypatch):
    tool = load_tool("ladder")
    fails = stand_in(tmp_path, "fails.py", "sys.exit('error: the loss became nan at step 3')")
    monkeypatch.setattr(tool, "train_all", lambda runs, *a, **k: common.train_all(
        [(runs[0][0], fails, *runs[0][2:])]))
    code = tool.main(["--versions", "v1_bigram", "--out", str(tmp_path / "runs"), "--data",
                      str(tiny_corpus)])
    assert_one_line_error((code, "", capsys.readouterr().err),
                          "v1_bigram failed (error: the loss became nan at step 3)",
                          "run it alone to see why")


def test_a_real_train_py_run_by_the_runner(tiny_corpus, tmp_path):
    """The one test that starts a real train.py as a process."""
    out = tmp_path / "run"
    rows = common.train_all([("v1", ROOT / "v1_bigram" / "train.py", out,
                              ["--data", tiny_corpus, *TINY])])[0]
    assert rows[-1]["step"] == "3" and sorted(p.name for p in out.iterdir()) == [
        "ckpt.pt", "metrics.csv", "sample.txt"]


def test_run_tests_runs_each_test_once_in_one_of_a_process_per_core(capfd):
    """tools/run_tests.py: one pytest per core, each running the groups of tests it claims, so
    that every test runs once; 0 when all pass, pytest's 5 when -k leaves no test."""
    runner = load_tool("run_tests")
    cores = runner.cores()
    argv = ["--", "-q", "-p", "no:cacheprovider", "tests/test_readme.py"]
    assert runner.main(argv) == 0
    out = capfd.readouterr().out
    ran = [int(n) for n in re.findall(r"(\d+) passed", out)]
    assert sum(ran) == 2 and len(re.findall(r"(passed|no tests ran) in", out)) == cores, out
    assert runner.main([*argv, "-k", "no_test_is_called_this"]) == 5
