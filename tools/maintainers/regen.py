"""Derive every derived file of the ladder from its sources, or check that nothing is stale.

    python tools/maintainers/regen.py                     # rebuild; carry your edits forward
    python tools/maintainers/regen.py --check             # rebuild in memory; exit 1 naming
                                                          # each file that differs
    python tools/maintainers/regen.py --steps v7_bert_layer
                                                          # also take the step programs you
                                                          # edited under runs/steps/VERSION/

The ladder is one chain of programs: v1, v4's steps, v4, v5, v6's steps, v6, ..., v8. Its
sources are v1_bigram/train.py, each step patch (VERSION/steps/NN-name.diff), v5_ffn/train.py
(v5 adds one idea, so the rung's file is its link) and tools/maintainers/plumbing.py (the part
below the fence, the same in every train.py). Everything else is derived from them: each rung's
train.py, the "step N of M" on each step's first line, the patches' line numbers and context,
and the doc blocks between <!-- regen: ... --> markers. See tools/maintainers/README.md for the
workflow.

Edit a rung's train.py in the ordinary way and run regen: the edit flows forward, as a rebase
does, into every later step and rung that keeps the lines it touched. regen.sums records each
program as regen last wrote it, which is how an edit is told from what it edits. Where a later
step changes the same lines, regen stops with one line naming that step and writes nothing.
Exit status: 0 done (or, with --check, nothing stale), 1 stale files (--check), 2 bad input.
"""
import difflib
import hashlib
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tools/, for common
from common import (ROOT, VERSIONS, ArgumentParser, UserError, command,  # noqa: E402
                    write_text)
from steps import apply_patch, read  # noqa: E402

FENCE = "# ========================== plumbing below: the same in every version; you may stop " \
        "reading here\n"
PLUMBING = ROOT / "tools" / "maintainers" / "plumbing.py"
SUMS = ROOT / "tools" / "maintainers" / "regen.sums"
STEP_LINE = re.compile(r'^"""(\w+), step (\d+) of (\d+): ')
SINGLE = "v5_ffn"  # the rung whose link is its own file: it adds one idea, and has no steps


# ------------------------------------------------------------------ programs and patches
def lines(text):
    return text.splitlines(keepends=True)


def sha(text):
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def make_patch(old, new):
    """The unified diff (3 lines of context) that takes old to new, as the step files hold it."""
    diff = difflib.unified_diff(lines(old), lines(new), "a/train.py", "b/train.py", n=3)
    return "".join(diff)


def reverse_patch(patch):
    """The patch that undoes patch: - and + swapped, and the ranges in each hunk header."""
    out = []
    for line in lines(patch):
        header = re.match(r"^@@ -(\S+) \+(\S+) @@(.*)$", line, re.S)
        if line.startswith("--- ") or line.startswith("+++ "):
            out.append(line)
        elif header:
            out.append(f"@@ -{header.group(2)} +{header.group(1)} @@{header.group(3)}")
        elif line.startswith("-"):
            out.append("+" + line[1:])
        elif line.startswith("+"):
            out.append("-" + line[1:])
        else:
            out.append(line)
    return "".join(out)


def changes(base, other):
    """[(start, end, new lines)]: where other replaces base[start:end] with the new lines."""
    matcher = difflib.SequenceMatcher(None, base, other, autojunk=False)
    found = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            found.append((i1, i2, other[j1:j2]))
    return found


def clash(a, b):
    """Whether two changes of the same base touch the same lines. Two replacements that only
    meet end to end do not; an insertion at the edge of another change does (which goes
    first is not known)."""
    if a[0] < a[1] and b[0] < b[1]:
        return a[0] < b[1] and b[0] < a[1]
    return a[0] <= b[1] and b[0] <= a[1]


def moved_lines(base_lines, ours_changes, theirs_changes):
    """{old line: new line} for each line theirs rewrites in place (a comment reworded) that ours
    deletes and writes again elsewhere (a step that moves it into a new class): the edit goes
    with the line. Only a line that occurs once in base."""
    added = set()
    for _, _, new in ours_changes:
        added.update(new)
    moved = {}
    for start, end, new in theirs_changes:
        if end - start != len(new):
            continue
        for old_line, new_line in zip(base_lines[start:end], new):
            if old_line != new_line and old_line in added and base_lines.count(old_line) == 1:
                moved[old_line] = new_line
    return moved


NOTES = []  # what regen says after its work: where an edit ended at a step that rewrites it


def superseded(base_lines, first, second):
    """Whether, of two clashing changes, theirs only rewords lines in place (a comment, a name)
    and ours replaces those lines with others, not an edit of them: then the step has rewritten
    the line, and the edit ends there. Ours keeping a line much like it (the same line with one
    word changed) is not a rewrite: that clash stops regen."""
    by_side = {first[3]: first, second[3]: second}
    if set(by_side) != {"ours", "theirs"}:
        return False
    ours, theirs = by_side["ours"], by_side["theirs"]
    if theirs[1] - theirs[0] != len(theirs[2]) or not (ours[0] <= theirs[0] < theirs[1] <= ours[1]):
        return False
    for old_line in base_lines[theirs[0]:theirs[1]]:
        for new_line in ours[2]:
            if difflib.SequenceMatcher(None, old_line, new_line, autojunk=False).ratio() > 0.8:
                return False
    return True


def merge(base, ours, theirs, where):
    """base with both ours' and theirs' changes, as a three-way merge does. A UserError naming
    where when they change the same lines differently. The first line is the docstring's title
    ("v7_bert_layer, step 6 of 15: ..."), each program's own: ours where ours changes it."""
    base_lines = lines(base)
    ours_lines = lines(ours)
    theirs_lines = lines(theirs)
    if ours_lines[:1] != base_lines[:1]:
        theirs_lines = ours_lines[:1] + theirs_lines[1:]
    ours_changes = changes(base_lines, ours_lines)
    theirs_changes = changes(base_lines, theirs_lines)
    moved = moved_lines(base_lines, ours_changes, theirs_changes)
    todo = []
    for start, end, new in ours_changes:
        todo.append((start, end, [moved.get(line, line) for line in new], "ours"))
    for start, end, new in theirs_changes:
        rewritten = [old != line for old, line in zip(base_lines[start:end], new)]
        only_moved = len(new) == end - start and all(
            moved.get(old) == line for old, line, r in zip(base_lines[start:end], new, rewritten)
            if r)
        todo.append((start, end, new, "moved" if only_moved else "theirs"))
    todo.sort(key=lambda change: (change[0], change[1]))
    merged = []
    for change in todo:
        if merged and clash(merged[-1], change):
            if merged[-1][:3] == change[:3]:
                continue  # the same change on both sides: once
            if change[3] == "moved":
                continue  # ours deletes the line here and writes it, edited, where it goes
            if merged[-1][3] == "moved":
                merged[-1] = change
                continue
            if superseded(base_lines, merged[-1], change):
                NOTES.append(f"note: {where} rewrites line {change[0] + 1}, so your edit of it "
                             "ends there")
                continue
            raise UserError(f"{where} changes lines that your edit changes too (line "
                            f"{change[0] + 1} of the program before it): make the edit "
                            "there by hand, or undo it, then run regen again")
        merged.append(change)
    out = []
    at = 0
    for start, end, new, _ in merged:
        out.extend(base_lines[at:start])
        out.extend(new)
        at = end
    out.extend(base_lines[at:])
    return "".join(out)


def split_plumbing(text, name):
    """(lesson, plumbing): text cut just before the fence line."""
    if text.count(FENCE) != 1:
        raise UserError(f"{name} must hold the fence line once: {FENCE.strip()!r}")
    at = text.index(FENCE)
    return text[:at], text[at:]


def number_step(text, version, k, n):
    """text with its first line's "step K of N" set to step k of n, where it has one."""
    first, _, rest = text.partition("\n")
    match = STEP_LINE.match(first)
    if not match or match.group(1) != version:
        return text
    return f'"""{version}, step {k} of {n}: {first[match.end():]}\n{rest}'


# ------------------------------------------------------------------ the chain
def step_files(version):
    return sorted((ROOT / version / "steps").glob("*.diff"))


def read_sums():
    """{name: sha256} of regen.sums: each program as regen last wrote it."""
    if not SUMS.is_file():
        return {}
    sums = {}
    for line in read(SUMS).splitlines():
        digest, name = line.split("  ", 1)
        sums[name] = digest
    return sums


def rung_name(version):
    return f"{version}/train.py"


def old_rungs(sums):
    """{version: the rung's train.py as regen last wrote it}. A rung whose file is unchanged
    since (its sum is recorded) is itself; an edited one is found through the patches from a
    neighbour that is not, and checked against its sum."""
    files = {v: read(ROOT / v / "train.py") for v in VERSIONS}
    old = {}
    for v in VERSIONS:
        if sums.get(rung_name(v), sha(files[v])) == sha(files[v]):
            old[v] = files[v]
    for _ in VERSIONS:  # each pass reaches one rung further from the unedited ones
        for i, v in enumerate(VERSIONS):
            if v in old:
                continue
            later = VERSIONS[i + 1] if i + 1 < len(VERSIONS) else None
            candidates = []
            if i > 0 and v != SINGLE and VERSIONS[i - 1] in old:
                candidates.append(forward(VERSIONS[i - 1], old[VERSIONS[i - 1]], v))
            if later and later != SINGLE and later in old:
                candidates.append(backward(later, old[later]))
            for text in candidates:
                if text is not None and sha(text) == sums[rung_name(v)]:
                    old[v] = text
    for v in VERSIONS:
        if v not in old:
            raise UserError(f"{v}/train.py and the rungs beside it were all edited since regen "
                            "last ran: regen cannot tell what they were; undo all but one with "
                            "git, run regen, then redo them")
    return old


def forward(before_version, before, version):
    """The rung's train.py from the one before through its step patches; None if they do not
    apply."""
    text = before
    try:
        for path in step_files(version):
            text = apply_patch(text, read(path), path.name)
    except UserError:
        return None
    return text


def backward(version, text):
    """The rung before's train.py, from version's through its step patches undone; None if
    they do not apply."""
    try:
        for path in reversed(step_files(version)):
            text = apply_patch(text, reverse_patch(read(path)), path.name)
    except UserError:
        return None
    return text


def workspace_programs(version, folder):
    """{step name: program} of the step programs under folder (steps.py's runs/steps/VERSION)."""
    if not folder.is_dir():
        raise UserError(f"no {folder}: write the step programs first, with python tools/steps.py "
                        f"{version}, then edit them")
    found = {}
    for path in sorted(folder.glob("*/train.py")):
        name = path.parent.name
        if not re.match(r"^\d\d[a-z]?-[a-z0-9-]+$", name) or name.startswith("00-"):
            continue
        found[name] = read(path)
    return found


def renumbered(names):
    """{name: NN-name} for the names in their order, numbered 01, 02, ..."""
    return {name: f"{k:02d}-{name.split('-', 1)[1]}" for k, name in enumerate(names, 1)}


def derive(edit_steps=()):
    """Everything the chain derives: {path: text} of the rung files, step patches and sums;
    the step names renamed {old: new}; the files to delete."""
    sums = read_sums()
    old = old_rungs(sums)
    plumbing_source = read(PLUMBING)
    plumbing_sum = sums.get("tools/maintainers/plumbing.py", sha(plumbing_source))
    plumbing = plumbing_source
    edited = [v for v in VERSIONS if read(ROOT / v / "train.py") != old[v]]
    for v in edited:  # a plumbing edit made in a train.py: it becomes the source
        theirs = split_plumbing(read(ROOT / v / "train.py"), f"{v}/train.py")[1]
        if theirs == split_plumbing(old[v], v)[1] or theirs == plumbing:
            continue
        if plumbing != plumbing_source or sha(plumbing_source) != plumbing_sum:
            raise UserError(f"the plumbing was edited in two places ({v}/train.py and another): "
                            "keep one edit, in tools/maintainers/plumbing.py, and run regen")
        plumbing = theirs
    out = {}
    renames = {}
    deleted = []
    new_before = read(ROOT / VERSIONS[0] / "train.py")
    old_before = old[VERSIONS[0]]
    programs = {VERSIONS[0]: new_before}
    for v in VERSIONS[1:]:
        if v == SINGLE:
            carried = merge(old_before, old[v], new_before, f"{v}/train.py")
            new = merge(old[v], read(ROOT / v / "train.py"), carried, f"{v}/train.py")
            new = with_plumbing(new, plumbing, v)
            programs[v] = new
            old_before, new_before = old[v], new
            continue
        patches = step_files(v)
        olds = {}
        text = old_before
        for path in patches:
            text = apply_patch(text, read(path), f"{v}/steps/{path.name}")
            olds[path.stem] = text
        if text != old[v]:
            raise UserError(f"{v}'s steps do not end at its train.py as regen last wrote it: "
                            "restore its steps/ with git")
        wanted = dict(olds)
        if v in edit_steps:
            wanted = edit_steps[v]
        names = list(wanted)
        news = {}
        prev_old, prev_new = old_before, new_before
        for name in names:
            if name in olds:
                step_old = olds[name]
                carried = merge(prev_old, step_old, prev_new, f"{v}/steps/{name}.diff")
                new = merge(step_old, wanted[name], carried, f"{v} step {name}")
                prev_old = step_old
            else:  # a step added in the workspace: its program as written there
                new = wanted[name]
            news[name] = new
            prev_new = new
        last = names[-1]
        rung_file = read(ROOT / v / "train.py")
        news[last] = merge(old[v], rung_file, news[last], f"{v}/train.py")
        order = renumbered(names)
        renames.update({f"{v}/{a}": f"{v}/{b}" for a, b in order.items() if a != b})
        previous = new_before
        for k, name in enumerate(names, 1):
            text = number_step(with_plumbing(news[name], plumbing, v), v, k, len(names))
            path = ROOT / v / "steps" / f"{order[name]}.diff"
            stored = read(path) if path.is_file() else None
            try:
                unchanged = stored is not None and apply_patch(previous, stored) == text
            except UserError:
                unchanged = False
            out[path] = stored if unchanged else make_patch(previous, text)
            previous = text
        for path in patches:
            if path not in out:
                deleted.append(path)
        programs[v] = previous
        old_before, new_before = old[v], previous
    programs[VERSIONS[0]] = with_plumbing(programs[VERSIONS[0]], plumbing, VERSIONS[0])
    for v, text in programs.items():
        out[ROOT / v / "train.py"] = text
    out[PLUMBING] = plumbing
    sums_text = "".join(f"{sha(programs[v])}  {rung_name(v)}\n" for v in VERSIONS)
    sums_text += f"{sha(plumbing)}  tools/maintainers/plumbing.py\n"
    out[SUMS] = sums_text
    return out, renames, deleted


def with_plumbing(text, plumbing, version):
    lesson = split_plumbing(text, f"{version}'s program")[0]
    return lesson + plumbing


# ------------------------------------------------------------------ the command
@command
def main(argv=None):
    p = ArgumentParser(__file__, __doc__)
    p.add_argument("--check", action="store_true",
                   help="rebuild in memory; exit 1 naming each file that differs")
    p.add_argument("--steps", nargs="+", default=[], metavar="VERSION",
                   help="also take the step programs under runs/steps/VERSION/ (your edits, and "
                   "new steps, named NNa-name to go after step NN)")
    args = p.parse_args(argv)
    edit_steps = {}
    for version in args.steps:
        version = Path(version).name
        if version not in VERSIONS[1:] or version == SINGLE:
            raise UserError(f"--steps {version}: choose a rung with steps")
        edit_steps[version] = workspace_programs(version, ROOT / "runs" / "steps" / version)
    if args.check and edit_steps:
        raise UserError("--check takes no --steps: it compares the files as they are")
    out, renames, deleted = derive(edit_steps)
    out.update(derive_docs(out))
    stale = [path for path, text in out.items() if not path.is_file() or read(path) != text]
    stale += [path for path in deleted if path.exists()]
    names = [path.relative_to(ROOT).as_posix() for path in stale]
    if args.check:
        if not stale:
            print(f"regen --check: {len(out)} derived files, none stale")
            return 0
        for name in names:
            print(f"stale: {name}")
        print(f"regen --check: {len(names)} stale; run python tools/maintainers/regen.py")
        return 1
    for path in stale:
        if path in out:
            write_text(path, out[path])
    for path in deleted:
        if path.exists():
            path.unlink()
    for line in NOTES:
        print(line)
    for old_name, new_name in renames.items():
        print(f"renamed: {old_name} -> {new_name}")
    for name in names:
        print(f"wrote: {name}")
    print(f"regen: {len(names)} of {len(out)} derived files rewritten")
    return 0


def derive_docs(out):
    return {}


if __name__ == "__main__":
    sys.exit(main())
