"""The step series (vN/steps/*.diff) and tools/steps.py: each chain, applied to the rung before,
gives its rung's train.py byte for byte; each step holds one idea within its budget of changed
lines; every intermediate writes or fills in a sample and, before attention goes both ways, is
causal; a patch whose context does not match the file is refused, never applied with fuzz."""
import csv
import fcntl
import inspect
import shutil

import pytest
import torch

from conftest import ROOT, VERSIONS, call_main, import_path, load_tool, step_named
from test_bad_input import assert_one_line_error
from test_tools import TINY

steps = load_tool("steps")
STEPPED = [v for v in VERSIONS[1:] if steps.step_patches(v)]  # the rungs cut into steps
BUDGET, RENAME_BUDGET = 60, 90  # changed lines of one step; a pure rename may reach 90
CHAINS = [(v, i) for v in STEPPED for i in range(1, len(steps.chain(v)))]


def test_the_rungs_that_bundle_ideas_have_steps():
    assert set(STEPPED) == {"v4_multihead", "v6_block", "v7_bert_layer", "v8_bert_mlm"}


@pytest.mark.parametrize("version", STEPPED)
def test_each_step_is_one_idea_within_its_budget(version):
    names = [name for name, _ in steps.step_patches(version)]
    assert names == sorted(names) and all(name[:2].isdigit() and name[2] == "-" for name in names)
    assert [int(name[:2]) for name in names] == list(range(1, len(names) + 1))
    renames = [name for name in names if "rename" in name]
    assert len(renames) <= 1, "one step per rung may be a rename"
    for name, patch in steps.step_patches(version):
        budget = RENAME_BUDGET if "rename" in name else BUDGET
        assert 0 < steps.changed_lines(patch) <= budget, (name, steps.changed_lines(patch))


@pytest.fixture(scope="module")
def intermediates(tmp_path_factory):
    """{(version, index): the step's train.py imported as a module}, written as the tool does."""
    modules = {}
    for version in STEPPED:
        out = tmp_path_factory.mktemp(version)
        steps.write_steps(steps.chain(version), out)
        for i, (name, _, _) in enumerate(steps.chain(version)):
            modules[version, i] = import_path(out / name / "train.py", f"{version}_step_{name}")
    return modules


@pytest.mark.parametrize("version,index", CHAINS)
def test_every_intermediate_writes_or_fills_in_a_sample(version, index, intermediates,
                                                        tiny_corpus):
    """What main() prints after training. (Each step's train() runs in its exercise's check, and
    main() around them is the plumbing, the same in every program.)"""
    module = intermediates[version, index]
    args = module.parse_args(["--data", str(tiny_corpus), "--sample-chars", "10", "--device",
                              "cpu"])  # past block_size: the window slides
    chars = module.read_data(args.data)[0]
    torch.manual_seed(0)
    model = module.LanguageModel(len(chars), **{k: getattr(args, k) for k in module.MODEL_ARGS})
    text = module.sample(model.eval(), chars, args)
    assert isinstance(text, str) and len(text) >= 10


def small(module):
    torch.manual_seed(0)
    names = inspect.signature(module.LanguageModel).parameters
    sizes = {"block_size": 5, "n_embd": 12, "n_head": 3, "intermediate_size": 48}  # 4 * n_embd
    return module.LanguageModel(11, **{k: v for k, v in sizes.items() if k in names}).eval()


@pytest.mark.parametrize("version,index", CHAINS)
def test_every_intermediate_that_writes_left_to_right_is_causal(version, index, intermediates):
    module = intermediates[version, index]
    if not hasattr(module.LanguageModel, "generate"):  # attention both ways: no longer causal
        return
    model, idx = small(module), torch.randint(11, (2, 5))
    with torch.no_grad():
        base = model(idx)[0]
        for t in range(5):
            changed = idx.clone()
            changed[:, t] = (changed[:, t] + 1) % 11
            logits = model(changed)[0]
            torch.testing.assert_close(logits[:, :t], base[:, :t], rtol=0, atol=1e-6)


# ---------------------------------------------------------------- the applier and the tool
TEXT = "".join(f"line {i}\n" for i in range(1, 11))
PATCH = """--- a/train.py
+++ b/train.py
@@ -3,3 +3,4 @@
 line 3
-line 4
+line four
+line 4.5
 line 5
"""


def test_a_patch_applies_where_it_says():
    new = steps.apply_patch(TEXT, PATCH)
    assert new.splitlines()[2:6] == ["line 3", "line four", "line 4.5", "line 5"]
    assert steps.changed_lines(PATCH) == 3


@pytest.mark.parametrize("text,fragment", [
    (TEXT.replace("line 3\n", "line three\n"), "line 3 should read 'line 3'"),  # context differs
    (TEXT.replace("line 4\n", "line 4 \n"), "line 4 should read 'line 4'"),  # removed line differs
    ("line 0\n" + TEXT, "should read 'line 3' but reads 'line 2'"),  # shifted: no offset search
])
def test_a_patch_whose_lines_do_not_match_is_refused(text, fragment):
    with pytest.raises(steps.UserError, match="the patch is not for this file"):
        steps.apply_patch(text, PATCH)
    with pytest.raises(steps.UserError) as e:
        steps.apply_patch(text, PATCH)
    assert fragment in str(e.value)


def tree(folder):
    """{relative path: bytes} of every file under folder: its whole state."""
    return {p.relative_to(folder): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture
def written(tmp_path):
    """v4's steps as the tool writes them, with an earlier training in trained/."""
    out = tmp_path / "steps"
    assert steps.main(["v4_multihead", "--out", str(out)]) == 0
    (out / "trained").mkdir()
    (out / "trained" / "steps.csv").write_text("an earlier training\n")
    return out


def test_the_tool_writes_every_step(written):
    names = [name for name, _, _ in steps.chain("v4_multihead")]
    assert sorted(p.parent.name for p in written.glob("*/train.py")) == names
    assert (written / names[-1] / "train.py").read_bytes() == (
        ROOT / "v4_multihead" / "train.py").read_bytes()


@pytest.mark.parametrize("argv,fragment", [
    (["v1_bigram"], "no rung 'v1_bigram' with a rung before it"),
    (["v9"], "no rung 'v9'"),
    (["v4_multihead", "--seed", "1", "1"], "give different seeds"),
    (["v4_multihead", "--seed", "-1"], "argument --seed: -1 is not from 0"),
    (["v4_multihead", "--jobs", "0"], "--jobs must be from 1 to"),
    (["v4_multihead", "--first", "7"], "--first 7 --last 6: v4_multihead's steps are 0 to 6"),
    (["v4_multihead", "--first", "3", "--last", "2"], "--first 3 --last 2"),
    (["v4_multihead", "--", "--lr", "99"], "flags after -- need --train: --lr 99"),
    (["v4_multihead", "--train", "--", "--seed", "3"], "--seed after -- is this tool's own"),
    (["v4_multihead", "--train", "--", "--generate"], "would only sample"),
    (["v4_multihead", "--train", "--", "--help"], "stop step 00-v1_bigram before it trains"),
    (["v4_multihead", "--train", "--data", "missing.txt"], "--data missing.txt is not a file"),
    (["v4_multihead", "--train", "--last", "3", "--", "--n-embd", "30", "--n-head", "4"],
     "step 03-one-head: "),  # no step up to 03 has heads: --n-head is refused
    (["v6_block", "--train", "--first", "0", "--", "--n-layer", "8"],
     "step 00-v5_ffn: "),  # v5 has one layer: --n-layer is refused
    (["v6_block", "--train", "--", "--n-layer", "0"], "step 01-blocks: argument --n-layer: 0 is"),
    (["v8_bert_mlm", "--train", "--", "--lr=-1"], "step 00-v7_bert_layer: argument --lr: -1"),
])
def test_a_refused_command_touches_nothing(argv, fragment, written, monkeypatch, capsys):
    """Every input is checked before the first file is written: the edit stays, as it was."""
    edited = written / "02-averaging-the-past" / "train.py"
    edited.write_text(edited.read_text() + "# my note\n")
    before = tree(written.parent)
    monkeypatch.setattr(steps, "train_all", lambda *a: pytest.fail("a run started"))
    code = steps.main([*argv[:1], "--out", str(written), *argv[1:]])
    assert_one_line_error((code, "", capsys.readouterr().err), fragment)
    assert tree(written.parent) == before


def test_an_edited_step_is_kept_unless_forced(written, capsys):
    edited = written / "02-averaging-the-past" / "train.py"
    edited.write_text(edited.read_text() + "# my note\n")
    before = tree(written)
    code = steps.main(["v4_multihead", "--out", str(written)])
    assert_one_line_error((code, "", capsys.readouterr().err),
                          f"{edited} differs from step 02-averaging-the-past", "--force")
    assert tree(written) == before
    assert steps.main(["v4_multihead", "--out", str(written), "--force"]) == 0
    assert "# my note" not in edited.read_text()


def test_an_unreadable_patch_or_an_unwritable_folder_is_one_line(tmp_path, monkeypatch, capsys):
    fake = tmp_path / "repo"
    for version in ("v1_bigram", "v4_multihead"):
        shutil.copytree(ROOT / version, fake / version, ignore=shutil.ignore_patterns("*.md"))
    (fake / "v4_multihead" / "steps" / "02-averaging-the-past.diff").write_bytes(b"\xff\xfe")
    monkeypatch.setattr(steps, "ROOT", fake)
    code = steps.main(["v4_multihead", "--out", str(tmp_path / "out")])
    assert_one_line_error((code, "", capsys.readouterr().err), "cannot read",
                          "02-averaging-the-past.diff (UnicodeDecodeError)")
    monkeypatch.undo()
    (tmp_path / "a_file").write_text("x")
    code = steps.main(["v4_multihead", "--out", str(tmp_path / "a_file" / "steps")])
    assert_one_line_error((code, "", capsys.readouterr().err), "a_file, which is a file")
    assert not (tmp_path / "out").exists() and (tmp_path / "a_file").read_text() == "x"


def test_a_second_training_into_the_same_out_is_refused_and_deletes_nothing(
        written, tiny_corpus, monkeypatch, capsys):
    """Another steps.py trains into written/.trained.partial, holding its lock: a second one into
    the same --out refuses in one line before any run, and never deletes the first one's runs."""
    theirs = written / ".trained.partial" / "new" / "02-averaging-the-past" / "seed1"
    theirs.mkdir(parents=True)
    (theirs / "ckpt.pt").write_text("the other training's run\n")
    with open(written / ".trained.partial" / "lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)  # as the first one holds it
        before = tree(written.parent)
        monkeypatch.setattr(steps, "train_all", lambda *a: pytest.fail("a run started"))
        argv = ["v4_multihead", "--train", "--seed", "1", "--out", str(written), "--data",
                str(tiny_corpus), "--", *TINY]
        assert_one_line_error((steps.main(argv), "", capsys.readouterr().err),
                              "another command is writing", "wait until it ends")
        assert tree(written.parent) == before


def test_train_starts_at_the_first_step_that_knows_the_flags(tmp_path, tiny_corpus, monkeypatch,
                                                            capsys):
    """The v6 doc's command without its --first 1: v5, step 00, has no --n-layer."""
    trained = []
    monkeypatch.setattr(steps, "train",
                        lambda s, out, args: trained.extend(n for n, _, _ in s) or [])
    argv = ["v6_block", "--train", "--seed", "1", "--out", str(tmp_path), "--data",
            str(tiny_corpus), "--", "--n-layer", "8"]
    assert steps.main(argv) == 0 and trained[0] == "01-blocks"
    assert "training from step 01-blocks" in capsys.readouterr().out


def in_process(runs, jobs=1, done=None):
    """common.train_all's stand-in: each step's train.py trained in this process."""
    rows = []
    for name, script, out, flags in runs:
        assert call_main(import_path(script, "a_step"), ["--out", out, *flags]) == 0
        with open(out / "metrics.csv", newline="") as f:
            rows.append(list(csv.DictReader(f)))
    return rows


def test_train_tabulates_plots_and_moves_in_a_whole_training(written, tiny_corpus, monkeypatch,
                                                              capsys):
    monkeypatch.setattr(steps, "train_all", in_process)
    argv = ["v4_multihead", "--train", "--seed", "1", "2", "--out", str(written), "--data",
            str(tiny_corpus), "--", *TINY]
    assert steps.main(argv) == 0, capsys.readouterr().err
    with open(written / "trained" / "steps.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert [r["step"] for r in rows] == [name for name, _, _ in steps.chain("v4_multihead")]
    for row in rows:
        each = sorted(float(v) for v in row["val_each"].split())
        assert row["seeds"] == "2" and len(each) == 2
        assert [float(row["val_min"]), float(row["val_max"])] == pytest.approx(each, abs=5e-5)
    assert len({r["params"] for r in rows[3:]}) == 1, "one head and four: the same parameters"
    assert (written / "trained" / "steps.png").stat().st_size > 0
    assert (written / "trained" / "06-heads-batched" / "seed2" / "ckpt.pt").is_file()
    assert not (written / ".trained.partial").exists()


@pytest.mark.parametrize("stop,code,said", [
    (steps.UserError("02 seed 1 failed (error: x)"), 2, "error: 02 seed 1 failed (error: x); "),
    (KeyboardInterrupt(), 130, "interrupted: every run stopped, "),  # Ctrl-C gives no reason
    (BrokenPipeError(32, "Broken pipe"), 130, "interrupted: its output was closed"),  # | head
])
def test_a_failed_or_stopped_training_leaves_the_last_whole_one(stop, code, said, written,
                                                                tiny_corpus, monkeypatch, capsys):
    def fails(runs, jobs=1, done=None):
        in_process(runs[:1])  # one run finished, then
        raise stop

    monkeypatch.setattr(steps, "train_all", fails)
    before = tree(written / "trained")
    argv = ["v4_multihead", "--train", "--seed", "1", "--out", str(written), "--data",
            str(tiny_corpus), "--", *TINY]
    assert steps.main(argv) == code
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(said), err
    assert isinstance(stop, BrokenPipeError) or f"{written / 'trained'} is as it was" in err
    assert tree(written / "trained") == before and not (written / ".trained.partial").exists()


def test_a_trained_folder_the_tool_did_not_write_is_refused_and_kept(written, tiny_corpus,
                                                                     monkeypatch, capsys):
    """The user's own S/trained (no steps.csv): refused before any run, never renamed away."""
    (written / "trained" / "steps.csv").unlink()
    (written / "trained" / "my_notes.txt").write_text("mine\n")
    before = tree(written.parent)
    monkeypatch.setattr(steps, "train_all", lambda *a: pytest.fail("a run started"))
    code = steps.main(["v4_multihead", "--train", "--seed", "1", "--out", str(written), "--data",
                       str(tiny_corpus), "--", *TINY])
    assert_one_line_error((code, "", capsys.readouterr().err), "trained holds files that are not",
                          "steps.csv", "pass a new folder")
    assert tree(written.parent) == before


def test_an_out_that_holds_other_files_is_refused(tmp_path, capsys):
    """steps.py --out . in the repository would scatter step folders among the sources."""
    (tmp_path / "mine.txt").write_text("mine\n")
    for out in (tmp_path, ROOT):
        before = tree(out) if out == tmp_path else None
        code = steps.main(["v4_multihead", "--out", str(out)])
        assert_one_line_error((code, "", capsys.readouterr().err), "which is not a step of this")
        assert out != tmp_path or tree(out) == before
    assert not any((ROOT / name).exists() for name, _, _ in steps.chain("v4_multihead")[1:])


@pytest.mark.parametrize("given", ["v4_multihead/", "./v4_multihead", "v4_multihead//"])
def test_a_rung_written_as_tab_completion_writes_it(given, tmp_path):
    assert steps.main([given, "--out", str(tmp_path / "s")]) == 0
    assert (tmp_path / "s" / "06-heads-batched" / "train.py").is_file()


def test_a_patch_without_a_hunk_is_no_step(tmp_path, monkeypatch, capsys):
    fake = tmp_path / "repo"
    for version in ("v5_ffn", "v6_block"):
        shutil.copytree(ROOT / version, fake / version, ignore=shutil.ignore_patterns("*.md"))
    (fake / "v6_block" / "steps" / "07-nothing.diff").write_text("")
    monkeypatch.setattr(steps, "ROOT", fake)
    code = steps.main(["v6_block", "--out", str(tmp_path / "out")])
    assert_one_line_error((code, "", capsys.readouterr().err), "07-nothing.diff has no hunk")
    assert not (tmp_path / "out").exists()


def test_the_first_step_is_found_with_the_data_given_from_any_folder(tmp_path, tiny_corpus,
                                                                     monkeypatch):
    """Run outside the repository: the first step's probe reads --data, not the default path."""
    monkeypatch.chdir(tmp_path)
    trained = []
    monkeypatch.setattr(steps, "train",
                        lambda s, out, args: trained.extend(n for n, _, _ in s) or [])
    assert steps.main(["v6_block", "--train", "--seed", "1", "--out", str(tmp_path / "s"),
                       "--data", str(tiny_corpus), "--", "--n-layer", "2"]) == 0
    assert trained[0] == "01-blocks"


def test_flags_that_a_later_step_refuses_are_refused_before_any_run(tmp_path, tiny_corpus,
                                                                    monkeypatch, capsys):
    """--prompt abc: v8's steps 02 to 04 fill in a val passage only, 05 on want a blank: each
    step's own dry run of its sample says so before step 00 trains; nothing is left behind."""
    monkeypatch.setattr(steps, "train_all", lambda *a: pytest.fail("a run started"))
    code = steps.main(["v8_bert_mlm", "--train", "--seed", "1", "--out", str(tmp_path / "s"),
                       "--data", str(tiny_corpus), "--", "--prompt", "abc"])
    assert_one_line_error((code, "", capsys.readouterr().err), "step 02-fill-in",
                          "leave out --prompt")
    assert not (tmp_path / "s").exists()


# ---------------------------------------------------------------- steps that change no number
# Steps that rebuild the model under new names, or add what a training run does not use: built from
# the same seed, each gives the step before's logits and gradients bit for bit, so a run repeats
# the step before's losses exactly (tools/steps.py --train shows it for v7's step 4 against v6).
# A "rename" step must be one of them.
UNCHANGED = {"v6_block": ["dropout"],
             "v7_bert_layer": ["config", "rename-attention", "hf-ffn", "hf-layer", "additive-mask",
                               "kv-layers", "kv-cache", "chunked-ffn", "cross-attention",
                               "hf-interface"],
             "v8_bert_mlm": ["fill-in", "fill-in-prompt", "no-cross-attention", "no-cache"]}
# Where each v6 weight lives once v7's steps have rebuilt v6 in HF's module tree (step 04)
V6_TO_HF = [(r"^token_embedding_table\.", "embeddings.word_embeddings."),
            (r"^position_embedding_table\.", "embeddings.position_embeddings."),
            (r"^blocks\.(\d+)\.sa\.(query|key|value|tril)", r"encoder.layer.\1.attention.self.\2"),
            (r"^blocks\.(\d+)\.sa\.proj\.", r"encoder.layer.\1.attention.output.dense."),
            (r"^blocks\.(\d+)\.ln1\.", r"encoder.layer.\1.attention.output.LayerNorm."),
            (r"^blocks\.(\d+)\.ffwd\.net\.0\.", r"encoder.layer.\1.intermediate.dense."),
            (r"^blocks\.(\d+)\.ffwd\.net\.2\.", r"encoder.layer.\1.output.dense."),
            (r"^blocks\.(\d+)\.ln2\.", r"encoder.layer.\1.output.LayerNorm.")]


def test_the_renaming_steps_change_no_computation(intermediates):
    for version in STEPPED:
        names = [name for name, _ in steps.step_patches(version)]
        unchanged = [step_named(version, slug) for slug in UNCHANGED.get(version, [])]
        assert {n for n in names if "rename" in n} <= set(unchanged), "a rename changes nothing"
        for name in unchanged:
            i = names.index(name) + 1
            before, after = small(intermediates[version, i - 1]), small(intermediates[version, i])
            idx, targets = torch.randint(1, 11, (2, 5)), torch.randint(1, 11, (2, 5))
            grads = []
            for model in (before, after):
                logits, loss = model(idx, targets)
                loss.backward()
                grads.append((logits, [p.grad for p in model.parameters()]))
            (a, grads_a), (b, grads_b) = grads
            assert torch.equal(a, b), f"{version} {name}: other logits"
            unmatched = list(grads_b)  # the same gradients, whatever order the modules are in
            for g in grads_a:
                match = next((i for i, h in enumerate(unmatched) if torch.equal(g, h)), None)
                assert match is not None, f"{version} {name}: a gradient differs"
                unmatched.pop(match)
            assert not unmatched, f"{version} {name}: other parameters"


def test_v6_weights_mapped_into_hf_names_give_the_same_logits(intermediates):
    import re

    index = [name for name, _ in steps.step_patches("v7_bert_layer")].index(
        step_named("v7_bert_layer", "hf-layer")) + 1
    v6, hf = small(intermediates["v7_bert_layer", 0]), intermediates["v7_bert_layer", index]
    torch.manual_seed(1)  # other weights than v6's, so that only the loaded ones can match
    model = small(hf)
    mapped = {}
    for key, value in v6.state_dict().items():
        for pattern, name in V6_TO_HF:
            key = re.sub(pattern, name, key)
        mapped[key] = value
    model.load_state_dict(mapped, strict=True)  # every key found, none left over
    idx = torch.randint(11, (2, 5))
    with torch.no_grad():
        assert torch.equal(model(idx)[0], v6(idx)[0])
    # test_v7_bert checks that these are transformers' own names


def test_v4s_list_of_heads_and_its_batched_heads_are_one_function(intermediates):
    """Step 05's nn.ModuleList of Heads joined by torch.cat, and step 06's one Linear per q, k, v
    for all heads: given the same weights, the same output."""
    names = [name for name, _ in steps.step_patches("v4_multihead")]
    listed = intermediates["v4_multihead",
                           names.index(step_named("v4_multihead", "heads-list")) + 1]
    batched = intermediates["v4_multihead",
                            names.index(step_named("v4_multihead", "heads-batched")) + 1]
    torch.manual_seed(0)
    heads = listed.MultiHeadAttention(12, 3, 5)  # C = 12, nh = 3, hs = 4, T = 5
    one = batched.MultiHeadAttention(12, 3, 5)
    for name in ("query", "key", "value"):  # head h's rows are rows h * hs .. (h + 1) * hs
        weight = torch.cat([getattr(h, name).weight for h in heads.heads], dim=0)  # (C, C)
        getattr(one, name).weight.data.copy_(weight)
    x = torch.randn(2, 5, 12)
    a, b = heads(x), one(x)
    assert a.shape == b.shape == (2, 5, 12)
    assert torch.allclose(a, b, atol=1e-6), (a - b).abs().max()
    one.query.weight.data[0, 0] += 1.0  # and the check can fail
    assert not torch.allclose(heads(x), one(x), atol=1e-6)
