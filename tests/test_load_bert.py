"""tools/load_bert.py: BERT checkpoints that transformers writes here (random weights, the real
file format, no downloads) load into v8's classes and agree with transformers' BertModel after the
embeddings and after every layer; a sentence-transformers folder gets its cosine table; a bad
folder gets one line on stderr."""
import json
import re

import pytest
import torch
from torch.nn import functional as F

from conftest import load_tool, randomize
from test_bad_input import assert_one_line_error

transformers = pytest.importorskip("transformers")
from safetensors.torch import load_file  # noqa: E402 - comes with transformers

tool = load_tool("load_bert")
ATOL = 1e-5
# every size different, so that a transposed or misplaced tensor cannot load
SIZES = {"vocab_size": 50, "hidden_size": 12, "num_hidden_layers": 2, "num_attention_heads": 3,
         "intermediate_size": 37, "max_position_embeddings": 16, "type_vocab_size": 2}
WORDS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "a", "cat", "dog", "sat", "ran",
         "on", "mat", "rug", "market", "fell", "today", "."]


def checkpoint(folder, cls=transformers.BertModel):
    """save_pretrained of a small BERT whose every weight, LayerNorms and biases too, is random."""
    torch.manual_seed(0)
    model = randomize(cls(transformers.BertConfig(**SIZES)))
    model.save_pretrained(folder)
    assert (folder / "model.safetensors").is_file() and (folder / "config.json").is_file()
    return folder


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


def theirs(folder):
    return transformers.BertModel.from_pretrained(folder, attn_implementation="eager").eval()


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
@pytest.mark.parametrize("cls,unused", [
    (transformers.BertModel, "pooler.* (2 tensors)"),
    (transformers.BertForMaskedLM, "cls.* (5 tensors)")])
def test_loaded_weights_are_the_files_and_every_layer_agrees(cls, unused, tmp_path):
    folder = checkpoint(tmp_path, cls)
    model, config, set_aside = tool.load(folder)
    prefix = "bert." if cls is transformers.BertForMaskedLM else ""
    tensors = load_file(folder / "model.safetensors")
    assert len(model.state_dict()) + len(set_aside) == len(tensors)
    for key, value in model.state_dict().items():
        assert torch.equal(value, tensors[prefix + key]), key
    assert all(key.startswith(("pooler.", "cls.")) for key in set_aside)
    assert config["intermediate_size"] == 37 and len(model.encoder.layer) == 2

    mask = tool.make_inputs(folder, config)[1]
    assert 0 < mask.sum() < mask.numel(), "a batch with padding"
    result = tool.compare(folder)
    assert list(result["layers"]) == ["embeddings", "layer 0", "layer 1"]
    assert result["max"] <= ATOL, result["layers"]
    assert result["unused"] == unused and result["cosine"] is None


@torch.no_grad()
def test_token_types_reach_the_embeddings(tmp_path):
    folder = checkpoint(tmp_path)
    ours, hf = tool.load(folder)[0], theirs(folder)
    ids = torch.randint(SIZES["vocab_size"], (2, 9))
    types = torch.tensor([[0] * 4 + [1] * 5, [0] * 6 + [1] * 3])
    got = ours.embeddings(ids, types)
    assert (got - hf.embeddings(input_ids=ids, token_type_ids=types)).abs().max() <= ATOL
    assert (got - ours.embeddings(ids)).abs().max() > 1e-2  # type 1 changes something
    expected = hf(input_ids=ids, token_type_ids=types).last_hidden_state
    assert (ours(ids, token_type_ids=types)[-1] - expected).abs().max() <= ATOL


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
    batch = transformers.AutoTokenizer.from_pretrained(folder)(texts, padding=True,
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
    assert "not used: pooler.* (2 tensors)" in out and "random ids" in out
    assert lines[-1].startswith("summary: max |ours - transformers'| = ") and "within" in lines[-1]


def unlink(name):
    return lambda folder: (folder / name).unlink()


def write_config(text):
    return lambda folder: (folder / "config.json").write_text(text)


@pytest.mark.parametrize("damage,argv,fragments", [
    (lambda folder: None, ["missing"], ["no folder", "missing"]),
    (unlink("model.safetensors"), [], ["no model.safetensors in"]),
    (unlink("config.json"), [], ["no config.json in"]),
    (lambda folder: edit_config(folder, model_type="roberta"), [], ["model_type 'roberta'"]),
    (lambda folder: edit_config(folder, intermediate_size=40), [],
     ["encoder.layer.0.intermediate.dense.weight", "(37, 12)", "(40, 12)", "fix config.json"]),
    (lambda folder: edit_config(folder, num_hidden_layers=3), [],
     ["no encoder.layer.2.attention.self.query.weight"]),
    (write_config('{"model_type": "bert",'), [], ["is not valid JSON"]),
    (lambda folder: None, ["--text", "hello"], ["--text needs a tokenizer"]),
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


@pytest.mark.parametrize("atol", ["-1e-3", "-inf", "nan"])
def test_a_negative_atol_gets_its_own_error_not_a_missing_value(atol, run_tool, tmp_path):
    result = run_tool(tmp_path, "--atol", atol)
    assert result[0] == 2
    assert_one_line_error(result, "--atol must be 0 or more",
                          "see python tools/load_bert.py --help")


def test_folder_or_package_not_both(run_tool, tmp_path):
    for argv in ([], [tmp_path, "--package", "x"]):
        assert_one_line_error(run_tool(*argv), "pass a FOLDER or --package NAME")
    assert_one_line_error(run_tool("--package", "no_such_package_here"),
                          "no installed package 'no_such_package_here'")
