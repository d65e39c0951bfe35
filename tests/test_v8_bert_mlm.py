"""v8_bert_mlm: attention in both directions, BERT's masking recipe, the loss on chosen positions
only, the masked-LM head against transformers' BertForMaskedLM in both directions, padding masks and
token types, --prompt with blanks and its bad input, and the reference sample."""
import argparse
import ast
import io
import re
import tokenize

import pytest
import torch
from torch.nn import functional as F

from conftest import ROOT, folder_bytes, hf, load, load_tool, oracle, randomize, tiny_args
from test_bad_input import assert_one_line_error

pytestmark = pytest.mark.oracle

v8 = load("v8_bert_mlm")
V, T, C, NH, I = 23, 9, 12, 3, 37  # vocabulary, positions, width, heads, FFN width: all different
SAMPLE = ROOT / "reference" / "tinyplays" / "samples" / "v8_bert_mlm.txt"


def small_model(**kw):
    torch.manual_seed(0)
    return v8.LanguageModel(V, block_size=T, n_embd=C, n_head=NH, n_layer=2, intermediate_size=I,
                            **kw).eval()


def randomized(model):
    """randomize(model) from a fixed seed: no default (zeros, ones) can hide a bug."""
    torch.manual_seed(1)
    return randomize(model)


def to_hf(key):
    """Our state-dict key -> BertForMaskedLM's: the model's body sits under `bert.`."""
    return key if key.startswith("cls.") else "bert." + key


def hf_model():
    config = oracle().BertConfig(vocab_size=V, hidden_size=C, num_hidden_layers=2,
                                     num_attention_heads=NH, intermediate_size=I,
                                     max_position_embeddings=T, attn_implementation="eager")
    return oracle().BertForMaskedLM(config).eval()


def test_a_later_token_changes_earlier_logits():
    """The opposite of v1-v7's causality test: every position reads every other."""
    model = randomized(small_model())
    idx = torch.randint(V, (2, T))
    base, _ = model(idx)
    for t in range(T):
        changed = idx.clone()
        changed[:, t] = (changed[:, t] + 1) % V
        logits, _ = model(changed)
        for s in range(T):
            assert not torch.allclose(logits[:, s], base[:, s]), f"{s} does not see {t}"


def test_the_head_is_tied_to_the_word_embeddings():
    model = small_model()
    head = model.cls.predictions
    assert head.decoder.weight is model.embeddings.word_embeddings.weight
    assert head.decoder.bias is head.bias
    # counted once: embeddings (V + T + 2 types) x C + 2C, layers, transform C*C + C + 2C, bias V
    layer = 4 * (C * C + C) + 2 * C + (C * I + I) + (I * C + C) + 2 * C
    expected = (V + T + 2) * C + 2 * C + 2 * layer + C * C + 3 * C + V
    assert sum(p.numel() for p in model.parameters()) == expected


def test_an_untrained_model_starts_near_uniform():
    """BERT's N(0, 0.02) init: the first loss is near ln(V), where PyTorch's N(0, 1) embeddings
    (tied to the decoder) start it far higher (12.6 at seed 1337, with v8's defaults)."""
    model = small_model()
    idx = torch.randint(1, V, (4, T))
    _, loss = model(idx, idx)
    assert abs(loss.item() - torch.log(torch.tensor(float(V))).item()) < 0.1


def test_the_loss_is_computed_on_the_chosen_positions_only():
    model = randomized(small_model())
    x = torch.randint(V, (3, T))
    y = torch.full((3, T), -100)
    y[0, 2], y[1, 5], y[2, 0] = 4, 7, 1
    logits, loss = model(x, y)
    chosen = y != -100
    torch.testing.assert_close(loss, F.cross_entropy(logits[chosen], y[chosen]))


def test_bert_masking_proportions():
    """round(0.15 * T) positions chosen in every window (at least one); of those about 80% become
    the mask token, 10% a random character, 10% stay; no other position changes."""
    data = torch.randint(1, V, (5000,))
    for block_size, k in ((20, 3), (8, 1), (32, 5), (4, 1)):
        args = argparse.Namespace(block_size=block_size, batch_size=4000, mask_prob=0.15,
                                  device="cpu")
        x, y = v8.get_batch(data, args, torch.Generator().manual_seed(0))
        chosen = y != -100
        assert (chosen.sum(1) == k).all()
        assert not (x[~chosen] == 0).any(), "only a chosen position may become the mask token"
        original = y[chosen]
        masked = (x[chosen] == 0).float().mean().item()
        kept = (x[chosen] == original).float().mean().item()
        # a random character equals the original 1 time in V - 1 here
        assert abs(masked - 0.8) < 0.02, masked
        assert abs(kept - (0.1 + 0.1 / (V - 1))) < 0.015, kept
        # the same windows drawn again, unmasked: the targets are their characters, and every
        # position not chosen is left as it was
        ix = torch.randint(len(data) - block_size, (4000,),
                           generator=torch.Generator().manual_seed(0))
        windows = data[ix[:, None] + torch.arange(block_size)]
        assert torch.equal(y[chosen], windows[chosen]) and torch.equal(x[~chosen], windows[~chosen])


def test_every_estimate_scores_the_same_masks():
    """estimate_loss seeds its generator afresh: two estimates see the same batches and masks."""
    model = small_model()
    data = torch.randint(1, V, (3000,))
    args = argparse.Namespace(block_size=T, batch_size=8, mask_prob=0.15, device="cpu",
                              eval_iters=5, seed=3)
    first = v8.estimate_loss(model, {"val": data}, args)
    assert v8.estimate_loss(model, {"val": data}, args) == first
    args.seed = 4
    assert v8.estimate_loss(model, {"val": data}, args) != first


@pytest.mark.parametrize("direction", ["ours into theirs", "theirs into ours"])
def test_state_dict_and_logits_match_bert_for_masked_lm(direction):
    ours, theirs = small_model(), hf_model()
    if direction == "ours into theirs":
        state = {to_hf(k): v for k, v in randomized(ours).state_dict().items()}
        theirs.load_state_dict(state, strict=True)
    else:
        randomized(theirs)
        theirs_state = theirs.state_dict()
        ours.load_state_dict({k: theirs_state[to_hf(k)] for k in ours.state_dict()}, strict=True)
        assert {to_hf(k) for k in ours.state_dict()} == set(theirs_state)
    # tied after loading too: one tensor for embeddings and decoder, one for the two biases
    assert ours.cls.predictions.decoder.weight is ours.embeddings.word_embeddings.weight
    idx = torch.randint(V, (3, T))
    with torch.no_grad():
        torch.testing.assert_close(ours(idx)[0], theirs(idx).logits, rtol=0, atol=1e-5)


def test_padding_and_token_types_match_bert_for_masked_lm():
    """A padded batch with two sentences a sequence: the logits at the real tokens equal
    transformers' with the same attention_mask and token_type_ids."""
    ours, theirs = randomized(small_model()), hf_model()
    theirs.load_state_dict({to_hf(k): v for k, v in ours.state_dict().items()}, strict=True)
    idx, types = torch.randint(V, (3, T)), torch.zeros(3, T, dtype=torch.long)
    mask = torch.ones(3, T, dtype=torch.long)
    mask[1, 5:], mask[2, 2:] = 0, 0
    types[:, 3:] = 1
    with torch.no_grad():
        got = ours(idx, attention_mask=mask, token_type_ids=types)[0]
        want = theirs(input_ids=idx, attention_mask=mask, token_type_ids=types).logits
    real = mask.bool()
    assert (got - want)[real].abs().max() <= 1e-5


@pytest.mark.parametrize("pad_id", [0, 7])
def test_a_padded_batch_gives_each_sequence_its_unpadded_logits(pad_id):
    """Without the mask, padding changes the real tokens' logits (every position reads every
    other); with it, each sequence's logits are those it has alone, whatever the padding holds."""
    model = randomized(small_model())
    lengths = [T, 6, 3]
    seqs = [torch.randint(V, (n,)) for n in lengths]
    batch = torch.full((len(seqs), T), pad_id)
    mask = torch.zeros(len(seqs), T, dtype=torch.long)
    for i, seq in enumerate(seqs):
        batch[i, :len(seq)], mask[i, :len(seq)] = seq, 1
    with torch.no_grad():
        padded = model(batch, attention_mask=mask)[0]
        unmasked = model(batch)[0]
        for i, seq in enumerate(seqs):
            alone = model(seq[None])[0][0]  # (n, vocab): no padding at all
            torch.testing.assert_close(padded[i, :len(seq)], alone, rtol=0, atol=1e-5)
            if len(seq) < T:
                assert (unmasked[i, :len(seq)] - alone).abs().max() > 1e-3


def test_a_default_bert_for_masked_lm_takes_v8s_state_dict():
    """v8 at its defaults has BERT's two token types: BertConfig's defaults plus v8's sizes build
    a BertForMaskedLM that loads v8's state dict strictly and gives the same logits."""
    torch.manual_seed(0)
    ours = v8.LanguageModel(73).eval()
    config = oracle().BertConfig(vocab_size=73, hidden_size=v8.n_embd,
                                     num_hidden_layers=v8.n_layer,
                                     num_attention_heads=v8.n_head,
                                     intermediate_size=v8.intermediate_size,
                                     max_position_embeddings=v8.block_size,
                                     attn_implementation="eager")
    theirs = oracle().BertForMaskedLM(config).eval()
    theirs.load_state_dict({to_hf(k): v for k, v in ours.state_dict().items()}, strict=True)
    idx = torch.randint(73, (2, v8.block_size))
    with torch.no_grad():
        assert torch.equal(ours(idx)[0], theirs(input_ids=idx).logits)


def test_token_types_match_transformers_embeddings():
    config = oracle().BertConfig(vocab_size=V, hidden_size=C, max_position_embeddings=T,
                                     type_vocab_size=2)
    theirs = randomized(hf().BertEmbeddings(config).eval())
    ours = v8.BertEmbeddings(v8.BertConfig(vocab_size=V, hidden_size=C,
                                           max_position_embeddings=T, type_vocab_size=2)).eval()
    ours.load_state_dict(theirs.state_dict(), strict=True)
    idx, types = torch.randint(V, (2, T)), torch.randint(2, (2, T))
    with torch.no_grad():
        torch.testing.assert_close(ours(idx, types), theirs(idx, types), rtol=0, atol=1e-6)
        torch.testing.assert_close(ours(idx), theirs(idx), rtol=0, atol=1e-6)


@pytest.fixture(scope="module")
def trained(tiny_corpus, tmp_path_factory):
    """A tiny v8 run on the tiny corpus, and its run folder."""
    out = tmp_path_factory.mktemp("v8run")
    assert v8.main([str(a) for a in tiny_args(tiny_corpus, out, "--sample-chars", 64)]) == 0
    return tiny_corpus, out


def test_the_sample_shows_a_val_passage_original_masked_and_filled(trained, capsys):
    corpus, out = trained
    sample = (out / "sample.txt").read_text(encoding="utf-8")
    original, masked, filled = check_sample(sample)
    chars, splits = v8.read_data(corpus)
    assert original == v8.decode(splits["val"][:64].tolist(), chars)  # 2 windows of 32


def check_sample(sample):
    """(original, masked, filled) of a v8 sample, after checking that they agree."""
    head, _, rest = sample.partition("original:\n")
    original, _, rest = rest.partition("\n\nmasked:\n")
    masked, _, rest = rest.partition("\n\nfilled (")
    count, _, filled = rest.partition("):\n")
    assert head == "" and len(original) == len(masked) == len(filled) > 0
    blanks = [i for i, ch in enumerate(masked) if ch == "_"]
    assert blanks and "_" not in original and "_" not in filled
    assert all(m == o for m, o in zip(masked, original) if m != "_")
    assert all(f == o for f, o, m in zip(filled, original, masked) if m != "_")
    right = sum(filled[i] == original[i] for i in blanks)
    assert count == f"{right} of {len(blanks)} blanks right"
    return original, masked, filled


def test_the_reference_sample_is_a_val_passage_filled():
    original, masked, _ = check_sample(SAMPLE.read_bytes().decode("utf-8"))
    chars, splits = v8.read_data(ROOT / "data" / "tinyplays.txt")
    assert original == v8.decode(splits["val"][:len(original)].tolist(), chars)
    assert abs(masked.count("_") / len(masked) - 5 / 32) < 1e-9  # 5 in each 32-character window


def test_a_prompt_with_blanks_prints_it_filled_and_three_guesses_per_blank(trained, run):
    _, out = trained
    text = "Th_ k_ng"
    code, stdout, _ = run("v8_bert_mlm", ["--generate", "--out", out, "--prompt", text])
    assert code == 0
    lines = stdout.rstrip("\n").split("\n")
    filled, guesses = lines[0], lines[1:]
    assert len(filled) == len(text) and "_" not in filled
    assert [f for f, t in zip(filled, text) if t != "_"] == [t for t in text if t != "_"]
    assert [g.split(":")[0] for g in guesses] == ["blank at  2", "blank at  5"]
    for line, at in zip(guesses, (2, 5)):
        found = re.findall(r"""('.'|"'"|'\\\w') (\d\.\d{3})""", line)  # 'e' 0.412, "'" or '\n'
        guessed, probs = [ast.literal_eval(g) for g, _ in found], [float(p) for _, p in found]
        assert len(probs) == 3 and probs == sorted(probs, reverse=True) and sum(probs) <= 1
        assert guessed[0] == filled[at], "the top guess is the one filled in"
    assert run("v8_bert_mlm", ["--generate", "--out", out, "--prompt", text])[1] == stdout


@pytest.mark.parametrize("prompt,message", [
    ("The king", "the prompt has no blank: write each character to guess as _"),
    ("Th_ k\u00e9ng", "the prompt has characters the model never saw: '\u00e9'"),
    ("A_" * 20, "the prompt has 40 characters, more than the 32 the model sees at once"),
])
def test_a_bad_prompt_is_refused(trained, run, prompt, message):
    _, out = trained
    assert_one_line_error(run("v8_bert_mlm", ["--generate", "--out", out, "--prompt", prompt]),
                          message)


def test_a_text_with_the_blank_character_is_refused(run, tmp_path):
    corpus = tmp_path / "snake_case.txt"
    corpus.write_text("some_name = other_name\n" * 200, encoding="utf-8")
    assert_one_line_error(run("v8_bert_mlm", tiny_args(corpus, tmp_path / "out")),
                          "contains '_', the character v8 keeps for its blanks")
    assert not (tmp_path / "out" / "metrics.csv").exists()


@pytest.mark.parametrize("flags,message", [
    (["--mask-prob", 1.5], "argument --mask-prob: 1.5 is not from 0.01 to 1.0"),
    (["--mask-prob", 0], "argument --mask-prob: 0.0 is not from 0.01 to 1.0"),
    (["--prompt", "The king"], "the prompt has no blank"),
    (["--prompt", "A_" * 20], "the prompt has 40 characters"),
])
def test_bad_flags_are_refused_before_training_and_leave_the_old_run(flags, message, trained, run,
                                                                      tmp_path, monkeypatch):
    corpus, old = trained
    before = folder_bytes(old)
    monkeypatch.setattr(v8, "train", lambda *args: pytest.fail("it trained first"))
    assert_one_line_error(run("v8_bert_mlm", tiny_args(corpus, old, *flags)), message)
    assert folder_bytes(old) == before
    assert_one_line_error(run("v8_bert_mlm", tiny_args(corpus, tmp_path / "new", *flags)), message)
    assert not (tmp_path / "new").exists()


@pytest.mark.parametrize("sample_chars,windows", [(0, 1), (5, 1), (64, 2), (10**5, 62)])
def test_the_val_passage_is_whole_windows_however_long_the_text(trained, run, sample_chars,
                                                                 windows):
    """At least one window, at most what the val text holds: 2,000 characters, 62 windows."""
    corpus, out = trained
    code, stdout, _ = run("v8_bert_mlm", ["--generate", "--out", out, "--data", corpus,
                                          "--sample-chars", sample_chars])
    assert code == 0
    original, masked, filled = check_sample(stdout.rstrip("\n"))
    assert len(original) == windows * 32


def test_the_val_passage_needs_the_text_the_model_learned(trained, run, tmp_path):
    _, out = trained
    missing = ["--generate", "--out", out, "--data", tmp_path / "missing.txt"]
    assert_one_line_error(run("v8_bert_mlm", missing), "missing.txt", "No such file")
    other = tmp_path / "other.txt"
    other.write_text("a different text, with other characters: XYZ 123\n" * 50, encoding="utf-8")
    wrong = ["--generate", "--out", out, "--data", other]
    assert_one_line_error(run("v8_bert_mlm", wrong), "not the text the model learned")


def test_fill_accuracy_compares_v7_and_v8_runs_of_one_text(trained, tmp_path, capsys):
    corpus, v8_out = trained
    assert load("v7_bert_layer").main([str(a) for a in tiny_args(corpus, tmp_path / "v7")]) == 0
    tool = load_tool("fill_accuracy")
    capsys.readouterr()
    argv = ["--v7", str(tmp_path / "v7"), "--v8", str(v8_out), "--data", str(corpus)]
    assert tool.main(argv) == 0
    out = capsys.readouterr().out
    rows = re.findall(r"^(v[78], \w+ sides?)\s+([\d.]+)%\s+([\d.]+)$", out, re.M)
    assert [r[0] for r in rows] == ["v7, left side", "v8, both sides", "v8, left side"]
    assert all(0 <= float(r[1]) <= 100 and float(r[2]) > 0 for r in rows)
    shares = re.search(r"masked-LM accuracy on its val_loss batches: ([\d.]+)% of the chosen "
                       r"positions; shown the mask token ([\d.]+)%, another character "
                       r"([\d.]+|nan)%, the character itself ([\d.]+|nan)%; in the window's first "
                       r"column ([\d.]+|nan)%, its last ([\d.]+|nan)%, its middle half "
                       r"([\d.]+|nan)%$", out, re.M)
    assert shares, out
    assert all(s == "nan" or 0 <= float(s) <= 100 for s in shares.groups())
    # a v8 run given as v7's is refused by v7's own loader, in one line
    code = tool.main(["--v7", str(v8_out), "--v8", str(v8_out), "--data", str(corpus)])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "not v7_bert_layer" in err


def lesson_definitions(version):
    """{name: source} of each top-level function, class and assignment of a lesson (the part of
    train.py above the plumbing's fence)."""
    from test_skeleton import split

    lesson = "\n".join(split(version)[0])
    found = {}
    for node in ast.parse(lesson).body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            found[node.name] = ast.get_source_segment(lesson, node)
        elif isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            found[node.targets[0].id] = ast.get_source_segment(lesson, node)
    return found


# what v8 changes of v7's lesson; everything else it shares must stay v7's to the character
CHANGED_FROM_V7 = {"block_size", "read_data", "get_batch", "BertConfig", "BertEmbeddings",
                   "LanguageModel", "sample"}
# what v8 only takes out of v7's: the parts a decoder needs (steps 06 and 07 of v8)
REMOVED_FROM_V7 = {"BertSelfAttention": "cross-attention, the key/value cache",
                   "BertAttention": "the same, passed on",
                   "BertLayer": "cross-attention, the cache"}


def code_tokens(source):
    """source's tokens, without its layout, comments and docstrings."""
    skip = {tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.COMMENT}
    tokens = [t for t in tokenize.generate_tokens(io.StringIO(source).readline)
              if t.type not in skip]
    return [t.string for i, t in enumerate(tokens)  # a docstring: a string right after a ':'
            if not (t.type == tokenize.STRING and i and tokens[i - 1].string == ":")]


def is_taken_from(short, long):
    """Whether short is long with some items taken out, the rest in order."""
    rest = iter(long)
    return all(item in rest for item in short)


def test_what_v8_does_not_change_is_v7s_to_the_character():
    """As transformers' `# Copied from` check (utils/check_copies.py) holds a copy to its
    original: each definition v8 shares with v7, BertLayer and its parts among them, is v7's
    source exactly, unless v8 declares it changed (and then it must differ), or declares that it
    only takes the decoder's parts out (and then its code is v7's with tokens removed, none added
    or moved; comments and docstrings may say less)."""
    v7, v8_defs = lesson_definitions("v7_bert_layer"), lesson_definitions("v8_bert_mlm")
    shared = set(v7) & set(v8_defs)
    assert {"BertLayer", "BertSelfAttention", "BertOutput", "apply_chunking_to_forward"} <= shared
    for name in sorted(shared):
        if name in CHANGED_FROM_V7:
            assert v8_defs[name] != v7[name], f"{name} is v7's again: take it off the list"
        elif name in REMOVED_FROM_V7:
            ours, theirs = code_tokens(v8_defs[name]), code_tokens(v7[name])
            assert len(ours) < len(theirs), f"{name} is v7's again: take it off the list"
            assert is_taken_from(ours, theirs), f"v8's {name} adds to v7's, not only removes"
        else:
            assert v8_defs[name] == v7[name], f"v8's {name} differs from v7's"


def test_the_removal_check_catches_an_addition():
    v7 = lesson_definitions("v7_bert_layer")["BertLayer"]
    assert is_taken_from(code_tokens(v7.replace("outputs = (layer_output,) + outputs", "")),
                         code_tokens(v7))
    assert not is_taken_from(code_tokens(v7.replace("(layer_output,) + outputs",
                                                    "outputs + (layer_output,)")),
                             code_tokens(v7))
