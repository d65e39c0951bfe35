"""A run folder always holds one whole run. Whatever arrives (Ctrl-C or SIGTERM, a NaN, a full
disk, a second run), what the folder held stays, or the new run replaces it whole. The plumbing
is the same in every version: v1 and v8, the smallest and the largest lesson, stand for all."""
import errno
import os
import pathlib
import shutil
import signal

import pytest
import torch

from conftest import ROOT, folder_bytes, load, tiny_args
from test_bad_input import assert_one_line_error

ENDS = ["v1_bigram", "v8_bert_mlm"]


def stop_on_call(monkeypatch, module, n, how):
    """module.get_batch raises KeyboardInterrupt (how=None) or sends this process the signal how
    on its n-th call. A tiny run calls it 2 * 4 times per estimate, once per step."""
    real, calls = module.get_batch, [0]

    def get_batch(*args):
        calls[0] += 1
        if calls[0] == n:
            if how is None:
                raise KeyboardInterrupt
            os.kill(os.getpid(), how)  # the handler main() installed answers it
        return real(*args)

    monkeypatch.setattr(module, "get_batch", get_batch)


def copy_of(trained, version, tmp_path):
    out = tmp_path / "run"
    shutil.copytree(trained[version], out)
    return out, folder_bytes(out)


@pytest.mark.parametrize("version", ENDS)
@pytest.mark.parametrize("how", [None, signal.SIGTERM])
def test_a_rerun_stopped_before_its_first_step_leaves_the_old_run(version, how, run, trained,
                                                                   tiny_corpus, tmp_path,
                                                                   monkeypatch):
    out, before = copy_of(trained, version, tmp_path)
    stop_on_call(monkeypatch, load(version), 1, how)  # in the first loss estimate
    code, _, err = run(version, tiny_args(tiny_corpus, out, "--seed", 5))
    assert code == 130 and "stopped at step 0" in err
    assert folder_bytes(out) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run"], "nothing left beside it"


@pytest.mark.parametrize("version", ENDS)
@pytest.mark.parametrize("how", [None, signal.SIGTERM])
def test_ctrl_c_or_sigterm_mid_run_saves_what_was_trained_whole(version, how, run, trained,
                                                                  tiny_corpus, tmp_path,
                                                                  monkeypatch):
    out, _ = copy_of(trained, version, tmp_path)
    stop_on_call(monkeypatch, load(version), 2 * 4 + 5 + 1, how)  # at step 5
    code, _, err = run(version, tiny_args(tiny_corpus, out, "--seed", 5))
    assert code == 130 and "stopped at step 5" in err
    assert torch.load(out / "ckpt.pt", weights_only=True)["step"] == 5
    assert (out / "metrics.csv").read_text().splitlines()[1:] != []
    assert [r.split(",")[0] for r in (out / "metrics.csv").read_text().splitlines()] == ["step",
                                                                                         "0"]
    assert "stopped" in (out / "sample.txt").read_text(), "the old run's sample must not stay"


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


@pytest.mark.parametrize("version", ENDS)
def test_a_full_disk_leaves_the_old_run(version, run, trained, tiny_corpus, tmp_path,
                                        monkeypatch):
    out, before = copy_of(trained, version, tmp_path)
    real = pathlib.Path.write_text

    def write_text(self, *args, **kwargs):
        if self.name == "sample.txt":  # the last file written aside
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real(self, *args, **kwargs)

    monkeypatch.setattr(pathlib.Path, "write_text", write_text)
    assert_one_line_error(run(version, tiny_args(tiny_corpus, out, "--seed", 3)),
                          "No space left on device")
    assert folder_bytes(out) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run"]


def test_a_second_run_into_a_folder_being_written_is_refused(run, trained, tiny_corpus,
                                                             tmp_path):
    out, before = copy_of(trained, "v4_multihead", tmp_path)
    (tmp_path / ".run.partial").mkdir()  # what a run writing there holds
    assert_one_line_error(run("v4_multihead", tiny_args(tiny_corpus, out)),
                          "cannot create", ".run.partial", "File exists", "delete it")
    assert folder_bytes(out) == before and (tmp_path / ".run.partial").is_dir()


def test_a_new_folder_is_made_only_by_a_run_that_saves(run, tiny_corpus, tmp_path,
                                                        monkeypatch):
    stop_on_call(monkeypatch, load("v1_bigram"), 1, None)
    assert run("v1_bigram", tiny_args(tiny_corpus, tmp_path / "a" / "run"))[0] == 130
    assert list((tmp_path / "a").iterdir()) == []


def test_a_closed_pipe_stops_the_run_as_ctrl_c_does(run, tiny_corpus, tmp_path, monkeypatch):
    """`python train.py | head -2`: once head has gone, the next print fails; the run saves what
    was trained instead of losing it."""
    module, calls = load("v1_bigram"), [0]

    def print_to_a_closed_pipe(*args, file=None, **kwargs):
        if file is not None:  # stderr is still there
            return print(*args, file=file, **kwargs)
        calls[0] += 1
        if calls[0] > 2:  # the parameter count and step 0 got through
            raise BrokenPipeError(errno.EPIPE, os.strerror(errno.EPIPE))

    monkeypatch.setattr(module, "print", print_to_a_closed_pipe, raising=False)
    code, _, err = run("v1_bigram", tiny_args(tiny_corpus, tmp_path / "run"))
    assert code == 130 and "stopped at step 10" in err
    assert torch.load(tmp_path / "run" / "ckpt.pt", weights_only=True)["step"] == 10
