"""Run the experiments a version's doc suggests under "Try it", beside the defaults, and record
what each gives: the figures the doc quotes.

    python tools/maintainers/try_it.py v4_multihead          # its experiments and defaults
    python tools/maintainers/try_it.py v8_bert_mlm --jobs 2  # two runs at once, one per core
    python tools/maintainers/try_it.py v6_block --csv reference/try_it/v6_block.csv
                                                             # regenerate the committed table

The doc (VERSION/README.md) marks each experiment with a line `<!-- try: FLAGS -->` just above
the text that gives its command, `python VERSION/train.py FLAGS`. Each run is its own process,
at the same seed, on data/tinyplays.txt, into runs/try_it/VERSION/. The table (flags,
parameters, final train and val loss) goes to runs/try_it/VERSION.csv, or to --csv: the
committed reference/try_it/VERSION.csv changes only when --csv names it. v8's rows also say how
often it fills in a hidden character (tools/fill_accuracy.py, with v7's defaults trained as the
run to compare against): each val character hidden alone, and the chosen positions of its val
batches, all of them, by what the input shows there and by column.
"""
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tools/, for common
from common import (ROOT, VERSIONS, ArgumentParser, UserError, check_flags,  # noqa: E402
                    check_jobs, check_output, command, load_run, train_all,
                    write_csv)

MARKER = re.compile(r"^<!-- try: (.*?) -->$", re.M)
DATA = ROOT / "data" / "tinyplays.txt"


def experiments(version, doc="README.md"):
    """The flags of each experiment the version's doc marks, in the doc's order."""
    path = ROOT / version / doc
    if not path.is_file():
        raise UserError(f"no {path.relative_to(ROOT)}: choose one of {', '.join(VERSIONS)}")
    flags = [m.group(1).strip() for m in MARKER.finditer(path.read_text(encoding="utf-8"))]
    if not flags:
        raise UserError(f"{version}/{doc} marks no experiment (<!-- try: FLAGS -->): "
                        "add one under its Try it heading")
    return flags


def folder_name(flags):
    """runs/try_it/VERSION/<this>: 'defaults', or the flags as a name ('n-head_1')."""
    return re.sub(r"[^\w.-]+", "_", flags.replace("--", "").strip()) or "defaults"


def fill_scores(v7_dir, v8_dir):
    """{column: share right} of the v8 run in v8_dir: each val character hidden alone
    (hidden_alone_right), and its masked-LM accuracy on its val batches, over all the chosen
    positions (chosen_right) and by kind and column (masked_right, ..., middle_right)."""
    from fill_accuracy import compare

    table, _, _, mlm = compare(v7_dir, v8_dir, DATA)
    return {"hidden_alone_right": table["v8, both sides"][0],
            **{f"{name}_right": share for name, share in mlm.items()}}


@command
def main(argv=None):
    p = ArgumentParser(__file__, __doc__)
    p.add_argument("version", choices=VERSIONS, help="whose doc's experiments to run")
    p.add_argument("--seed", type=int, default=1337, help="the seed of every run (default: 1337)")
    p.add_argument("--jobs", type=int, default=1, help="runs at once, at most one per CPU core")
    p.add_argument("--out", type=Path, help="parent of the runs (default: runs/try_it/VERSION)")
    p.add_argument("--csv", type=Path, help="the table (default: runs/try_it/VERSION.csv)")
    args = p.parse_args(argv)
    check_jobs(args.jobs)
    out = args.out or Path("runs", "try_it", args.version)
    csv_path = args.csv or Path("runs", "try_it", f"{args.version}.csv")
    runs = [(flags, args.version) for flags in ["", *experiments(args.version)]]
    if args.version == "v8_bert_mlm":  # fill accuracy needs a v7 run beside each v8 run
        runs.append(("", "v7_bert_layer"))
    jobs = [(f"{v} {f or '(defaults)'}", ROOT / v / "train.py",
             out / (folder_name(f) if v == args.version else v),
             ["--seed", args.seed, "--data", DATA, *f.split()]) for f, v in runs]
    check_output(csv_path, "--csv", runs=[folder for _, _, folder, _ in jobs])
    for name, script, folder, flags in jobs:  # every run checked before the first starts
        check_flags(script, name, flags, [], out=folder)
    print(f"{args.version}: {len(runs)} runs at seed {args.seed} on {DATA.name}", flush=True)
    try:
        results = train_all(jobs, args.jobs)
    except (UserError, KeyboardInterrupt) as e:
        raise type(e)(f"{e}; every run stopped, each saved what it trained under {out}; "
                      f"{csv_path} not written") from None
    table = []
    for (flags, version), (_, _, folder, _), rows in zip(runs, jobs, results):
        if version != args.version:
            continue
        params = sum(p.numel() for p in load_run(folder, version)[1].parameters())
        row = {"version": version, "flags": flags, "seed": args.seed, "params": params,
               "steps": int(rows[-1]["step"]), "train_loss": float(rows[-1]["train_loss"]),
               "val_loss": float(rows[-1]["val_loss"])}
        if version == "v8_bert_mlm":
            row.update(fill_scores(jobs[-1][2], folder))
        print(f"{flags or '(defaults)':<28} params {row['params']:>8,}  train "
              f"{row['train_loss']:.4f}  val {row['val_loss']:.4f}", flush=True)
        table.append(row)
    write_csv(csv_path, table)
    print(f"wrote {csv_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
