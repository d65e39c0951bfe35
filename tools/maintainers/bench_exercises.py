"""The exercise checker's figures: the float tolerance it allows, measured, and how long each
exercise's check takes, as a learner runs it (a fresh process, the target as their file).

    python tools/maintainers/bench_exercises.py              # 1 and 2
    python tools/maintainers/bench_exercises.py --only v6    # the checks of v6's exercises
    python tools/maintainers/bench_exercises.py --heldout    # 3
    python tools/maintainers/bench_exercises.py --heldout --set heldout2.json

1. Tolerance. v4's step 05 (a list of heads) and step 06 (the same heads batched in three
   Linears) compute one function with its float operations in another order. From the same
   weights (step 05's heads stacked into step 06's matrices) the script prints the largest
   difference in a logit, in a gradient, and in a loss over the check's short training. The
   checker's ATOL and LOSS_TOL must sit above these and below what a catalogued mistake gives.
2. Time. Every exercise's target and starting file checked by `tools/exercise.py NAME --check
   --file FILE` in its own process, one thread, as on a learner's machine: the seconds from
   start to exit, then the slowest and the median.
3. Diagnosis. A held-out set beside this script (heldout.json, or the one --set names:
   heldout2.json was written later, by another hand, after the checker's diagnosis was
   rewritten): learners' mistakes and right programs in other styles, written apart from the
   catalogue and kept out of the tests, so that it measures the checker rather than being
   tuned to. Each case is checked as a learner
   checks, in a process of its own, and counted: a mistake that passes (a false pass), a right
   program that fails (a false fail), a mistake whose message names the case's module or
   function (located), one given a catalogued hint (hinted; whether the hint is the right one
   is read by hand from the lines printed), and the slowest check.
"""
import contextlib
import io
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import exercise  # noqa: E402
from common import ROOT, ArgumentParser, UserError, command  # noqa: E402


def paired(ctx, sizes):
    """Step 05's model and step 06's at ctx.configs[sizes], with the same weights: step 05's
    heads' (hs, C) matrices stacked into step 06's (C, C) ones."""
    import torch

    a = exercise.build(ctx.heads_list, ctx, ctx.configs[sizes])
    b = exercise.build(ctx.target, ctx, ctx.configs[sizes])
    with torch.no_grad():
        for name in ("query", "key", "value"):
            getattr(b.sa_heads, name).weight.copy_(torch.cat(
                [getattr(h, name).weight for h in a.sa_heads.heads]))
        for name in ("token_embedding_table", "position_embedding_table", "lm_head"):
            getattr(b, name).load_state_dict(getattr(a, name).state_dict())
    return a, b


def tolerance():
    """(logit, gradient, loss): the largest differences between the two ways, printed."""
    import torch

    steps = {name: text for name, _, text in exercise.exercises()}
    batched = exercise.load_source(steps["v4_multihead/06-heads-batched"], "batched", ROOT / "b.py")
    ctx = exercise.Context(batched)
    listed = steps["v4_multihead/05-heads-list"]
    ctx.heads_list = exercise.load_source(listed, "list", ROOT / "a.py")
    a, b = paired(ctx, 1)
    x, y = ctx.batches[1]
    (la, lossa), (lb, lossb) = a(x, y), b(x, y)
    lossa.backward()
    lossb.backward()
    grad = max((torch.cat([getattr(h, n).weight.grad for h in a.sa_heads.heads])
                - getattr(b.sa_heads, n).weight.grad).abs().max().item()
               for n in ("query", "key", "value"))
    print(f"list of heads against batched heads, default sizes: largest difference in a logit "
          f"{(la - lb).abs().max().item():.1e}, in a gradient {grad:.1e}")
    losses = []
    for module, model in zip((ctx.heads_list, batched), paired(ctx, exercise.TRAIN_SIZES)):
        with contextlib.redirect_stdout(io.StringIO()):  # the check's own short training
            losses.append(exercise.training(module, ctx, model))
    worst = max(abs(p - q) for p, q in zip(*losses))
    print(f"  the check's short training ({exercise.TRAIN_STEPS} steps): largest difference in a "
          f"loss {worst:.1e}")
    print(f"the checker allows: ATOL {exercise.ATOL:.0e}, RTOL {exercise.RTOL:.0e}, losses "
          f"{exercise.LOSS_TOL:.0e}")
    return (la - lb).abs().max().item(), grad, worst


def seconds(name, text, folder):
    """(seconds, exit status) of checking text as the exercise name, in a process of its own."""
    path = Path(folder, name.replace("/", "-") + ".py")
    path.write_text(text, encoding="utf-8")
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "tools/exercise.py", name, "--check", "--file",
                           str(path)], cwd=ROOT, capture_output=True, text=True,
                          env={"OMP_NUM_THREADS": "1", "PATH": "/usr/bin:/bin"})
    return time.perf_counter() - start, done.returncode


def timings(only):
    """Each exercise's check of its target (it passes every stage) and of its starting file
    (it fails, and the catalogue is searched for the mistake): the seconds, as a learner waits."""
    rows = []
    print(f"{'exercise':<40} {'target':>8} {'start':>8}")
    with tempfile.TemporaryDirectory() as folder:
        for name, start, target in exercise.exercises():
            if name.startswith(only):
                rows.append((name, seconds(name, target, folder),
                             seconds(name, exercise.starting_file(name, start, target, "en"),
                                     folder)))
                (t, a), (s, b) = rows[-1][1:]
                print(f"{name:<40} {t:6.2f} s {s:6.2f} s  exit {a} and {b}", flush=True)
    times = sorted((t, name) for name, *both in rows for t, _ in both)
    passed, failed = all(r[1][1] == 0 for r in rows), all(r[2][1] == 1 for r in rows)
    print(f"{len(times)} checks: slowest {times[-1][0]:.2f} s ({times[-1][1]}), median "
          f"{statistics.median(t for t, _ in times):.2f} s; every target passed: {passed}, "
          f"every start failed: {failed}")


HERE = Path(__file__).resolve().parent


def first_lines(said):
    """What a learner reads first of a failed check: the differs line and the hint, joined."""
    lines = [line.strip() for line in said.splitlines()]
    kept = [line for line in lines if line and not line.startswith("ok ")]
    return " / ".join(kept[:4])


def apply(text, edits):
    """text with each (old, new) made: old found as written, exactly once, or else by its code
    alone (catalogue.apply_edits: a comment edited since the case was written); None if not."""
    import catalogue

    for old, new in edits:
        if text.count(old) == 1:
            text = text.replace(old, new)
        else:
            text = catalogue.apply_edits(text, [(old, new)])
            if text is None:
                return None
    return text


def heldout(name="heldout.json"):
    """Each case of the held-out set called name, beside this script, checked in a process of
    its own: a line per case, then the counts."""
    targets = {name: target for name, _, target in exercise.exercises()}
    cases = json.loads((HERE / name).read_text(encoding="utf-8"))
    counts = {"mistakes": 0, "right": 0, "false passes": 0, "false fails": 0, "located": 0,
              "hinted": 0, "not applied": 0}
    slowest = (0.0, "")
    with tempfile.TemporaryDirectory() as folder:
        for case in cases:
            text = apply(targets.get(case["exercise"], ""), case["edits"])
            if text is None:
                counts["not applied"] += 1
                print(f"{case['id']:<44} not applied: an old text is not in the target once")
                continue
            path = Path(folder, case["id"] + ".py")
            path.write_text(text, encoding="utf-8")
            start = time.perf_counter()
            done = subprocess.run([sys.executable, "tools/exercise.py", case["exercise"],
                                   "--check", "--file", str(path)], cwd=ROOT,
                                  capture_output=True, text=True,
                                  env={"OMP_NUM_THREADS": "1", "PATH": "/usr/bin:/bin"})
            took = time.perf_counter() - start
            if took > slowest[0]:
                slowest = (took, case["id"])
            said = done.stdout + done.stderr
            if case["kind"] == "right":
                counts["right"] += 1
                verdict = "passed" if done.returncode == 0 else "FALSE FAIL"
                if done.returncode != 0:
                    counts["false fails"] += 1
            else:
                counts["mistakes"] += 1
                failed_lines = said.split("  ok ")[-1]
                located = case["module"] in failed_lines
                hinted = "hint:" in said
                counts["located"] += located
                counts["hinted"] += hinted
                if done.returncode == 0:
                    counts["false passes"] += 1
                    verdict = "FALSE PASS"
                else:
                    verdict = ("located" if located else "not located") + \
                        (", hinted" if hinted else "")
            print(f"{case['id']:<44} {took:5.2f} s  {verdict}: {first_lines(said)[:160]}",
                  flush=True)
    mistakes = max(counts["mistakes"], 1)
    print(f"{counts['mistakes']} mistakes, {counts['right']} right programs: "
          f"{counts['false passes']} false passes, {counts['false fails']} false fails, "
          f"located {counts['located']} ({100 * counts['located'] / mistakes:.0f}%), "
          f"hinted {counts['hinted']} ({100 * counts['hinted'] / mistakes:.0f}%), "
          f"{counts['not applied']} not applied; slowest check {slowest[0]:.2f} s "
          f"({slowest[1]})")
    return counts


@command
def main(argv=None):
    p = ArgumentParser(__file__, __doc__)
    p.add_argument("--only", default="", help="the exercises whose names start so")
    p.add_argument("--heldout", action="store_true", help="only 3: the held-out set")
    p.add_argument("--set", default="heldout.json", help="with --heldout: which set, a file "
                   "beside this script (default: heldout.json)")
    args = p.parse_args(argv)
    if not (HERE / args.set).is_file():
        raise UserError(f"--set {args.set}: no such file beside {HERE}; the sets: "
                        + ", ".join(sorted(f.name for f in HERE.glob("heldout*.json"))))
    if args.heldout:
        heldout(args.set)
        return 0
    if not args.only:
        tolerance()
    timings(args.only)
    return 0


if __name__ == "__main__":
    sys.exit(main())
