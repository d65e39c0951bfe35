"""Run every version with its defaults on one dataset and print the ladder table.

    python tools/bench.py                                     # the repo's dataset
    python tools/bench.py --data data/tinyshakespeare.txt     # compare with the lecture
    python tools/bench.py --versions v1_bigram v4_multihead -- --max-iters 200   # quick look
    python tools/bench.py --data data/tinyshakespeare.txt --versions v6_block \
        --seed 1337 1 2 3                                     # seed spread

Each version runs as its own process (python vX/train.py --out runs/bench/vX ...), one after the
other, so the wall times are comparable. The table: parameters, final train/val loss, wall time of
the training loop (evaluations included, as the lecture timed it), and training tokens per second
(steps x batch x block / time). With several seeds every version runs once per seed, and a last
table gives each version's spread of val losses.

Before the first run, every run's flags are read by its version's own parser and checks, so a bad
flag after -- is found at once. Flags the bench sets itself (--out, --seed, --data) are refused
after --: pass them to the bench. The runs use one CPU thread, as train.py does, unless the flags
after -- say --threads N.
"""
import csv
import hashlib
import statistics
import subprocess
import sys
import time
from pathlib import Path

import torch

from cli import ArgumentParser, UserError, check_output, command, one_line, write_csv
from versions import ROOT, TINY_SHAKESPEARE_SHA256, VERSIONS, import_path, load_train

# the flags each run gets from the bench, and the bench's flag that sets them
OWN_FLAGS = {"out": "--out DIR", "seed": "--seed N [N ...]", "data": "--data PATH"}
# The val losses the lecture published on tiny shakespeare at the same defaults: single runs of
# its own scripts, so one draw each, to read next to the seed spread, not as a bar to clear.
LECTURE = {"v1_bigram": 2.49, "v4_multihead": 2.28, "v5_ffn": 2.24, "v6_block": 2.06}


def run_flags(data, out, seed, extra):
    """The flags of one run: the bench's, then the ones after --."""
    return ["--out", str(out), "--seed", str(seed), *(["--data", str(data)] if data else []),
            *extra]


def check_runs(version, flag_lists, extra, script=None):
    """Read the flags of each of version's runs (flag_lists) with its own parser and checks,
    before any run: a bad flag is refused now, not after an hour. extra: the flags after --.
    script: the train.py to ask, if not version's own (tools/steps.py's steps). Returns the CPU
    threads the runs use."""
    module = load_train(version) if script is None else import_path(script, f"{version}_train")
    try:
        # Parsed twice with different values of the tool's own flags: a flag after -- that comes
        # out the same both times was set there, and would override the tool's (it comes last).
        one, two = (vars(module.parse_args(run_flags(d, o, s, extra)))
                    for d, o, s in (("a", "a", 1), ("b", "b", 2)))
        for name, own_flag in OWN_FLAGS.items():
            if one[name] == two[name]:
                raise UserError(f"--{name} after -- overrides this tool's own for every run: "
                                f"pass {own_flag} before the --")
        if one["generate"]:
            raise UserError("--generate after -- would only generate, from old runs: "
                            "this tool trains; leave it out")
        for flags in flag_lists:
            module.check_args(module.parse_args(flags))
    except module.UserError as e:
        raise UserError(f"{version}: {e}") from None
    except SystemExit:  # -- --help: argparse printed train.py's help and stopped
        raise UserError(f"the flags after -- stop {version}/train.py before it trains: pass "
                        "only training flags") from None
    return one["threads"]


def read_rows(name, cmd, returncode, stderr, out):
    """The rows of a finished run's out/metrics.csv, as dicts; a run that failed (returncode,
    stderr) is one UserError line naming it and the command to rerun alone."""
    if returncode != 0:
        said = stderr.strip().splitlines() or [f"exit status {returncode}"]
        raise UserError(f"{name} failed ({one_line(said[-1])}): run it alone to see why: "
                        f"{' '.join(cmd)}")
    with open(out / "metrics.csv", newline="") as f:
        return list(csv.DictReader(f))


def last_row(name, cmd, returncode, stderr, out):
    return read_rows(name, cmd, returncode, stderr, out)[-1]


def run_script(name, script, data, out, seed, extra):
    """Run one train.py as its own process: (its metrics rows, its checkpoint, the process's
    seconds). Also tools/steps.py's way to run a step."""
    cmd = [sys.executable, str(script), *run_flags(data, out, seed, extra)]
    start = time.time()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    rows = read_rows(name, cmd, proc.returncode, proc.stderr, out)
    return rows, torch.load(out / "ckpt.pt", weights_only=True), time.time() - start


def run_version(version, data, out, seed, extra):
    rows, ckpt, process_s = run_script(version, ROOT / version / "train.py", data, out, seed,
                                       extra)
    last = rows[-1]
    params, hp = ckpt["n_params"], ckpt["hyperparameters"]  # what the run really used
    tokens = int(last["step"]) * hp["batch_size"] * hp["block_size"]
    return {
        "version": version, "seed": seed, "params": params, "steps": int(last["step"]),
        "train_loss": float(last["train_loss"]), "val_loss": float(last["val_loss"]),
        "loop_s": float(last["elapsed_s"]), "process_s": process_s,
        "tokens_per_s": tokens / max(float(last["elapsed_s"]), 1e-9),
    }


def print_spread(results):
    """Each version's val losses over the seeds: how far one run can land from another."""
    header = f"{'version':<14} {'seeds':>5} {'min':>7} {'mean':>7} {'max':>7} {'stdev':>7}"
    print(f"\nval loss over seeds\n{header}\n{'-' * len(header)}")
    for version in dict.fromkeys(r["version"] for r in results):
        vals = [r["val_loss"] for r in results if r["version"] == version]
        row = (f"{version:<14} {len(vals):>5} {min(vals):>7.4f} "
               f"{statistics.mean(vals):>7.4f} {max(vals):>7.4f} "
               f"{statistics.stdev(vals):>7.4f}")
        print(row)


@command
def main(argv=None):
    p = ArgumentParser(__file__, __doc__)
    p.add_argument("--data", type=Path, default=None,
                   help="text to train on (default: each script's default)")
    p.add_argument("--versions", nargs="+",
                   default=[v for v in VERSIONS if (ROOT / v / "train.py").is_file()])
    p.add_argument("--seed", type=int, nargs="+", default=[1337],
                   help="one or more seeds (default: 1337)")
    p.add_argument("--out", type=Path, default=ROOT / "runs" / "bench",
                   help="parent of the run folders")
    p.add_argument("--csv", type=Path, default=None, help="also write the table here")
    p.add_argument("extra", nargs="*",
                   help="after --: flags passed to every train.py (e.g. -- --max-iters 200)")
    args = p.parse_args(argv)
    if args.data and not args.data.is_file():
        raise UserError(f"no data file at {args.data}: "
                        "pass --data PATH (data/prepare.py fetches tiny shakespeare)")
    unknown = [v for v in args.versions if not (ROOT / v / "train.py").is_file()]
    if unknown:
        raise UserError(f"no train.py for {', '.join(unknown)}: choose from {', '.join(VERSIONS)}")
    for flag, values in (("--versions", args.versions), ("--seed", args.seed)):
        twice = sorted({str(v) for v in values if values.count(v) > 1})
        if twice:
            raise UserError(f"{flag} names {', '.join(twice)} more than once: name each once")
    if args.csv:
        check_output(args.csv, "--csv")
    runs = [(version, seed, args.out / (version if len(args.seed) == 1
                                        else f"{version}_seed{seed}"))
            for version in args.versions for seed in args.seed]
    threads = set()
    for version in args.versions:
        flag_lists = [run_flags(args.data, out, seed, args.extra)
                      for v, seed, out in runs if v == version]
        threads.add(check_runs(version, flag_lists, args.extra))
    dataset = args.data.name if args.data else "each script's default dataset"
    # the lecture's figures only mean something next to runs on the same text
    lecture_text = bool(args.data) and (
        hashlib.sha256(args.data.read_bytes()).hexdigest() == TINY_SHAKESPEARE_SHA256)
    header = (f"{'version':<14} {'seed':>5} {'params':>8} {'steps':>6} {'train':>7} {'val':>7} "
              f"{'loop s':>7} {'tok/s':>8}")
    header += f" {'lecture':>8}" if lecture_text else ""
    results = []
    try:  # from the first line printed on, a Ctrl-C says which runs finished
        print(f"dataset: {dataset} | seed {' '.join(map(str, args.seed))} | torch threads: "
              f"{', '.join(map(str, sorted(threads)))} | extra flags: "
              f"{' '.join(args.extra) or '-'}")
        print(f"{header}\n{'-' * len(header)}", flush=True)  # at once, even into a pipe
        for version, seed, out in runs:
            r = run_version(version, args.data, out, seed, args.extra)
            results.append(r)
            row = (f"{version:<14} {seed:>5} {r['params']:>8,} {r['steps']:>6} "
                   f"{r['train_loss']:>7.4f} {r['val_loss']:>7.4f} "
                   f"{r['loop_s']:>7.1f} {r['tokens_per_s']:>8,.0f}")
            if lecture_text:
                lecture = f"{LECTURE[version]:.2f}" if version in LECTURE else "-"
                row += f" {lecture:>8}"
            print(row, flush=True)
    except KeyboardInterrupt:
        version, seed, _ = runs[len(results)]
        finished = f"{len(results)} of {len(runs)} runs finished"
        finished += " (their rows are above)" if results else ""
        stopped = f"{version} seed {seed} was stopped" + ("; --csv not written" if args.csv else "")
        raise KeyboardInterrupt(f"{finished}; {stopped}") from None
    if len(args.seed) > 1:
        print_spread(results)
    if args.csv:
        write_csv(args.csv, results)
    if lecture_text:
        print("lecture: the val loss the lecture published on tiny shakespeare (one run of its "
              "script)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
