"""Derive every derived file of the ladder from its sources, or check that nothing is stale.

    python tools/maintainers/regen.py                     # rebuild; carry your edits forward
    python tools/maintainers/regen.py --check             # rebuild in memory; exit 1 naming
                                                          # each file that differs
    python tools/maintainers/regen.py --steps v7_bert_layer
                                                          # also take the step programs you
                                                          # edited under runs/steps/VERSION/

The ladder is one chain of programs: v1, v4's steps, v4, v5, v6's steps, v6, ..., v8. Its
sources are v1_bigram/train.py, each step patch (VERSION/steps/NN-name.diff), v5_ffn/train.py
(v5 adds one idea, so the rung's file is its link) and tools/maintainers/plumbing.txt (the part
below the fence, the same in every train.py). From them regen derives each later rung's
train.py, the "step N of M" on each step's first line, and the patches' line numbers and
context. In the docs it derives what the code and reference/ hold: each diff block's lines (a
block under <!-- step: NAME --> shows chosen lines of that step), every parameter table
(<!-- params: EXPR -->), step table (<!-- steps: NAME -->, from reference/steps/NAME.csv), the
seed table and spread lines (reference/<dataset>/seeds.csv), and the ladder's plots. Prose is
written by hand. See tools/maintainers/README.md for the workflow.

Edit a rung's train.py in the ordinary way and run regen: the edit flows forward, as a rebase
does, into every later step and rung that keeps the lines it touched. regen.sums records each
program as regen last wrote it, which is how an edit is told from what it edits. Where a later
step changes the same lines, regen stops with one line naming that step and writes nothing.
Exit status: 0 done (or, with --check, nothing stale), 1 something stale (--check), 2 bad
input or an edit regen cannot carry.
"""
import csv
import difflib
import hashlib
import io
import re
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tools/, for common
from common import (OBJECTIVES, VERSIONS, ArgumentParser, UserError,  # noqa: E402
                    command, load_source, seed_losses, write_text)
from steps import apply_patch, changed_lines, read  # noqa: E402

FENCE = "# ========================== plumbing below: the same in every version; you may stop " \
        "reading here\n"
ROOT = Path(__file__).resolve().parent.parent.parent  # the checkout this regen.py is in
PLUMBING = ROOT / "tools" / "maintainers" / "plumbing.txt"
SUMS = ROOT / "tools" / "maintainers" / "regen.sums"
STEP_LINE = re.compile(r'^"""(\w+), step (\d+) of (\d+): ')
SINGLE = "v5_ffn"  # the rung whose link is its own file: it adds one idea, and has no steps


# ------------------------------------------------------------------ programs and patches
def lines(text):
    return text.splitlines(keepends=True)


def sha(text):
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def make_patch(old, new):
    """The unified diff (3 lines of context) that takes old to new, as diff -u writes it: a
    shortest edit script (Myers), each run of changes its deletions first, then its additions."""
    rows = numbered(in_diff_order(shortest_edit(lines(old), lines(new))))
    changed = [r for r, row in enumerate(rows) if row[0] != " "]
    if not changed:
        return ""
    groups = []
    start = changed[0]
    previous = changed[0]
    for r in changed[1:]:
        if r - previous - 1 > 2 * CONTEXT:  # more than two contexts apart: a new hunk
            groups.append((start, previous))
            start = r
        previous = r
    groups.append((start, previous))
    out = ["--- a/train.py\n", "+++ b/train.py\n"]
    for first, last in groups:
        hunk = rows[max(0, first - CONTEXT):last + CONTEXT + 1]
        old_count = sum(1 for row in hunk if row[0] != "+")
        new_count = sum(1 for row in hunk if row[0] != "-")
        out.append(f"@@ -{hunk_range(hunk[0][2], old_count)} "
                   f"+{hunk_range(hunk[0][3], new_count)} @@\n")
        for kind, line, _, _ in hunk:
            out.append(kind + line)
    return "".join(out)


CONTEXT = 3


def hunk_range(start, count):
    """A hunk header's range: 1-based start, and the count unless it is 1 (an empty range
    starts at the line before)."""
    if count == 0:
        return f"{start},0"
    if count == 1:
        return f"{start + 1}"
    return f"{start + 1},{count}"


def shortest_edit(a, b):
    """[(kind, line)], kind " ", "-" or "+": a shortest edit script from a to b (Myers, "An
    O(ND) difference algorithm", 1986), the algorithm diff uses."""
    v = {1: 0}
    trace = []
    for d in range(len(a) + len(b) + 1):
        trace.append(dict(v))
        for k in range(-d, d + 1, 2):
            if k == -d or (k != d and v[k - 1] < v[k + 1]):
                x = v[k + 1]  # down: b's next line inserted
            else:
                x = v[k - 1] + 1  # right: a's next line deleted
            y = x - k
            while x < len(a) and y < len(b) and a[x] == b[y]:
                x += 1
                y += 1
            v[k] = x
            if x >= len(a) and y >= len(b):
                return walk_back(a, b, trace, d)
    raise AssertionError("a shortest edit script always exists")


def walk_back(a, b, trace, last):
    """The edit script, read back from the end through each d's furthest points."""
    x = len(a)
    y = len(b)
    script = []
    for d in range(last, 0, -1):
        v = trace[d]
        k = x - y
        if k == -d or (k != d and v[k - 1] < v[k + 1]):
            previous_k = k + 1
        else:
            previous_k = k - 1
        previous_x = v[previous_k]
        previous_y = previous_x - previous_k
        while x > previous_x and y > previous_y:
            script.append((" ", a[x - 1]))
            x -= 1
            y -= 1
        if x == previous_x:
            script.append(("+", b[y - 1]))
        else:
            script.append(("-", a[x - 1]))
        x = previous_x
        y = previous_y
    while x > 0 and y > 0:
        script.append((" ", a[x - 1]))
        x -= 1
        y -= 1
    script.reverse()
    return script


def in_diff_order(script):
    """The script with each run of changes as deletions, then additions."""
    ordered = []
    run = []
    for kind, line in script + [(" ", None)]:
        if kind != " ":
            run.append((kind, line))
            continue
        ordered.extend(change for change in run if change[0] == "-")
        ordered.extend(change for change in run if change[0] == "+")
        run = []
        if line is not None:
            ordered.append((kind, line))
    return ordered


def numbered(script):
    """[(kind, line, index in the old text, index in the new text)] of each script line."""
    rows = []
    i = 0
    j = 0
    for kind, line in script:
        rows.append((kind, line, i, j))
        if kind != "+":
            i += 1
        if kind != "-":
            j += 1
    return rows


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


def deleted_anyway(base_lines, first, second):
    """Whether, of two clashing changes, theirs only deletes lines that ours replaces (or
    deletes) too, none of which ours writes again: the step's version stands."""
    by_side = {first[3]: first, second[3]: second}
    if set(by_side) != {"ours", "theirs"}:
        return False
    ours, theirs = by_side["ours"], by_side["theirs"]
    if theirs[2] or not (ours[0] <= theirs[0] < theirs[1] <= ours[1]):
        return False
    return not set(base_lines[theirs[0]:theirs[1]]) & set(ours[2])


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


def docstring_end(base_lines):
    """The index of the line that closes the program's docstring (0 if it has none)."""
    if not base_lines or not base_lines[0].startswith('"""'):
        return 0
    for i, line in enumerate(base_lines[1:], 1):
        if '"""' in line:
            return i
    return 0


def in_docstring(base_lines, first, second):
    """Whether two clashing changes, a step's and your edit's, both lie in the docstring: its
    lines (what the program is, how to run it, how long it takes) are each program's own, so
    the step's stand."""
    end = docstring_end(base_lines)
    sides = {first[3], second[3]}
    return sides == {"ours", "theirs"} and max(first[1], second[1]) <= end


def merge(base, ours, theirs, where):
    """base with both ours' and theirs' changes, as a three-way merge does. A UserError naming
    where when they change the same lines differently. The first line is the docstring's title
    ("v7_bert_layer, step 6 of 15: ..."), each program's own: ours where ours changes it."""
    if theirs == base:  # no edit to carry
        return ours
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
        if not merged or not clash(merged[-1], change):
            merged.append(change)
            continue
        last = merged[-1]
        if last[:3] == change[:3]:
            continue  # the same change on both sides: once
        if change[3] == "moved":
            continue  # ours deletes the line here and writes it, edited, where it goes
        if last[3] == "moved":
            merged[-1] = change
            continue
        step = last if last[3] == "ours" else change  # ours: the step's change
        if in_docstring(base_lines, last, change):
            NOTES.append(f"note: {where} rewrites the docstring's line {change[0] + 1} "
                         "(each program's docstring is its own), so your edit ends there")
        elif superseded(base_lines, last, change):
            NOTES.append(f"note: {where} rewrites line {change[0] + 1}, so your edit of it "
                         "ends there")
        elif not deleted_anyway(base_lines, last, change):
            line = base_lines[min(change[0], len(base_lines) - 1)].strip()[:60]
            raise UserError(f"{where} changes lines that your edit changes too (at {line!r}): "
                            "undo the edit, or make it where the step changes the line (its "
                            "program, with --steps), then run regen again")
        merged[-1] = step  # the step's change stands; yours ends there
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
                candidates.append(forward(old[VERSIONS[i - 1]], v))
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


def forward(before, version):
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
    """{step name: program} of the step programs under folder (steps.py's runs/steps/VERSION):
    each named for a step of the rung as it is now, or NNa-name for a new step after NN. A
    folder named for a step that is no longer there was written before a renumbering: refused,
    as its programs would undo what came since."""
    if not folder.is_dir():
        raise UserError(f"no {folder}: write the step programs first, with python tools/steps.py "
                        f"{version}, then edit them")
    current = {path.stem for path in step_files(version)}
    found = {}
    for path in sorted(folder.glob("*/train.py")):
        name = path.parent.name
        if name.startswith("00-") or name == "trained":
            continue
        new = re.match(r"^\d\d[a-z]-[a-z0-9-]+$", name)
        if name not in current and not new:
            raise UserError(f"{folder / name} is no step of {version} now (written before the "
                            f"steps were renumbered?): move {folder} away, write it again with "
                            f"python tools/steps.py {version}, and make your edits there")
        found[name] = read(path)
    return found


def renumbered(names):
    """{name: NN-name} for the names in their order, numbered 01, 02, ..."""
    return {name: f"{k:02d}-{name.split('-', 1)[1]}" for k, name in enumerate(names, 1)}


class Chain:
    """The ladder's programs, old (as regen last wrote them) and new (with the edits carried)."""

    def __init__(self, edit_steps):
        self.sums = read_sums()
        self.old = old_rungs(self.sums)
        self.plumbing = self.find_plumbing()
        self.out = {}  # {path: text} of every file the chain derives
        self.renames = {}  # {"VERSION/old step name": "VERSION/new step name"}
        self.deleted = []  # step patches renamed away
        self.views = {}  # {(VERSION, old step name or None): (old before, old, new before, new,
        #                                                      new step name)}
        self.targets = {}  # {exercise name: its target program}: each rung, each step
        self.unmeasured = []  # a line for each step without a row in its rung's step table
        first = VERSIONS[0]
        self.new = {first: with_plumbing(read(ROOT / first / "train.py"), self.plumbing, first)}
        for before, version in zip(VERSIONS, VERSIONS[1:]):
            if version == SINGLE:
                self.carry_rung(before, version)
            else:
                self.carry_steps(before, version, edit_steps.get(version))
        for version in VERSIONS:
            self.out[ROOT / version / "train.py"] = self.new[version]
        self.out[PLUMBING] = self.plumbing
        sums = [f"{sha(self.new[v])}  {rung_name(v)}\n" for v in VERSIONS]
        sums.append(f"{sha(self.plumbing)}  tools/maintainers/plumbing.txt\n")
        for figure in FIGURES:
            sums.append(f"{data_sum(figure)}  {figure}\n")
        self.out[SUMS] = "".join(sums)

    def find_plumbing(self):
        """The plumbing's source: plumbing.py, or the one train.py whose plumbing was edited."""
        source = read(PLUMBING)
        recorded = self.sums.get("tools/maintainers/plumbing.txt", sha(source))
        plumbing = source
        for v in VERSIONS:
            text = read(ROOT / v / "train.py")
            theirs = split_plumbing(text, f"{v}/train.py")[1]
            if text == self.old[v] or theirs == plumbing:
                continue
            if theirs == split_plumbing(self.old[v], v)[1]:
                continue
            if plumbing != source or sha(source) != recorded:
                raise UserError(f"the plumbing was edited in two places ({v}/train.py and "
                                "another): keep one edit, in tools/maintainers/plumbing.txt, "
                                "and run regen")
            plumbing = theirs
        return plumbing

    def carry_rung(self, before, version):
        """A rung without steps: its own change carried onto the new rung before, then any edit
        made in its file."""
        where = f"{version}/train.py"
        carried = merge(self.old[before], self.old[version], self.new[before], where)
        new = merge(self.old[version], read(ROOT / version / "train.py"), carried, where)
        self.new[version] = with_plumbing(new, self.plumbing, version)
        self.views[version, None] = (self.old[before], self.old[version], self.new[before],
                                     self.new[version], None)
        self.targets[version] = self.new[version]

    def carry_steps(self, before, version, edited):
        """A rung's steps, each carried onto the new step before it, as a rebase does; edited:
        {step name: program} from the workspace, or None."""
        patches = step_files(version)
        olds = {}
        text = self.old[before]
        for path in patches:
            text = apply_patch(text, read(path), f"{version}/steps/{path.name}")
            olds[path.stem] = text
        if text != self.old[version]:
            raise UserError(f"{version}'s steps do not end at its train.py as regen last wrote "
                            "it: restore its steps/ with git")
        edit = read(ROOT / version / "train.py")
        wanted = olds if edited is None else edited
        homes = {}
        if edited is None and edit != self.old[version]:
            wanted, homes = placed(olds, edit)
        names = list(wanted)
        news = {}
        prev_old = self.old[before]
        prev_new = self.new[before]
        for name in names:
            if name in olds:
                where = f"{version}/steps/{name}.diff"
                carried = merge(prev_old, olds[name], prev_new, where)
                news[name] = merge(olds[name], wanted[name], carried, f"{version} step {name}")
                prev_old = olds[name]
            else:  # a step added in the workspace: its program as written there
                news[name] = wanted[name]
            prev_new = news[name]
        last = names[-1]
        news[last] = merge(self.old[version], edit, news[last], f"{version}/train.py")
        order = renumbered(names)
        for name in sorted(set(homes.values()), key=names.index):
            NOTES.append(f"note: your edit of {version}/train.py is made in step {order[name]}, "
                         "from which the lines it touches stand unchanged; if it changes the "
                         "computation, measure the steps from there again")
        for name in names:
            if order[name] != name:
                self.renames[f"{version}/{name}"] = f"{version}/{order[name]}"
        previous = self.new[before]
        prev_old = self.old[before]
        for k, name in enumerate(names, 1):
            text = with_plumbing(news[name], self.plumbing, version)
            text = number_step(text, version, k, len(names))
            path = ROOT / version / "steps" / f"{order[name]}.diff"
            self.out[path] = kept_patch(path, previous, text)
            self.targets[f"{version}/{order[name]}"] = text
            if name in olds:
                self.views[version, name] = (prev_old, olds[name], previous, text, order[name])
                prev_old = olds[name]
            previous = text
        for path in patches:
            if path not in self.out:
                self.deleted.append(path)
        self.new[version] = previous
        self.targets[version] = previous
        self.views[version, None] = (self.old[before], self.old[version], self.new[before],
                                     previous, None)


def equal_lines(old, new):
    """{index in new: index in old} of the lines new keeps from old, unchanged."""
    matcher = difflib.SequenceMatcher(None, lines(old), lines(new), autojunk=False)
    found = {}
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            for i, j in zip(range(i1, i2), range(j1, j2)):
                found[j] = i
    return found


def placed(steps, rung_edit):
    """Your edit of a rung's train.py, placed: ({step name: program}, {change: step name}).
    Each change goes into the earliest step from which the lines it touches (for an insertion,
    the lines on either side) stand unchanged through every later step to the rung: where those
    lines were written, or the rung's first step for lines from the rung before. So a comment
    reworded in the rung is reworded from the step that wrote it on."""
    names = list(steps)
    rung = steps[names[-1]]
    base = lines(rung)
    kept = {name: equal_lines(steps[name], rung) for name in names}
    pending = {}  # {step name: [(start, end, new lines) in that step's program]}
    homes = {}
    for start, end, new in changes(base, lines(rung_edit)):
        if end > start:
            touched = list(range(start, end))
        else:  # an insertion: the lines on either side
            touched = [i for i in (start - 1, start) if 0 <= i < len(base)]
        home = names[-1]
        for k, name in enumerate(names):
            later = names[k:]
            if all(i in kept[m] for m in later for i in touched) and all(
                    kept[name][i] + 1 == kept[name][i + 1] for i in touched[:-1]):
                home = name
                break
        if home == names[-1]:
            continue  # the last step wrote these lines: the rung's own merge makes the edit
        if end > start:
            at = kept[home][start]
            span = (at, at + end - start)
        elif start < len(base) and start in kept[home]:
            span = (kept[home][start], kept[home][start])
        else:
            span = (kept[home][start - 1] + 1, kept[home][start - 1] + 1)
        pending.setdefault(home, []).append((*span, new))
        homes[start, end] = home
    wanted = dict(steps)
    for name, edits in pending.items():
        text = lines(steps[name])
        for at, to, new in sorted(edits, reverse=True):
            text[at:to] = new
        wanted[name] = "".join(text)
    return wanted, homes


def kept_patch(path, before, after):
    """The step file's patch as it is where it still takes before to after exactly (a maintainer
    may have tidied it), else a new one."""
    if path.is_file():
        stored = read(path)
        try:
            if apply_patch(before, stored) == after:
                return stored
        except UserError:
            pass
    return make_patch(before, after)


def exact(path):
    """The file's text with its line ends as they are (a CSV's are \\r\\n)."""
    return path.read_bytes().decode("utf-8")


def with_plumbing(text, plumbing, version):
    lesson = split_plumbing(text, f"{version}'s program")[0]
    return lesson + plumbing


# ------------------------------------------------------------------ figures
# A figure drawn from reference/: its sum in regen.sums is its data's, not the image's bytes
FIGURES = {f"reference/ladder_{dataset}.png": (f"reference/{dataset}", "v[1-7]_*.csv")
           for dataset in ("tinyplays", "tinyshakespeare")}


def figure_data(figure):
    folder, pattern = FIGURES[figure]
    return sorted((ROOT / folder).glob(pattern))


def data_sum(figure):
    """The sha256 of the files a figure is drawn from, each named."""
    digest = hashlib.sha256()
    for path in figure_data(figure):
        digest.update(path.relative_to(ROOT).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def stale_figures():
    """The figures whose data changed since regen last drew them (or recorded them)."""
    recorded = read_sums()
    return [figure for figure in FIGURES if recorded.get(figure, data_sum(figure)) !=
            data_sum(figure)]


def draw(figure):
    """The ladder's curves, drawn again from their data (tools/plot_losses.py)."""
    import plot_losses  # tools/, on the path since this file's imports

    runs = [str(path) for path in figure_data(figure)]
    labels = [path.stem for path in figure_data(figure)]
    argv = [*runs, "-o", str(ROOT / figure)]
    for label in labels:
        argv += ["--label", label]
    if plot_losses.main(argv) != 0:
        raise UserError(f"{figure}: tools/plot_losses.py could not draw it")


# ------------------------------------------------------------------ the docs and the tables
DIFF_BLOCK = re.compile(r"(?:^<!-- step: ([\w-]+) -->\n)?^```diff\n(.*?)^```", re.S | re.M)
STEP_TABLE = re.compile(r"^(<!-- steps: (\w+) -->\n+)((?:\|.*\|\n){2})((?:\|.*\|\n?)*)", re.M)
DOC_NAMES = ("README.md", "README.zh-CN.md")


def line_map(old, new):
    """[index in new, or None] for each line of old: the same line where new keeps it, its
    rewrite where new rewrites lines one for one in place, None where new drops it."""
    old_lines = old.splitlines()
    new_lines = new.splitlines()
    if old_lines == new_lines:  # the program did not change: each line is where it was
        return list(range(len(old_lines)))
    mapped = [None] * len(old_lines)
    matcher = difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal" or (tag == "replace" and i2 - i1 == j2 - j1):
            for i, j in zip(range(i1, i2), range(j1, j2)):
                mapped[i] = j
    return mapped


class Side:
    """One side of a diff block: the old program its lines are found in (in order), and where
    each of its lines went in the new one."""

    def __init__(self, old, new, name):
        self.old = old.splitlines()
        self.new = new.splitlines()
        self.mapped = line_map(old, new)
        self.name = name
        self.at = 0

    def place(self, line, where):
        """The index in the new program of line, the next one of the old program to read so."""
        try:
            i = self.old.index(line, self.at)
        except ValueError:
            raise UserError(f"{where}: {line!r} is not (there, in this order) in the program "
                            f"{self.name}: fix the block") from None
        self.at = i + 1
        if self.mapped[i] is None:
            raise UserError(f"{where}: the line {line!r} is gone from the program: rewrite the "
                            "block by hand, then run regen again")
        return self.mapped[i]


def carry_block(block, view, where):
    """A doc's diff block, each line carried to the new programs: a block shows chosen lines of
    one step (or rung), - and context lines of the program before it in order, + and context
    lines of the program after it in order. A hunk header (@@) is renumbered: where its first
    lines are now, and how many lines of each program it shows."""
    old_before, old_after, new_before, new_after, _ = view
    before = Side(old_before, new_before, "before")
    after = Side(old_after, new_after, "after")
    out = []
    hunks = []  # [index in out of the @@ line, [before indices], [after indices]]
    for line in block.splitlines():
        if line.startswith("@@"):
            hunks.append([len(out), [], []])
            out.append(line)
            continue
        if not line:  # an empty context line may lose its leading space
            line = " "
        kind = line[0]
        if kind not in "-+ ":
            raise UserError(f"{where}: {line!r} is not a diff line (-, + or a space first)")
        if kind in "- ":
            i = before.place(line[1:], where)
            text = before.new[i]
            if hunks:
                hunks[-1][1].append(i)
        if kind in "+ ":
            j = after.place(line[1:], where)
            text = after.new[j]
            if hunks:
                hunks[-1][2].append(j)
        out.append((kind + text).rstrip() if kind == " " else kind + text)
    for at, olds, news in hunks:
        start_old = olds[0] + 1 if olds else 0
        start_new = news[0] + 1 if news else 0
        out[at] = f"@@ -{start_old},{len(olds)} +{start_new},{len(news)} @@"
    return "".join(line + "\n" for line in out)


def derive_blocks(text, version, chain, where):
    """text with each diff block carried, and each step marker renamed."""
    def block(match):
        step = match.group(1)
        if (version, step) not in chain.views:
            raise UserError(f"{where}: <!-- step: {step} --> names no step of {version}")
        view = chain.views[version, step]
        shown = "the rung"
        if step:
            shown = step
        body = carry_block(match.group(2), view, f"{where}, {shown}'s block")
        marker = f"<!-- step: {view[4]} -->\n" if step else ""
        return f"{marker}```diff\n{body}```"
    return DIFF_BLOCK.sub(block, text)


def step_rows(table, chain):
    """The rows of reference/steps/TABLE.csv, each step renamed as regen renames it and its
    changed lines counted in its patch as regen derives it."""
    version = max((v for v in VERSIONS if table.startswith(v)), key=len)  # v6_block_8_layers
    path = ROOT / "reference" / "steps" / f"{table}.csv"
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    for row in rows:
        name = chain.renames.get(f"{version}/{row['step']}", f"{version}/{row['step']}")
        row["step"] = name.split("/", 1)[1]
        patch = ROOT / version / "steps" / f"{row['step']}.diff"
        if row["step"].startswith("00-"):
            row["changed_lines"] = "0"
        elif patch in chain.out:
            row["changed_lines"] = str(changed_lines(chain.out[patch]))
        else:
            raise UserError(f"reference/steps/{table}.csv: {row['step']} is no step of {version}")
    return path, rows


def csv_text(rows):
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(rows[0]), lineterminator="\r\n")
    writer.writeheader()
    writer.writerows(rows)
    return buffer.getvalue()


def objective(table, step):
    """What a step table's row measures: step 0 is the rung before, trained for its objective."""
    version = max((v for v in VERSIONS if table.startswith(v)), key=len)
    if step.startswith("00-"):
        version = VERSIONS[VERSIONS.index(version) - 1]
    return OBJECTIVES[version]


def lower_at(row, before):
    """How many of the paired seeds give row a lower final val loss than the row before it, as
    "k/10"; "=" where every seed gives the same; "-" where either row lacks a value per seed,
    they ran different numbers of seeds, or their losses measure different objectives. The rule
    the docs follow: a difference is shown when its sign holds at every seed (10/10 or 0/10 with
    no tie: a sign test, p = 2 / 2^10, about 0.002); otherwise it is not shown, which is not the
    same as no difference."""
    if before is None or not row.get("val_each") or not before.get("val_each"):
        return "-"
    if row["objective"] != before["objective"]:
        return "-"
    ours = [float(v) for v in row["val_each"].split()]
    theirs = [float(v) for v in before["val_each"].split()]
    if len(ours) != len(theirs) or len(ours) < 2:
        return "-"
    if ours == theirs:
        return "="
    lower = sum(a < b for a, b in zip(ours, theirs))
    return f"{lower}/{len(ours)}"


def table_body(table, rows, columns):
    """The Markdown rows of a step table: step, changed lines, parameters, val mean, min, max;
    in a table with a seventh column the seeds, with an eighth how many seeds are lower than
    the row above (lower_at)."""
    body = []
    before = None
    for row in rows:
        row = {**row, "objective": objective(table, row["step"])}
        cells = [f"`{row['step']}`", row["changed_lines"], f"{int(row['params']):,}"]
        cells += [f"{float(row[k]):.4f}" for k in ("val_mean", "val_min", "val_max")]
        if columns > 6:
            cells.append(row["seeds"])
        if columns > 7:
            cells.append(lower_at(row, before))
        body.append("| " + " | ".join(cells) + " |\n")
        before = row
    return "".join(body)


def renamed_text(text, renames, prefix=""):
    """text with each step name renamed at once (07-gelu to 09-gelu while 06-x becomes 07-x);
    prefix "VERSION/" for names written with their rung (the catalogue's keys)."""
    if not renames:
        return text
    pattern = "|".join(re.escape(prefix + old) for old in renames)
    found = re.compile(r"(?<![\w-])(" + pattern + r")(?![\w-])")
    return found.sub(lambda m: prefix + renames[m.group(1)[len(prefix):]], text)


def derive_catalogue(chain):
    """{path: text} of tools/catalogue.py with renamed exercises, and of tools/renamed.csv with
    every name a learner may still use; a UserError naming each mistake whose code is gone."""
    out = {}
    steps = {old: new for old, new in chain.renames.items()}
    catalogue_path = ROOT / "tools" / "catalogue.py"
    text = read(catalogue_path)
    for version in VERSIONS[1:]:
        mine = {o.split("/", 1)[1]: n.split("/", 1)[1] for o, n in steps.items()
                if o.startswith(version + "/")}
        text = renamed_text(text, mine, f"{version}/")
    out[catalogue_path] = text
    renamed_path = ROOT / "tools" / "renamed.csv"
    rows = {}
    if renamed_path.is_file():
        for line in read(renamed_path).splitlines()[1:]:
            old, new = line.split(",")
            rows[old] = steps.get(new, new)
    rows.update(steps)
    rows = {old: new for old, new in rows.items() if old != new and new in chain.targets}
    if rows:
        out[renamed_path] = "old,new\n" + "".join(f"{o},{n}\n" for o, n in sorted(rows.items()))
    namespace = {}
    exec(compile(text, str(catalogue_path), "exec"), namespace)
    gone = []
    for mistake in namespace["MISTAKES"]:
        target = chain.targets.get(mistake["exercise"])
        if target is None:
            gone.append(f"{mistake['exercise']} (no such exercise): {mistake['hint'][0][:60]}")
        elif namespace["apply_edits"](target, mistake["edits"]) is None:
            gone.append(f"{mistake['exercise']}: {mistake['hint'][0][:60]}")
    for name in namespace["TASKS"]:
        if name not in chain.targets:
            gone.append(f"{name}: a task for no exercise")
    if gone:
        raise UserError(f"tools/catalogue.py: {len(gone)} mistakes no longer find their code "
                        f"(first: {gone[0]}...): rewrite their edits for the program as it is now")
    return out


PARAM_TABLE = re.compile(r"^(<!-- params: (.+?) -->\n+)((?:\|.*\|\n?)+)", re.M)
SEED_TABLE = re.compile(r"^(<!-- seeds -->\n+)((?:\|.*\|\n?)+)", re.M)
SPREAD = re.compile(r"<!-- spread -->[^\n]*")
FIGURE = re.compile(r"(?<![\d.])\d\.\d{4}(?!\d)")
DATASETS = ("tinyplays", "tinyshakespeare")


def param_table(rows, expression, module, where):
    """A parameter table's rows with each count its module's: a row whose first cell names
    `a.module.path`, or the total, ends with that module's parameter count."""
    import torch

    torch.manual_seed(0)
    model = eval(expression, vars(module))
    out = []
    for row in rows.splitlines(keepends=True):
        cells = row.rstrip("\n").split("|")
        path = re.search(r"`([\w.]+)`", cells[1])
        total = re.search(r"total|合计|总计", cells[1], re.I)
        count = re.fullmatch(r"\s*(\**)[\d,]+(\**)\s*", cells[-2])
        if count and (path or total):
            try:
                part = model.get_submodule(path.group(1)) if path else model
            except AttributeError:
                raise UserError(f"{where}: <!-- params: {expression} --> has a row for "
                                f"{path.group(1)}, no module of the model") from None
            n = sum(p.numel() for p in part.parameters())
            cells[-2] = f" {count.group(1)}{n:,}{count.group(2)} "
            row = "|".join(cells) + "\n"
        out.append(row)
    return "".join(out)


def sweep():
    """{dataset: {version: [final val loss per seed]}} of reference/<dataset>/seeds.csv."""
    found = {}
    for dataset in DATASETS:
        found[dataset] = {v: seed_losses(dataset, v, ROOT) for v in VERSIONS}
    return found


def spread_figures(losses):
    return [f"{x:.4f}" for x in (min(losses), statistics.mean(losses), max(losses))]


def seed_table(rows, runs):
    """The seed table's rows: each version's `min / mean ± sd / max` on each dataset."""
    out = []
    for row in rows.splitlines(keepends=True):
        cells = row.rstrip("\n").split("|")
        version = re.fullmatch(r"\s*`(v\d_\w+)`\s*", cells[1])
        if version:
            for k, dataset in enumerate(DATASETS, 2):
                losses = runs[dataset][version.group(1)]
                low, mean, high = spread_figures(losses)
                cells[k] = f" {low} / {mean} ± {statistics.stdev(losses):.4f} / {high} "
            row = "|".join(cells) + "\n"
        out.append(row)
    return "".join(out)


def spread_line(line, version, runs):
    """A <!-- spread --> line with its six figures: min, mean and max on each dataset."""
    figures = iter(spread_figures(runs["tinyplays"][version]) +
                   spread_figures(runs["tinyshakespeare"][version]))
    return FIGURE.sub(lambda m: next(figures, m.group(0)), line)


def derive_figures(text, version, chain, runs, where):
    """text with its parameter tables, seed table and spread lines derived."""
    if PARAM_TABLE.search(text):
        module = None
        if version in VERSIONS:
            module = load_source(chain.new[version], f"regen_{version}",
                                 ROOT / version / "train.py")

        def params(match):
            if module is None:
                raise UserError(f"{where}: a parameter table outside a rung's doc")
            return match.group(1) + param_table(match.group(3), match.group(2), module, where)
        text = PARAM_TABLE.sub(params, text)
    text = SEED_TABLE.sub(lambda m: m.group(1) + seed_table(m.group(2), runs), text)
    if version in VERSIONS:
        text = SPREAD.sub(lambda m: spread_line(m.group(0), version, runs), text)
    return text


def derive_docs(chain):
    """{path: text} of every doc, and every step table's CSV, as regen derives them."""
    out = derive_catalogue(chain)
    runs = sweep()
    path = ROOT / "reference" / "README.md"
    out[path] = derive_figures(read(path), "reference", chain, runs, "reference/README.md")
    for version in VERSIONS[:1]:
        for name in DOC_NAMES:
            path = ROOT / version / name
            out[path] = derive_figures(read(path), version, chain, runs, f"{version}/{name}")
    tables = {}
    for path in sorted((ROOT / "reference" / "steps").glob("*.csv")):
        csv_path, rows = step_rows(path.stem, chain)
        tables[path.stem] = rows
        out[csv_path] = csv_text(rows)
        if path.stem in VERSIONS:  # the rung's own table: every step measured (the checker
            #                        quotes each step's row)
            measured = {row["step"] for row in rows}
            for name in chain.targets:
                version, _, step = name.partition("/")
                if version == path.stem and step and step not in measured:
                    chain.unmeasured.append(
                        f"reference/steps/{path.stem}.csv has no row for {step}: measure it with "
                        f"python tools/steps.py {version} --train --first {int(step[:2])} --last "
                        f"{int(step[:2])} --seed 1337 1 2 3 4 5 6 7 8 9, and add the row")
    for version in VERSIONS[1:]:
        for name in DOC_NAMES:
            path = ROOT / version / name
            where = f"{version}/{name}"
            text = derive_blocks(read(path), version, chain, where)
            mine = {o.split("/", 1)[1]: n.split("/", 1)[1] for o, n in chain.renames.items()
                    if o.startswith(version + "/")}
            text = renamed_text(text, mine)

            def table(match):
                if match.group(2) not in tables:
                    raise UserError(f"{where}: <!-- steps: {match.group(2)} --> names no "
                                    "reference/steps/*.csv")
                columns = match.group(3).splitlines()[0].count("|") - 1
                return match.group(1) + match.group(3) + table_body(
                    match.group(2), tables[match.group(2)], columns)
            text = STEP_TABLE.sub(table, text)
            out[path] = derive_figures(text, version, chain, runs, where)
    return out


# ------------------------------------------------------------------ the command
def check(out, stale, figures, chain):
    """--check: each stale file, unmeasured step and figure to draw again, one line each; the
    exit status, 0 when there is none."""
    for line in chain.unmeasured:
        print(f"unmeasured: {line}")
    for figure in figures:
        print(f"stale: {figure} (the data it is drawn from changed)")
    for path in stale:
        print(f"stale: {path.relative_to(ROOT).as_posix()}")
    if not (stale or figures or chain.unmeasured):
        print(f"regen --check: {len(out)} derived files, none stale")
        return 0
    if stale or figures:
        print(f"regen --check: {len(stale)} stale files, {len(figures)} figures to draw again; "
              "run python tools/maintainers/regen.py")
    if chain.unmeasured:
        print(f"regen --check: {len(chain.unmeasured)} steps not measured: measure each as its "
              "line says")
    return 1


def write(out, stale, figures, chain):
    """Write each stale file (aside, then moved in), draw each stale figure, delete each patch
    renamed away, and say what was done."""
    for figure in figures:
        draw(figure)
        print(f"drew: {figure}")
    for path in stale:
        write_text(path, out[path])
    gone = [path for path in chain.deleted if path.exists()]
    for path in gone:
        path.unlink()
    for line in NOTES:
        print(line)
    for line in chain.unmeasured:
        print(f"note: {line}")
    for old_name, new_name in chain.renames.items():
        print(f"renamed: {old_name} -> {new_name}")
    for path in stale:
        print(f"wrote: {path.relative_to(ROOT).as_posix()}")
    for path in gone:
        print(f"deleted: {path.relative_to(ROOT).as_posix()} (renamed)")
    print(f"regen: {len(stale)} of {len(out)} derived files rewritten, {len(gone)} deleted")
    return 0


@command
def main(argv=None):
    p = ArgumentParser(__file__, __doc__)
    p.add_argument("--check", action="store_true",
                   help="rebuild in memory; exit 1 naming each file that differs")
    p.add_argument("--steps", nargs="+", default=[], metavar="VERSION",
                   help="also take the step programs under runs/steps/VERSION/ (your edits, and "
                   "new steps, named NNa-name to go after step NN)")
    args = p.parse_args(argv)
    if args.check and args.steps:
        raise UserError("--check takes no --steps: it compares the files as they are")
    edit_steps = {}
    for version in args.steps:
        version = Path(version).name
        if version not in VERSIONS[1:] or version == SINGLE:
            raise UserError(f"--steps {version}: choose a rung with steps")
        edit_steps[version] = workspace_programs(version, ROOT / "runs" / "steps" / version)
    chain = Chain(edit_steps)
    out = dict(chain.out)
    out.update(derive_docs(chain))
    stale = [path for path, text in out.items() if not path.is_file() or exact(path) != text]
    figures = stale_figures()
    if args.check:
        deleted = [path for path in chain.deleted if path.exists()]
        return check(out, stale + deleted, figures, chain)
    return write(out, stale, figures, chain)


if __name__ == "__main__":
    sys.exit(main())
