"""Overlay the loss curves of several runs: validation solid, training dashed, one colour per run.

    python tools/plot_losses.py runs/v1_bigram runs/v4_multihead runs/v5_ffn runs/v6_block \
        -o runs/ladder.png

Each argument is a run folder (holding metrics.csv) or a metrics.csv file itself, such as a
committed reference curve. A run is labelled by its folder name (v6_block), or by --label.

    python tools/plot_losses.py runs/v6_block --reference -o runs/check.png

--reference adds, for each run folder, the committed reference curve of the same version and
dataset (reference/<dataset>/<version>.csv: the seeded default runs behind the README's table), to
answer "is my loss normal?".
"""
import argparse
import csv
import sys
from pathlib import Path


REFERENCE = Path(__file__).resolve().parent.parent / "reference"


class UserError(Exception):
    """Bad input: main() prints it as one line and exits with status 2."""


def read_metrics(path):
    """(label, steps, train losses, val losses) from a run folder or a metrics.csv file."""
    path = Path(path)
    csv_path = path / "metrics.csv" if path.is_dir() else path
    if not csv_path.is_file():
        raise UserError(f"no metrics.csv at {csv_path}: "
                        "pass a run folder written by a train.py, or a metrics.csv file")
    with open(csv_path, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    if not rows or not {"step", "train_loss", "val_loss"} <= rows[0].keys():
        raise UserError(f"{csv_path} has no step,train_loss,val_loss rows: "
                        "is it a metrics.csv from a train.py run?")
    try:
        steps = [int(r["step"]) for r in rows]
        train, val = [float(r["train_loss"]) for r in rows], [float(r["val_loss"]) for r in rows]
    except (TypeError, ValueError) as e:
        raise UserError(f"{csv_path} has a row that is not numbers ({e}): "
                        "rerun the training that wrote it")
    label = csv_path.parent.name if csv_path.name == "metrics.csv" else csv_path.stem
    return label, steps, train, val


def reference_for(run):
    """The committed reference curve for a run folder: same version, same dataset (read from its
    ckpt.pt)."""
    run = Path(run)
    version, dataset = run.name, "tinyplays"
    if (run / "ckpt.pt").is_file():
        import torch

        ckpt = torch.load(run / "ckpt.pt", map_location="cpu", weights_only=True)
        version = ckpt.get("version", version)
        dataset = Path(ckpt.get("hyperparameters", {}).get("data", dataset)).stem
    path = REFERENCE / dataset / f"{version}.csv"
    if not path.is_file():
        raise UserError(f"no reference curve for {version} on {dataset} (looked for {path}): "
                        "references exist for the default runs on tinyplays and tinyshakespeare")
    label, *curves = read_metrics(path)
    return (f"{version} reference ({dataset})", *curves)


def plot(runs, output, title=None):
    import matplotlib

    matplotlib.use("Agg")  # draw to a file: no window, works without a display
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5))
    for i, (label, steps, train, val) in enumerate(runs):
        color = f"C{i % 10}"
        ax.plot(steps, val, "-", color=color, label=f"{label} val {val[-1]:.3f}")
        ax.plot(steps, train, "--", color=color, alpha=0.7, linewidth=1)
    ax.plot([], [], "k-", label="val (solid)")
    ax.plot([], [], "k--", linewidth=1, label="train (dashed)")
    ax.set(xlabel="step", ylabel="cross-entropy loss (nats)", title=title or "loss curves")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    output.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(output, dpi=110)
    plt.close(fig)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("runs", nargs="+", help="run folders (with metrics.csv) or metrics.csv files")
    p.add_argument("-o", "--output", type=Path, required=True, help="PNG file to write")
    p.add_argument("--label", action="append", default=[],
                   help="a label per run, in order (default: folder name)")
    p.add_argument("--title", default=None)
    p.add_argument("--reference", action="store_true",
                   help="also draw the committed reference curve "
                        "of each run folder's version and dataset")
    # one line, no usage block
    p.error = lambda message: p.exit(
        2, f"error: {message}: see python tools/plot_losses.py --help\n")
    args = p.parse_args(argv)
    try:
        if args.label and len(args.label) != len(args.runs):
            raise UserError(f"{len(args.label)} --label for {len(args.runs)} runs: "
                            "give one label per run, or none")
        if args.output.suffix.lower() != ".png":
            raise UserError(f"-o {args.output}: the output must be a .png file")
        runs = [read_metrics(r) for r in args.runs]
        for i, label in enumerate(args.label):
            runs[i] = (label, *runs[i][1:])
        if args.reference:
            runs += [reference_for(r) for r in args.runs if Path(r).is_dir()]
        plot(runs, args.output, args.title)
    except UserError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(f"wrote {args.output} ({len(runs)} runs)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
