"""Walk a rung one idea at a time: apply its step patches to the rung before it, and run them.

    python tools/steps.py v4_multihead                  # write every step's train.py
    python tools/steps.py v4_multihead --train          # and train each, over 5 seeds
    python tools/steps.py v4_multihead --train --seed 1337 1 2 -- --max-iters 500
                                                        # flags after -- go to every train.py
    python tools/steps.py v8_bert_mlm --train --jobs 2  # two runs at once, one per CPU core
    python tools/steps.py v6_block --train --first 1 -- --n-layer 8
                                                        # from step 01 on: v5 has no --n-layer

A rung that bundles several ideas carries them as patches, VERSION/steps/NN-short-name.diff, each
a unified diff of train.py. Applied in order to the previous rung's train.py, they give this
rung's train.py byte for byte. The tool writes the rung before and each step to
runs/steps/VERSION/NN-short-name/train.py (00 is the rung before), so that any two can be run and
compared with diff -u. A patch applies only where each hunk's lines match the file exactly, at
the line numbers it gives: no fuzz, no offset (git apply and patch -p1 accept the same patches).

--train runs every step with the same flags and seeds, each as its own process (--jobs of them at
once; each train.py uses one thread unless told otherwise), and prints a table: step, changed
lines, parameters, final val loss (mean, min and max over the seeds, and each seed's) and the
training loop's time. It writes the table to runs/steps/VERSION/steps.csv and
the val curves (the mean over the seeds) to runs/steps/VERSION/steps.png. Before the first run,
each step reads the flags after -- with its own parser and checks, so that a bad one is refused
at once; the flags the tool sets itself (--out, --seed, --data) are refused there.
"""
import re
import statistics
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from tqdm import tqdm

from bench import check_runs, run_flags, run_script
from cli import ArgumentParser, UserError, check_jobs, check_output, command, write_csv
from versions import ROOT, VERSIONS

HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
DEFAULT_SEEDS = [1337, 1, 2, 3, 4]


def apply_patch(text, patch, name="the patch"):
    """text with the unified diff patch applied; a UserError where a hunk's context or removed
    lines are not exactly the file's lines at the place the hunk names."""
    old, new, lines = text.splitlines(keepends=True), [], patch.splitlines(keepends=True)
    at, i = 0, 0  # the next old line to copy; the patch line being read
    while i < len(lines) and not lines[i].startswith("@@"):
        i += 1  # the --- and +++ header
    while i < len(lines):
        m = HUNK.match(lines[i])
        if not m:
            raise UserError(f"{name}: line {i + 1} is not a hunk header: {lines[i].rstrip()!r}")
        start = int(m.group(1)) - (m.group(2) != "0")  # 0-based; a count of 0 inserts after
        if start < at:
            raise UserError(f"{name}: the hunk at line {i + 1} overlaps the one before it")
        new += old[at:start]
        at, i = start, i + 1
        while i < len(lines) and not lines[i].startswith("@@"):
            kind, line = lines[i][0], lines[i][1:]
            if kind in " -":
                if at >= len(old) or old[at] != line:
                    found = old[at].rstrip() if at < len(old) else "the end of the file"
                    raise UserError(f"{name}: line {at + 1} should read {line.rstrip()!r} but "
                                    f"reads {found!r}: the patch is not for this file")
                at += 1
            if kind in " +":
                new.append(line)
            if kind not in " -+\\":
                raise UserError(f"{name}: line {i + 1} is not part of a hunk: "
                                f"{lines[i].rstrip()!r}")
            i += 1
    return "".join(new + old[at:])


def changed_lines(patch):
    """The lines a patch removes or adds (its --- and +++ header not counted)."""
    body = patch.split("\n@@", 1)[1] if "\n@@" in patch else ""
    return sum(line[:1] in "+-" for line in body.splitlines())


def previous_rung(version):
    if version not in VERSIONS[1:]:
        raise UserError(f"no rung {version!r} with a rung before it: choose one of "
                        f"{', '.join(VERSIONS[1:])}")
    return VERSIONS[VERSIONS.index(version) - 1]


def step_patches(version):
    """[(name, patch text)] of VERSION/steps/*.diff, in order; [] when the rung has none."""
    folder = ROOT / version / "steps"
    return [(p.stem, p.read_text(encoding="utf-8")) for p in sorted(folder.glob("*.diff"))]


def chain(version):
    """[(name, train.py text, changed lines)]: the rung before as 00-<its name>, then each step
    applied to the one before it."""
    before = previous_rung(version)
    texts = [(f"00-{before}", (ROOT / before / "train.py").read_text(encoding="utf-8"), 0)]
    for name, patch in step_patches(version):
        texts.append((name, apply_patch(texts[-1][1], patch, f"{version}/steps/{name}.diff"),
                       changed_lines(patch)))
    return texts


def write_steps(version, out):
    """Write each step's train.py under out; [(name, path, changed lines)]."""
    steps = chain(version)
    if len(steps) == 1:
        raise UserError(f"{version} has no steps/*.diff: it adds one idea, see "
                        f"diff -u {steps[0][0][3:]}/train.py {version}/train.py")
    final = (ROOT / version / "train.py").read_text(encoding="utf-8")
    if steps[-1][1] != final:
        raise UserError(f"{version}'s steps do not end at its train.py: a step patch is stale, "
                        "write the patches again")
    written = []
    for name, text, changed in steps:
        path = out / name / "train.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        written.append((name, path, changed))
    return written


def train_step(script, out, seed, data, extra):
    """Run one step's train.py; its metrics rows and its checkpoint's parameter count."""
    rows, ckpt, _ = run_script(f"{script.parent.name} seed {seed}", script, data, out, seed, extra)
    return rows, ckpt["n_params"]


def plot(curves, path, version):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5))
    for i, (name, steps, val) in enumerate(curves):
        ax.plot(steps[1:], val[1:], color=f"C{i % 10}", label=f"{name} {val[-1]:.3f}")
    ax.set(xlabel="step", ylabel="val loss, mean over the seeds (nats)",
           title=f"{version}, step by step (from step {curves[0][1][1]})")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


@command
def main(argv=None):
    p = ArgumentParser(__file__, __doc__)
    p.add_argument("version", help=f"a rung with steps: {', '.join(VERSIONS[1:])}")
    p.add_argument("--out", type=Path, default=None,
                   help="where the steps go (default: runs/steps/VERSION)")
    p.add_argument("--train", action="store_true", help="also train each step")
    p.add_argument("--data", type=Path, default=ROOT / "data" / "tinyplays.txt",
                   help="the text every step trains on (default: data/tinyplays.txt)")
    p.add_argument("--seed", type=int, nargs="+", default=DEFAULT_SEEDS,
                   help="seeds for --train (default: 1337 1 2 3 4)")
    p.add_argument("--first", type=int, default=0,
                   help="train from this step on, e.g. 1 to leave out the rung before (default: 0)")
    p.add_argument("--last", type=int, default=None,
                   help="train up to this step (default: the rung's last)")
    p.add_argument("--jobs", type=int, default=1,
                   help="runs at once for --train, at most one per CPU core (default: 1)")
    argv = list(sys.argv[1:] if argv is None else argv)
    cut = argv.index("--") if "--" in argv else len(argv)  # after --: flags for every train.py
    args = p.parse_args(argv[:cut])
    args.extra = argv[cut + 1:]
    out = args.out or ROOT / "runs" / "steps" / args.version
    if any(seed < 0 for seed in args.seed) or len(set(args.seed)) < len(args.seed):
        raise UserError(f"--seed {' '.join(map(str, args.seed))}: give different seeds, each "
                        "0 or more")
    check_jobs(args.jobs)
    if args.train and not args.data.is_file():
        raise UserError(f"no text at {args.data}: pass --data PATH")
    check_output(out / "steps.csv", "--out")
    steps = write_steps(args.version, out)
    last = len(steps) - 1 if args.last is None else args.last
    if not 0 <= args.first <= last < len(steps):
        raise UserError(f"--first {args.first} --last {last}: {args.version}'s steps are 0 to "
                        f"{len(steps) - 1}, give 0 <= first <= last <= {len(steps) - 1}")
    for name, path, changed in steps:
        print(f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}"
              f"  ({changed} changed lines)")
    names = {name for name, _, _ in steps}
    for stale in sorted(p for p in out.glob("[0-9][0-9]-*") if p.is_dir() and p.name not in names):
        print(f"note: {stale} is from an older series of steps, not this one: delete it")
    if not args.train:
        return 0
    header = f"{'step':<26} {'changed':>7} {'params':>8} {'val mean':>8} {'min':>7} " \
             f"{'max':>7} {'loop s':>7}"
    print(f"\n{args.data.name} | seeds {' '.join(map(str, args.seed))} | extra flags: "
          f"{' '.join(args.extra) or '-'}")
    print(f"{header}\n{'-' * len(header)}", flush=True)
    steps = steps[args.first:last + 1]
    for name, path, _ in steps:  # each step reads the flags with its own parser: refused now
        try:
            check_runs(name, [run_flags(args.data, out / name / f"seed{seed}", seed, args.extra)
                              for seed in args.seed], args.extra, script=path)
        except UserError as e:
            hint = "; --first N trains from step N on" if "unrecognized" in str(e) else ""
            said = f"step {e}" if str(e).startswith(name) else str(e)
            raise UserError(f"{said}{hint}") from None
    table, curves = [], []
    pool = ThreadPoolExecutor(args.jobs)  # threads that each wait on one train.py process
    started = [[pool.submit(train_step, path, out / name / f"seed{seed}", seed, args.data,
                            args.extra) for seed in args.seed] for name, path, _ in steps]
    bar = tqdm(total=len(steps) * len(args.seed), unit="run", leave=False, file=sys.stderr,
               desc="training the steps", disable=not sys.stderr.isatty())  # a log gets no bar
    for future in (f for futures in started for f in futures):
        future.add_done_callback(lambda _: bar.update())
    for (name, path, changed), futures in zip(steps, started):
        try:
            runs = [f.result() for f in futures]
        except BaseException:
            bar.close()  # its line cleared, so that the error is one line of its own
            pool.shutdown(wait=False, cancel_futures=True)
            raise
        finals = [float(rows[-1]["val_loss"]) for rows, _ in runs]
        seconds = statistics.mean(float(rows[-1]["elapsed_s"]) for rows, _ in runs)
        row = {"step": name, "changed_lines": changed, "params": runs[0][1],
               "val_mean": statistics.mean(finals), "val_min": min(finals),
               "val_max": max(finals), "seeds": len(finals), "loop_s": seconds,
               "val_each": " ".join(f"{v:.4f}" for v in finals)}
        table.append(row)
        tqdm.write(f"{name:<26} {changed:>7} {row['params']:>8,} {row['val_mean']:>8.4f} "
                   f"{row['val_min']:>7.4f} {row['val_max']:>7.4f} {seconds:>7.1f}")
        steps_axis = [int(r["step"]) for r in runs[0][0]]
        mean_val = [statistics.mean(float(rows[i]["val_loss"]) for rows, _ in runs)
                    for i in range(len(steps_axis))]
        curves.append((name, steps_axis, mean_val))
    bar.close()
    write_csv(out / "steps.csv", table)
    plot(curves, out / "steps.png", args.version)
    print(f"wrote {out / 'steps.csv'} and {out / 'steps.png'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
