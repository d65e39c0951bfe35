"""The step series (vN/steps/*.diff) and tools/steps.py: each chain, applied to the rung before,
gives its rung's train.py byte for byte; each step holds one idea within its budget of changed
lines; every intermediate is a working program (it trains, writes its run and generates or fills
in) and, before attention goes both ways, is causal; a patch whose context does not match the
file is refused, never applied with fuzz."""
import inspect

import pytest
import torch

from conftest import ROOT, VERSIONS, load_tool, tiny_args
from test_bad_input import assert_one_line_error
from versions import import_path

steps = load_tool("steps")
STEPPED = [v for v in VERSIONS[1:] if steps.step_patches(v)]  # the rungs cut into steps
BUDGET, RENAME_BUDGET = 60, 90  # changed lines of one step; a pure rename may reach 90
CHAINS = [(v, i) for v in STEPPED for i in range(1, len(steps.chain(v)))]


def test_the_rungs_that_bundle_ideas_have_steps():
    assert set(STEPPED) == {"v4_multihead", "v6_block", "v7_bert_layer", "v8_bert_mlm"}


@pytest.mark.parametrize("version", STEPPED)
def test_each_chain_reproduces_its_rung_byte_for_byte(version):
    final = steps.chain(version)[-1][1]
    assert final == (ROOT / version / "train.py").read_text(encoding="utf-8")


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
        for i, (name, path, _) in enumerate(steps.write_steps(version, out)):
            modules[version, i] = import_path(path, f"{version}_step_{name}")
    return modules


@pytest.mark.parametrize("version,index", CHAINS)
def test_every_intermediate_trains_writes_its_run_and_generates(version, index, intermediates,
                                                                tiny_corpus, tmp_path, capsys):
    module = intermediates[version, index]
    out = tmp_path / "run"
    argv = tiny_args(tiny_corpus, out, "--max-iters", 20)
    assert module.main([str(a) for a in argv]) == 0, capsys.readouterr().err
    assert sorted(p.name for p in out.iterdir()) == sorted(module.RUN_FILES)
    # a causal step continues a prompt; a step that sees both ways fills in a val passage
    writes = hasattr(module.LanguageModel, "generate")
    prompt = ["--prompt", "The "] if writes else []
    capsys.readouterr()
    code = module.main(["--generate", "--out", str(out), "--sample-chars", "20", "--device", "cpu",
                        "--data", str(tiny_corpus), *prompt])
    printed = capsys.readouterr().out
    assert code == 0 and printed.startswith("The " if writes else "original:\n"), printed


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


def test_the_tool_writes_every_step_and_refuses_bad_input(tmp_path, capsys):
    assert steps.main(["v4_multihead", "--out", str(tmp_path)]) == 0
    written = sorted(p.parent.name for p in tmp_path.glob("*/train.py"))
    assert written[0] == "00-v1_bigram" and len(written) == len(steps.chain("v4_multihead"))
    assert (tmp_path / written[-1] / "train.py").read_bytes() == (
        ROOT / "v4_multihead" / "train.py").read_bytes()
    for argv, fragment in [(["v1_bigram"], "no rung 'v1_bigram' with a rung before it"),
                           (["v9"], "no rung 'v9'"),
                           (["v4_multihead", "--seed", "1", "1"], "give different seeds"),
                           (["v4_multihead", "--jobs", "0"], "--jobs must be from 1 to"),
                           (["v4_multihead", "--first", "5"], "give 0 <= first <= last <= 4"),
                           (["v4_multihead", "--first", "3", "--last", "2"], "--first 3 --last 2")]:
        capsys.readouterr()
        code = steps.main(argv + ["--out", str(tmp_path / "x")])
        assert_one_line_error((code, "", capsys.readouterr().err), fragment)


@pytest.mark.parametrize("argv,fragment", [
    (["v6_block", "--", "--n-layer", "8"],
     "step 00-v5_ffn: unrecognized arguments: --n-layer 8"),  # v5 has one layer
    (["v6_block", "--first", "1", "--", "--n-layer", "0"], "step 01-blocks: --n-layer must be"),
    (["v8_bert_mlm", "--", "--lr", "-1"], "step 00-v7_bert_layer: --lr must be from"),
    (["v4_multihead", "--", "--seed", "3"], "--seed after -- overrides this tool's own"),
    (["v4_multihead", "--", "--se", "3"], "pass --seed N [N ...] before the --"),
    (["v4_multihead", "--", "--generate"], "this tool trains"),
    (["v4_multihead", "--", "--help"], "stop 00-v1_bigram/train.py before it trains"),
])
def test_train_refuses_flags_after_dashes_before_any_run(argv, fragment, tmp_path, capsys,
                                                         monkeypatch):
    calls = []
    monkeypatch.setattr(steps, "run_script", lambda *a: calls.append(a))
    code = steps.main(argv[:1] + ["--train", "--out", str(tmp_path)] + argv[1:])
    assert_one_line_error((code, "", capsys.readouterr().err), fragment)
    assert calls == [] and not (tmp_path / "steps.csv").exists()


def test_train_tabulates_and_plots_every_step(tmp_path, tiny_corpus, capsys):
    argv = ["v4_multihead", "--train", "--seed", "1", "2", "--jobs", "2", "--out", str(tmp_path),
            "--data",
            str(tiny_corpus), "--", "--max-iters", "20", "--eval-interval", "10",
            "--eval-iters", "2", "--batch-size", "4", "--sample-chars", "5"]
    assert steps.main(argv) == 0, capsys.readouterr().err
    import csv
    with open(tmp_path / "steps.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    names = [name for name, _, _ in steps.chain("v4_multihead")]
    assert [r["step"] for r in rows] == names
    for row in rows:
        each = sorted(float(v) for v in row["val_each"].split())
        assert row["seeds"] == "2" and len(each) == 2
        assert [float(row["val_min"]), float(row["val_max"])] == pytest.approx(each, abs=5e-5)
        assert float(row["val_min"]) <= float(row["val_mean"]) <= float(row["val_max"])
    assert len({r["params"] for r in rows[3:]}) == 1, "one head and four: the same parameters"
    assert (tmp_path / "steps.png").stat().st_size > 0
    assert "04-multi-head" in capsys.readouterr().out


# ---------------------------------------------------------------- steps that change no number
# Steps that rebuild the model under new names, or add what a training run does not use: built from
# the same seed, each gives the step before's logits and gradients bit for bit, so a run repeats
# the step before's losses exactly (tools/steps.py --train shows it for v7's step 4 against v6).
# A "rename" step must be one of them.
UNCHANGED = {"v6_block": ["05-dropout"],
             "v7_bert_layer": ["01-config", "02-rename-attention", "03-hf-ffn", "04-hf-layer",
                               "08-chunked-ffn", "09-additive-mask", "10-kv-layers", "11-kv-cache",
                               "12-cross-attention", "13-hf-interface"],
             "v8_bert_mlm": ["02-no-cache", "07-fill-in"]}
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
        unchanged = UNCHANGED.get(version, [])
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

    from transformers import BertConfig, BertModel

    index = [name for name, _ in steps.step_patches("v7_bert_layer")].index("04-hf-layer") + 1
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
    # and these are transformers' own names, but for v6's tril, final LayerNorm and head
    theirs = BertModel(BertConfig(vocab_size=11, hidden_size=12, num_hidden_layers=3,
                                  num_attention_heads=3, intermediate_size=48)).state_dict()
    ours = {k for k in mapped if not re.search(r"tril|^ln_f\.|^lm_head\.", k)}
    assert ours <= set(theirs), sorted(ours - set(theirs))


def test_a_step_that_fails_is_one_line_naming_it(tmp_path, capsys):
    short = tmp_path / "short.txt"  # a file, so the flags pass; too short, so the run fails
    short.write_text("ab")
    code = steps.main(["v4_multihead", "--train", "--seed", "1", "--last", "0", "--out",
                       str(tmp_path / "steps"), "--data", str(short)])
    assert_one_line_error((code, "", capsys.readouterr().err),
                          "00-v1_bigram seed 1 failed (error: ", "too short", "run it alone")
