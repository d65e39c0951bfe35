"""tools/exercise.py: every exercise's target passes, its starting file fails, and every mistake
in the catalogue, applied to the target, fails with its own hint (a mutation test). Then the
command line: writing an exercise, never over one, checking, listing, bad input."""

import shutil
import sys

import pytest

from conftest import ROOT, load_tool

exercise = load_tool("exercise")
catalogue = exercise.catalogue
EVERY = exercise.exercises()
NAMES = [name for name, _, _ in EVERY]
STARTS = {name: start for name, start, _ in EVERY}
TARGETS = {name: target for name, _, target in EVERY}
CACHE = {}  # each target and its mistakes loaded once for the whole module


def run_check(name, text, tmp_path, lang="en", process=exercise.Learner):
    """(passed, what the check said) for the program text checked as the exercise name: in a
    process of its own, or for a program of ours, in this one (exercise.InProcess: the same
    requests and replies, without a process to start)."""
    path = tmp_path / "train.py"
    path.write_text(text, encoding="utf-8")
    lines = []
    passed = exercise.check(name, TARGETS[name], path, lang, say=lines.append, cache=CACHE,
                            process=process)
    return passed, "\n".join(lines)


def test_every_rung_from_v4_and_every_step_is_an_exercise():
    steps = sorted(p.parent.parent.name + "/" + p.stem for p in ROOT.glob("v*/steps/*.diff"))
    assert sorted(n for n in NAMES if "/" in n) == steps
    assert [n for n in NAMES if "/" not in n] == exercise.VERSIONS[1:]
    assert set(catalogue.TASKS) == set(NAMES)


# a rung's target is its last step's: checked once
DISTINCT = [name for i, name in enumerate(NAMES) if TARGETS[name] not in
            [TARGETS[other] for other in NAMES[:i]]]


@pytest.mark.parametrize("name", DISTINCT)
def test_the_target_passes(name, tmp_path):
    """A rung's target in a process of its own, as a learner's file is checked; a step's in this
    one (exercise.InProcess), where the same requests get the same replies."""
    process = exercise.Learner
    if "/" in name:
        process = exercise.InProcess
    passed, said = run_check(name, TARGETS[name], tmp_path, process=process)
    assert passed, said
    assert "python exercises/" in said and "expect a val loss near" in said


@pytest.mark.parametrize("name", NAMES)
def test_the_starting_file_differs_from_the_target_at_a_stage_the_check_compares(name, tmp_path):
    """Each exercise asks for something a check sees. (Walked here as check() walks the stages,
    without the hint it then looks for: the mistakes' tests cover that.)"""
    path = tmp_path / "train.py"
    path.write_text(exercise.starting_file(name, STARTS[name], TARGETS[name], "en"),
                    encoding="utf-8")
    known = exercise.known_target(name, TARGETS[name], CACHE)
    start = exercise.import_learner(path)
    for stage, observe, agree in exercise.STAGES:
        try:
            with exercise.learners(path):
                mine = observe(start, known.ctx)
        except exercise.Raised:  # where the target does not raise: a check fails there too
            return
        if not agree(mine, exercise.observed(known, stage, observe)):
            return
    pytest.fail(f"{name}'s starting file agrees with its target at every stage")


MUTANTS = [(m["exercise"], i, m) for i, m in enumerate(catalogue.MISTAKES)]


@pytest.mark.parametrize("name, index, mistake", MUTANTS,
                         ids=[f"{n}-{i}" for n, i, _ in MUTANTS])
def test_each_mistake_fails_with_its_own_hint(name, index, mistake, tmp_path):
    known = exercise.known_target(name, TARGETS[name], CACHE)  # its mistakes applied once
    applied = [m for m in known.mistakes if m["edits"] == mistake["edits"]]
    assert applied, f"mistake {index}'s edit does not apply to {name}'s program"
    passed, said = run_check(name, applied[0]["text"], tmp_path, process=exercise.InProcess)
    assert not passed and mistake["hint"][0] in " ".join(said.split()), said


def test_each_mistake_names_a_doc_section_that_exists():
    for m in catalogue.MISTAKES:
        rung, en, zh = m["doc"]
        assert f"## {en}\n" in (ROOT / rung / "README.md").read_text(encoding="utf-8"), m
        assert f"## {zh}\n" in (ROOT / rung / "README.zh-CN.md").read_text(encoding="utf-8"), m


# ------------------------------------------------------------------ the command line
@pytest.fixture
def workspace(tmp_path, monkeypatch):
    """exercises/ in a temporary folder, and the locale English."""
    monkeypatch.setattr(exercise, "EXERCISES", tmp_path / "exercises")
    for var in ("LC_ALL", "LC_MESSAGES", "LANG"):
        monkeypatch.delenv(var, raising=False)
    return tmp_path / "exercises"


def test_an_exercise_is_the_program_before_with_a_docstring_and_is_never_overwritten(
        workspace, capsys):
    assert exercise.main(["v6_block/02-residual"]) == 0
    path = workspace / "v6_block" / "02-residual" / "train.py"
    written = path.read_text(encoding="utf-8")
    start = STARTS["v6_block/02-residual"]
    assert written.split('"""', 2)[2] == start.split('"""', 2)[2]  # only the docstring is new
    assert "Exercise v6_block/02-residual" in written and "--check" in written
    assert catalogue.TASKS["v6_block/02-residual"][0].split()[0] in written
    assert max(len(line) for line in written.splitlines()) <= 100
    path.write_text(written + "# my work\n", encoding="utf-8")
    assert exercise.main(["v6_block/02-residual"]) == 2
    assert "never overwritten" in capsys.readouterr().err
    assert path.read_text(encoding="utf-8").endswith("# my work\n")


@pytest.mark.parametrize("argv, fragment", [
    (["v1_bigram"], "the first rung"),
    (["v5"], "no exercise 'v5'"),
    (["v6_block/99"], "no exercise"),
    (["--check"], "need an exercise"),
    (["v5_ffn", "--file", "x.py"], "--file needs --check"),
    (["v5_ffn", "--check"], "run python tools/exercise.py v5_ffn first"),
    (["v5_ffn", "--check", "--file", "missing.py"], "is not a file"),
    (["v5_ffn", "--lang", "fr"], "--lang"),
    (["v7_bert_layer/07-gelu"], "is now " + exercise.renamed()["v7_bert_layer/07-gelu"]),
])
def test_bad_input_is_one_line_and_exit_status_2(argv, fragment, workspace, capsys):
    assert exercise.main(argv) == 2
    err = capsys.readouterr().err
    assert fragment in err and err.count("\n") == 1, err
    assert not workspace.exists()


def test_a_check_exits_0_when_it_passes_1_when_it_differs_and_the_list_says_which(
        workspace, capsys):
    assert exercise.main(["v5_ffn"]) == 0
    assert exercise.main(["v6_block/02", "--check", "--file", str(ROOT / "v5_ffn/train.py")]) == 1
    assert exercise.main(["v5_ffn", "--check"]) == 1  # the untouched start
    mine = workspace / "v5_ffn" / "train.py"
    mine.write_text(TARGETS["v5_ffn"], encoding="utf-8")
    assert exercise.main(["v5_ffn/", "--check"]) == 0
    out = capsys.readouterr().out
    assert "passed: your code computes what the target computes" in out
    assert "python exercises/v5_ffn/train.py --out runs/mine/v5_ffn" in out
    assert exercise.main([]) == 0
    listed = capsys.readouterr().out.splitlines()
    assert [line.split()[:2] for line in listed[:8]][7] == ["v5_ffn", "passed"]
    assert listed[0].split()[:2] == ["v4_multihead", "token"]  # not passed: no status
    mine.write_text(TARGETS["v5_ffn"] + "# edited\n", encoding="utf-8")
    assert exercise.main([]) == 0
    listed = [line.split()[:2] for line in capsys.readouterr().out.splitlines()]
    assert ["v5_ffn", "edited"] in listed
    assert exercise.main(["v6_block/02", "--check", "--file", str(ROOT / "v6_block/train.py")]) == 1
    assert exercise.main(["v6_block", "--check", "--file", str(ROOT / "v6_block/train.py")]) == 0
    assert not (workspace / "v6_block").exists()  # another file's pass is not the exercise's


def test_what_is_in_the_way_of_an_exercise_s_file_gets_a_message_that_says_what_to_do(
        workspace, tmp_path, capsys):
    """A link to nothing or a folder where the file goes, a file where its folder goes: each is
    one line that says what to do, the same whether writing the exercise or checking it."""
    mine = workspace / "v5_ffn" / "train.py"

    def link_to_nothing():
        mine.symlink_to(tmp_path / "nowhere")

    def a_folder():
        mine.mkdir()

    for make in (link_to_nothing, a_folder):
        for argv in (["v5_ffn"], ["v5_ffn", "--check"]):
            mine.parent.mkdir(parents=True, exist_ok=True)
            make()
            code = exercise.main(argv)
            out, err = capsys.readouterr()
            assert code == 2 and err.startswith("error: ") and err.count("\n") == 1, (make, err)
            assert "python tools/exercise.py v5_ffn" in err and "Traceback" not in out + err
            assert "never overwritten" not in err and "no file at" not in err, err
            if mine.is_dir() and not mine.is_symlink():
                mine.rmdir()
            else:
                mine.unlink()
    mine.parent.rmdir()
    mine.parent.write_text("a file where the exercise's folder goes", encoding="utf-8")
    assert exercise.main(["v5_ffn"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "python tools/exercise.py v5_ffn" in err, err


def test_the_passed_mark_replaces_a_link_and_never_writes_through_it(workspace, tmp_path,
                                                                    capsys):
    assert exercise.main(["v5_ffn"]) == 0
    mine = workspace / "v5_ffn" / "train.py"
    mine.write_text(TARGETS["v5_ffn"], encoding="utf-8")
    outside = tmp_path / "outside.txt"
    outside.write_text("not the checker's\n", encoding="utf-8")
    mark = workspace / "v5_ffn" / ".passed"
    mark.symlink_to(outside)
    assert exercise.main(["v5_ffn", "--check"]) == 0
    assert outside.read_text(encoding="utf-8") == "not the checker's\n"
    assert not mark.is_symlink() and mark.read_text(encoding="utf-8").strip() == \
        exercise.sha256(mine)
    capsys.readouterr()
    assert exercise.main([]) == 0
    listed = [line.split()[:2] for line in capsys.readouterr().out.splitlines()]
    assert ["v5_ffn", "passed"] in listed


def check_text(text, name, tmp_path, capsys, *flags):
    path = tmp_path / "mine.py"
    path.write_text(text, encoding="utf-8")
    code = exercise.main([name, "--check", "--file", str(path), *flags])
    return code, capsys.readouterr().out, path


def test_a_bug_that_raises_shows_the_frames_in_the_learner_s_file(workspace, tmp_path, capsys):
    text = TARGETS["v5_ffn"].replace("return self.net(x)  # (B, T, C)",
                                       "return self.net(x) @ undefined_name  # (B, T, C)")
    code, out, path = check_text(text, "v5_ffn", tmp_path, capsys)
    assert code == 1
    assert f'File "{path}", line ' in out and "NameError" in out and "undefined_name" in out
    assert "exercise.py" not in out  # the checker's own frames are not the learner's business


def test_a_syntax_error_is_shown_with_its_line(workspace, tmp_path, capsys):
    code, out, _ = check_text(TARGETS["v5_ffn"].replace("nn.ReLU(),", "nn.ReLU(),,"),
                              "v5_ffn", tmp_path, capsys)
    assert code == 1 and "SyntaxError" in out and "nn.ReLU(),," in out


def test_importing_a_file_that_trains_is_refused(workspace, tmp_path, capsys):
    code, out, _ = check_text(TARGETS["v5_ffn"] + "main()\n", "v5_ffn", tmp_path, capsys)
    assert code == 1 and "trains when the file is imported" in out


REORDERED = {  # right code, written another way: the same numbers, rounded or drawn differently
    "v5_ffn": [("            nn.ReLU(),\n", ""),  # the ReLU as a function, not a module
               ("return self.net(x)  # (B, T, C)", "return F.relu(self.net(x))  # (B, T, C)"),
               ("wei = q @ k.transpose(-2, -1) * hs**-0.5",  # the scale applied to q first
                "wei = (q * hs**-0.5) @ k.transpose(-2, -1)"),
               ('MODEL_ARGS = ["block_size", "n_embd", "n_head"]',  # listed in another order
                'MODEL_ARGS = ["n_head", "block_size", "n_embd"]')],
    "v6_block": [("        self.sa = MultiHeadAttention(n_embd, n_head, block_size, dropout)\n"
                  "        self.ffwd = FeedForward(n_embd, dropout)\n",  # made in another order:
                  "        self.ffwd = FeedForward(n_embd, dropout)\n"  # other initial draws
                  "        self.sa = MultiHeadAttention(n_embd, n_head, block_size, dropout)\n"),
                 ("        wei = self.attn_dropout(wei)\n        out = wei @ v",  # one line
                  "        out = self.attn_dropout(wei) @ v")],
}


@pytest.mark.parametrize("name", REORDERED)
def test_right_code_in_another_order_passes(name, workspace, tmp_path, capsys):
    text = TARGETS[name]
    for old, new in REORDERED[name]:
        assert text.count(old) == 1
        text = text.replace(old, new)
    code, out, _ = check_text(text, name, tmp_path, capsys)
    assert code == 0, out


def test_hints_in_chinese_with_lang_zh_or_a_chinese_locale(workspace, tmp_path, capsys,
                                                           monkeypatch):
    relu = [m for m in catalogue.MISTAKES if m["exercise"] == "v5_ffn"][0]
    text = catalogue.mistakes_for("v5_ffn", TARGETS["v5_ffn"])[0]["text"]
    code, out, _ = check_text(text, "v5_ffn", tmp_path, capsys, "--lang", "zh")
    assert code == 1 and relu["hint"][1] in out.replace("\n      ", "")
    assert "v5_ffn/README.zh-CN.md" in out
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    code, out, _ = check_text(text, "v5_ffn", tmp_path, capsys)
    assert code == 1 and relu["hint"][1] in out.replace("\n      ", "")
    code, out, _ = check_text(text, "v5_ffn", tmp_path, capsys, "--lang", "en")
    assert relu["hint"][0] in " ".join(out.split()) and "v5_ffn/README.md" in out


def test_the_chinese_hints_use_the_docs_terms():
    from test_docs_zh import TERMS

    chinese = [t[1] for t in catalogue.TASKS.values()] + [m["hint"][1] for m in
                                                          catalogue.MISTAKES] + [
        t[1] for t in catalogue.TEXT.values()] + [t[1] for t in catalogue.WORDS.values()]
    for term, others in TERMS.items():
        used = sorted({w for text in chinese for w in others if w in text})
        assert not used, f"the catalogue says {used}: the docs say {term}"
    assert not any("N(0, 0.02)" in text for text in chinese), "say 均值 0、标准差 0.02 的正态分布"


UNKNOWN = [  # mistakes the catalogue does not hold: the generic stages must catch each
    ("v5_ffn", "nn.Linear(n_embd, n_embd),", "nn.Linear(n_embd, n_embd, bias=False),",
     "parameters"),
    ("v4_multihead", "wei = F.softmax(wei, dim=-1)", "wei = F.softmax(wei, dim=-2)", "outputs"),
    ("v6_block", "        x = self.blocks(x)  # (B, T, C)\n        x = self.ln_f(x)  # (B, T, C)\n",
     "        x = self.ln_f(x)  # (B, T, C)\n        x = self.blocks(x)  # (B, T, C)\n",
     "outputs"),
    ("v6_block",
     "wei = F.softmax(wei, dim=-1)  # (B, nh, T, T)\n        wei = self.attn_dropout(wei)",
     "wei = self.attn_dropout(wei)  # (B, nh, T, T)\n        wei = F.softmax(wei, dim=-1)",
     "outputs"),
    ("v4_multihead", "y = data[ix[:, None] + offsets + 1]", "y = data[ix[:, None] + offsets]",
     "batches"),
    ("v4_multihead", "idx_cond = idx[:, -self.block_size:]", "idx_cond = idx",
     "raised"),  # sample() past block_size positions: an IndexError in the learner's frames
    ("v6_block", "        optimizer.zero_grad(set_to_none=True)\n", "", "training"),
    ("v5_ffn", "lr = 1e-3  # AdamW", "lr = 3e-4  # AdamW", "hyperparameters"),
    # found by an adversarial pass: a flag read from the global, not args
    ("v6_block", "AdamW(model.parameters(), lr=args.lr)", "AdamW(model.parameters(), lr=lr)",
     "training"),
    ("v7_bert_layer", "intermediate_size=intermediate_size, hidden_act=hidden_act,",
     "intermediate_size=intermediate_size,", "outputs"),
    ("v8_bert_mlm", "k = max(1, round(args.mask_prob * shape[1]))",
     "k = max(1, round(mask_prob * shape[1]))", "batches"),
    # what only a window shorter than block_size, or a prompt, shows
    ("v8_bert_mlm", "positions = torch.arange(input_ids.shape[1], device=input_ids.device)",
     "positions = torch.arange(self.position_embeddings.num_embeddings - input_ids.shape[1], "
     "self.position_embeddings.num_embeddings, device=input_ids.device)", "calls"),
    ("v6_block", "prompt = encode(args.prompt or chars[0], chars)",
     "prompt = encode(chars[0], chars)", "calls"),
    # what a position sees: itself too; and the same logits twice in eval mode
    ("v6_block", 'torch.tril(torch.ones(block_size, block_size)))',
     'torch.tril(torch.ones(block_size, block_size), diagonal=-1))', "outputs"),
    ("v6_block", "        wei = self.attn_dropout(wei)\n",
     "        wei = F.dropout(wei, self.attn_dropout.p, training=True)\n", "causality"),
    # found by a second adversarial pass
    ("v8_bert_mlm", "k = max(1, round(args.mask_prob * shape[1]))",
     "k = max(1, int(-(-args.mask_prob * shape[1] // 1)))", "calls"),  # rounded up
    ("v8_bert_mlm", "filled = torch.where(ids == 0, top_i[..., 0] + 1, ids)",
     "filled = torch.where(ids == 0, logits.argmax(-1), ids)", "calls"),  # the mask token too
    ("v7_bert_layer", "            if config.hidden_act not in ACT2FN:\n"
     "                raise ValueError(f\"unknown hidden_act {config.hidden_act!r}, not one of \"\n"
     "                                 f\"{', '.join(ACT2FN)}\")\n", "", "raised"),  # a KeyError
    ("v7_bert_layer", "        return self.LayerNorm(hidden_states + input_tensor)  # (B, T, C)"
     "\n\nclass BertAttention",  # BertSelfOutput's LayerNorm applied twice: no hint fits
     "        return self.LayerNorm(self.LayerNorm(hidden_states + input_tensor))"
     "\n\nclass BertAttention", "outputs"),
]


@pytest.mark.parametrize("name, old, new, stage", UNKNOWN,
                         ids=[f"{n}-{s}-{i}" for i, (n, _, _, s) in enumerate(UNKNOWN)])
def test_a_mistake_the_catalogue_does_not_know_fails_at_its_stage(name, old, new, stage,
                                                                 tmp_path):
    text = TARGETS[name]
    assert text.count(old) == 1
    passed, said = run_check(name, text.replace(old, new), tmp_path, process=exercise.InProcess)
    differs = [line for line in said.splitlines() if "differs" in line or "raised" in line]
    assert not passed and differs and stage in differs[0], said
    if stage == "raised":
        assert f'File "{tmp_path / "train.py"}", line' in said, said
    if "LayerNorm(self.LayerNorm(" in new:  # invisible mistakes' hints must not be given
        assert "hint:" not in said and "read: v7_bert_layer/README.md" in said, said
    assert catalogue.TASKS[name][0] not in " ".join(said.split()), "the task again, as a hint"
    if stage == "batches" and name == "v4_multihead":  # the targets not one character on
        assert "get_batch's y (the targets)" in said, said


def test_an_exercise_file_trains_and_generates_as_its_rung_s_train_py_does(workspace,
                                                                            tiny_corpus, tmp_path):
    from conftest import call_main, import_path, tiny_args

    assert exercise.main(["v6_block/05-layernorm"]) == 0
    path = workspace / "v6_block" / "05-layernorm" / "train.py"
    module = import_path(path, "an_exercise")
    assert call_main(module, tiny_args(tiny_corpus, tmp_path / "run")) == 0
    assert sorted(p.name for p in (tmp_path / "run").iterdir()) == module.RUN_FILES
    assert call_main(module, ["--generate", "--out", tmp_path / "run", "--sample-chars", 5]) == 0


def test_the_tolerance_sits_far_above_what_rounding_gives_and_the_reference_says_so(capsys):
    """v4's list of heads against its batched heads: one function, rounded two ways."""
    bench = load_tool("maintainers/bench_exercises")
    logit, grad, loss = bench.tolerance()
    assert 0 < logit < exercise.ATOL / 10 and grad < exercise.ATOL / 10
    assert 0 < loss < exercise.LOSS_TOL / 10
    said = " ".join((ROOT / "reference" / "OPERATIONS.md").read_text(encoding="utf-8").split())
    assert (f"allows {exercise.ATOL:.0e} (absolute) and {exercise.RTOL:.0e} (relative) in a "
            f"tensor, {exercise.LOSS_TOL:.0e} in a loss") in said
    assert f"over the check's {exercise.TRAIN_STEPS} training steps" in said


@pytest.mark.parametrize("name, old, new, fragment", [
    ("v5_ffn", "            nn.ReLU(),\n",
     "            nn.ReLU(),\n            nn.Linear(n_embd, n_embd),\n",
     "ffwd.net.2.weight, which the target's has not"),
    ("v6_block", "            nn.Linear(n_embd, 4 * n_embd),  # 4x wider inside, as in \"Attention "
     "Is All You Need\"\n            nn.ReLU(),\n", "            nn.Linear(n_embd, 4 * n_embd),\n"
     "            nn.Linear(4 * n_embd, 4 * n_embd),\n            nn.ReLU(),\n",
     "in the target, blocks.0.ffwd.net.1 is a ReLU"),  # a Linear where the ReLU stands
    ("v6_block", 'torch.tril(torch.ones(block_size, block_size)))',
     'torch.tril(torch.ones(block_size, block_size), diagonal=-1))', "keeps the diagonal"),
    ("v6_block", "        wei = self.attn_dropout(wei)\n",
     "        wei = F.dropout(wei, self.attn_dropout.p, training=True)\n", "dropout must be off"),
    ("v6_block", "        loss.backward()\n", "        loss.backward()\n        loss = loss * "
     "float('nan')\n        log.step(step, loss)\n", "the losses part: nan"),
])
def test_the_message_names_what_went_wrong(name, old, new, fragment, tmp_path):
    text = TARGETS[name]
    assert text.count(old) == 1
    passed, said = run_check(name, text.replace(old, new), tmp_path)
    assert not passed and fragment in " ".join(said.split()), said


@pytest.mark.parametrize("case", ["helper", "exec", "nul", "bom"])
def test_a_file_python_cannot_read_is_the_learner_s_error_never_the_checker_s(case, tmp_path):
    text = TARGETS["v5_ffn"]
    if case == "helper":  # their own module, with a syntax error, imported by their file
        (tmp_path / "helper.py").write_text("def f(:\n", encoding="utf-8")
        text = f"import sys\nsys.path.insert(0, {str(tmp_path)!r})\nimport helper\n" + text
    elif case == "exec":
        text += "exec('1 +')\n"
    elif case == "nul":
        text += "\0"
    path = tmp_path / "train.py"
    path.write_bytes(("\ufeff" * (case == "bom") + text).encode("utf-8"))
    lines = []
    passed = exercise.check("v5_ffn", TARGETS["v5_ffn"], path, say=lines.append, cache=CACHE)
    said = "\n".join(lines)
    assert passed == (case == "bom"), said
    if case != "bom":
        assert "your code raised" in said and "SyntaxError" in said


def test_bert_s_initial_spread_is_held_to_a_quarter(tmp_path):
    """N(0, 0.025) where BERT draws N(0, 0.02): the initial weights differ."""
    text = TARGETS["v8_bert_mlm"]
    old = "module.weight.data.normal_(mean=0.0, std=self.config.initializer_range)"
    assert text.count(old) == 1
    passed, said = run_check("v8_bert_mlm", text.replace(old, old.replace(
        "self.config.initializer_range", "0.025")), tmp_path)
    assert not passed and "differs  initial weights" in said, said


@pytest.mark.parametrize("line", ["torch.set_grad_enabled(False)",
                                  "torch.set_default_dtype(torch.float64)"])
def test_a_file_that_changes_torch_s_defaults_fails_and_leaves_them_as_they_were(line, tmp_path):
    import torch

    passed, said = run_check("v5_ffn", f"import torch\n{line}\n" + TARGETS["v5_ffn"], tmp_path)
    assert not passed and "changes torch's defaults" in said, said
    assert torch.is_grad_enabled() and torch.get_default_dtype() == torch.float32


def test_a_broken_patch_spoils_only_its_own_rung(workspace, tmp_path, monkeypatch, capsys):
    """The list and every other rung's exercises work with one step patch broken: each exercise
    applies its own rung's patches, up to its step, and no others."""
    root = tmp_path / "repo"
    for version in exercise.VERSIONS:
        shutil.copytree(ROOT / version, root / version, ignore=shutil.ignore_patterns("*.md"))
    broken = root / "v6_block" / "steps" / "02-residual.diff"
    broken.write_text(broken.read_text(encoding="utf-8").replace(" ", "  ", 40), encoding="utf-8")
    monkeypatch.setattr(exercise, "ROOT", root)
    monkeypatch.setattr(sys.modules["steps"], "ROOT", root)  # where the patches are read
    assert exercise.main([]) == 0
    assert "v6_block/02-residual" in capsys.readouterr().out
    assert exercise.main(["v6_block/01-blocks"]) == 0
    assert exercise.main(["v7_bert_layer/05-qkv-bias"]) == 0
    assert exercise.main(["v6_block/03-projections"]) == 2
    assert "02-residual.diff" in capsys.readouterr().err


def test_the_chinese_path_lists_in_chinese_and_every_command_it_suggests_keeps_lang_zh(
        workspace, capsys):
    assert exercise.main(["--lang", "zh"]) == 0
    listed = capsys.readouterr().out.splitlines()
    rows = [line for line in listed if line.strip().startswith("v")]
    assert len(rows) == len(NAMES) and all(exercise.columns(line) <= 99 for line in rows)
    assert all(any("\u4e00" <= c <= "\u9fff" for c in line[40:]) for line in rows), rows[0]
    said = [line for line in listed if "python tools/exercise.py" in line]
    assert exercise.main(["v5_ffn", "--lang", "zh"]) == 0
    said += capsys.readouterr().out.splitlines()
    said += (workspace / "v5_ffn" / "train.py").read_text(encoding="utf-8").splitlines()
    for argv in (["v7_bert_layer/07-gelu"], ["v99"], ["v6_block", "--check"]):
        assert exercise.main([*argv, "--lang", "zh"]) == 2
        said.append(capsys.readouterr().err)
    commands = [line for line in said if "python tools/exercise.py" in line]
    assert len(commands) >= 6 and all("--lang zh" in line for line in commands), commands


def test_a_pass_says_what_loss_to_expect_and_how_far_the_seeds_spread():
    """For a rung, its reference run's loss and the range of seeds.csv; for a step, its rows'
    mean and range, or that its row ran one seed."""
    rung = exercise.expected("v6_block", False)
    assert "seed 1337" in rung and "over 10 seeds it ends from" in rung
    one = [n for n in NAMES if n.startswith("v7_bert_layer/") and exercise.expected(n, False)
           .endswith("no range to compare with)")]
    assert one and all("10 seeds" in exercise.expected(n, False) for n in NAMES
                       if n.startswith("v6_block/"))
    assert "个种子的结果在" in exercise.expected("v6_block", True)


def test_right_code_that_names_its_layers_otherwise_passes_and_is_told_how_they_match(tmp_path):
    """In v4 to v6 the names are not the lesson: `self.fc` with F.relu is a right v5. The check
    matches the learner's parameters to the target's by shape and order, says so, and uses
    that in every stage; a mistake under other names still fails."""
    renamed = TARGETS["v5_ffn"].replace(
        "        self.net = nn.Sequential(\n            nn.Linear(n_embd, n_embd),\n"
        "            nn.ReLU(),\n        )\n", "        self.fc = nn.Linear(n_embd, n_embd)\n"
    ).replace("        return self.net(x)  # (B, T, C)", "        return F.relu(self.fc(x))")
    assert renamed.count("self.fc") == 2
    passed, said = run_check("v5_ffn", renamed, tmp_path)
    assert passed and "your ffwd.fc is the target's ffwd.net.0" in said, said
    no_relu = renamed.replace("return F.relu(self.fc(x))", "return self.fc(x)")
    passed, said = run_check("v5_ffn", no_relu, tmp_path)
    assert not passed and "differs  outputs" in said, said
    # the target's own names in another order are compared by name, not matched by order
    reordered = TARGETS["v6_block"].replace(
        "        self.query = nn.Linear(n_embd, n_embd, bias=False)\n", "").replace(
        "        self.value = nn.Linear(n_embd, n_embd, bias=False)\n",
        "        self.value = nn.Linear(n_embd, n_embd, bias=False)\n"
        "        self.query = nn.Linear(n_embd, n_embd, bias=False)\n")
    assert reordered.count("self.query = nn.Linear") == 1 and reordered != TARGETS["v6_block"]
    passed, said = run_check("v6_block", reordered, tmp_path)
    assert passed and "named otherwise" not in said, said
    # a file that cannot build the target's model yet is told why by the stages
    start = exercise.starting_file("v6_block/06-dropout", STARTS["v6_block/06-dropout"],
                                   TARGETS["v6_block/06-dropout"], "en")
    passed, said = run_check("v6_block/06-dropout", start, tmp_path)
    assert not passed and "differs  hyperparameters" in said, said


def test_the_rung_s_functions_are_called_on_a_model_as_main_hands_it_over(tmp_path):
    """main() gives sample() a model in training mode (after training, or as loaded), so a
    sample() that forgets eval mode computes something else, and the check says it differs."""
    old = ('blanked as in training)."""\n    model.eval()\n')
    assert TARGETS["v8_bert_mlm"].count(old) == 1
    passed, said = run_check("v8_bert_mlm", TARGETS["v8_bert_mlm"].replace(
        old, 'blanked as in training)."""\n'), tmp_path)
    assert not passed and "differs  the rung's other calls" in said, said


# ------------------------------------------------------------------ the learner's own process
@pytest.mark.parametrize("line, passes, fragment", [
    # a patch at import stays in the learner's process: the target's ReLU is untouched
    ("import torch.nn as nn\nnn.ReLU.forward = lambda self, x: x", False, "The ReLU is missing"),
    ("import os\nos._exit(0)", False, "ended its process"),  # an exit is never a pass
    ("import atexit, os\natexit.register(lambda: os._exit(0))", True, "passed"),
    # a thread that never ends, in a process that ignores SIGTERM: the check still returns
    ("import signal, threading, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
     "threading.Thread(target=time.sleep, args=(10**6,)).start()", True, "passed"),
])
def test_the_learner_s_file_runs_in_a_process_of_its_own(line, passes, fragment, tmp_path):
    passed, said = run_check("v5_ffn", f"{line}\n" + TARGETS["v5_ffn"], tmp_path)
    assert passed == passes and fragment in " ".join(said.split()), said
    passed, said = run_check("v5_ffn", TARGETS["v5_ffn"], tmp_path)  # the same cache, after it
    assert passed, said


def test_an_exit_at_import_fails_a_wrong_file_with_status_1(workspace, tmp_path, capsys):
    path = tmp_path / "mine.py"
    path.write_text("import atexit, os\natexit.register(lambda: os._exit(0))\n"
                    + STARTS["v5_ffn"], encoding="utf-8")
    assert exercise.main(["v5_ffn", "--check", "--file", str(path)]) == 1


def test_a_loop_that_never_ends_is_stopped_at_the_time_limit(tmp_path, monkeypatch):
    monkeypatch.setattr(exercise, "TIME_LIMIT", 1)
    passed, said = run_check("v5_ffn", "while True:\n    pass\n" + TARGETS["v5_ffn"], tmp_path)
    assert not passed and "still running after 1 s" in said, said


# ------------------------------------------------------------------ what used to pass
@pytest.mark.parametrize("name, old, new, fragment", [
    ("v6_block", "self.ln1 = nn.LayerNorm(n_embd)", "self.ln1 = nn.LayerNorm(n_embd, eps=1e-6)",
     "eps=1e-06"),
    ("v5_ffn", "n = int(0.9 * len(data))", "n = int(0.8 * len(data))", "read_data splits"),
    ("v8_bert_mlm", "module.weight.data.normal_(mean=0.0, std=self.config.initializer_range)",
     "module.weight.data.uniform_(-3**0.5 * self.config.initializer_range, 3**0.5 * "
     "self.config.initializer_range)", "a uniform one 58%"),
    ("v8_bert_mlm", "k = max(1, round(args.mask_prob * shape[1]))",
     "k = max(1, int(args.mask_prob * shape[1] + 0.5))", "choose_positions"),
    ("v5_ffn", 'if __name__ == "__main__":\n    sys.exit(main())', "", "records 0 steps"),
])
def test_what_the_rung_is_beyond_its_outputs_is_checked_too(name, old, new, fragment, tmp_path):
    text = TARGETS[name]
    assert text.count(old) == 1, old
    passed, said = run_check(name, text.replace(old, new), tmp_path)
    assert not passed and fragment in " ".join(said.split()), said


def test_a_get_batch_that_draws_another_way_is_judged_by_what_masking_promises(tmp_path):
    """v8's 80/10/10 with the random characters drawn before the roll: other batches under one
    generator, but the same promises (each chosen position a target, the rest -100, the same
    shares, characters drawn from the text); it passes, trained on the target's batches. Drawn
    uniformly from the vocabulary instead, it breaks one, and is told which."""
    name = "v8_bert_mlm/03-80-10-10"
    roll = "    roll = torch.rand(x.shape, generator=generator)  # (B, T)\n"
    noise = "    noise = data[torch.randint(len(data), x.shape, generator=generator)]  # (B, T)\n"
    text = TARGETS[name]
    assert text.count(roll + noise) == 1
    passed, said = run_check(name, text.replace(roll + noise, noise + roll), tmp_path)
    assert passed and "drawn another way than the target's" in said, said
    uniform = noise.replace("data[torch.randint(len(data), x.shape, generator=generator)]",
                            "torch.randint(1, 73, x.shape, generator=generator)")  # 73 ids
    wrong = text.replace(roll + noise, roll + uniform)
    passed, said = run_check(name, wrong, tmp_path, process=exercise.InProcess)
    joined = " ".join(said.split())
    assert not passed and "drawn otherwise than the target's, which draws them from the text" \
        in joined, said


# ------------------------------------------------------------------ a difference, in words
@pytest.mark.parametrize("name, old, new, fragment", [
    ("v4_multihead", "wei = F.softmax(wei, dim=-1)", "wei = F.softmax(wei, dim=-2)",
     "the softmax runs over the other axis"),
    ("v4_multihead", "k.transpose(-2, -1) * hs**-0.5", "k.transpose(-2, -1) * (2 * hs)**-0.5",
     "0.7071 times the target's"),
    ("v5_ffn", "x = self.sa_heads(x)  # (B, T, C): each position gathers from the ones before it\n"
     "        x = self.ffwd(x)", "x = self.ffwd(x)\n        x = self.sa_heads(x)",
     "yours calls ffwd where the target calls sa_heads"),
    ("v6_block", "x = x + self.ffwd(self.ln2(x))", "x = self.ffwd(self.ln2(x))",
     "(a residual path)"),
    # the first tensor yours never computes (k.T) relates to nothing: the scores, a few ops on
    ("v4_multihead", "wei = q @ k.transpose(-2, -1)", "wei = k @ q.transpose(-2, -1)",
     "at the target's `a @ b` (shape (2, 3, 5, 5)), yours is the target's transposed"),
    ("v7_bert_layer", "k = torch.cat([past_key_value[0], k], dim=2)",
     "k = torch.cat([k, past_key_value[0]], dim=2)",
     "yours joins the same pieces in another order"),
    # what a reader who rated the messages found missing or false
    ("v6_block", "self.blocks = nn.Sequential(*[Block(", "self.blocks = ([Block(",
     "none of the target's 26 parameters under blocks"),  # a plain list: nothing registered
    ("v4_multihead/05-heads-list", "nn.ModuleList([Head(n_embd, n_embd // n_head, block_size)\n"
     "                                    for _ in range(n_head)])",
     "nn.ModuleList([Head(n_embd, n_embd // n_head, block_size)] * n_head)",
     "sa_heads.heads.1.query.weight is the same tensor as its sa_heads.heads.0.query.weight"),
    ("v6_block", "            nn.ReLU(),\n            nn.Linear(4 * n_embd, n_embd),\n",
     "            nn.Linear(4 * n_embd, n_embd),\n            nn.ReLU(),\n",
     "the target applies ReLU at this step, yours at another"),  # not "a ReLU is missing"
    ("v7_bert_layer", "self.dense = nn.Linear(config.hidden_size, config.hidden_size)\n"
     "        self.LayerNorm = nn.LayerNorm(config.hidden_size, eps=config.layer_norm_eps)\n"
     "        self.dropout = nn.Dropout(config.hidden_dropout_prob)\n\n"
     "    def forward(self, hidden_states, input_tensor):\n"
     "        hidden_states = self.dropout(self.dense(",
     "self.proj = nn.Linear(config.hidden_size, config.hidden_size)\n"
     "        self.LayerNorm = nn.LayerNorm(config.hidden_size, eps=config.layer_norm_eps)\n"
     "        self.dropout = nn.Dropout(config.hidden_dropout_prob)\n\n"
     "    def forward(self, hidden_states, input_tensor):\n"
     "        hidden_states = self.dropout(self.proj(",
     "the same shape under another name"),
    ("v8_bert_mlm", "k = max(1, round(args.mask_prob * shape[1]))",
     "k = max(1, round(mask_prob * shape[1]))", "is one read from a global and not from args?"),
    # the FFN adds to the Block's input, past attention's output: a tensor named by its module
    ("v6_block/02-residual", "        x = x + self.sa(x)  # (B, T, C): x rides the residual path "
     "past attention\n        x = x + self.ffwd(x)",
     "        h = x + self.sa(x)\n        x = x + self.ffwd(h)",
     "the target's adds what blocks.0.sa gave before it, yours does not (a residual path)"),
])
def test_a_difference_outside_the_catalogue_is_said_by_what_it_is(name, old, new, fragment,
                                                                  tmp_path):
    text = TARGETS[name]
    assert text.count(old) == 1, old
    passed, said = run_check(name, text.replace(old, new), tmp_path)
    joined = " ".join(said.split())
    assert not passed and fragment in joined, said
    assert catalogue.TASKS[name][0] not in joined, "the task again, as a hint"


# ------------------------------------------------------------------ one piece
def test_an_error_after_a_wrong_shape_says_first_where_the_shapes_part(tmp_path):
    """The forward raises in the Block's add, a step after the heads were joined into (B * T, C):
    the check says first which module was given the wrong shape, and where it is made, then the
    learner's own frames."""
    wrong = TARGETS["v6_block"].replace("out.transpose(1, 2).reshape(B, T, C)",
                                        "out.transpose(1, 2).reshape(B * T, C)")
    passed, said = run_check("v6_block", wrong, tmp_path, process=exercise.InProcess)
    said = " ".join(said.split())
    assert not passed
    finding = ("before the error: blocks.0.sa.proj (Linear) is given a tensor of shape (10, 12) "
               "in yours, (2, 5, 12) in the target's. In the forward of blocks.0.sa "
               "(MultiHeadAttention), yours gives it that shape")
    assert f"{finding} your code raised an error" in said, said
    assert "x = x + self.sa(self.ln1(x))" in said and "RuntimeError" in said


def test_one_class_is_checked_alone_before_it_is_wired_in(workspace, tmp_path, capsys):
    """v4's program with v5's FeedForward pasted in, not yet used: the class passes alone; the
    same class without its ReLU fails, and says the ReLU is missing."""
    start, target = STARTS["v5_ffn"], TARGETS["v5_ffn"]
    piece = target[target.index("class FeedForward"):target.index("class LanguageModel")]
    text = start.replace("class LanguageModel", piece + "class LanguageModel", 1)
    path = tmp_path / "mine.py"
    path.write_text(text, encoding="utf-8")
    argv = ["v5_ffn", "--check", "--piece", "FeedForward", "--file", str(path)]
    assert exercise.main(argv) == 0
    assert "passed: your FeedForward computes what the target's does" in capsys.readouterr().out
    path.write_text(text.replace("            nn.ReLU(),\n", "", 1), encoding="utf-8")
    assert exercise.main(argv) == 1
    assert "a ReLU is missing" in " ".join(capsys.readouterr().out.split())
    assert exercise.main([*argv[:2], "--piece", "Nope", *argv[4:]]) == 2
    assert "its pieces are MultiHeadAttention, FeedForward" in capsys.readouterr().err
    # key declared before query, the mask made in forward (no buffer): still right
    lines = ("        self.query = nn.Linear(n_embd, n_embd, bias=False)\n",
             "        self.key = nn.Linear(n_embd, n_embd, bias=False)\n")
    assert text.count(lines[0] + lines[1]) == 1
    path.write_text(text.replace(lines[0] + lines[1], lines[1] + lines[0]), encoding="utf-8")
    assert exercise.main([*argv[:3], "MultiHeadAttention", *argv[4:]]) == 0, capsys.readouterr()
    capsys.readouterr()


def test_a_chinese_message_is_wrapped_by_the_columns_it_takes():
    """A Chinese character takes two columns: a line of them is cut at 99 columns, not 99
    characters, and English words in it are never split."""
    line = "    " + "差别出在它内部" * 30 + " blocks.0.ffwd.net " * 4
    lines = exercise.wrap(line).splitlines()
    assert len(lines) > 2 and all(exercise.columns(one) <= 99 for one in lines), lines
    assert "".join(one.strip() for one in lines).count("blocks.0.ffwd.net") == 4


# ------------------------------------------------------------------ found by an adversarial pass
def test_an_output_of_the_learner_s_own_class_is_compared_by_its_values(tmp_path):
    """A v7 BertLayer returning a tuple of its own class (as HF's output classes are)."""
    text = TARGETS["v7_bert_layer"]
    old = "        return outputs + (present_key_value,) if self.is_decoder else outputs\n"
    assert text.count(old) == 1
    text = text.replace(old, "        return Out(outputs + (present_key_value,) if "
                             "self.is_decoder else outputs)\n")
    text = text.replace("class BertLayer(", "class Out(tuple):\n    pass\n\n\nclass BertLayer(", 1)
    passed, said = run_check("v7_bert_layer", text, tmp_path)
    assert passed, said


def test_a_relu_written_as_f_relu_is_never_blamed_for_another_mistake(tmp_path):
    """F.relu in place of nn.ReLU is right: with a mistake elsewhere, that one is named."""
    old = ("        self.net = nn.Sequential(\n            nn.Linear(n_embd, n_embd),\n"
           "            nn.ReLU(),\n        )\n")
    assert TARGETS["v5_ffn"].count(old) == 1
    text = TARGETS["v5_ffn"].replace(old, "        self.fc = nn.Linear(n_embd, n_embd)\n")
    text = text.replace("        return self.net(x)", "        return F.relu(self.fc(x))", 1)
    passed, said = run_check("v5_ffn", text.replace("logits = self.lm_head(x)",
                                                    "logits = self.lm_head(x * 2)", 1), tmp_path)
    assert not passed and "never does" not in said and "2 times the target's" in said, said


def test_a_file_that_forks_leaves_no_process_behind(tmp_path):
    import time
    from pathlib import Path

    marker = tmp_path / "child.pid"
    text = (f"import os, time\nif os.fork() == 0:\n    open({str(marker)!r}, 'w').write("
            "str(os.getpid()))\n    time.sleep(600)\n    os._exit(0)\n" + TARGETS["v5_ffn"])
    passed, said = run_check("v5_ffn", text, tmp_path)
    assert passed, said
    for _ in range(50):  # the grandchild writes its pid as it starts
        if marker.is_file() and marker.read_text():
            break
        time.sleep(0.1)
    status = Path(f"/proc/{marker.read_text()}/status")
    time.sleep(0.2)  # killed: gone, or a zombie until the system reaps it
    assert not status.exists() or "\nState:\tZ" in status.read_text(), status.read_text()


def test_gpt_2_s_names_in_gpt_2_s_order_pass(tmp_path):
    """ln_1, attn, ln_2, mlp, declared in the order they run: layers matched kind by kind."""
    text = TARGETS["v6_block"]
    old = ("        self.sa = MultiHeadAttention(n_embd, n_head, block_size, dropout)\n"
           "        self.ffwd = FeedForward(n_embd, dropout)\n"
           "        self.ln1 = nn.LayerNorm(n_embd)\n        self.ln2 = nn.LayerNorm(n_embd)\n")
    new = ("        self.ln_1 = nn.LayerNorm(n_embd)\n"
           "        self.attn = MultiHeadAttention(n_embd, n_head, block_size, dropout)\n"
           "        self.ln_2 = nn.LayerNorm(n_embd)\n"
           "        self.mlp = FeedForward(n_embd, dropout)\n")
    calls = ("x = x + self.sa(self.ln1(x))", "x = x + self.attn(self.ln_1(x))",
             "x = x + self.ffwd(self.ln2(x))", "x = x + self.mlp(self.ln_2(x))")
    assert text.count(old) == 1 and text.count(calls[0]) == 1 and text.count(calls[2]) == 1
    text = text.replace(old, new).replace(calls[0], calls[1]).replace(calls[2], calls[3])
    passed, said = run_check("v6_block", text, tmp_path)
    assert passed and "your blocks.0.ln_1 is the target's blocks.0.ln1" in said, said


def test_q_k_and_v_renamed_and_declared_in_another_order_are_matched_by_their_outputs(tmp_path):
    """Three Linears of one shape side by side: declared v, k, q under other names, they are
    paired in the order under which the outputs agree; with a mistake elsewhere, the order that
    agrees longest, so the message names the mistake and not the names."""
    text = TARGETS["v4_multihead"]
    old = ("        self.query = nn.Linear(n_embd, n_embd, bias=False)\n"
           "        self.key = nn.Linear(n_embd, n_embd, bias=False)\n"
           "        self.value = nn.Linear(n_embd, n_embd, bias=False)\n")
    new = ("        self.v_proj = nn.Linear(n_embd, n_embd, bias=False)\n"
           "        self.k_proj = nn.Linear(n_embd, n_embd, bias=False)\n"
           "        self.q_proj = nn.Linear(n_embd, n_embd, bias=False)\n")
    assert text.count(old) == 1
    text = text.replace(old, new)
    for a, b in (("query", "q_proj"), ("key", "k_proj"), ("value", "v_proj")):
        assert text.count(f"self.{a}(x)") == 1
        text = text.replace(f"self.{a}(x)", f"self.{b}(x)")
    passed, said = run_check("v4_multihead", text, tmp_path)
    assert passed and "your sa_heads.q_proj is the target's sa_heads.query" in said, said
    wrong = text.replace("wei = F.softmax(wei, dim=-1)", "wei = F.softmax(wei, dim=-2)")
    passed, said = run_check("v4_multihead", wrong, tmp_path, process=exercise.InProcess)
    assert not passed and "the softmax runs over the other axis" in " ".join(said.split()), said


def test_layers_named_otherwise_are_paired_in_the_order_they_run(tmp_path):
    """LayerNorms renamed and declared in another order than they run (the final one before the
    blocks, the FFN's before attention's): they start alike, so no output tells them apart; the
    order they run in does. (An adversarial pass found these failing when paired as declared.)"""
    text = TARGETS["v6_block"]
    edits = [("        self.ln1 = nn.LayerNorm(n_embd)\n        self.ln2 = nn.LayerNorm(n_embd)\n",
              "        self.norm_b = nn.LayerNorm(n_embd)\n"
              "        self.norm_a = nn.LayerNorm(n_embd)\n"),
             ("x = x + self.sa(self.ln1(x))", "x = x + self.sa(self.norm_a(x))"),
             ("x = x + self.ffwd(self.ln2(x))", "x = x + self.ffwd(self.norm_b(x))"),
             ("        self.ln_f = nn.LayerNorm(n_embd)  # the final LayerNorm, before the head\n",
              ""),
             ("        self.blocks = nn.Sequential(",
              "        self.norm_f = nn.LayerNorm(n_embd)\n        self.blocks = nn.Sequential("),
             ("x = self.ln_f(x)", "x = self.norm_f(x)")]
    for old, new in edits:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    passed, said = run_check("v6_block", text, tmp_path)
    joined = " ".join(said.split())
    assert passed and "your blocks.0.norm_a is the target's blocks.0.ln1" in joined, said


@pytest.mark.parametrize("argv, fragment", [
    (["nope"], "没有练习 'nope'：运行 python tools/exercise.py --lang zh 查看列表"),
    (["--check"], "需要指定练习"),
    (["v5_ffn", "--file", "x"], "--file 要和 --check 一起用"),
])
def test_bad_input_is_said_in_chinese_with_lang_zh(argv, fragment, workspace, capsys):
    assert exercise.main([*argv, "--lang", "zh"]) == 2
    err = capsys.readouterr().err
    assert fragment in err and len(err.splitlines()) == 1, err
