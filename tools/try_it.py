"""Run the experiments a version's doc suggests under "Try it", beside the defaults, and record
what each gives: the figures the doc quotes.

    python tools/try_it.py v4_multihead                 # its experiments and its defaults
    python tools/try_it.py v8_bert_mlm --jobs 2         # two runs at once, one per CPU core
    python tools/try_it.py v6_block --seed 1            # another seed than the doc's 1337

The doc (VERSION/README.md) marks each experiment with a line `<!-- try: FLAGS -->` just above
the text that gives its command, `python VERSION/train.py FLAGS`. Each run is its own process,
at the same seed, on data/tinyplays.txt, with one CPU thread, into runs/try_it/VERSION/. The
table (flags, parameters, final train and val loss) goes to reference/try_it/VERSION.csv, or to
--csv. v8's rows also say how often it fills in a hidden character (tools/fill_accuracy.py, with
v7's defaults trained as the run to compare against): each val character hidden alone, and the
chosen positions of its val batches, all of them, by what the input shows there and by column.
"""
import re
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from bench import check_runs, run_flags, run_script
from cli import ArgumentParser, UserError, check_jobs, check_output, command, write_csv
from versions import ROOT, VERSIONS

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
    p.add_argument("version", help=f"whose doc's experiments to run: {', '.join(VERSIONS)}")
    p.add_argument("--seed", type=int, default=1337, help="the seed of every run (default: 1337)")
    p.add_argument("--jobs", type=int, default=1,
                   help="runs at once, at most one per CPU core (default: 1)")
    p.add_argument("--out", type=Path, default=None,
                   help="parent of the run folders (default: runs/try_it/VERSION)")
    p.add_argument("--csv", type=Path, default=None,
                   help="the table (default: reference/try_it/VERSION.csv)")
    args = p.parse_args(argv)
    if args.version not in VERSIONS:
        raise UserError(f"no version {args.version!r}: choose one of {', '.join(VERSIONS)}")
    check_jobs(args.jobs)
    if args.seed < 0:
        raise UserError(f"--seed must be 0 or more, got {args.seed}")
    out = args.out or ROOT / "runs" / "try_it" / args.version
    csv_path = args.csv or ROOT / "reference" / "try_it" / f"{args.version}.csv"
    check_output(csv_path, "--csv")
    runs = [("", args.version)] + [(flags, args.version) for flags in experiments(args.version)]
    if args.version == "v8_bert_mlm":  # fill accuracy needs a v7 run beside each v8 run
        runs.append(("", "v7_bert_layer"))
    script = {v: ROOT / v / "train.py" for _, v in runs}
    folder = {(f, v): out / (folder_name(f) if v == args.version else v) for f, v in runs}
    for version in dict.fromkeys(v for _, v in runs):  # every run's flags are read now
        mine = [f for f, v in runs if v == version]
        for flags in mine:
            check_runs(version, [run_flags(DATA, folder[flags, version], args.seed,
                                           flags.split())], flags.split())
    print(f"{args.version}: {len(runs)} runs at seed {args.seed} on {DATA.name}", flush=True)
    pool = ThreadPoolExecutor(args.jobs)  # threads that each wait on one train.py process
    started = {(f, v): pool.submit(run_script, f"{v} {f or '(defaults)'}", script[v], DATA,
                                   folder[f, v], args.seed, f.split()) for f, v in runs}
    table = []
    try:
        for flags, version in runs:
            rows, ckpt, _ = started[flags, version].result()
            if version != args.version:
                continue
            row = {"version": version, "flags": flags, "seed": args.seed,
                   "params": ckpt["n_params"], "steps": int(rows[-1]["step"]),
                   "train_loss": float(rows[-1]["train_loss"]),
                   "val_loss": float(rows[-1]["val_loss"])}
            print(f"{flags or '(defaults)':<28} params {row['params']:>8,}  "
                  f"train {row['train_loss']:.4f}  val {row['val_loss']:.4f}", flush=True)
            table.append(row)
        if args.version == "v8_bert_mlm":
            started["", "v7_bert_layer"].result()
            for row in table:
                row.update(fill_scores(folder["", "v7_bert_layer"],
                                       folder[row["flags"], args.version]))
                print(f"{row['flags'] or '(defaults)':<28} right: hidden alone "
                      f"{row['hidden_alone_right']:.1%}, chosen positions "
                      f"{row['chosen_right']:.1%}")
    except BaseException:
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    write_csv(csv_path, table)
    print(f"wrote {csv_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
