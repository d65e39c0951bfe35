"""Time one version's default run at 1 and at 2 CPU threads, alone and beside a second run.

    python tools/bench_threads.py                        # v6_block at its defaults: about 8 min
    python tools/bench_threads.py --version v4_multihead --threads 1 2 4 -- --max-iters 1000

Each thread count runs twice: alone, then beside a second, identical run (same version, flags and
thread count, its own folder) started at the same moment, as when a learner trains two versions at
once. The table gives the training loop's time (metrics.csv's last elapsed_s, evaluations
included), the process's wall time, and the final val loss, which shows whether the thread count
changes the figures. Run it on an otherwise idle machine: it prints the load average first.
"""
import os
import subprocess
import sys
import time
from pathlib import Path

from bench import last_row
from cli import ArgumentParser, UserError, check_output, command, write_csv
from versions import ROOT, VERSIONS, load_train

OWN_FLAGS = ["--threads", "--out"]  # set by this tool for every run


def start(version, out, threads, extra):
    cmd = [sys.executable, str(ROOT / version / "train.py"), "--out", str(out),
           "--threads", str(threads), *extra]
    return cmd, subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                 text=True)


def finish(cmd, proc, out, started):
    err = proc.communicate()[1]
    wall = time.time() - started
    last = last_row("a run", cmd, proc.returncode, err, out)
    return {"loop_s": float(last["elapsed_s"]), "process_s": wall,
            "val_loss": float(last["val_loss"]), "steps": int(last["step"])}


def measure(version, threads, beside, out, extra):
    """One run with `threads` threads, alone or beside a twin; its figures."""
    started = time.time()
    cmd, proc = start(version, out / "run", threads, extra)
    twin = start(version, out / "twin", threads, extra) if beside else None
    try:
        result = finish(cmd, proc, out / "run", started)
        if twin:
            finish(*twin, out / "twin", started)
    finally:
        for _, p in filter(None, [(cmd, proc), twin]):
            if p.poll() is None:  # the other failed, or Ctrl-C: stop it, it saves what it has
                p.terminate()
                p.wait()
    return result


@command
def main(argv=None):
    p = ArgumentParser(__file__, __doc__)
    p.add_argument("--version", default="v6_block", choices=VERSIONS, help="the run to time")
    p.add_argument("--threads", type=int, nargs="+", default=[1, 2], help="thread counts to time")
    p.add_argument("--out", type=Path, default=ROOT / "runs" / "bench_threads",
                   help="parent of the run folders")
    p.add_argument("--csv", type=Path, default=None, help="also write the table here")
    p.add_argument("extra", nargs="*", help="after --: flags passed to every run")
    args = p.parse_args(argv)
    for flag in OWN_FLAGS:
        if any(e == flag or e.startswith(flag + "=") for e in args.extra):
            raise UserError(f"{flag} after -- is this tool's own: pass {flag} before the --")
    if args.csv:
        check_output(args.csv, "--csv")
    module = load_train(args.version)
    cases = [(t, beside) for t in args.threads for beside in (False, True)]
    for threads, beside in cases:  # every run's flags, checked before the first run
        for who in ("run", "twin"):
            folder = args.out / f"{threads}_{'beside' if beside else 'alone'}" / who
            try:
                module.check_args(module.parse_args(
                    ["--out", str(folder), "--threads", str(threads), *args.extra]))
            except module.UserError as e:
                raise UserError(f"{args.version}: {e}") from None
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"{args.version} | flags: {' '.join(args.extra) or 'defaults'} | "
          f"{os.cpu_count()} CPUs | load average before: {load:.2f}")
    header = f"{'threads':>7} {'beside':>7} {'loop s':>8} {'process s':>10} {'val':>8}"
    print(f"{header}\n{'-' * len(header)}")
    rows = []
    for threads, beside in cases:
        out = args.out / f"{threads}_{'beside' if beside else 'alone'}"
        r = {"threads": threads, "beside_a_second_run": beside,
             **measure(args.version, threads, beside, out, args.extra)}
        rows.append(r)
        print(f"{threads:>7} {'yes' if beside else 'no':>7} {r['loop_s']:>8.1f} "
              f"{r['process_s']:>10.1f} {r['val_loss']:>8.4f}", flush=True)
    if args.csv:
        write_csv(args.csv, rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
