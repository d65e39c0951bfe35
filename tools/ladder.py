"""Train every version with its defaults on one text and print the ladder table.

    python tools/ladder.py                                    # the repo's text, seed 1337
    python tools/ladder.py --data data/tinyshakespeare.txt    # compare with the lecture
    python tools/ladder.py --versions v1_bigram v4_multihead -- --max-iters 200   # a quick look
    python tools/ladder.py --versions v6_block --seed 1337 1 2 3                  # seed spread

Each run is its own process, python VERSION/train.py --out runs/ladder/VERSION (VERSION_seedN
with several seeds), one after the other, so that the times compare; a bar on the terminal
counts them. Ctrl-C stops the run in progress, which saves what it trained, and the tool says
what each run saved. The table: parameters,
final train and val loss, the training loop's seconds (evaluations included, as the lecture
timed it) and training tokens per second. Every run's flags are checked by its own train.py
before the first run starts; flags after -- go to every run.
"""
import statistics
import sys
import time
from pathlib import Path

from common import (ROOT, VERSIONS, ArgumentParser, UserError, check_flags, check_output,
                    command, load_run, train_all, write_csv)

HEADER = f"{'version':<14} {'seed':>5} {'params':>8} {'steps':>6} {'train':>7} {'val':>7} " \
         f"{'loop s':>7} {'tok/s':>8}"


def result(version, seed, out, rows, process_s):
    """One row of the table, from the run's metrics rows and its checkpoint."""
    _, model, ckpt = load_run(out, version)
    hp, last = ckpt["hyperparameters"], rows[-1]
    tokens = int(last["step"]) * hp["batch_size"] * hp["block_size"]
    return {"version": version, "seed": seed,
            "params": sum(p.numel() for p in model.parameters()), "steps": int(last["step"]),
            "train_loss": float(last["train_loss"]), "val_loss": float(last["val_loss"]),
            "loop_s": float(last["elapsed_s"]), "process_s": process_s,
            "tokens_per_s": tokens / max(float(last["elapsed_s"]), 1e-9)}


def print_spread(results):
    """Each version's val losses over the seeds: how far one run can land from another."""
    print(f"\nval loss over seeds\n{'version':<14} {'seeds':>5} {'min':>7} {'mean':>7} "
          f"{'max':>7} {'stdev':>7}\n{'-' * 52}")
    for version in dict.fromkeys(r["version"] for r in results):
        vals = [r["val_loss"] for r in results if r["version"] == version]
        print(f"{version:<14} {len(vals):>5} {min(vals):>7.4f} {statistics.mean(vals):>7.4f} "
              f"{max(vals):>7.4f} {statistics.stdev(vals):>7.4f}")


@command
def main(argv=None):
    p = ArgumentParser(__file__, __doc__)
    p.add_argument("--data", type=Path, default=Path("data/tinyplays.txt"))
    p.add_argument("--versions", nargs="+", choices=VERSIONS, default=VERSIONS)
    p.add_argument("--seed", type=int, nargs="+", default=[1337], help="one or more seeds")
    p.add_argument("--out", type=Path, default=Path("runs/ladder"), help="parent of the runs")
    p.add_argument("--csv", type=Path, help="also write the table here")
    args = p.parse_with_extra(argv)
    for flag, values in (("--versions", args.versions), ("--seed", args.seed)):
        twice = sorted({str(v) for v in values if values.count(v) > 1})
        if twice:
            raise UserError(f"{flag} names {', '.join(twice)} more than once: name each once")
    name = "{}" if len(args.seed) == 1 else "{}_seed{}"
    runs = [(version, seed, args.out / name.format(version, seed))
            for version in args.versions for seed in args.seed]
    if args.csv:  # not in a run's folder, nor in one that a run below will write
        check_output(args.csv, "--csv", runs=[out for _, _, out in runs])
    for version, seed, out in runs:  # all checked before the first run, by its own train.py
        check_flags(ROOT / version / "train.py", version, ["--seed", seed, "--data", args.data],
                    args.extra, out=out)
    print(f"data: {args.data} | seeds: {' '.join(map(str, args.seed))} | extra flags: "
          f"{' '.join(args.extra) or '-'}\n{HEADER}\n{'-' * len(HEADER)}", flush=True)
    results, last = [], time.time()

    def done(i, rows):  # one run at a time, so that the times compare: a row as each ends
        nonlocal last
        version, seed, out = runs[i]
        r = result(version, seed, out, rows, time.time() - last)
        results.append(r)
        last = time.time()
        print(f"{version:<14} {seed:>5} {r['params']:>8,} {r['steps']:>6} {r['train_loss']:>7.4f} "
              f"{r['val_loss']:>7.4f} {r['loop_s']:>7.1f} {r['tokens_per_s']:>8,.0f}", flush=True)

    try:
        train_all([(v, ROOT / v / "train.py", out, ["--seed", seed, "--data", args.data,
                                                    *args.extra]) for v, seed, out in runs],
                  done=done)
    except KeyboardInterrupt as e:
        raise KeyboardInterrupt(f"{e}{'; --csv not written' if args.csv else ''}") from None
    if len(args.seed) > 1:
        print_spread(results)
    if args.csv:
        write_csv(args.csv, results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
