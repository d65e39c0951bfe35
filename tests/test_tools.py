"""tools/plot_losses.py and tools/bench.py, run for real on tiny inputs; every tool's command
line."""
import hashlib
import subprocess
import sys

import pytest

from conftest import ROOT, load, load_tool, tiny_args
from versions import TINY_SHAKESPEARE_SHA256

TINYPLAYS = ROOT / "data" / "tinyplays.txt"


def write_metrics(folder, rows):
    folder.mkdir(parents=True)
    lines = ["step,train_loss,val_loss,elapsed_s"] + [f"{s},{t},{v},{e}" for s, t, v, e in rows]
    (folder / "metrics.csv").write_text("\n".join(lines) + "\n")
    return folder


def write_checkpoint(folder, version, data=TINYPLAYS, chars="\n !,.:?ABCDEGHKLMNOPRSTWYaehnot",
                     data_sha256=None, **hyperparameters):
    """folder/ckpt.pt as <version>/train.py saves one, at its default sizes, random weights,
    trained on data (its path and sha256; data_sha256 replaces the file's; data=None: neither
    recorded, as before train.py recorded them). hyperparameters: the ones to change."""
    import torch

    module = load(version)
    model_args = {name: getattr(module, name) for name in module.MODEL_ARGS}
    model = module.LanguageModel(len(chars), **model_args)
    ckpt = {"version": version, "step": 0, "n_params": sum(p.numel() for p in model.parameters()),
            "chars": chars, "model_args": model_args,
            "hyperparameters": {**{name: getattr(module, name) for name in module.HYPERPARAMETERS},
                                **hyperparameters},
            "state_dict": model.state_dict()}
    if data is not None:
        ckpt["data"] = str(data)
        ckpt["data_sha256"] = data_sha256 or hashlib.sha256(data.read_bytes()).hexdigest()
    folder.mkdir(parents=True, exist_ok=True)
    torch.save(ckpt, folder / "ckpt.pt")
    return folder


def test_plot_losses_overlays_runs_and_csv_files(tmp_path, capsys):
    a = write_metrics(tmp_path / "v1_bigram",
                      [(0, 4.2, 4.2, 0.0), (300, 2.6, 2.6, 1.0), (600, 2.5, 2.52, 2.0)])
    b = write_metrics(tmp_path / "v4_multihead", [(0, 4.3, 4.3, 0.0), (500, 2.4, 2.45, 3.0)])
    (tmp_path / "reference.csv").write_text((b / "metrics.csv").read_text())
    out = tmp_path / "plots" / "ladder.png"
    assert load_tool("plot_losses").main(
        [str(a), str(b), str(tmp_path / "reference.csv"), "-o", str(out)]) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and out.stat().st_size > 10_000
    assert "3 runs" in capsys.readouterr().out


@pytest.mark.parametrize("make_input,message", [
    (lambda d: d / "missing", "no metrics.csv"),
    (lambda d: write_metrics(d / "empty", []), "no step,train_loss,val_loss rows"),
    (lambda d: write_metrics(d / "bad", [(0, "x", 1.0, 0.0)]), "not numbers"),
])
def test_plot_losses_bad_input(make_input, message, tmp_path, capsys):
    code = load_tool("plot_losses").main([str(make_input(tmp_path)), "-o", str(tmp_path / "x.png")])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("error: ") and err.count("\n") == 1 and message in err
    assert not (tmp_path / "x.png").exists()


def test_bench_runs_versions_and_prints_the_table(tiny_corpus, tmp_path, capsys):
    extra = tiny_args(tiny_corpus, tmp_path)[4:]  # the tiny settings, without --data/--out
    extra = [a for a in extra if a not in ("--sample-chars", "20")]
    argv = ["--data", str(tiny_corpus), "--out", str(tmp_path),
            "--csv", str(tmp_path / "table.csv"),
            "--versions", "v1_bigram", "v6_block", "--", *extra]
    assert load_tool("bench").main(argv) == 0
    out = capsys.readouterr().out
    rows = [line.split() for line in out.splitlines() if line.startswith(("v1_", "v6_"))]
    assert [r[:2] for r in rows] == [["v1_bigram", "1337"], ["v6_block", "1337"]]
    assert all(r[3] == "30" for r in rows)  # steps
    table = (tmp_path / "table.csv").read_text().splitlines()
    assert table[0].startswith("version,seed,params,steps,train_loss,val_loss") and len(table) == 3


def test_bench_with_several_seeds_prints_their_spread(tiny_corpus, tmp_path, capsys):
    import csv

    extra = [a for a in tiny_args(tiny_corpus, tmp_path)[4:] if a not in ("--sample-chars", "20")]
    argv = ["--data", str(tiny_corpus), "--out", str(tmp_path),
            "--csv", str(tmp_path / "table.csv"),
            "--versions", "v4_multihead", "--seed", "1", "2", "--", *extra]
    assert load_tool("bench").main(argv) == 0
    out = capsys.readouterr().out
    with open(tmp_path / "table.csv", newline="") as f:
        vals = {int(r["seed"]): float(r["val_loss"]) for r in csv.DictReader(f)}
    assert set(vals) == {1, 2} and vals[1] != vals[2]  # different seeds, different runs
    assert (tmp_path / "v4_multihead_seed1" / "metrics.csv").is_file()
    spread = out.split("val loss over seeds")[1].splitlines()[3].split()
    assert spread[:2] == ["v4_multihead", "2"]
    assert [float(x) for x in spread[2:5]] == [round(min(vals.values()), 4),
                                               round(sum(vals.values()) / 2, 4),
                                               round(max(vals.values()), 4)]


def test_plot_losses_reference_adds_the_committed_curve_of_the_run_s_data(tmp_path, capsys):
    plays = write_metrics(tmp_path / "v6_block", [(0, 4.3, 4.3, 0.0), (5000, 1.7, 1.7, 50.0)])
    write_checkpoint(plays, "v6_block")
    mine = write_metrics(tmp_path / "my_run", [(0, 4.3, 4.3, 0.0), (5000, 2.3, 2.3, 14.0)])
    # the data's sha256 decides, not its file name: this one is tiny shakespeare
    write_checkpoint(mine, "v4_multihead", data_sha256=TINY_SHAKESPEARE_SHA256)
    tool = load_tool("plot_losses")
    label, steps, _, val = tool.reference_for(plays)
    expected = tool.read_metrics(ROOT / "reference" / "tinyplays" / "v6_block.csv")
    assert label == "v6_block reference (tinyplays)" and (steps, val) == (expected[1], expected[3])
    label, steps, _, val = tool.reference_for(mine)
    assert (label == "v4_multihead reference (tinyshakespeare)"
            and steps[-1] == 5000 and val[-1] < 2.3)
    out = tmp_path / "check.png"
    assert tool.main([str(plays), str(mine), "--reference", "-o", str(out)]) == 0 and out.is_file()
    assert "4 runs" in capsys.readouterr().out
    # a metrics.csv in a run folder counts as its run; two runs of one reference draw it once
    assert tool.main([str(plays / "metrics.csv"), str(plays), "--reference", "-o", str(out)]) == 0
    assert "3 runs" in capsys.readouterr().out


def test_plot_losses_reference_reads_what_a_real_run_recorded(run, tiny_corpus, tmp_path, capsys):
    """train.py's own checkpoint: on tinyplays.txt the reference is tinyplays'; on another text,
    even one cut from tinyplays.txt, there is none."""
    tool = load_tool("plot_losses")
    plays, other = tmp_path / "plays", tmp_path / "other"
    assert run("v1_bigram", tiny_args(TINYPLAYS, plays))[0] == 0
    assert run("v1_bigram", tiny_args(tiny_corpus, other))[0] == 0
    assert tool.reference_for(plays)[0] == "v1_bigram reference (tinyplays)"
    assert tool.main([str(other), "--reference", "-o", str(tmp_path / "x.png")]) == 2
    err = capsys.readouterr().err
    assert f"no reference run for the data of {other}, {tiny_corpus} (sha256 " in err


@pytest.mark.parametrize("checkpoint,fragments", [
    (lambda d: write_checkpoint(d, "v6_block", data=d.parent / "text.txt"),
     ["no reference run for the data of", "text.txt (sha256 ", "leave out --reference"]),
    (lambda d: write_checkpoint(d, "v6_block", data=None), ["data its checkpoint does not record"]),
    (lambda d: write_checkpoint(d, "v6_block", data_sha256="f" * 64), ["(sha256 ffff"]),
    (lambda d: None, ["no checkpoint at"]),
])
def test_plot_losses_reference_needs_a_run_on_known_data(checkpoint, fragments, tmp_path, capsys):
    (tmp_path / "text.txt").write_text("Some other text.\n" * 100)
    run = write_metrics(tmp_path / "v6_block", [(0, 4.3, 4.3, 0.0), (5000, 1.7, 1.7, 50.0)])
    checkpoint(run)
    out = tmp_path / "check.png"
    assert load_tool("plot_losses").main([str(run), "--reference", "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1
    assert all(fragment in err for fragment in fragments), err
    assert not out.exists()


@pytest.mark.parametrize("script", ["tools/bench.py", "tools/bench_bert.py", "tools/plot_losses.py",
                                    "tools/make_figures.py", "tools/fill_accuracy.py",
                                    "tools/load_bert.py", "data/prepare.py"])
def test_tools_refuse_unknown_flags_in_one_line(script):
    proc = subprocess.run([sys.executable, str(ROOT / script), "--no-such-flag"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and proc.stdout == ""
    assert (proc.stderr.startswith("error: ") and proc.stderr.count("\n") == 1
            and "--help" in proc.stderr)
