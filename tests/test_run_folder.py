"""A run folder always holds one whole run. Whatever arrives (Ctrl-C or SIGTERM in any phase, a NaN,
a full disk, a second run, a run of another version), what the folder held stays, or the new run
replaces it whole. And a seed gives the same figures whatever the core count."""
import errno
import functools
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch

from conftest import ROOT, VERSIONS, folder_bytes, load, tiny_args
from test_bad_input import assert_one_line_error

NEIGHBOURS = list(zip(VERSIONS, VERSIONS[1:] + VERSIONS[:1]))  # (v1, v4), ..., (v8, v1)


def finished_run(run, version, corpus, out):
    assert run(version, tiny_args(corpus, out))[0] == 0
    return folder_bytes(out)


def interrupt_on_call(monkeypatch, module, name, n, how=KeyboardInterrupt):
    """module.name raises how (an exception, or a signal number sent to this process) on its n-th
    call."""
    real, calls = getattr(module, name), {"n": 0}

    @functools.wraps(real)  # its docstring too: sample's first line is --prompt's help
    def wrapped(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] == n:
            if isinstance(how, int):
                os.kill(os.getpid(), how)  # a real signal: the handler main() installed answers it
            else:
                raise how
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, wrapped)


@pytest.mark.parametrize("version", VERSIONS)
def test_ctrl_c_before_the_first_step_of_a_rerun_keeps_the_finished_run(version, run,
                                                                        tiny_corpus, tmp_path,
                                                                        monkeypatch):
    before = finished_run(run, version, tiny_corpus, tmp_path)
    # the first batch of the first loss estimate: as `timeout -s INT 8 ... --eval-iters 3000`
    interrupt_on_call(monkeypatch, load(version), "get_batch", 1)
    code, _, err = run(version, tiny_args(tiny_corpus, tmp_path))
    assert code == 130 and "interrupted at step 0" in err and "stays as it was" in err
    assert folder_bytes(tmp_path) == before


@pytest.mark.parametrize("version", VERSIONS)
def test_ctrl_c_mid_rerun_replaces_the_old_run_whole(version, run, tiny_corpus, tmp_path,
                                                     monkeypatch):
    finished_run(run, version, tiny_corpus, tmp_path)
    interrupt_on_call(monkeypatch, load(version), "get_batch", 2 * 4 + 5 + 1)  # at step 5
    assert run(version, tiny_args(tiny_corpus, tmp_path))[0] == 130
    assert torch.load(tmp_path / "ckpt.pt", weights_only=True)["step"] == 5
    metrics = (tmp_path / "metrics.csv").read_text().splitlines()
    assert [row.split(",")[0] for row in metrics] == ["step", "0"], "only the new run's rows"
    assert not (tmp_path / "sample.txt").exists(), "the old run's sample must not stay behind"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ckpt.pt", "loss.png", "metrics.csv"]


@pytest.mark.parametrize("version,other", NEIGHBOURS)
def test_a_folder_holding_another_versions_run_is_refused(version, other, run, tiny_corpus,
                                                          tmp_path):
    before = finished_run(run, other, tiny_corpus, tmp_path)
    assert_one_line_error(run(version, tiny_args(tiny_corpus, tmp_path)),
                          f"holds a {other} run, not a {version} run", "--out")
    assert folder_bytes(tmp_path) == before


@pytest.mark.parametrize("files", [{"notes.txt": b"mine"}, {"ckpt.pt": b""},
                                   {"ckpt.pt": b"not a checkpoint", "metrics.csv": b"a,b\n"}])
def test_a_folder_holding_anything_but_a_run_is_refused(files, run, tiny_corpus, tmp_path):
    for name, content in files.items():
        (tmp_path / name).write_bytes(content)
    assert_one_line_error(run("v6_block", tiny_args(tiny_corpus, tmp_path)),
                          "no ckpt.pt that loads, not a v6_block run", "--out")
    assert folder_bytes(tmp_path) == files


def test_an_empty_out_is_refused(run, tiny_corpus, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # Path("") is the current folder: the run would land here
    argv = tiny_args(tiny_corpus, "")
    assert_one_line_error(run("v1_bigram", argv), "argument --out", "--help")
    assert not any(tmp_path.iterdir())


@pytest.mark.parametrize("version", ["v1_bigram", "v8_bert_mlm"])
@pytest.mark.parametrize("where", ["the metrics", "the checkpoint", "the plot"])
def test_a_full_disk_leaves_the_old_run(version, where, run, tiny_corpus, tmp_path, monkeypatch):
    before = finished_run(run, version, tiny_corpus, tmp_path)
    full = OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    mod = load(version)
    if where == "the metrics":
        interrupt_on_call(monkeypatch, mod.Run, "evaluation", 2, full)
    elif where == "the checkpoint":
        interrupt_on_call(monkeypatch, torch, "save", 1, full)
    else:
        interrupt_on_call(monkeypatch, mod.Run, "plot", 1, full)
    assert_one_line_error(run(version, tiny_args(tiny_corpus, tmp_path)),
                          f"cannot write the run to {tmp_path} (No space left on device)", "--out")
    assert folder_bytes(tmp_path) == before


def test_a_read_only_folder_is_refused_before_training(run, tiny_corpus, tmp_path, monkeypatch):
    # root ignores file modes, so the file system's answer is played here
    def read_only(self, *args, **kwargs):
        raise OSError(errno.EROFS, os.strerror(errno.EROFS))

    monkeypatch.setattr(Path, "mkdir", read_only)
    trained = []
    monkeypatch.setattr(load("v5_ffn"), "train", lambda *a: trained.append(1))
    assert_one_line_error(run("v5_ffn", tiny_args(tiny_corpus, tmp_path)),
                          f"cannot create the run folder {tmp_path} (Read-only file system)")
    assert not trained and not any(tmp_path.iterdir())


@pytest.mark.parametrize("signum,code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
@pytest.mark.parametrize("where", ["the checkpoint", "the sample"])
def test_a_signal_while_a_finished_run_is_saved_waits_for_the_save(signum, code, where, run,
                                                                   tiny_corpus, tmp_path,
                                                                   monkeypatch):
    mod = load("v7_bert_layer")
    if where == "the checkpoint":
        interrupt_on_call(monkeypatch, torch, "save", 1, signum)
    else:  # the first call is the 0-character check before training
        interrupt_on_call(monkeypatch, mod, "sample", 2, signum)
    result = run("v7_bert_layer", tiny_args(tiny_corpus, tmp_path))
    assert result[0] == code
    assert torch.load(tmp_path / "ckpt.pt", weights_only=True)["step"] == 30
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(mod.RUN_FILES)
    assert signal.getsignal(signal.SIGINT) is not mod.Run, "main() puts the handlers back"


def test_two_signals_mid_training_still_save(run, tiny_corpus, tmp_path, monkeypatch):
    mod = load("v6_block")
    interrupt_on_call(monkeypatch, mod, "get_batch", 2 * 4 + 5 + 1, signal.SIGINT)
    interrupt_on_call(monkeypatch, torch, "save", 1, signal.SIGTERM)  # pressed again while saving
    assert run("v6_block", tiny_args(tiny_corpus, tmp_path))[0] == 130
    assert torch.load(tmp_path / "ckpt.pt", weights_only=True)["step"] == 5


# ------------------------------------------------------------------ real processes, real signals
def start(version, *argv, **env):
    return subprocess.Popen([sys.executable, str(ROOT / version / "train.py"), *map(str, argv)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, **env})


def wait_for(path, proc, seconds=60):
    deadline = time.time() + seconds
    while not path.exists():
        assert proc.poll() is None, proc.communicate()
        assert time.time() < deadline, f"{path} never appeared"
        time.sleep(0.05)


def long_args(corpus, out):
    return tiny_args(corpus, out, "--max-iters", 10**6, "--eval-interval", 10**5)


def test_sigterm_saves_like_ctrl_c_and_a_second_run_is_kept_out(tiny_corpus, tmp_path):
    out = tmp_path / "run"
    first = start("v4_multihead", *long_args(tiny_corpus, out))
    wait_for(out / ".partial" / "metrics.csv", first)
    time.sleep(0.5)  # some steps
    second = start("v4_multihead", *tiny_args(tiny_corpus, out))
    stdout, err = second.communicate(timeout=60)
    assert second.returncode == 2 and err.startswith("error: another run is writing to ")
    assert err.count("\n") == 1
    first.send_signal(signal.SIGTERM)
    stdout, err = first.communicate(timeout=60)
    assert first.returncode == 143 and "terminated at step" in err and "Traceback" not in err
    step = torch.load(out / "ckpt.pt", weights_only=True)["step"]
    assert step > 0 and f"terminated at step {step}:" in err
    assert sorted(p.name for p in out.iterdir()) == ["ckpt.pt", "loss.png", "metrics.csv"]


@pytest.mark.parametrize("delay", [0, 0.1, 0.3, 0.6])
def test_ctrl_c_while_torch_loads_stops_quietly(delay, tiny_corpus, tmp_path):
    proc = start("v6_block", *tiny_args(tiny_corpus, tmp_path / "run"))
    maps = Path(f"/proc/{proc.pid}/maps")  # (Linux) the script runs once torch's library maps in
    deadline = time.time() + 60
    while "libtorch" not in maps.read_text():
        assert proc.poll() is None and time.time() < deadline, proc.communicate()
        time.sleep(0.005)
    time.sleep(delay)
    proc.send_signal(signal.SIGINT)
    stdout, err = proc.communicate(timeout=120)
    # killed by the signal while importing, or stopped by main(): never ignored, no traceback
    assert proc.returncode in (-signal.SIGINT, 130), (proc.returncode, err)
    assert "Traceback" not in err and "Error" not in err and "KeyboardInterrupt" not in err, err
    assert not (tmp_path / "run" / ".partial").exists()


def test_the_figures_do_not_depend_on_the_core_count(tiny_corpus, tmp_path):
    losses = []
    for threads in ("1", "2"):
        out = tmp_path / threads
        proc = start("v6_block", *tiny_args(tiny_corpus, out), OMP_NUM_THREADS=threads)
        assert proc.wait(timeout=120) == 0
        rows = (out / "metrics.csv").read_text().splitlines()
        losses.append([row.rsplit(",", 1)[0] for row in rows])  # elapsed_s is wall time
    assert losses[0] == losses[1] and len(losses[0]) == 5
