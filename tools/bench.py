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
"""
import argparse
import csv
import hashlib
import statistics
import subprocess
import sys
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent
VERSIONS = ["v1_bigram", "v4_multihead", "v5_ffn", "v6_block", "v7_bert_layer", "v8_bert_mlm"]
# The val losses the lecture published on tiny shakespeare at the same defaults: single runs of
# its own scripts, so one draw each, to read next to the seed spread, not as a bar to clear.
LECTURE = {"v1_bigram": 2.49, "v4_multihead": 2.28, "v5_ffn": 2.24, "v6_block": 2.06}
# as data/prepare.py
TINY_SHAKESPEARE_SHA256 = "86c4e6aa9db7c042ec79f339dcb96d42b0075e16b8fc2e86bf0ca57e2dc565ed"


def run_version(version, data, out, seed, extra):
    cmd = [sys.executable, str(ROOT / version / "train.py"), "--out", str(out),
           "--seed", str(seed),
           *(["--data", str(data)] if data else []), *extra]
    start = time.time()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"error: {version} failed ({' '.join(cmd)}):\n"
                         f"{proc.stderr.strip().splitlines()[-1]}")
    process_s = time.time() - start
    with open(out / "metrics.csv", newline="") as f:
        last = list(csv.DictReader(f))[-1]
    ckpt = torch.load(out / "ckpt.pt", weights_only=True)  # what the run really used
    params, hp = ckpt["n_params"], ckpt["hyperparameters"]
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


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
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
    # one line, no usage block
    p.error = lambda message: p.exit(2, f"error: {message}: see python tools/bench.py --help\n")
    args = p.parse_args(argv)
    if args.data and not args.data.is_file():
        print(f"error: no data file at {args.data}: "
              "pass --data PATH (data/prepare.py fetches tiny shakespeare)",
              file=sys.stderr)
        return 2
    unknown = [v for v in args.versions if not (ROOT / v / "train.py").is_file()]
    if unknown:
        print(f"error: no train.py for {', '.join(unknown)}: choose from {', '.join(VERSIONS)}",
              file=sys.stderr)
        return 2
    dataset = args.data.name if args.data else "each script's default dataset"
    seeds = " ".join(map(str, args.seed))
    print(f"dataset: {dataset} | seed {seeds} | torch threads: default | "
          f"extra flags: {' '.join(args.extra) or '-'}")
    # the lecture's figures only mean something next to runs on the same text
    lecture_text = bool(args.data) and (
        hashlib.sha256(args.data.read_bytes()).hexdigest() == TINY_SHAKESPEARE_SHA256)
    header = (f"{'version':<14} {'seed':>5} {'params':>8} {'steps':>6} {'train':>7} {'val':>7} "
              f"{'loop s':>7} {'tok/s':>8}")
    header += f" {'lecture':>8}" if lecture_text else ""
    print(header)
    print("-" * len(header))
    results = []
    runs = [(version, seed) for version in args.versions for seed in args.seed]
    for version, seed in runs:
        out = args.out / (version if len(args.seed) == 1 else f"{version}_seed{seed}")
        r = run_version(version, args.data, out, seed, args.extra)
        results.append(r)
        row = (f"{version:<14} {seed:>5} {r['params']:>8,} {r['steps']:>6} "
               f"{r['train_loss']:>7.4f} {r['val_loss']:>7.4f} "
               f"{r['loop_s']:>7.1f} {r['tokens_per_s']:>8,.0f}")
        if lecture_text:
            lecture = f"{LECTURE[version]:.2f}" if version in LECTURE else "-"
            row += f" {lecture:>8}"
        print(row, flush=True)
    if len(args.seed) > 1:
        print_spread(results)
    if args.csv:
        args.csv.parent.mkdir(parents=True, exist_ok=True)
        with open(args.csv, "w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=list(results[0]))
            writer.writeheader()
            writer.writerows(results)
    if lecture_text:
        print("lecture: the val loss the lecture published on tiny shakespeare (one run of its "
              "script)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
