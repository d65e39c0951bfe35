"""Every version trains, writes its run folder, repeats itself for a seed, and generates from its
checkpoint. One tiny run of each version is trained per session (conftest's `trained`)."""
import csv

import pytest
import torch

from conftest import VERSIONS, load, tiny_args


@pytest.mark.parametrize("version", VERSIONS)
def test_a_run_folder_holds_the_checkpoint_the_metrics_and_the_sample(version, trained):
    out = trained[version]
    assert sorted(p.name for p in out.iterdir()) == ["ckpt.pt", "metrics.csv", "sample.txt"]
    rows = list(csv.DictReader(open(out / "metrics.csv")))
    assert [int(r["step"]) for r in rows] == [0, 4, 8, 12]
    assert float(rows[-1]["train_loss"]) < float(rows[0]["train_loss"])  # it learns
    ckpt = torch.load(out / "ckpt.pt", weights_only=True)
    assert ckpt["version"] == version and ckpt["step"] == 12
    assert set(ckpt["hyperparameters"]) == set(load(version).HYPERPARAMETERS)
    assert (out / "sample.txt").read_text(encoding="utf-8").strip()
    assert not any(p.name.endswith(".partial") for p in out.parent.iterdir())


def losses(folder):
    """metrics.csv without its time column, which differs from run to run of course."""
    return [line.rsplit(",", 1)[0] for line in (folder / "metrics.csv").read_text().splitlines()]


@pytest.mark.parametrize("version", VERSIONS)
def test_same_seed_same_numbers(version, trained, run, tiny_corpus, tmp_path):
    assert run(version, tiny_args(tiny_corpus, tmp_path))[0] == 0
    assert losses(tmp_path) == losses(trained[version])
    assert (tmp_path / "sample.txt").read_bytes() == (trained[version] / "sample.txt").read_bytes()


def test_another_seed_other_numbers(trained, run, tiny_corpus, tmp_path):
    """v8: the seed draws the weights, the batches and the masks."""
    assert run("v8_bert_mlm", tiny_args(tiny_corpus, tmp_path, "--seed", 7))[0] == 0
    assert losses(tmp_path) != losses(trained["v8_bert_mlm"])


@pytest.mark.parametrize("version", VERSIONS)
def test_generate_from_the_checkpoint(version, trained, run, tiny_corpus):
    prompt = "MARGERY: I pr_y you" if version == "v8_bert_mlm" else "MARGERY:"
    code, out, err = run(version, ["--generate", "--out", trained[version], "--data", tiny_corpus,
                                   "--prompt", prompt, "--sample-chars", 40])
    assert code == 0 and not err
    if version == "v8_bert_mlm":
        assert "blank at" in out and "_" not in out.splitlines()[0]
    else:
        assert out.startswith(prompt) and len(out.rstrip("\n")) == len(prompt) + 40


def test_one_thread_whatever_the_machine_has(trained, run, tiny_corpus, tmp_path):
    """One thread makes a seed's sums the same on any number of cores."""
    torch.set_num_threads(2)
    assert run("v4_multihead", tiny_args(tiny_corpus, tmp_path))[0] == 0
    assert torch.get_num_threads() == 1


def test_v6_depth_and_dropout_reach_the_model(run, tiny_corpus, tmp_path):
    assert run("v6_block", tiny_args(tiny_corpus, tmp_path, "--n-layer", 2, "--dropout",
                                     0.1))[0] == 0
    args = load("v6_block").parse_args(["--out", str(tmp_path)])
    model, _ = load("v6_block").load_checkpoint(args)
    assert len(model.blocks) == 2 and model.blocks[0].ffwd.net[-1].p == 0.1
