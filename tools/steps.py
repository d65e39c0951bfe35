"""Walk a rung one idea at a time: apply its step patches to the rung before it, and train them.

    python tools/steps.py v4_multihead                  # write every step's train.py
    python tools/steps.py v4_multihead --train          # and train each, over 5 seeds
    python tools/steps.py v4_multihead --train --seed 1337 1 -- --max-iters 500
                                                        # flags after -- go to every train.py
    python tools/steps.py v8_bert_mlm --train --jobs 2  # two runs at once, one per CPU core
    python tools/steps.py v6_block --train --first 1 -- --n-layer 8
                                                        # from step 01 on: v5 has no --n-layer

A rung that bundles several ideas carries them as patches, VERSION/steps/NN-short-name.diff, each
a unified diff of train.py. Applied in order to the previous rung's train.py, they give this
rung's train.py byte for byte. The tool writes the rung before (as 00) and each step to
runs/steps/VERSION/NN-short-name/train.py, so that any two can be run and compared with diff -u.
A patch applies only where each hunk's lines match the file exactly, at the line numbers it
gives: no fuzz, no offset (git apply and patch -p1 accept the same patches). A step's train.py
that you edited is not overwritten: the tool stops and names it, unless you pass --force.

--train runs every step at every seed, each as its own process (--jobs at once), into
runs/steps/VERSION/trained/NN-short-name/seedN, and prints a table: step, changed lines,
parameters, final val loss (mean, min and max over the seeds) and the training loop's seconds.
trained/ also gets the table (steps.csv) and the mean val curves (steps.png). The runs go into a
fresh folder that replaces trained/ only once every run has finished: a failed or stopped
training leaves the last whole one. A trained/ that steps.py did not write (it has no steps.csv)
is refused, as is an --out that holds anything but the rung's steps. Every step checks the flags
after -- first, with its own train.py (the prompt by a dry run of its sample); without --first,
training starts at the first step that knows them all.
"""
import argparse
import os
import re
import statistics
import sys
import tempfile
from pathlib import Path

from common import (ROOT, VERSIONS, ArgumentParser, UserError, check_flags, check_jobs,
                    check_new_folder, check_output, command, import_path, new_folder, one_line,
                    pyplot, train_all, within, write_csv, write_text)

HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@", re.M)


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
            if kind not in " -+\\":
                raise UserError(f"{name}: line {i + 1} is not part of a hunk: "
                                f"{lines[i].rstrip()!r}")
            if kind in " -":
                if at >= len(old) or old[at] != line:
                    found = old[at].rstrip() if at < len(old) else "the end of the file"
                    raise UserError(f"{name}: line {at + 1} should read {line.rstrip()!r} but "
                                    f"reads {found!r}: the patch is not for this file")
                at += 1
            if kind in " +":
                new.append(line)
            i += 1
    return "".join(new + old[at:])


def changed_lines(patch):
    """The lines a patch removes or adds (its --- and +++ header not counted)."""
    body = patch.split("\n@@", 1)[1] if "\n@@" in patch else ""
    return sum(line[:1] in "+-" for line in body.splitlines())


def read(path):
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeError) as e:
        raise UserError(f"cannot read {path} ({type(e).__name__}): restore it with git") from None


def step_patches(version):
    """[(name, patch text)] of VERSION/steps/*.diff, in order; [] when the rung has none. A patch
    without a hunk changes nothing, so it is no step: refused."""
    patches = [(p.stem, read(p)) for p in sorted((ROOT / version / "steps").glob("*.diff"))]
    for name, patch in patches:
        if not HUNK.search(patch):
            raise UserError(f"{version}/steps/{name}.diff has no hunk (@@ -a,b +c,d @@), so it "
                            "changes nothing: restore it with git, or delete it")
    return patches


def applied(version, text):
    """Each step of version applied in turn to text, the rung before's train.py: yields (name,
    the step's train.py, its changed lines), one step at a time, so that a caller stops where it
    needs to. A patch that does not fit is a UserError naming it."""
    for name, patch in step_patches(version):
        text = apply_patch(text, patch, f"{version}/steps/{name}.diff")
        yield name, text, changed_lines(patch)


def chain(version):
    """[(name, train.py text, changed lines)]: the rung before as 00-<its name>, then each step
    applied to the one before it."""
    if version not in VERSIONS[1:]:
        raise UserError(f"no rung {version!r} with a rung before it: choose one of "
                        f"{', '.join(VERSIONS[1:])}")
    before = VERSIONS[VERSIONS.index(version) - 1]
    texts = [(f"00-{before}", read(ROOT / before / "train.py"), 0)]
    texts.extend(applied(version, texts[0][1]))
    if len(texts) == 1:
        raise UserError(f"{version} has no steps/*.diff: it adds one idea, see "
                        f"diff -u {before}/train.py {version}/train.py")
    if texts[-1][1] != read(ROOT / version / "train.py"):
        raise UserError(f"{version}'s steps do not end at its train.py: a step patch is stale")
    return texts


def write_steps(steps, out, force=False):
    """Write each step's text to out/NN-name/train.py (aside, then moved in). Refused first: an
    out that holds anything but this rung's steps and their trained/, and a step's file there
    that differs (a learner's edit), unless force."""
    if os.path.lexists(out) and not out.is_dir():
        raise UserError(f"--out {out} is not a folder: pass a new folder")
    mine = {name for name, _, _ in steps} | {"trained", ".trained.partial"}
    theirs = []
    if out.is_dir():  # trained.kept-1, ...: what a stopped or refused training kept
        theirs = sorted(n for n in set(os.listdir(out)) - mine if not n.startswith("trained.kept-"))
    if theirs:
        raise UserError(f"--out {out} holds {theirs[0]}, which is not a step of this rung: pass "
                        "a new folder")
    for name, text, _ in steps:
        path = out / name / "train.py"
        check_output(path, "--out")  # never into a run's folder
        if not force and path.is_file() and read(path) != text:
            raise UserError(f"{path} differs from step {name}: you edited it? Copy it away, or "
                            "pass --force to overwrite it")
    for name, text, _ in steps:
        write_text(out / name / "train.py", text)


TRAINED = "a training of steps.py's (its steps.csv)"


def trained_by_this_tool(folder):
    """Whether folder is one that --train wrote: it holds the table, steps.csv."""
    return (folder / "steps.csv").is_file()


def check_runs(steps, first, folder, args):
    """Check every run's flags with its step's own train.py (written under folder); the first
    step to train: args.first, or the first whose train.py knows all the flags after --."""
    if first is None:
        for first, (name, _, _) in enumerate(steps):
            try:
                check_flags(folder / name / "train.py", f"step {name}", ["--data", args.data],
                            args.extra)
                break
            except UserError as e:
                if "unrecognized arguments" not in str(e) or first == len(steps) - 1:
                    raise
        if first:
            print(f"training from step {steps[first][0]}: the steps before it lack a flag of "
                  f"{' '.join(args.extra)}")
    for name, _, _ in steps[first:]:  # the seeds are in range: any one stands for them all
        check_flags(folder / name / "train.py", f"step {name}",
                    ["--seed", args.seed[0], "--data", args.data], args.extra)
    return first


def plot(curves, path, version):
    plt = pyplot()
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


def train(steps, out, args):
    """Train every step at every seed into a folder beside out/trained, which replaces it whole
    once every run has finished and the table is written; the table's rows."""
    try:
        with new_folder(out / "trained", "--out", trained_by_this_tool, TRAINED,
                        names=("steps.csv", "steps.png")) as fresh:
            runs = [(f"{name} seed {seed}", out / name / "train.py", fresh / name / f"seed{seed}",
                     ["--seed", seed, "--data", args.data, *args.extra])
                    for name, _, _ in steps for seed in args.seed]
            print(f"{len(runs)} runs of {len(steps)} steps, {args.jobs} at a time", flush=True)
            results, table, curves, n = train_all(runs, args.jobs), [], [], len(args.seed)
            for (name, _, changed), i in zip(steps, range(0, len(runs), n)):
                rows = results[i:i + n]
                finals = [float(r[-1]["val_loss"]) for r in rows]
                module = import_path(out / name / "train.py", f"step_{name}")
                run = argparse.Namespace(out=runs[i][2], device="cpu")
                table.append({"step": name, "changed_lines": changed, "params": sum(
                    p.numel() for p in module.load_checkpoint(run)[0].parameters()),
                    "val_mean": statistics.mean(finals), "val_min": min(finals),
                    "val_max": max(finals), "seeds": n,
                    "loop_s": statistics.mean(float(r[-1]["elapsed_s"]) for r in rows),
                    "val_each": " ".join(f"{v:.4f}" for v in finals)})
                curves.append((name, [int(x["step"]) for x in rows[0]],
                               [statistics.mean(float(r[k]["val_loss"]) for r in rows)
                                for k in range(len(rows[0]))]))
            write_csv(fresh / "steps.csv", table)
            plot(curves, fresh / "steps.png", args.version)
    except KeyboardInterrupt:  # what each run saved went with the folder beside trained/
        raise KeyboardInterrupt(f"every run stopped, {out / 'trained'} is as it was") from None
    except UserError as e:
        raise UserError(f"{one_line(e)}; every run stopped, {out / 'trained'} is as it was") \
            from None
    return table


@command
def main(argv=None):
    p = ArgumentParser(__file__, __doc__)
    p.add_argument("version", help=f"a rung with steps: {', '.join(VERSIONS[1:])}")
    p.add_argument("--out", type=Path, help="where the steps go (default: runs/steps/VERSION)")
    p.add_argument("--force", action="store_true", help="overwrite step files you edited")
    p.add_argument("--train", action="store_true", help="also train each step")
    p.add_argument("--data", type=Path, default=Path("data/tinyplays.txt"))
    p.add_argument("--seed", type=within(int, 0, 2**63 - 2), nargs="+", default=[1337, 1, 2, 3, 4])
    p.add_argument("--first", type=int, help="train from this step on (default: the first "
                   "that knows the flags after --)")
    p.add_argument("--last", type=int, help="train up to this step (default: the last)")
    p.add_argument("--jobs", type=int, default=1, help="runs at once, at most one per CPU core")
    args = p.parse_with_extra(argv)
    if Path(args.version).name in VERSIONS:  # v4_multihead/, as tab completion writes it
        args.version = Path(args.version).name
    out = args.out or Path("runs", "steps", args.version)
    if args.extra and not args.train:
        raise UserError(f"flags after -- need --train: {' '.join(args.extra)} would go to no "
                        "run; add --train, or leave them out")
    if len(set(args.seed)) < len(args.seed):
        raise UserError(f"--seed {' '.join(map(str, args.seed))}: give different seeds")
    check_jobs(args.jobs)
    steps = chain(args.version)
    first, last = args.first or 0, len(steps) - 1 if args.last is None else args.last
    if not 0 <= first <= last < len(steps):
        raise UserError(f"--first {first} --last {last}: {args.version}'s steps are 0 to "
                        f"{len(steps) - 1}")
    if args.train:  # each step's own train.py reads the flags: written aside for that
        with tempfile.TemporaryDirectory() as folder:
            for name, text, _ in steps[:last + 1]:
                (Path(folder) / name).mkdir()
                (Path(folder) / name / "train.py").write_text(text, encoding="utf-8")
            first = check_runs(steps[:last + 1], args.first, Path(folder), args)
    if args.train:  # refused before a file is written
        check_new_folder(out / "trained", "--out", trained_by_this_tool, TRAINED)
    write_steps(steps, out, args.force)
    for name, _, changed in steps:
        print(f"{out / name / 'train.py'}  ({changed} changed lines)")
    if not args.train:
        return 0
    table = train(steps[first:last + 1], out, args)
    header = f"{'step':<26} {'changed':>7} {'params':>8} {'val mean':>8} {'min':>7} " \
             f"{'max':>7} {'loop s':>7}"
    print(f"{header}\n{'-' * len(header)}")
    for r in table:
        print(f"{r['step']:<26} {r['changed_lines']:>7} {r['params']:>8,} {r['val_mean']:>8.4f} "
              f"{r['val_min']:>7.4f} {r['val_max']:>7.4f} {r['loop_s']:>7.1f}")
    print(f"wrote {out / 'trained'}: steps.csv, steps.png and the runs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
