"""tools/plot_losses.py: --from-step and --ylim, and the note when a masked-LM run (v8) is drawn
beside next-character runs, whose losses do not compare. Small metrics.csv files, no training."""
import shutil

import pytest

from conftest import ROOT, load_tool
from test_bad_input import assert_one_line_error
from test_tools import write_checkpoint, write_metrics

REFERENCE = ROOT / "reference" / "tinyplays"
ROWS = [(0, 4.4, 4.4, 0.0), (499, 2.4, 2.4, 4.0), (500, 2.3, 2.3, 5.0), (1000, 2.1, 2.1, 10.0)]


@pytest.fixture
def drawn(monkeypatch):
    """The figures plot_losses draws, kept when it closes them, to read what is on them."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figures, close = [], plt.close

    def keep(fig=None):
        figures.append(fig)
        close(fig)

    monkeypatch.setattr(plt, "close", keep)
    return figures


@pytest.fixture
def call(capsys):
    """call(*argv) -> (exit code, stdout, stderr) of plot_losses' main()."""

    def _call(*argv):
        code = load_tool("plot_losses").main([str(a) for a in argv])
        captured = capsys.readouterr()
        return code, captured.out, captured.err

    return _call


def copy_reference(version, to):
    """The committed curve of version, as to/<version>/metrics.csv (to: a run folder named after
    its version) or, if to ends in .csv, as that file."""
    path = to if to.suffix == ".csv" else to / version / "metrics.csv"
    path.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(REFERENCE / f"{version}.csv", path)
    return path if to.suffix == ".csv" else path.parent


# ---------------------------------------------------------------- --from-step and --ylim
def test_from_step_draws_only_the_rows_from_that_step_on(tmp_path, call, drawn):
    run = write_metrics(tmp_path / "v6_block", ROWS)
    out = tmp_path / "x.png"
    assert call(run, "-o", out)[0] == 0
    assert list(drawn[-1].axes[0].lines[0].get_xdata()) == [0, 499, 500, 1000]
    code, stdout, err = call(run, "--from-step", 500, "-o", out)
    assert (code, err) == (0, "") and out.is_file() and "(1 runs)" in stdout
    val, train = drawn[-1].axes[0].lines[:2]
    assert list(val.get_xdata()) == list(train.get_xdata()) == [500, 1000]  # step 500 is kept
    assert list(val.get_ydata()) == [2.3, 2.1] and list(train.get_ydata()) == [2.3, 2.1]
    assert drawn[-1].axes[0].get_ylim()[1] < 2.5  # the step-0 loss no longer sets the axis


def test_from_step_cuts_every_run_and_the_legend_keeps_the_last_val_loss(tmp_path, call, drawn):
    a = write_metrics(tmp_path / "v6_block", ROWS)
    b = copy_reference("v7_bert_layer", tmp_path)
    assert call(a, b, "--from-step", 500, "-o", tmp_path / "x.png")[0] == 0
    lines = drawn[-1].axes[0].lines
    assert min(lines[0].get_xdata()) == 500 and min(lines[2].get_xdata()) == 500
    assert lines[2].get_label() == "v7_bert_layer val 1.680"


def test_ylim_sets_the_y_axis(tmp_path, call, drawn):
    run = write_metrics(tmp_path / "v6_block", ROWS)
    assert call(run, "--ylim", 1.5, 2.5, "-o", tmp_path / "x.png")[0] == 0
    assert drawn[-1].axes[0].get_ylim() == (1.5, 2.5)
    assert call(run, "-o", tmp_path / "x.png")[0] == 0
    assert drawn[-1].axes[0].get_ylim()[1] > 4.4  # without it: matplotlib's, around every curve
    for low, high in [("-1", "2"), ("-2", "-0.5")]:  # argparse reads -1 as a value
        assert call(run, "--ylim", low, high, "-o", tmp_path / "x.png")[0] == 0
        assert drawn[-1].axes[0].get_ylim() == (float(low), float(high))


@pytest.mark.parametrize("flags,fragment", [
    (["--from-step", "-1"], "--from-step -1 is below 0: give a step of 0 or more"),
    (["--from-step", "1.5"], "--from-step"),  # argparse words the rest
    (["--from-step", "x"], "--from-step"),
    (["--ylim", "2", "1"], "--ylim 2.0 1.0: LOW must be below HIGH"),
    (["--ylim", "2", "2"], "--ylim 2.0 2.0: LOW must be below HIGH"),
    (["--ylim", "nan", "2"], "--ylim nan 2.0 is not two finite numbers"),
    (["--ylim", "1", "inf"], "--ylim 1.0 inf is not two finite numbers"),
    (["--ylim", "1"], "--ylim"),
    (["--ylim", "low", "2"], "--ylim"),
])
def test_bad_from_step_and_ylim_are_one_line_errors_before_any_work(flags, fragment, tmp_path,
                                                                    call, drawn):
    run = write_metrics(tmp_path / "v6_block", ROWS)
    # a missing run beside it: the flag is refused before any run is read
    result = call(run, tmp_path / "missing_run", *flags, "-o", tmp_path / "x.png")
    assert_one_line_error(result, fragment)
    assert result[1] == "" and drawn == [] and not (tmp_path / "x.png").exists()


def test_a_loss_that_is_not_a_number_is_refused_not_drawn(tmp_path, call, drawn):
    run = write_metrics(tmp_path / "v6_block", ROWS[:2] + [(500, "nan", 2.3, 5.0)])
    result = call(run, "-o", tmp_path / "x.png")
    assert_one_line_error(result, "holds a loss that is not a number", "lower --lr")
    assert drawn == [] and not (tmp_path / "x.png").exists()


def test_a_full_disk_leaves_the_old_plot(tmp_path, call, full_disk_savefig):
    out = tmp_path / "x.png"
    out.write_bytes(b"the old plot")

    result = call(write_metrics(tmp_path / "run", ROWS), "-o", out)
    assert_one_line_error(result, f"cannot write {out} (No space left on device)")
    assert out.read_bytes() == b"the old plot" and sorted(p.name for p in tmp_path.iterdir()) == [
        "run", "x.png"]


def test_a_run_with_no_row_from_the_step_on_is_named_with_its_last_step(tmp_path, call, drawn):
    a = copy_reference("v7_bert_layer", tmp_path)
    b = write_metrics(tmp_path / "short_run", ROWS)
    result = call(a, b, "--from-step", 1001, "-o", tmp_path / "x.png")
    assert_one_line_error(result, "short_run has no row at or after step 1001",
                          "(its last step is 1000)", "pass a smaller --from-step")
    assert result[1] == "" and drawn == [] and not (tmp_path / "x.png").exists()


# ---------------------------------------------------------------- masked-LM beside next-character
def csv_files(tmp_path, *versions):
    return [copy_reference(v, tmp_path / f"{v}.csv") for v in versions]


def folders(tmp_path, *versions):
    return [copy_reference(v, tmp_path) for v in versions]


def committed(tmp_path, *versions):
    return [REFERENCE / f"{v}.csv" for v in versions]


@pytest.mark.parametrize("make_runs,versions,masked", [  # each kind of input, each kind of mix
    (committed, ["v7_bert_layer", "v8_bert_mlm"], True),
    (csv_files, ["v8_bert_mlm", "v1_bigram", "v6_block"], True),
    (folders, ["v6_block", "v7_bert_layer"], False),
    (folders, ["v7_bert_layer", "v8_bert_mlm"], True),
    (csv_files, ["v8_bert_mlm"], False),
])
def test_a_note_says_when_masked_lm_and_next_character_losses_are_overlaid(
        make_runs, versions, masked, tmp_path, call, drawn):
    output = tmp_path / "x.png"
    code, out, err = call(*make_runs(tmp_path, *versions), "-o", output)
    assert (code, err) == (0, "") and output.is_file()  # it still draws
    notes = [line for line in out.splitlines() if line.startswith("note:")]
    on_plot = [t.get_text() for t in drawn[-1].axes[0].texts]
    if not masked:
        assert notes == [] and on_plot == [] and out.startswith("wrote ")
        return
    others = ", ".join(v for v in versions if v != "v8_bert_mlm")
    assert notes == [f"note: the loss of the masked-LM run v8_bert_mlm is over masked characters "
                     f"only, that of {others} over every next character: the curves do not "
                     "compare (tools/fill_accuracy.py compares v7 and v8 on one task)"]
    assert on_plot == ["masked-LM v8_bert_mlm: loss over masked characters only, the others' "
                       "over every next character: not comparable"]


def test_the_note_names_runs_by_their_labels_and_ignores_runs_of_no_known_version(
        tmp_path, call, drawn):
    v7, v8 = committed(tmp_path, "v7_bert_layer", "v8_bert_mlm")
    mine = write_metrics(tmp_path / "my_run", ROWS)  # no ckpt.pt, no version's name: no claim
    code, out, _ = call(v8, mine, "-o", tmp_path / "x.png")
    assert code == 0 and "note:" not in out
    code, out, _ = call(v8, mine, v7, "--label", "bert", "--label", "mine", "--label", "causal",
                        "-o", tmp_path / "x.png")
    assert code == 0 and out.startswith("note: the loss of the masked-LM run bert is over ")
    assert "that of causal over every next character" in out and "mine" not in out


def test_a_run_folder_s_checkpoint_names_its_version_before_its_name(tmp_path, call, drawn):
    mine = write_checkpoint(write_metrics(tmp_path / "my_run", ROWS), "v8_bert_mlm")
    v6 = folders(tmp_path, "v6_block")[0]
    code, out, _ = call(v6, mine / "metrics.csv", "-o", tmp_path / "x.png")
    assert code == 0 and "masked-LM run my_run " in out and "that of v6_block " in out
    # a v6 run in a folder named v8_bert_mlm is a next-character run
    misnamed = write_checkpoint(write_metrics(tmp_path / "v8_bert_mlm", ROWS), "v6_block")
    code, out, _ = call(v6, misnamed, "-o", tmp_path / "x.png")
    assert code == 0 and "note:" not in out
    # a checkpoint that cannot be loaded: the folder's name tells
    (misnamed / "ckpt.pt").write_bytes(b"not a checkpoint")
    code, out, err = call(v6, misnamed, "-o", tmp_path / "x.png")
    assert (code, err) == (0, "") and "masked-LM run v8_bert_mlm " in out


def test_the_note_counts_the_reference_curves_too(tmp_path, call, drawn):
    """--reference adds a v8 run's reference, a masked-LM curve like it: no mix, no note."""
    run = write_checkpoint(write_metrics(tmp_path / "my_run", ROWS), "v8_bert_mlm")
    code, out, _ = call(run, "--reference", "-o", tmp_path / "x.png")
    assert code == 0 and "note:" not in out and "(2 runs)" in out
    v7 = committed(tmp_path, "v7_bert_layer")[0]
    code, out, _ = call(v7, run, "--reference", "-o", tmp_path / "x.png")
    assert code == 0 and "masked-LM runs my_run, v8_bert_mlm reference (tinyplays) " in out


# ---------------------------------------------------------------- --reference
def test_reference_adds_the_committed_curve_of_the_run_s_data(tmp_path, call, drawn):
    from common import TINY_SHAKESPEARE_SHA256

    plays = write_checkpoint(write_metrics(tmp_path / "v6_block", ROWS), "v6_block")
    mine = write_metrics(tmp_path / "my_run", ROWS)
    # the data's sha256 decides, not its file name: this one is tiny shakespeare
    write_checkpoint(mine, "v4_multihead", data_sha256=TINY_SHAKESPEARE_SHA256)
    tool = load_tool("plot_losses")
    label, steps, _, val = tool.reference_for(plays)
    expected = tool.read_metrics(REFERENCE / "v6_block.csv")
    assert label == "v6_block reference (tinyplays)" and (steps, val) == (expected[1], expected[3])
    assert tool.reference_for(mine)[0] == "v4_multihead reference (tinyshakespeare)"
    assert "(4 runs)" in call(plays, mine, "--reference", "-o", tmp_path / "x.png")[1]
    # a metrics.csv in a run folder counts as its run; two runs of one reference draw it once
    assert "(3 runs)" in call(plays / "metrics.csv", plays, "--reference",
                              "-o", tmp_path / "x.png")[1]


@pytest.mark.parametrize("sha256,fragment", [("f" * 64, "(sha256 ffff"), (None, "no checkpoint")])
def test_reference_needs_a_run_on_known_data(sha256, fragment, tmp_path, call):
    run = write_metrics(tmp_path / "v6_block", ROWS)
    if sha256:
        write_checkpoint(run, "v6_block", data_sha256=sha256)
    result = call(run, "--reference", "-o", tmp_path / "x.png")
    assert_one_line_error(result, fragment)
    assert not (tmp_path / "x.png").exists()


# ---------------------------------------------------------------- labels and short runs
def test_every_run_is_in_the_legend_or_named_as_too_short_to_draw(tmp_path, call, drawn):
    """A label that begins with _ (matplotlib hides those) is still in the legend; a run with one
    loss estimate, no curve, is named on stderr with its count, and the others are drawn; with
    no run long enough, nothing is drawn and the error says why."""
    underscored = write_metrics(tmp_path / "_a", ROWS)
    young = write_metrics(tmp_path / "young", ROWS[:1])
    output = tmp_path / "x.png"
    code, out, err = call(underscored, young, "-o", output)
    assert code == 0 and output.is_file() and "Traceback" not in err
    legend = [t.get_text() for t in drawn[-1].axes[0].get_legend().get_texts()]
    assert any("_a" in text for text in legend) and not any("young" in t for t in legend)
    assert len(err.splitlines()) == 1 and "young" in err and "1" in err
    output.unlink()
    result = call(young, "-o", output)
    assert_one_line_error(result, "young")
    assert not output.exists()


def test_reference_draws_how_far_the_seeds_of_seeds_csv_end(tmp_path, call, drawn):
    """Is my loss normal? Beside the reference curve, a bar at its last step spans the final val
    losses of the same defaults over the seeds of seeds.csv, and the legend says how many."""
    import csv

    plays = write_checkpoint(write_metrics(tmp_path / "v6_block", ROWS), "v6_block")
    assert call(plays, "--reference", "-o", tmp_path / "x.png")[0] == 0
    with open(REFERENCE / "seeds.csv", newline="") as f:
        ends = [float(r["val_loss"]) for r in csv.DictReader(f) if r["version"] == "v6_block"]
    bars = [c for c in drawn[-1].axes[0].collections if c.get_label().endswith(
        f"end {min(ends):.3f} to {max(ends):.3f}")]
    assert len(ends) == 10 and len(bars) == 1
    (low, high), = [sorted(seg[:, 1]) for seg in bars[0].get_segments()]
    assert (low, high) == pytest.approx((min(ends), max(ends)))
    legend = [t.get_text() for t in drawn[-1].axes[0].get_legend().get_texts()]
    assert f"10 seeds end {min(ends):.3f} to {max(ends):.3f}" in legend
