"""Every version trains end to end on a tiny corpus: files written, loss falls, seeded runs repeat,
generation works."""
import csv
import functools

import pytest
import torch

from conftest import CAUSAL_VERSIONS, VERSIONS, folder_bytes, load, tiny_args


def read_metrics(out):
    with open(out / "metrics.csv", newline="") as f:
        return list(csv.reader(f))


@pytest.mark.parametrize("version", VERSIONS)
def test_a_run_writes_its_files_and_the_loss_falls(version, run, tiny_corpus, tmp_path):
    code, stdout, _ = run(version, tiny_args(tiny_corpus, tmp_path, "--lr", "1e-2"))
    assert code == 0
    rows = read_metrics(tmp_path)
    assert rows[0][:4] == ["step", "train_loss", "val_loss", "elapsed_s"]
    # every eval_interval, and the last step
    assert [int(r[0]) for r in rows[1:]] == [0, 10, 20, 30]
    first, last = float(rows[1][2]), float(rows[-1][2])
    assert last < first - 0.1, f"val loss did not fall: {first} -> {last}"
    assert (tmp_path / "loss.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    sample = (tmp_path / "sample.txt").read_text(encoding="utf-8")
    if version in CAUSAL_VERSIONS:
        assert len(sample) == 1 + 20  # start character + 20 sampled
    else:  # v8: two 8-character windows of val text, as they are, with blanks, and filled
        assert sample.startswith("original:\n") and "\nmasked:\n" in sample and "filled" in sample
    ckpt = torch.load(tmp_path / "ckpt.pt", weights_only=True)
    assert ckpt["version"] == version and ckpt["step"] == 30
    # the summary line quotes the final val loss
    assert f"val {float(rows[-1][2]):.4f}" in stdout.splitlines()[-1]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(load(version).RUN_FILES), (
        "a finished run folder holds the run's files and nothing else (no .partial)")


@pytest.mark.parametrize("version", VERSIONS)
def test_same_seed_same_numbers(version, run, tiny_corpus, tmp_path):
    results = []
    for name, seed in (("a", 7), ("b", 7), ("c", 8)):
        assert run(version, tiny_args(tiny_corpus, tmp_path / name, "--seed", seed))[0] == 0
        # elapsed_s is wall time and may differ
        losses = [row[:3] for row in read_metrics(tmp_path / name)]
        results.append((losses, (tmp_path / name / "sample.txt").read_text(encoding="utf-8")))
    assert results[0] == results[1]
    assert results[0][0] != results[2][0], "a different seed should give different numbers"


@pytest.mark.parametrize("version", VERSIONS)
def test_generate_from_checkpoint(version, run, tiny_corpus, tmp_path):
    """One command line for every rung: --generate --prompt continues the prompt (v1-v7) or
    fills in its blanks (v8, each _ a blank)."""
    assert run(version, tiny_args(tiny_corpus, tmp_path))[0] == 0
    prompt = "The " if version in CAUSAL_VERSIONS else "Th_ k_ng"
    argv = ["--generate", "--out", tmp_path, "--prompt", prompt, "--sample-chars", 40,
            "--device", "cpu"]
    code, stdout, _ = run(version, argv)
    assert code == 0
    if version in CAUSAL_VERSIONS:
        assert stdout.startswith("The ")
        assert len(stdout) == len("The ") + 40 + 1  # prompt, 40 characters, print's newline
    else:
        filled = stdout.splitlines()[0]
        assert len(filled) == len(prompt) and "_" not in filled
        assert [c for c, p in zip(filled, prompt) if p != "_"] == [p for p in prompt if p != "_"]
    assert run(version, argv)[1] == stdout, "generation is seeded too"


@pytest.mark.parametrize("version", VERSIONS)
def test_a_nan_loss_stops_the_run_and_leaves_the_folder_as_it_was(version, run, tiny_corpus,
                                                                  tmp_path, monkeypatch):
    assert run(version, tiny_args(tiny_corpus, tmp_path / "old"))[0] == 0
    before = folder_bytes(tmp_path / "old")
    mod = load(version)
    forward, calls = mod.LanguageModel.forward, {"train": 0}

    def poisoned(self, idx, targets=None):
        logits, loss = forward(self, idx, targets)
        if self.training:
            calls["train"] += 1
            if calls["train"] > 12:
                loss = loss * float("nan")
        return logits, loss

    monkeypatch.setattr(mod.LanguageModel, "forward", poisoned)
    for out in (tmp_path / "old", tmp_path / "new"):
        calls["train"] = 0
        code, _, err = run(version, tiny_args(tiny_corpus, out))
        assert code == 2
        assert (err.count("\n") == 1 and err.startswith("error: the loss became nan at step 12")
                and "--lr" in err)
    assert folder_bytes(tmp_path / "old") == before, "a failed run must not touch the old run"
    assert not (tmp_path / "new").exists(), "a failed run into a new folder leaves no folder"


@pytest.mark.parametrize("version", VERSIONS)
def test_ctrl_c_saves_what_was_trained(version, run, tiny_corpus, tmp_path, monkeypatch):
    mod = load(version)
    get_batch, calls = mod.get_batch, {"n": 0}

    def interrupted(*args, **kwargs):
        calls["n"] += 1
        # after the first estimate (2 splits x 4 batches) and 5 training steps
        if calls["n"] == 2 * 4 + 5 + 1:
            raise KeyboardInterrupt
        return get_batch(*args, **kwargs)

    monkeypatch.setattr(mod, "get_batch", interrupted)
    code, _, err = run(version, tiny_args(tiny_corpus, tmp_path))
    assert code == 130 and "interrupted at step 5" in err
    assert torch.load(tmp_path / "ckpt.pt", weights_only=True)["step"] == 5
    assert (tmp_path / "loss.png").is_file()
    assert [r[0] for r in read_metrics(tmp_path)] == ["step", "0"]


@pytest.mark.parametrize("version", VERSIONS)
def test_ctrl_c_while_generating_stops_without_a_traceback(version, run, tiny_corpus, tmp_path,
                                                           monkeypatch):
    assert run(version, tiny_args(tiny_corpus, tmp_path))[0] == 0
    before = folder_bytes(tmp_path)
    mod = load(version)

    @functools.wraps(mod.sample)  # its docstring too: sample's first line is --prompt's help
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(mod, "sample", interrupted)
    code, out, err = run(version, ["--generate", "--out", tmp_path])
    assert code == 130 and out == "" and err == "\ninterrupted: nothing written\n"
    assert folder_bytes(tmp_path) == before


def test_v6_depth_and_dropout_flags_reach_the_model(run, tiny_corpus, tmp_path):
    code, stdout, _ = run("v6_block", tiny_args(tiny_corpus, tmp_path, "--n-layer", 2,
                                                "--dropout", 0.1))
    assert code == 0
    ckpt = torch.load(tmp_path / "ckpt.pt", weights_only=True)
    assert ckpt["model_args"] == {"block_size": 8, "n_embd": 32, "n_head": 4, "n_layer": 2,
                                  "dropout": 0.1}
    assert {k.split(".")[1] for k in ckpt["state_dict"] if k.startswith("blocks.")} == {"0", "1"}


@pytest.mark.parametrize("version", VERSIONS)
def test_help_lists_the_hyperparameters(version, capsys):
    with pytest.raises(SystemExit) as e:
        load(version).main(["--help"])
    assert e.value.code == 0
    text = capsys.readouterr().out
    for flag in ("--data", "--max-iters", "--eval-interval", "--batch-size", "--block-size", "--lr",
                 "--seed", "--device", "--out", "--sample-chars", "--generate", "--prompt"):
        assert flag in text
    if version != "v1_bigram":
        assert "--n-embd" in text and "--n-head" in text
    if version == "v6_block":
        for flag in ("--n-layer", "--dropout"):
            assert flag in text
