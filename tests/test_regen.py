"""regen derives every copy from its source: nothing derived is stale, and a real edit, made in
a copy of the repository, flows through every later step and rung."""
import contextlib
import io
import subprocess
import sys
import types

import pytest

from conftest import ROOT, VERSIONS, import_path, load_tool

sys.path.insert(0, str(ROOT / "tools" / "maintainers"))
import regen  # noqa: E402

steps_tool = load_tool("steps")
V5_COMMENT = "# (B, T, C): each position computes on what it gathered"
V4_KEPT = "eval_interval = 500  # steps between two loss estimates"


def test_nothing_derived_is_stale():
    """regen --check: every rung, step patch, plumbing copy, doc block, step table and its CSV,
    and catalogue name is what regen derives from the sources."""
    assert regen.main(["--check"]) == 0


@pytest.mark.parametrize("version", ["v4_multihead", "v6_block", "v7_bert_layer", "v8_bert_mlm"])
def test_each_patch_is_what_diff_u_writes(version):
    """The patches are a shortest edit script with 3 lines of context, as diff -u writes them:
    regen, writing a step anew, gives the stored patch byte for byte."""
    chain = steps_tool.chain(version)
    for (_, before, _), (name, after, _) in zip(chain, chain[1:]):
        stored = (ROOT / version / "steps" / f"{name}.diff").read_text(encoding="utf-8")
        assert regen.make_patch(before, after) == stored, name


def test_a_merge_keeps_both_sides_and_stops_where_they_meet():
    base = "a = 1\nb = f(a)  # b\nc = 3\nd = 4\ne = 5\nf = 6\ng = 7\n"
    ours = base.replace("b = f(a)  # b", "b = f(a) + 1  # b")  # a step's change
    theirs = base.replace("f = 6", "f = 60")  # an edit elsewhere
    assert regen.merge(base, ours, theirs, "here") == ours.replace("f = 6", "f = 60")
    reworded = base.replace("# b", "# the b")  # an edit of the line the step changes
    with pytest.raises(regen.UserError, match="here changes lines that your edit changes too"):
        regen.merge(base, ours, reworded, "here")


def test_a_line_the_step_moves_takes_the_edit_and_one_it_replaces_ends_it():
    base = "class A:\n    x = 1  # one\n\nclass B:\n    pass\n"
    moved = "class A:\n    pass\n\nclass B:\n    x = 1  # one\n"
    edited = base.replace("# one", "# the one")
    assert regen.merge(base, moved, edited, "here") == moved.replace("# one", "# the one")
    replaced = base.replace("    x = 1  # one", "    y = [2, 3]  # a list instead")
    assert regen.merge(base, replaced, edited, "here") == replaced


def copy_of_the_repository(tmp_path):
    """The committed files (and this checkout's edits of them) in a folder of their own."""
    files = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                           cwd=ROOT, capture_output=True, check=True).stdout.split(b"\0")
    for name in filter(None, files):
        source = ROOT / name.decode()
        if source.is_file():
            target = tmp_path / name.decode()
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(source.read_bytes())
    return tmp_path


def run_regen(repo, *args):
    """regen.py of the copy, run in this process (as its command line would run it): its exit
    status and what it printed. Its module works on the copy, where its file is."""
    path = list(sys.path)
    modules = set(sys.modules)
    out = io.StringIO()
    err = io.StringIO()
    try:
        module = import_path(repo / "tools" / "maintainers" / "regen.py", f"regen_{id(repo)}")
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = module.main(list(args))
    finally:  # the copy's tools/ leave the path, and what was imported from there goes
        sys.path[:] = path
        for name in set(sys.modules) - modules:
            if str(getattr(sys.modules[name], "__file__", "")).startswith(str(repo)):
                del sys.modules[name]
    return types.SimpleNamespace(returncode=code, stdout=out.getvalue(), stderr=err.getvalue())


def edit(path, old, new):
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    path.write_text(text.replace(old, new), encoding="utf-8")


def programs(repo, version):
    """Each step's program of version in the copy, and its rung's, via steps.py there."""
    out = subprocess.run([sys.executable, str(repo / "tools" / "steps.py"), version, "--out",
                          str(repo / "runs" / "steps" / version)], cwd=repo, capture_output=True,
                         text=True)
    assert out.returncode == 0, out.stderr
    return {p.parent.name: p.read_text(encoding="utf-8")
            for p in (repo / "runs" / "steps" / version).glob("*/train.py")}


def test_a_comment_edited_in_v5_flows_through_the_ladder(tmp_path):
    """The review's edit: one word in a v5 comment that v6's step 1 moves into Block and step 2
    rewrites. regen carries it into step 1's program, ends it at step 2, and leaves every chain
    ending at its rung, the docs' blocks carried too."""
    repo = copy_of_the_repository(tmp_path)
    edited = V5_COMMENT.replace("what it gathered", "what it has gathered")
    edit(repo / "v5_ffn" / "train.py", V5_COMMENT, edited)
    done = run_regen(repo)
    assert done.returncode == 0, done.stderr
    assert "note: v6_block/steps/02-residual.diff rewrites line" in done.stdout
    assert "wrote: v6_block/steps/01-blocks.diff" in done.stdout
    assert run_regen(repo, "--check").returncode == 0
    assert edited in programs(repo, "v6_block")["01-blocks"]
    for name in ("README.md", "README.zh-CN.md"):
        assert V5_COMMENT not in (repo / "v6_block" / name).read_text(encoding="utf-8")
        assert edited in (repo / "v5_ffn" / name).read_text(encoding="utf-8")


def test_a_line_every_later_rung_keeps_reaches_them_all(tmp_path):
    """An edit in v4 that every later rung keeps: after regen, every step and every rung has it,
    and --check passes."""
    repo = copy_of_the_repository(tmp_path)
    assert V4_KEPT in (repo / "v8_bert_mlm" / "train.py").read_text(encoding="utf-8")
    new = V4_KEPT.replace("two loss estimates", "two estimates of the loss")
    edit(repo / "v4_multihead" / "train.py", V4_KEPT, new)
    done = run_regen(repo)
    assert done.returncode == 0, done.stderr
    for version in VERSIONS[1:]:
        text = (repo / version / "train.py").read_text(encoding="utf-8")
        assert new in text and V4_KEPT not in text, version
    for version in ("v6_block", "v7_bert_layer", "v8_bert_mlm"):
        for name, text in programs(repo, version).items():
            assert new in text, (version, name)
    # made where the line was written (v4's step 4 sets the lecture's schedule), and on from there
    assert "is made in step 04-lecture-schedule" in done.stdout
    for name, text in programs(repo, "v4_multihead").items():
        assert (new in text) == (name >= "04"), name
    assert run_regen(repo, "--check").returncode == 0


def test_an_edit_a_later_step_changes_otherwise_stops_and_writes_nothing(tmp_path):
    """v5's FFN line, which v6's step 4 widens to 4C: an edit of it clashes, and regen names the
    step in one line and changes no file."""
    repo = copy_of_the_repository(tmp_path)
    old = "            nn.Linear(n_embd, n_embd),\n"
    edit(repo / "v5_ffn" / "train.py", old, "            nn.Linear(n_embd, n_embd, bias=False),\n")
    before = {p: p.read_bytes() for p in repo.rglob("*") if p.is_file()}
    done = run_regen(repo)
    assert done.returncode == 2
    assert done.stderr.startswith("error: v6_block/steps/") and done.stderr.count("\n") == 1
    assert {p: p.read_bytes() for p in repo.rglob("*") if p.is_file()} == before


def test_the_plumbing_edited_in_one_train_py_reaches_all_six(tmp_path):
    repo = copy_of_the_repository(tmp_path)
    old = "def say(line):  # on stderr"
    edit(repo / "v6_block" / "train.py", old, "def say(line):  # one line on stderr")
    assert run_regen(repo).returncode == 0
    for path in [*(repo / v / "train.py" for v in VERSIONS),
                 repo / "tools" / "maintainers" / "plumbing.txt"]:
        assert "def say(line):  # one line on stderr" in path.read_text(encoding="utf-8"), path


def test_a_step_added_in_the_workspace_renumbers_the_rest(tmp_path):
    """A new step after v6's step 4 (written as 04a-...): the later steps are renumbered, their
    patches renamed, the docs' markers and the catalogue follow, and renamed.csv tells a learner
    the new names."""
    repo = copy_of_the_repository(tmp_path)
    workspace = programs(repo, "v6_block")
    folder = repo / "runs" / "steps" / "v6_block" / "04a-comment"
    folder.mkdir()
    (folder / "train.py").write_text(workspace["04-ffn-4x"].replace(
        V4_KEPT, V4_KEPT.replace("two loss estimates", "two estimates of the loss")),
        encoding="utf-8")
    done = run_regen(repo, "--steps", "v6_block")
    assert done.returncode == 0, done.stderr
    assert "renamed: v6_block/05-layernorm -> v6_block/06-layernorm" in done.stdout
    names = sorted(p.stem for p in (repo / "v6_block" / "steps").glob("*.diff"))
    assert names[4:] == ["05-comment", "06-layernorm", "07-dropout"]
    doc = (repo / "v6_block" / "README.md").read_text(encoding="utf-8")
    assert "<!-- step: 06-layernorm -->" in doc and "<!-- step: 05-layernorm -->" not in doc
    assert '"v6_block/06-layernorm"' in (repo / "tools" / "catalogue.py").read_text("utf-8")
    assert "v6_block/05-layernorm,v6_block/06-layernorm" in \
        (repo / "tools" / "renamed.csv").read_text(encoding="utf-8")
    assert "note: reference/steps/v6_block.csv has no row for 05-comment" in done.stdout
    check = run_regen(repo, "--check")
    assert check.returncode == 1 and "unmeasured:" in check.stdout  # until it is measured
    table = repo / "reference" / "steps" / "v6_block.csv"
    rows = table.read_bytes().decode().split("\r\n")
    measured = next(r for r in rows if r.startswith("04-ffn-4x,"))
    rows.insert(rows.index(measured) + 1, measured.replace("04-ffn-4x,", "05-comment,", 1))
    table.write_bytes("\r\n".join(rows).encode())
    assert run_regen(repo).returncode == 0  # its row in the docs' tables
    assert run_regen(repo, "--check").returncode == 0


def test_a_mistake_whose_code_is_gone_is_named(tmp_path):
    """A comment edit never loses a catalogued mistake (they match code, comments aside); a code
    edit that removes the line a mistake names stops regen, naming it."""
    repo = copy_of_the_repository(tmp_path)
    old = "        x = self.ffwd(x)  # (B, T, C): each position computes on what it gathered\n"
    edit(repo / "v5_ffn" / "train.py", old, old.replace("self.ffwd(x)", "self.ffwd(x=x)"))
    done = run_regen(repo)
    assert done.returncode == 2
    assert "tools/catalogue.py:" in done.stderr and "v5_ffn" in done.stderr


def test_a_figure_edited_by_hand_is_stale_and_regen_puts_it_back(tmp_path):
    """A parameter count, a seed table cell and a spread figure are derived (from the model and
    reference/<dataset>/seeds.csv): --check names the doc, and regen writes the figure again."""
    repo = copy_of_the_repository(tmp_path)
    docs = [repo / "v6_block" / "README.md", repo / "reference" / "README.md",
            repo / "v5_ffn" / "README.zh-CN.md"]
    originals = [doc.read_text(encoding="utf-8") for doc in docs]
    edit(docs[0], "| 37,824 |", "| 37,825 |")
    edit(docs[1], "2.0475 / 2.0739 ± 0.0199 / 2.1123", "2.0475 / 2.0739 ± 0.0200 / 2.1123")
    edit(docs[2], "tinyplays 2.0180 / 2.0386 / 2.0660", "tinyplays 2.0180 / 2.0387 / 2.0660")
    check = run_regen(repo, "--check")
    assert check.returncode == 1
    for name in ("v6_block/README.md", "reference/README.md", "v5_ffn/README.zh-CN.md"):
        assert f"stale: {name}" in check.stdout
    assert run_regen(repo).returncode == 0
    assert [doc.read_text(encoding="utf-8") for doc in docs] == originals


def test_a_figure_whose_data_changed_is_stale_until_drawn_again(tmp_path):
    """The ladder's plot is judged by the data it is drawn from, not by its bytes: a changed
    curve makes it stale, and regen draws it again from the data."""
    repo = copy_of_the_repository(tmp_path)
    curve = repo / "reference" / "tinyplays" / "v5_ffn.csv"
    rows = curve.read_text(encoding="utf-8").splitlines(keepends=True)
    rows[-1] = rows[-1].replace(",2.", ",2.1", 1)  # the last evaluation's train loss, moved
    curve.write_text("".join(rows), encoding="utf-8")
    check = run_regen(repo, "--check")
    assert check.returncode == 1
    assert "stale: reference/ladder_tinyplays.png" in check.stdout
    assert "ladder_tinyshakespeare" not in check.stdout
    figure = repo / "reference" / "ladder_tinyplays.png"
    before = figure.stat().st_mtime_ns
    done = run_regen(repo)
    assert done.returncode == 0 and "drew: reference/ladder_tinyplays.png" in done.stdout
    assert figure.stat().st_mtime_ns != before and figure.read_bytes()[:4] == b"\x89PNG"
    assert run_regen(repo, "--check").returncode == 0
