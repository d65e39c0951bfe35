"""Overlay the loss curves of several runs: validation solid, training dashed, one colour per run.

    python tools/plot_losses.py runs/v1_bigram runs/v4_multihead runs/v5_ffn runs/v6_block \
        -o runs/ladder.png

Each argument is a run folder (holding metrics.csv) or a metrics.csv file itself, such as a
committed reference curve. A run is labelled by its folder name (v6_block), or by --label. A run
with one loss estimate (one just started) is too few for a curve: a `note:` line on stderr names
it, and the others are drawn.

    python tools/plot_losses.py runs/v6_block --reference -o runs/check.png

--reference adds, for each run folder, the committed reference curve of the same version and data
(reference/<dataset>/<version>.csv: the seeded default runs behind the README's table), to answer
"is my loss normal?". The run's ckpt.pt names its version and the sha256 of the text it trained
on; there are reference runs on data/tinyplays.txt and on tiny shakespeare (data/prepare.py).
Where the same defaults ran over several seeds (<dataset>/seeds.csv), a bar at the reference's
last step spans their final val losses: how far another seed may land.

    python tools/plot_losses.py runs/v6_block runs/v7_bert_layer --from-step 500 -o runs/v6_v7.png

--from-step N draws only the rows from step N on: the step-0 loss (about 4.4) stretches the y axis
so far that the later curves lie on top of each other; from step 500, v6 and v7 come apart.
--ylim LOW HIGH sets the y axis instead, e.g. --ylim 1.6 2.4.

v8_bert_mlm's loss is over the masked characters only, every other version's over every next
character: the two do not compare, and a plot that holds both says so, in a `note:` line and on
the plot (tools/fill_accuracy.py compares v7 and v8 on one task). A run's version is the one its
ckpt.pt names, else its folder's or its csv file's name (reference/tinyplays/v8_bert_mlm.csv).
"""
import csv
import functools
import hashlib
import math
import sys
from pathlib import Path

from common import (OBJECTIVES, ROOT, TINY_SHAKESPEARE_SHA256, VERSIONS, ArgumentParser,
                    UserError, aside, check_output, command, load_run, pyplot, seed_losses)

REFERENCE = ROOT / "reference"


def read_metrics(path):
    """(label, steps, train losses, val losses) from a run folder or a metrics.csv file."""
    path = Path(path)
    csv_path = path / "metrics.csv" if path.is_dir() else path
    if not csv_path.is_file():
        raise UserError(f"no metrics.csv at {csv_path}: "
                        "pass a run folder written by a train.py, or a metrics.csv file")
    try:
        with open(csv_path, newline="", encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
    except (OSError, UnicodeDecodeError, csv.Error) as e:  # unreadable, not UTF-8, NUL bytes
        raise UserError(f"cannot read {csv_path} as a metrics.csv ({type(e).__name__}): "
                        "pass the metrics.csv a train.py wrote") from None
    if not rows or not {"step", "train_loss", "val_loss"} <= rows[0].keys():
        raise UserError(f"{csv_path} has no step,train_loss,val_loss rows: "
                        "is it a metrics.csv from a train.py run?")
    try:
        steps = [int(r["step"]) for r in rows]
        train, val = [float(r["train_loss"]) for r in rows], [float(r["val_loss"]) for r in rows]
    except (TypeError, ValueError) as e:
        raise UserError(f"{csv_path} has a row that is not numbers ({e}): "
                        "rerun the training that wrote it") from None
    if not all(map(math.isfinite, train + val)):
        raise UserError(f"{csv_path} holds a loss that is not a number (nan or inf): that run "
                        "diverged; rerun it with a lower --lr")
    label = csv_path.parent.name if csv_path.name == "metrics.csv" else csv_path.stem
    return label, steps, train, val


def reference_dataset(sha256):
    """The folder under reference/ of the runs on the text with this sha256, or None."""
    tinyplays = hashlib.sha256((ROOT / "data" / "tinyplays.txt").read_bytes()).hexdigest()
    return {tinyplays: "tinyplays", TINY_SHAKESPEARE_SHA256: "tinyshakespeare"}.get(sha256)


@functools.cache
def checkpoint(folder):
    """The checkpoint dict of the run in folder, loaded by load_run once however often asked: its
    version is asked for both the note and --reference."""
    return load_run(folder)[2]


def reference_for(run):
    """The committed reference curve for a run folder: same version, same data, both read from
    its ckpt.pt."""
    ckpt = checkpoint(run)
    version, sha256 = ckpt["version"], ckpt.get("data_sha256")
    dataset = reference_dataset(sha256) if isinstance(sha256, str) else None
    if dataset is None:
        raise UserError(f"no reference run for the data of {run} (sha256 {sha256}): reference "
                        "runs exist for data/tinyplays.txt and tiny shakespeare "
                        "(data/prepare.py); leave out --reference")
    path = REFERENCE / dataset / f"{version}.csv"
    if not path.is_file():
        raise UserError(f"no reference curve for {version} on {dataset} (looked for {path}): "
                        "leave out --reference for this run")
    label, *curves = read_metrics(path)
    return (f"{version} reference ({dataset})", *curves)


def seed_spread(run):
    """(seeds, lowest, highest) of the final val losses in seeds.csv of a run folder's version
    and data, or None where fewer than two seeds ran."""
    ckpt = checkpoint(run)
    ends = seed_losses(reference_dataset(ckpt["data_sha256"]), ckpt["version"])
    if len(ends) < 2:
        return None
    return len(ends), min(ends), max(ends)


def run_folder(path):
    """The run folder of a plot argument: itself, or the folder of a metrics.csv; else None."""
    path = Path(path)
    return path if path.is_dir() else path.parent if path.name == "metrics.csv" else None


def run_version(path):
    """The version of a plot argument: the one its run folder's ckpt.pt names, else its folder's
    or its csv file's name if that is a version, else None."""
    path, folder = Path(path), run_folder(path)
    if folder is not None and (folder / "ckpt.pt").is_file():
        try:
            return checkpoint(folder)["version"]
        except UserError:  # a damaged or foreign checkpoint: the name may still tell
            pass
    names = [folder.name] if folder is not None else []
    return next((name for name in names + [path.stem] if name in VERSIONS), None)


def mixed_objectives(runs, versions):
    """(the `note:` line, the plot's line) when runs (labelled) mix a masked-LM run with
    next-character ones, whose losses do not compare; else None. versions: one per run, or None
    where unknown, which claims nothing."""
    kinds = [OBJECTIVES.get(version) for version in versions]
    masked = [run[0] for run, kind in zip(runs, kinds) if kind == "masked characters"]
    causal = [run[0] for run, kind in zip(runs, kinds) if kind == "next character"]
    if not (masked and causal):
        return None
    noun = "run" if len(masked) == 1 else "runs"
    line = (f"note: the loss of the masked-LM {noun} {', '.join(masked)} is over masked "
            f"characters only, that of {', '.join(causal)} over every next character: the curves "
            "do not compare (tools/fill_accuracy.py compares v7 and v8 on one task)")
    on_plot = (f"masked-LM {', '.join(masked)}: loss over masked characters only, the others' "
               "over every next character: not comparable")
    return line, on_plot


def from_step(runs, first):
    """runs with only their rows at step `first` or later; a run with none is a UserError."""
    cut = []
    for label, steps, train, val in runs:
        keep = [i for i, step in enumerate(steps) if step >= first]
        if not keep:
            raise UserError(f"{label} has no row at or after step {first} (its last step is "
                            f"{max(steps)}): pass a smaller --from-step")
        cut.append((label, *([column[i] for i in keep] for column in (steps, train, val))))
    return cut


def curves_only(runs, versions, first):
    """(runs, versions) without the runs of one loss estimate, too few for a curve: a `note:`
    line on stderr names each; if no run is left, a UserError."""
    short = [run[0] for run in runs if len(run[1]) < 2]
    if len(short) == len(runs):
        advice = "plot a run once it has estimated its loss twice"
        if first > 0:
            advice = f"pass a smaller --from-step than {first}, or {advice}"
        raise UserError(f"every run has 1 loss estimate ({', '.join(short)}), too few for a "
                        f"curve: {advice}")
    for label, steps, _, _ in runs:
        if len(steps) < 2:
            print(f"note: {label} has 1 loss estimate (step {steps[0]}), too few for a curve: "
                  "it is not drawn", file=sys.stderr)
    kept = [i for i, run in enumerate(runs) if len(run[1]) >= 2]
    return [runs[i] for i in kept], [versions[i] for i in kept]


def plot(runs, output, title=None, ylim=None, note=None, spreads=None):
    """Draw runs into the PNG file output; ylim: (low, high) of the y axis; note: a line under
    the title; spreads: {index of a run: (seeds, lowest, highest)}, a bar at its last step."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7, 4.5))
    keyed = []  # the lines the legend names, handed to it: on its own it skips a label "_a..."
    for i, (label, steps, train, val) in enumerate(runs):
        color = f"C{i % 10}"
        keyed += ax.plot(steps, val, "-", color=color, label=f"{label} val {val[-1]:.3f}")
        ax.plot(steps, train, "--", color=color, alpha=0.7, linewidth=1)
        if spreads and i in spreads:
            seeds, low, high = spreads[i]
            keyed.append(ax.vlines(steps[-1], low, high, color=color, linewidth=6, alpha=0.35,
                                   label=f"{seeds} seeds end {low:.3f} to {high:.3f}"))
    keyed += ax.plot([], [], "k-", label="val (solid)")
    keyed += ax.plot([], [], "k--", linewidth=1, label="train (dashed)")
    ax.set(xlabel="step", ylabel="cross-entropy loss (nats)")
    ax.set_title(title or "loss curves", pad=18 if note else None)  # room for the note below it
    if note:
        ax.text(0.5, 1.015, note, transform=ax.transAxes, ha="center", va="bottom", fontsize=8,
                color="C3")
    if ylim:
        ax.set_ylim(*ylim)
    ax.grid(alpha=0.3)
    ax.legend(handles=keyed, labels=[line.get_label() for line in keyed], fontsize=8)
    try:
        fig.tight_layout()
        with aside(output) as tmp:
            fig.savefig(tmp, dpi=110)
    except ValueError as e:  # matplotlib reads $...$ in a title or label as mathematics
        raise UserError(f"matplotlib cannot draw the title or a label "
                        f"({str(e).strip().splitlines()[0]}): write a literal $ as \\$") from None
    finally:
        plt.close(fig)


@command
def main(argv=None):
    p = ArgumentParser(__file__, __doc__)
    p.add_argument("runs", nargs="+", help="run folders (with metrics.csv) or metrics.csv files")
    p.add_argument("-o", "--output", type=Path, required=True, help="PNG file to write")
    p.add_argument("--label", action="append", default=[],
                   help="a label per run, in order (default: folder name)")
    p.add_argument("--title", default=None)
    p.add_argument("--reference", action="store_true",
                   help="also draw the committed reference curve "
                        "of each run folder's version and data")
    p.add_argument("--from-step", type=int, default=0, metavar="N",
                   help="draw only the rows at step N or later (default: 0, every row)")
    p.add_argument("--ylim", type=float, nargs=2, metavar=("LOW", "HIGH"),
                   help="the y axis range (default: matplotlib's, to fit every curve)")
    args = p.parse_args(argv)
    if args.from_step < 0:
        raise UserError(f"--from-step {args.from_step} is below 0: give a step of 0 or more")
    if args.ylim and not all(map(math.isfinite, args.ylim)):
        raise UserError(f"--ylim {args.ylim[0]} {args.ylim[1]} is not two finite numbers: "
                        "give LOW and HIGH, e.g. --ylim 1.6 2.4")
    if args.ylim and not args.ylim[0] < args.ylim[1]:
        raise UserError(f"--ylim {args.ylim[0]} {args.ylim[1]}: LOW must be below HIGH, "
                        "e.g. --ylim 1.6 2.4")
    if args.label and len(args.label) != len(args.runs):
        raise UserError(f"{len(args.label)} --label for {len(args.runs)} runs: "
                        "give one label per run, or none")
    if args.output.suffix.lower() != ".png":
        raise UserError(f"-o {args.output}: the output must be a .png file")
    check_output(args.output, "-o")
    runs = [read_metrics(r) for r in args.runs]
    for i, label in enumerate(args.label):
        runs[i] = (label, *runs[i][1:])
    versions = [run_version(r) for r in args.runs]
    spread_of = {}  # a reference curve's label: how far its seeds end
    if args.reference:
        folders = list(dict.fromkeys(f for f in map(run_folder, args.runs) if f))
        if not folders:
            raise UserError("--reference reads a run folder's ckpt.pt, and none was given: "
                            "pass the run's folder, not a copy of its metrics.csv")
        references = {}  # one curve per version and dataset, however many runs share it
        for folder in folders:
            label, *curves = reference_for(folder)
            references[label] = (label, *curves), checkpoint(folder)["version"]
            spread_of[label] = seed_spread(folder)
        runs += [run for run, _ in references.values()]
        versions += [version for _, version in references.values()]
    runs = from_step(runs, args.from_step)
    runs, versions = curves_only(runs, versions, args.from_step)
    spreads = {i: spread_of[run[0]] for i, run in enumerate(runs) if spread_of.get(run[0])}
    note = mixed_objectives(runs, versions)
    on_plot = None
    if note:
        on_plot = note[1]
    plot(runs, args.output, args.title, args.ylim, on_plot, spreads)
    if note:
        print(note[0])
    print(f"wrote {args.output} ({len(runs)} runs)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
