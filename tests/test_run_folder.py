"""A run folder always holds one whole run, and a folder that holds no run is never written.
Whatever arrives (Ctrl-C or SIGTERM anywhere, a closed pipe, a NaN, a full disk, a second run, a
symlink, data deleted mid-run), what the folder held stays, or the new run replaces it whole. The
plumbing is the same in every version: v1 and v8, the smallest and the largest lesson, stand for
all of them."""
import errno
import fcntl
import io
import os
import pathlib
import shutil
import signal

import pytest
import torch

from conftest import ROOT, folder_bytes, load, on_call, tiny_args
from test_bad_input import assert_one_line_error

ENDS = ["v1_bigram", "v8_bert_mlm"]


def stop_on_call(monkeypatch, module, n, how):
    """module.get_batch raises KeyboardInterrupt (how=None) or sends this process the signal how
    (or each of the signals how, at once) on its n-th call. A tiny run calls it 2 * 2 times per
    estimate, once per step."""
    def stop():
        if how is None:
            raise KeyboardInterrupt
        for signum in how if isinstance(how, tuple) else [how]:
            os.kill(os.getpid(), signum)  # the handler main() installed answers it

    on_call(monkeypatch, module, n, stop)


def copy_of(trained, version, tmp_path):
    out = tmp_path / "run"
    shutil.copytree(trained[version], out)
    return out, folder_bytes(out)


def no_training(monkeypatch, version):
    monkeypatch.setattr(load(version), "train", lambda *args: pytest.fail("it trained"))


# ------------------------------------------------------------------ stopped, failed, refused
@pytest.mark.parametrize("version", ENDS)
@pytest.mark.parametrize("how", [None, signal.SIGTERM])
def test_a_rerun_stopped_before_its_first_step_leaves_the_old_run(version, how, run, trained,
                                                                   tiny_corpus, tmp_path,
                                                                   monkeypatch):
    out, before = copy_of(trained, version, tmp_path)
    stop_on_call(monkeypatch, load(version), 1, how)  # in the first loss estimate
    code, _, err = run(version, tiny_args(tiny_corpus, out, "--seed", 5))
    assert code == 130 and err == "stopped at step 0: nothing was written\n"
    assert folder_bytes(out) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run"], "nothing left beside it"


@pytest.mark.parametrize("version", ENDS)
@pytest.mark.parametrize("how", [None, signal.SIGTERM, (signal.SIGINT, signal.SIGINT),
                                 (signal.SIGINT, signal.SIGTERM)])
def test_ctrl_c_or_sigterm_mid_run_saves_what_was_trained_whole(version, how, run, trained,
                                                                  tiny_corpus, tmp_path,
                                                                  monkeypatch):
    out, _ = copy_of(trained, version, tmp_path)
    stop_on_call(monkeypatch, load(version), 2 * 2 + 3 + 1, how)  # at step 3
    code, _, err = run(version, tiny_args(tiny_corpus, out, "--seed", 5))
    assert code == 130 and err == f"stopped at step 3: saved in {out}\n"
    assert torch.load(out / "ckpt.pt", weights_only=True)["step"] == 3
    assert [r.split(",")[0] for r in (out / "metrics.csv").read_text().splitlines()] == ["step",
                                                                                         "0"]
    assert "stopped" in (out / "sample.txt").read_text(), "the old run's sample must not stay"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run"]


@pytest.mark.parametrize("where", ["read_data", "LanguageModel", "sample"])
def test_ctrl_c_while_the_data_loads_or_the_model_is_built_writes_nothing(where, run, trained,
                                                                          tiny_corpus, tmp_path,
                                                                          monkeypatch):
    out, before = copy_of(trained, "v4_multihead", tmp_path)

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(load("v4_multihead"), where, interrupted)
    code, _, err = run("v4_multihead", tiny_args(tiny_corpus, out))
    assert (code, err) == (130, "stopped: nothing was written\n")
    assert folder_bytes(out) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run"]


@pytest.mark.parametrize("version", ENDS)
def test_a_nan_stops_the_run_in_one_line_and_leaves_the_old_run(version, run, trained,
                                                                 tiny_corpus, tmp_path,
                                                                 monkeypatch):
    out, before = copy_of(trained, version, tmp_path)
    module = load(version)
    nan = torch.tensor(float("nan"), requires_grad=True)
    monkeypatch.setattr(module.F, "cross_entropy", lambda *args, **kwargs: nan * 1)
    assert_one_line_error(run(version, tiny_args(tiny_corpus, out)), "the loss became nan",
                          "lower --lr")
    assert folder_bytes(out) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run"]


@pytest.mark.parametrize("version", ENDS)
def test_a_full_disk_leaves_the_old_run(version, run, trained, tiny_corpus, tmp_path,
                                        monkeypatch):
    out, before = copy_of(trained, version, tmp_path)
    real = pathlib.Path.write_bytes

    def write_bytes(self, data):
        if self.name == "sample.txt":  # the last file written aside
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(self))
        return real(self, data)

    monkeypatch.setattr(pathlib.Path, "write_bytes", write_bytes)
    assert_one_line_error(run(version, tiny_args(tiny_corpus, out, "--seed", 3)),
                          "No space left on device", "--out is as it was")
    assert folder_bytes(out) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run"]


def test_two_names_of_one_folder_are_one_run_at_a_time(run, trained, tiny_corpus, tmp_path,
                                                        monkeypatch):
    """--out conc and --out conclink (a symlink to it): the second is refused while the first
    runs, and a run through the link writes the folder the link names, the link kept."""
    out, before = copy_of(trained, "v1_bigram", tmp_path)
    (tmp_path / "elsewhere").mkdir()
    link = tmp_path / "elsewhere" / "link"
    link.symlink_to(out)
    (tmp_path / ".run.partial").mkdir()
    with open(tmp_path / ".run.partial" / "lock", "a") as lock:  # the first run, writing
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        assert_one_line_error(run("v1_bigram", tiny_args(tiny_corpus, link)),
                              "another run is writing")
    assert folder_bytes(out) == before
    shutil.rmtree(tmp_path / ".run.partial")
    seen = []  # where the run is written while it trains: beside the folder, not the link
    stop_on_call(monkeypatch, load("v1_bigram"), 2 * 2 + 2, None)  # at step 1
    real = load("v1_bigram").get_batch
    monkeypatch.setattr(load("v1_bigram"), "get_batch", lambda *a: seen.append(
        sorted(p.name for p in tmp_path.iterdir())) or real(*a))
    code, _, err = run("v1_bigram", tiny_args(tiny_corpus, link, "--seed", 9))
    assert (code, err) == (130, f"stopped at step 1: saved in {out}\n")
    assert seen[0] == [".run.partial", "elsewhere", "run"]
    assert link.is_symlink() and os.readlink(link) == str(out)
    assert torch.load(out / "ckpt.pt", weights_only=True)["step"] == 1


def test_a_symlink_to_a_missing_folder_gets_the_run_there(run, tiny_corpus, tmp_path):
    link = tmp_path / "link"
    link.symlink_to(tmp_path / "usb" / "run")  # a disk not mounted yet: the folder is made
    assert run("v1_bigram", tiny_args(tiny_corpus, link))[0] == 0
    assert link.is_symlink() and sorted(os.listdir(tmp_path / "usb" / "run")) == [
        "ckpt.pt", "metrics.csv", "sample.txt"]


def refusals(tmp_path, trained, monkeypatch):
    """{case: (--out, extra flags)}: folders a run must not go into."""
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("my notes")
    mixed = tmp_path / "mixed"
    shutil.copytree(trained["v1_bigram"], mixed)
    (mixed / "notes.txt").write_text("my notes")
    (tmp_path / "empty_here").mkdir()
    monkeypatch.chdir(tmp_path / "empty_here")
    (tmp_path / "file").write_text("mine")
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    shutil.copytree(trained["v1_bigram"], tmp_path / "a_run")
    lookalike = tmp_path / "lookalike"
    for name in ("ckpt.pt", "metrics.csv", "sample.txt"):
        (lookalike / name).mkdir(parents=True)
    (lookalike / "ckpt.pt" / "mine.txt").write_text("my notes")
    return {"a new folder in a run's folder": (tmp_path / "a_run" / "again", []),
            "two folders down in a run's folder": (tmp_path / "a_run" / "a" / "b", []),
            "a run's names as the user's folders": (lookalike, []),
            "a folder of the user's": (mine, []), "a run folder with a file of the user's": (
        mixed, []), "an unset shell variable": ("", []), "the current folder": (".", []),
        "the source folder": (ROOT / "v1_bigram", []), "the repository": (ROOT, []),
        "a file": (tmp_path / "file", []), "a symlink loop": (tmp_path / "loop", [])}


@pytest.mark.parametrize("case", ["a new folder in a run's folder",
                                  "two folders down in a run's folder",
                                  "a run's names as the user's folders",
                                  "a folder of the user's", "a run folder with a file of the "
                                  "user's", "an unset shell variable", "the current folder",
                                  "the source folder",
                                  "the repository", "a file", "a symlink loop"])
def test_a_folder_that_holds_no_run_is_refused_before_any_work(case, run, trained, tiny_corpus,
                                                                tmp_path, monkeypatch):
    out, extra = refusals(tmp_path, trained, monkeypatch)[case]
    watched = [p for p in [tmp_path, ROOT / "v1_bigram", tmp_path / "a_run",
                           tmp_path / "lookalike" / "ckpt.pt"] if p.is_dir()]
    before = {p: folder_bytes(p) for p in watched}
    no_training(monkeypatch, "v1_bigram")
    flags = tiny_args(tiny_corpus, out, *extra)
    if extra:  # --data given twice: the second counts
        flags = flags[2:] + ["--data", str(extra[1])]
    assert_one_line_error(run("v1_bigram", flags), "--out")
    assert {p: folder_bytes(p) for p in watched} == before


@pytest.mark.parametrize("kind", ["a mount point", "read-only"])
def test_a_folder_that_cannot_be_moved_aside_is_refused_before_any_work(kind, run, trained,
                                                                          tiny_corpus, tmp_path,
                                                                          monkeypatch):
    """A Docker volume or a USB disk (a mount point), or a folder the user may not write (moving a
    folder to another parent rewrites its ..): the old run could not be moved aside at the end,
    so the run is refused before it trains, not after."""
    out, before = copy_of(trained, "v1_bigram", tmp_path)
    if kind == "a mount point":
        real = os.path.ismount
        monkeypatch.setattr(os.path, "ismount", lambda p: str(p) == str(out) or real(p))
    else:  # root may write anywhere: what access() says for another user
        real = os.access
        monkeypatch.setattr(os, "access", lambda p, mode: str(p) != str(out) and real(p, mode))
    no_training(monkeypatch, "v1_bigram")
    assert_one_line_error(run("v1_bigram", tiny_args(tiny_corpus, out)), kind,
                          "cannot be moved aside")
    assert folder_bytes(out) == before


# ------------------------------------------------------------------ the save itself
@pytest.mark.parametrize("version", ENDS)
@pytest.mark.parametrize("how", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_during_the_save_waits_until_the_run_is_whole(version, how, run, trained,
                                                                tiny_corpus, tmp_path,
                                                                monkeypatch):
    """Ctrl-C or SIGTERM between the two renames of the swap, where one run's files could meet
    another's: the save finishes, and the folder holds the new run, whole."""
    out, _ = copy_of(trained, version, tmp_path)
    real, calls = os.replace, []

    def replace(a, b):
        calls.append((a, b))
        real(a, b)
        if len(calls) == 1:
            os.kill(os.getpid(), how)

    monkeypatch.setattr(os, "replace", replace)
    code, _, err = run(version, tiny_args(tiny_corpus, out, "--seed", 4))
    assert (code, err) == (0, "") and len(calls) == 2
    ckpt = torch.load(out / "ckpt.pt", weights_only=True)
    assert ckpt["step"] == 12 and ckpt["hyperparameters"]["seed"] == 4
    assert (out / "metrics.csv").read_text().count("\n") == 5
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run"]


def test_a_swap_that_fails_half_way_puts_the_old_run_back(run, trained, tiny_corpus, tmp_path,
                                                           monkeypatch):
    out, before = copy_of(trained, "v1_bigram", tmp_path)
    real, calls = os.replace, []

    def replace(a, b):
        calls.append(1)
        if len(calls) == 2:  # the old run is aside, the new one not yet in
            raise OSError(errno.EIO, os.strerror(errno.EIO), str(a))
        real(a, b)

    monkeypatch.setattr(os, "replace", replace)
    code, out_text, err = run("v1_bigram", tiny_args(tiny_corpus, out, "--seed", 4))
    assert_one_line_error((code, out_text, err), "Input/output error", "it is as it was",
                          "the training is saved in")
    assert folder_bytes(out) == before
    kept = [p for p in tmp_path.iterdir() if p.name != "run"]
    assert len(kept) == 1 and kept[0].name.startswith("run.kept-") and str(kept[0]) in err
    assert sorted(os.listdir(kept[0])) == ["ckpt.pt", "metrics.csv", "sample.txt"]


@pytest.mark.parametrize("version", ENDS)
def test_data_deleted_mid_run_keeps_the_run(version, run, tiny_corpus, tmp_path, monkeypatch):
    """The text is hashed once, as the run starts: its sha256 is the one trained on. v8's sample
    reads the val text again, so v8 says why it has none, and keeps the run."""
    data = tmp_path / "text.txt"
    shutil.copy(tiny_corpus, data)
    module, real = load(version), load(version).get_batch
    monkeypatch.setattr(module, "get_batch", lambda *a: data.unlink(missing_ok=True) or real(*a))
    code, _, err = run(version, tiny_args(data, tmp_path / "run"))
    ckpt = torch.load(tmp_path / "run" / "ckpt.pt", weights_only=True)
    import hashlib
    assert ckpt["data_sha256"] == hashlib.sha256(tiny_corpus.read_bytes()).hexdigest()
    assert ckpt["step"] == 12
    if version == "v8_bert_mlm":  # an error, not a stop: exit status 1, one line
        assert code == 1 and err.startswith("error: cannot read --data") and err.count("\n") == 1
        assert f"saved in {tmp_path / 'run'}, without a sample" in err
        assert "no sample: cannot read" in (tmp_path / "run" / "sample.txt").read_text()
    else:
        assert (code, err) == (0, "")


def test_a_new_folder_is_made_only_by_a_run_that_saves(run, tiny_corpus, tmp_path,
                                                        monkeypatch):
    """The folders made above --out for the run go again when it saves nothing, whatever stops
    it: Ctrl-C before the first step, or --data that is not there."""
    stop_on_call(monkeypatch, load("v1_bigram"), 1, None)
    assert run("v1_bigram", tiny_args(tiny_corpus, tmp_path / "a" / "b" / "run"))[0] == 130
    assert run("v1_bigram", tiny_args(tmp_path / "none.txt", tmp_path / "a" / "b" / "run"))[0] == 1
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("flag", ["--out", "--data"])
def test_a_path_the_system_cannot_take_is_one_error_line_not_a_stop(flag, run, tiny_corpus,
                                                                   tmp_path):
    """Names over 255 characters, and --out /: errors of the input, exit 1, not a Ctrl-C."""
    for path in [tmp_path / ("n" * 300), tmp_path / ("n" * 300) / "x"] + [pathlib.Path("/")] * (
            flag == "--out"):
        args = tiny_args(tiny_corpus, tmp_path / "run")
        args[args.index(flag) + 1] = str(path)
        assert_one_line_error(run("v1_bigram", args), flag if path != pathlib.Path("/") else "/")
    assert list(tmp_path.iterdir()) == []


def test_an_out_whose_name_is_too_long_says_to_pass_another(run, tiny_corpus, tmp_path):
    """.NAME.partial is 9 characters longer than NAME: there is nothing to delete."""
    assert_one_line_error(run("v1_bigram", tiny_args(tiny_corpus, tmp_path / ("n" * 250))),
                          "File name too long", "pass another --out")
    assert list(tmp_path.iterdir()) == []


# ------------------------------------------------------------------ pipes and --generate
def closed_pipe_after(module, monkeypatch, n):
    """print to stdout raises BrokenPipeError after n lines, as once `| head` has gone."""
    calls = [0]

    def print_to_a_closed_pipe(*args, file=None, **kwargs):
        if file is not None:  # stderr is still there
            return print(*args, file=file, **kwargs)
        calls[0] += 1
        if calls[0] > n:
            raise BrokenPipeError(errno.EPIPE, os.strerror(errno.EPIPE))

    monkeypatch.setattr(module, "print", print_to_a_closed_pipe, raising=False)


def test_a_closed_pipe_stops_the_run_as_ctrl_c_does(run, tiny_corpus, tmp_path, monkeypatch):
    """`python train.py | head -2`: once head has gone, the next print fails; the run saves what
    was trained instead of losing it."""
    closed_pipe_after(load("v1_bigram"), monkeypatch, 2)  # the parameter count and step 0
    code, _, err = run("v1_bigram", tiny_args(tiny_corpus, tmp_path / "run"))
    assert code == 130 and err == f"stopped at step 4: saved in {tmp_path / 'run'}\n"
    assert torch.load(tmp_path / "run" / "ckpt.pt", weights_only=True)["step"] == 4


def test_a_closed_or_full_stdout_keeps_the_run(run, tiny_corpus, tmp_path, monkeypatch):
    """`>&-` (stdout None) trains and saves; `> /dev/full` stops at the first line it cannot
    write, and saves what was trained, as a closed pipe does."""
    monkeypatch.setattr("sys.stdout", None)
    code, _, err = run("v1_bigram", tiny_args(tiny_corpus, tmp_path / "closed"))
    assert (code, err) == (0, "") and (tmp_path / "closed" / "ckpt.pt").is_file()
    monkeypatch.undo()
    calls = [0]

    def print_to_a_full_disk(*args, file=None, **kwargs):
        if file is not None:
            return print(*args, file=file, **kwargs)
        calls[0] += 1
        if calls[0] > 2:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(load("v1_bigram"), "print", print_to_a_full_disk, raising=False)
    code, _, err = run("v1_bigram", tiny_args(tiny_corpus, tmp_path / "full"))
    assert code == 130 and err == f"stopped at step 4: saved in {tmp_path / 'full'}\n"


@pytest.mark.parametrize("version", ENDS)
@pytest.mark.parametrize("stop", ["pipe", "ctrl-c"])
def test_generate_stopped_or_piped_is_one_line(version, stop, run, trained, tiny_corpus,
                                               monkeypatch):
    before = folder_bytes(trained[version])
    module = load(version)
    if stop == "pipe":  # python train.py --generate | head -c 100
        closed_pipe_after(module, monkeypatch, 0)
    else:
        real = module.sample
        monkeypatch.setattr(module, "sample", lambda m, c, a: real(m, c, a) if not a.sample_chars
                            else (_ for _ in ()).throw(KeyboardInterrupt))
    code, _, err = run(version, ["--generate", "--out", trained[version], "--data", tiny_corpus])
    assert (code, err) == (130, "stopped: nothing was written\n")
    assert folder_bytes(trained[version]) == before


def test_generate_refuses_another_version_s_or_step_s_run_naming_both(run, trained, tmp_path):
    """A step's train.py and its rung's can build the same shapes: the name decides."""
    out, _ = copy_of(trained, "v1_bigram", tmp_path)
    ckpt = torch.load(out / "ckpt.pt", weights_only=True)
    torch.save({**ckpt, "version": "00-v1_bigram"}, out / "ckpt.pt")
    assert_one_line_error(run("v1_bigram", ["--generate", "--out", out]), "a run of 00-v1_bigram",
                          "a run of v1_bigram")
    assert_one_line_error(run("v8_bert_mlm", ["--generate", "--out", trained["v7_bert_layer"]]),
                          "a run of v7_bert_layer", "a run of v8_bert_mlm")


# ------------------------------------------------------------------ the progress bar, the device
class Terminal(io.StringIO):
    def isatty(self):
        return True


def test_a_bar_on_a_terminal_s_stderr_and_the_estimate_lines_as_they_were(run, tiny_corpus,
                                                                          tmp_path, monkeypatch):
    """On a terminal, a bar counts the steps between two estimates, on stderr, and is cleared
    before each estimate's line is printed, so stdout holds what the lecture's loop prints."""
    code, plain, err = run("v4_multihead", tiny_args(tiny_corpus, tmp_path / "a"))
    assert (code, err) == (0, "")  # not a terminal: no bar
    terminal, at_each_print, module = Terminal(), [], load("v4_multihead")
    monkeypatch.setattr(os, "isatty", lambda fd: fd == 2)
    monkeypatch.setattr("sys.stderr", terminal)
    monkeypatch.setattr(module, "print", lambda *a, **k: (
        k.get("file") or at_each_print.append(terminal.getvalue()), print(*a, **k)), raising=False)
    code, barred, _ = run("v4_multihead", tiny_args(tiny_corpus, tmp_path / "b"))
    assert code == 0 and barred == plain
    assert terminal.getvalue().count("| 0/4 [") == 3  # one bar between each two estimates
    assert all(s == "" or s.endswith("\r") for s in at_each_print), "a bar was left on screen"


@pytest.mark.parametrize("cuda,mps,picked", [(True, True, "cuda"), (False, True, "mps"),
                                             (False, False, "cpu")])
def test_auto_picks_cuda_then_apple_s_gpu_then_the_cpu(cuda, mps, picked, monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: cuda)
    monkeypatch.setattr(torch.mps, "is_available", lambda: mps)
    module = load("v6_block")
    assert module.parse_args([]).device == picked
    assert module.parse_args(["--device", "cpu"]).device == "cpu"
    if mps:
        assert module.parse_args(["--device", "mps"]).device == "mps"
    else:
        with pytest.raises(SystemExit, match="mps"):
            module.parse_args(["--device", "mps"])
