"""v8_bert_mlm: BERT's own objective: attention both ways, trained to fill in hidden characters.

Train:     python v8_bert_mlm/train.py                   (defaults below; CPU: about 3 minutes)
Fill in:   python v8_bert_mlm/train.py --generate --prompt "MARGERY: I pr_y you, s_r."
Compare:   diff -u v7_bert_layer/train.py v8_bert_mlm/train.py  (step by step: tools/steps.py)
v7 predicts each next character from the left side; v8 hides some characters and sees both sides.
"""
from dataclasses import dataclass

import torch
import torch.nn as nn
from torch.nn import functional as F

# hyperparameters: the lecture's values. Each is a flag too: --batch-size sets args.batch_size
batch_size = 32  # B: independent sequences per training step
block_size = 32  # T: characters of context the model sees (v7: 8; see the doc for why 32)
max_iters = 5000  # training steps
eval_interval = 500  # steps between two loss estimates
eval_iters = 200  # batches averaged per loss estimate
lr = 1e-3  # AdamW learning rate
seed = 1337  # seeds the initial weights, the batches and the sampling
sample_chars = 500  # characters sample() writes when the training ends, or with --generate
n_embd = 32  # C: width of every token vector
n_head = 4  # nh: attention heads, each hs = C // nh wide
n_layer = 3  # layers stacked on top of each other
dropout = 0.0  # dropout probability (0: off, as in the lecture at this size)
hidden_act = "gelu"  # the FFN's activation: gelu (exact), gelu_new (tanh form), relu, silu, tanh
intermediate_size = 128  # width of the FFN's hidden layer (BERT: 4 * C)
chunk_size_ff = 0  # run the FFN on this many positions at a time (0: all at once)
mask_prob = 0.15  # BERT: the share of each window's positions chosen, to hide and to score
MODEL_ARGS = ["block_size", "n_embd", "n_head", "n_layer", "dropout", "hidden_act",
              "intermediate_size", "chunk_size_ff"]  # the hyperparameters LanguageModel takes

# ------------------------------------------------------------------ data
def read_data(path):
    """The vocabulary, and the text as integers: the first 90% to train on, the rest to validate."""
    text = path.read_text(encoding="utf-8")  # the whole corpus as one string
    if "_" in text:  # "_" shows the mask token, so it must mean nothing else
        raise ValueError(f"{path} contains '_', the character v8 keeps for its blanks")
    chars = "_" + "".join(sorted(set(text)))  # id 0, "_", is the mask token; then the text's own
    data = torch.tensor(encode(text, chars), dtype=torch.long)  # (N,)
    n = int(0.9 * len(data))
    return chars, {"train": data[:n], "val": data[n:]}

def encode(s, chars):
    stoi = {ch: i for i, ch in enumerate(chars)}
    return [stoi[ch] for ch in s]  # string -> list of integers

def decode(ids, chars):
    return "".join(chars[i] for i in ids)  # list of integers -> string

def choose_positions(shape, args, generator):
    """(B, T) True at round(mask_prob * T) random positions of each window, at least one (BERT's
    data script rounds the same way; 8 characters give 1, 32 give 5)."""
    k = max(1, round(args.mask_prob * shape[1]))
    picks = torch.rand(shape, generator=generator).topk(k, dim=1).indices  # (B, k)
    return torch.zeros(shape, dtype=torch.bool).scatter_(1, picks, True)  # (B, T)

def get_batch(data, args, generator):
    """B random windows, masked as BERT does: inputs x, and targets y, the hidden characters."""
    ix = torch.randint(len(data) - args.block_size, (args.batch_size,), generator=generator)  # (B,)
    offsets = torch.arange(args.block_size)  # (T,)
    x = data[ix[:, None] + offsets]  # (B, T)
    chosen = choose_positions(x.shape, args, generator)  # (B, T)
    y = torch.where(chosen, x, -100)  # (B, T): the loss sees chosen positions only (-100: skip)
    # of the chosen: 80% become the mask token (id 0), 10% a random character and 10% stay. The
    # mask token never occurs when the model is used, and it cannot tell which characters are
    # tested. The random one is drawn from the text, so by its frequency (BERT: uniform over its
    # vocabulary); a fresh draw every batch, as RoBERTa's dynamic masking
    roll = torch.rand(x.shape, generator=generator)  # (B, T)
    noise = data[torch.randint(len(data), x.shape, generator=generator)]  # (B, T)
    x = torch.where(chosen & (roll < 0.8), 0, x)
    x = torch.where(chosen & (roll >= 0.9), noise, x)
    return x.to(args.device), y.to(args.device)

# ------------------------------------------------------------------ model
# HuggingFace's class and attribute names throughout, and the tuple interface of transformers 4.x,
# so that a state dict moves between these classes and theirs.
@dataclass
class BertConfig:
    """HF's field names with BERT-base defaults; LanguageModel fills one in from the flags."""

    vocab_size: int = 30522
    hidden_size: int = 768  # C
    num_hidden_layers: int = 12
    num_attention_heads: int = 12  # nh
    intermediate_size: int = 3072  # the FFN's hidden width, 4 * C
    hidden_act: str = "gelu"  # a name in ACT2FN, or any callable
    hidden_dropout_prob: float = 0.1
    attention_probs_dropout_prob: float = 0.1
    max_position_embeddings: int = 512
    type_vocab_size: int = 2  # token types: sentence A and sentence B
    layer_norm_eps: float = 1e-12
    initializer_range: float = 0.02  # the std of BERT's initial weights
    chunk_size_feed_forward: int = 0  # 0: the FFN sees every position at once

# HF's names: "gelu" is exact, x * Phi(x) with Phi the normal CDF; "gelu_new" is GPT-2's tanh form
ACT2FN = {"gelu": nn.GELU(), "gelu_new": nn.GELU(approximate="tanh"), "relu": nn.ReLU(),
          "silu": nn.SiLU(), "tanh": nn.Tanh()}

def apply_chunking_to_forward(forward_fn, chunk_size, chunk_dim, *input_tensors):
    """forward_fn on chunk_size slices along chunk_dim, joined: the same result, and less memory
    when no gradients are kept (in training, autograd keeps every chunk's intermediates)."""
    if chunk_size > 0:
        size = input_tensors[0].shape[chunk_dim]
        if size % chunk_size:
            raise ValueError(f"The dimension to be chunked {size} has to be a multiple of the "
                             f"chunk size {chunk_size}")
        out = None
        for start in range(0, size, chunk_size):
            y = forward_fn(*(t.narrow(chunk_dim, start, chunk_size) for t in input_tensors))
            if out is None:  # one output tensor, each chunk written into its slice (HF: torch.cat)
                out = y.new_empty(y.shape[:chunk_dim] + (size,) + y.shape[chunk_dim + 1:])
            out.narrow(chunk_dim, start, chunk_size).copy_(y)
        return out
    return forward_fn(*input_tensors)

class BertEmbeddings(nn.Module):
    """Word + position + token-type embeddings (sentence A or B; here all 0), LayerNorm, dropout."""

    def __init__(self, config):
        super().__init__()
        self.word_embeddings = nn.Embedding(config.vocab_size, config.hidden_size)
        self.position_embeddings = nn.Embedding(config.max_position_embeddings, config.hidden_size)
        self.token_type_embeddings = nn.Embedding(config.type_vocab_size, config.hidden_size)
        self.LayerNorm = nn.LayerNorm(config.hidden_size, eps=config.layer_norm_eps)
        self.dropout = nn.Dropout(config.hidden_dropout_prob)

    def forward(self, input_ids, token_type_ids=None):
        positions = torch.arange(input_ids.shape[1], device=input_ids.device)  # (T,)
        if token_type_ids is None:
            token_type_ids = torch.zeros_like(input_ids)  # (B, T): all type 0
        x = self.word_embeddings(input_ids) + self.token_type_embeddings(token_type_ids)
        x = x + self.position_embeddings(positions)  # (B, T, C): HF's order, to the last bit
        return self.dropout(self.LayerNorm(x))  # (B, T, C)

class BertSelfAttention(nn.Module):
    """nh heads of scaled dot-product attention."""

    def __init__(self, config):
        super().__init__()
        if config.hidden_size % config.num_attention_heads:
            raise ValueError(f"The hidden size ({config.hidden_size}) is not a multiple of the "
                             f"number of attention heads ({config.num_attention_heads})")
        self.num_attention_heads = config.num_attention_heads
        self.attention_head_size = config.hidden_size // config.num_attention_heads  # hs
        self.all_head_size = self.num_attention_heads * self.attention_head_size
        self.query = nn.Linear(config.hidden_size, self.all_head_size)
        self.key = nn.Linear(config.hidden_size, self.all_head_size)
        self.value = nn.Linear(config.hidden_size, self.all_head_size)
        self.dropout = nn.Dropout(config.attention_probs_dropout_prob)

    def transpose_for_scores(self, x):
        x = x.view(*x.shape[:-1], self.num_attention_heads, self.attention_head_size)
        return x.transpose(1, 2)  # (B, T, nh, hs) -> (B, nh, T, hs)

    def forward(self, hidden_states, attention_mask=None, head_mask=None,
                output_attentions=False):
        q = self.transpose_for_scores(self.query(hidden_states))  # (B, nh, T, hs)
        k = self.transpose_for_scores(self.key(hidden_states))  # (B, nh, T, hs)
        v = self.transpose_for_scores(self.value(hidden_states))  # (B, nh, T, hs)
        scores = q @ k.transpose(-1, -2) * self.attention_head_size**-0.5  # (B, nh, T, S)
        if attention_mask is not None and attention_mask.dtype == torch.bool:  # sdpa: True = seen
            attention_mask = (~attention_mask).to(scores.dtype) * torch.finfo(scores.dtype).min
        if attention_mask is not None:
            scores = scores + attention_mask  # (B, nh, T, S): 0 keeps a key, a large negative hides
        probs = self.dropout(F.softmax(scores, dim=-1))  # (B, nh, T, S)
        if head_mask is not None:
            probs = probs * head_mask  # (B, nh, T, S): a 0 silences a head
        context = (probs @ v).transpose(1, 2)  # (B, T, nh, hs)
        context = context.reshape(*context.shape[:-2], self.all_head_size)  # (B, T, C)
        outputs = (context, probs) if output_attentions else (context,)
        return outputs

class BertSelfOutput(nn.Module):
    """Project the heads' output, dropout, then post-norm: LayerNorm(x + input_tensor)."""

    def __init__(self, config):
        super().__init__()
        self.dense = nn.Linear(config.hidden_size, config.hidden_size)
        self.LayerNorm = nn.LayerNorm(config.hidden_size, eps=config.layer_norm_eps)
        self.dropout = nn.Dropout(config.hidden_dropout_prob)

    def forward(self, hidden_states, input_tensor):
        hidden_states = self.dropout(self.dense(hidden_states))  # (B, T, C)
        return self.LayerNorm(hidden_states + input_tensor)  # (B, T, C)

class BertAttention(nn.Module):
    """BertSelfAttention (`self`) then BertSelfOutput (`output`): attention, residual, LayerNorm."""

    def __init__(self, config):
        super().__init__()
        self.self = BertSelfAttention(config)
        self.output = BertSelfOutput(config)

    def forward(self, hidden_states, attention_mask=None, head_mask=None,
                output_attentions=False):
        self_outputs = self.self(hidden_states, attention_mask, head_mask,
                                 output_attentions)
        attention_output = self.output(self_outputs[0], hidden_states)  # (B, T, C)
        return (attention_output,) + self_outputs[1:]  # then the probabilities

class BertIntermediate(nn.Module):
    """The FFN's first half: C to intermediate_size, then the activation (a name, or a callable)."""

    def __init__(self, config):
        super().__init__()
        self.dense = nn.Linear(config.hidden_size, config.intermediate_size)
        if isinstance(config.hidden_act, str):
            if config.hidden_act not in ACT2FN:
                raise ValueError(f"unknown hidden_act {config.hidden_act!r}, not one of "
                                 f"{', '.join(ACT2FN)}")
            self.intermediate_act_fn = ACT2FN[config.hidden_act]
        else:
            self.intermediate_act_fn = config.hidden_act

    def forward(self, hidden_states):
        return self.intermediate_act_fn(self.dense(hidden_states))  # (B, T, intermediate_size)

class BertOutput(nn.Module):
    """The FFN's second half: back to C, dropout, then post-norm: LayerNorm(x + input_tensor)."""

    def __init__(self, config):
        super().__init__()
        self.dense = nn.Linear(config.intermediate_size, config.hidden_size)
        self.LayerNorm = nn.LayerNorm(config.hidden_size, eps=config.layer_norm_eps)
        self.dropout = nn.Dropout(config.hidden_dropout_prob)

    def forward(self, hidden_states, input_tensor):
        hidden_states = self.dropout(self.dense(hidden_states))  # (B, T, C)
        return self.LayerNorm(hidden_states + input_tensor)  # (B, T, C)

class BertLayer(nn.Module):
    """Self-attention, then the FFN, maybe in chunks."""

    def __init__(self, config):
        super().__init__()
        self.chunk_size_feed_forward = config.chunk_size_feed_forward
        self.seq_len_dim = 1  # chunks are cut along T
        self.attention = BertAttention(config)
        self.intermediate = BertIntermediate(config)
        self.output = BertOutput(config)

    def forward(self, hidden_states, attention_mask=None, head_mask=None,
                output_attentions=False):
        self_attention_outputs = self.attention(hidden_states, attention_mask, head_mask,
                                                output_attentions=output_attentions)
        attention_output = self_attention_outputs[0]  # (B, T, C)
        outputs = self_attention_outputs[1:]
        layer_output = apply_chunking_to_forward(self.feed_forward_chunk,  # (B, T, C)
                                                 self.chunk_size_feed_forward, self.seq_len_dim,
                                                 attention_output)
        outputs = (layer_output,) + outputs
        return outputs

    def feed_forward_chunk(self, attention_output):
        intermediate_output = self.intermediate(attention_output)  # (B, T, intermediate_size)
        return self.output(intermediate_output, attention_output)  # (B, T, C)

class BertPredictionHeadTransform(nn.Module):
    """The masked-LM head's first step: dense, the activation, LayerNorm."""

    def __init__(self, config):
        super().__init__()
        self.dense = nn.Linear(config.hidden_size, config.hidden_size)
        act = config.hidden_act
        self.transform_act_fn = ACT2FN[act] if isinstance(act, str) else act
        self.LayerNorm = nn.LayerNorm(config.hidden_size, eps=config.layer_norm_eps)

    def forward(self, hidden_states):
        hidden_states = self.transform_act_fn(self.dense(hidden_states))  # (B, T, C)
        return self.LayerNorm(hidden_states)  # (B, T, C)

class BertLMPredictionHead(nn.Module):
    """transform, then decoder: scores for every token, with the word embeddings as its weight (the
    model ties them) and a bias of its own."""

    def __init__(self, config):
        super().__init__()
        self.transform = BertPredictionHeadTransform(config)
        self.decoder = nn.Linear(config.hidden_size, config.vocab_size, bias=False)
        self.bias = nn.Parameter(torch.zeros(config.vocab_size))
        self.decoder.bias = self.bias  # one tensor, two names, as in HF: both keys are saved

    def forward(self, hidden_states):
        return self.decoder(self.transform(hidden_states))  # (B, T, vocab_size)

class BertOnlyMLMHead(nn.Module):
    """BERT's pretraining head without next-sentence prediction: `predictions` only."""

    def __init__(self, config):
        super().__init__()
        self.predictions = BertLMPredictionHead(config)

    def forward(self, sequence_output):
        return self.predictions(sequence_output)  # (B, T, vocab_size)

class LanguageModel(nn.Module):
    """BERT for masked-LM: embeddings, BertLayers that see both ways, the masked-LM head. Its state
    dict is BertForMaskedLM's with `bert.` taken off the embeddings' and encoder's keys."""

    def __init__(self, vocab_size, block_size=block_size, n_embd=n_embd, n_head=n_head,
                 n_layer=n_layer, dropout=dropout, hidden_act=hidden_act,
                 intermediate_size=intermediate_size, chunk_size_ff=chunk_size_ff, **config):
        """config: BertConfig's other fields, kept at BERT's values unless a checkpoint's
        config.json says otherwise (type_vocab_size, layer_norm_eps, ...)."""
        super().__init__()
        if n_embd % n_head:
            raise ValueError(f"n_embd ({n_embd}) must be a multiple of n_head ({n_head})")
        if chunk_size_ff and block_size % chunk_size_ff:
            raise ValueError(f"chunk_size_ff ({chunk_size_ff}) must be 0 or divide block_size "
                             f"({block_size}), as the FFN cuts T into equal chunks")
        self.block_size = block_size
        self.config = BertConfig(
            vocab_size=vocab_size, hidden_size=n_embd, num_hidden_layers=n_layer,
            num_attention_heads=n_head, intermediate_size=intermediate_size, hidden_act=hidden_act,
            hidden_dropout_prob=dropout, attention_probs_dropout_prob=dropout,
            max_position_embeddings=block_size, chunk_size_feed_forward=chunk_size_ff, **config)
        self.embeddings = BertEmbeddings(self.config)
        # encoder.layer.N, as in HF's BertModel: their weights load into ours, and ours into theirs
        layers = [BertLayer(self.config) for _ in range(n_layer)]
        self.encoder = nn.ModuleDict({"layer": nn.ModuleList(layers)})
        self.cls = BertOnlyMLMHead(self.config)  # cls.predictions, as in BertForMaskedLM
        # tied (Press and Wolf, 2017): one (V, C) matrix both reads characters in and scores them
        self.cls.predictions.decoder.weight = self.embeddings.word_embeddings.weight
        self.apply(self._init_weights)

    def _init_weights(self, module):
        """BERT's initial weights, as HF's _init_weights: N(0, 0.02), biases 0 (LayerNorms start at
        1 and 0 anyway), where PyTorch starts embeddings at N(0, 1)."""
        if isinstance(module, (nn.Linear, nn.Embedding)):
            module.weight.data.normal_(mean=0.0, std=self.config.initializer_range)
        if isinstance(module, nn.Linear) and module.bias is not None:
            module.bias.data.zero_()

    def forward(self, idx, targets=None, attention_mask=None, token_type_ids=None):
        """Logits at every position, and the loss at those with a target (the others hold -100).
        attention_mask (B, T): 1 for a token, 0 for padding; token_type_ids (B, T): 0 or 1."""
        B, T = idx.shape
        if T > self.block_size:
            raise ValueError(f"{T} positions are more than block_size ({self.block_size}), the "
                             "number of position embeddings")
        x = self.embeddings(idx, token_type_ids)  # (B, T, C)
        mask = None  # without one, every position sees every position
        if attention_mask is not None:  # HF's additive mask: 0 keeps a key, the minimum hides it
            hide = 1.0 - attention_mask[:, None, None, :].to(x.dtype)  # (B, 1, 1, T)
            mask = hide * torch.finfo(x.dtype).min  # every query skips the padding's keys
        for layer in self.encoder.layer:
            x = layer(x, mask)[0]  # (B, T, C)
        logits = self.cls(x)  # (B, T, vocab_size)
        if targets is None:
            return logits, None
        loss = F.cross_entropy(logits.view(B * T, -1), targets.view(B * T))  # -100s are skipped
        return logits, loss

# ------------------------------------------------------------------ training
@torch.no_grad()
def estimate_loss(model, splits, args):
    """The mean loss over eval_iters batches of each split: far less noisy than one batch's."""
    generator = torch.Generator().manual_seed(args.seed + 1)  # the same batches at every estimate
    model.eval()
    out = {}
    for name, data in splits.items():
        losses = torch.zeros(args.eval_iters)
        for k in range(args.eval_iters):
            x, y = get_batch(data, args, generator)
            _, loss = model(x, y)
            losses[k] = loss.item()
        out[name] = losses.mean().item()
    model.train()
    return out

def train(model, splits, args, log):
    """AdamW on random batches; a loss estimate every eval_interval steps and after the last."""
    print(f"{sum(p.numel() for p in model.parameters()):,} parameters")
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
    generator = torch.Generator().manual_seed(args.seed)  # the batches: the same in every version
    for step in range(args.max_iters + 1):
        if step % args.eval_interval == 0 or step == args.max_iters:
            losses = estimate_loss(model, splits, args)
            print(f"step {step}: train {losses['train']:.4f}, val {losses['val']:.4f}", flush=True)
            log.evaluation(step, losses)  # keeps them for metrics.csv
        if step == args.max_iters:
            break
        x, y = get_batch(splits["train"], args, generator)  # (B, T), (B, T)
        _, loss = model(x, y)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        log.step(step, loss)  # stops the run if the loss is not a number

# ------------------------------------------------------------------ generation
# a masked-LM does not write left to right: it fills in blanks, all at once
def fill_in(model, ids):
    """ids (B, T) with the mask token (0) at the blanks: the most likely character at each blank,
    and the three most likely there with their probabilities."""
    logits, _ = model(ids)  # (B, T, vocab_size)
    probs = F.softmax(logits[..., 1:], dim=-1)  # (B, T, vocab_size - 1): never the mask token
    top_p, top_i = probs.topk(min(3, probs.shape[-1]), dim=-1)  # (B, T, 3) each
    filled = torch.where(ids == 0, top_i[..., 0] + 1, ids)  # (B, T)
    return filled, top_p, top_i + 1

@torch.no_grad()
def sample(model, chars, args):
    """Text to fill in, each blank written _ (default: a val passage, blanked as in training)."""
    model.eval()
    if args.prompt:  # its blanks filled in, and the top 3 guesses at each
        if "_" not in args.prompt:
            raise ValueError("the prompt has no blank: write each character to guess as _")
        if len(args.prompt) > model.block_size:
            raise ValueError(f"the prompt has {len(args.prompt)} characters, more than the "
                             f"{model.block_size} the model sees at once")
        ids = torch.tensor([encode(args.prompt, chars)], device=args.device)  # (1, T)
        filled, top_p, top_i = fill_in(model, ids)
        lines = [decode(filled[0].tolist(), chars)]
        for t in (ids[0] == 0).nonzero()[:, 0].tolist():
            guesses = (f"{chars[i]!r} {p:.3f}" for i, p in zip(top_i[0, t], top_p[0, t].tolist()))
            lines.append(f"blank at {t:2d}: " + "  ".join(guesses))
        return "\n".join(lines)
    try:  # the val text: the one the model learned
        text_chars, splits = read_data(args.data)
    except (OSError, ValueError) as e:  # unreadable, not UTF-8, or with a _ in it
        raise ValueError(f"cannot read --data {args.data} ({e}): pass the text the model learned")
    if text_chars != chars:
        raise ValueError(f"--data {args.data} is not the text the model learned: pass that one")
    T = model.block_size
    n = min(max(1, args.sample_chars // T), len(splits["val"]) // T)  # windows, each on its own
    text = splits["val"][:n * T].view(n, T).to(args.device)  # (n, T)
    chosen = choose_positions(text.shape, args, torch.Generator().manual_seed(args.seed))
    masked = text.masked_fill(chosen.to(args.device), 0)  # every chosen character hidden
    filled = fill_in(model, masked)[0]  # (n, T)
    right = (filled == text)[chosen.to(args.device)].sum().item()
    shown = [decode(ids.flatten().tolist(), chars) for ids in (text, masked, filled)]
    return (f"original:\n{shown[0]}\n\nmasked:\n{shown[1]}\n\n"
            f"filled ({right} of {chosen.sum().item()} blanks right):\n{shown[2]}")

# ========================== plumbing below: the same in every version; you may stop reading here
import argparse, fcntl, hashlib, io, os, pathlib, signal, sys, time, warnings  # noqa
from tqdm import tqdm
HYPERPARAMETERS = [k for k, v in globals().items() if type(v) in (int, float, str) and k[0] != "_"]
VERSION = pathlib.Path(__file__).resolve().parent.name  # v1_bigram, or a step's name
# each number flag's range; any other int's is 1 to 10**6 (seed + 1 is used too; a model of
# 1,000 layers takes seconds to build, and of 10**6 hours)
RANGES = {"lr": (1e-6, 10.0), "seed": (0, 2**63 - 2), "dropout": (0.0, 0.9), "n_layer": (1, 1000),
          "mask_prob": (0.01, 1.0), "chunk_size_ff": (0, 10**6), "sample_chars": (0, 10**5)}
RUN_FILES = ["ckpt.pt", "metrics.csv", "sample.txt"]  # a run's folder: these three, no more
# Ctrl-C; kill, timeout and job schedulers; a closed terminal or a dropped ssh
STOP_SIGNALS = [signal.SIGINT, signal.SIGTERM, signal.SIGHUP]
class ArgumentParser(argparse.ArgumentParser):
    def error(self, message):  # one line, not argparse's usage block
        sys.exit(f"error: {one_line(message)}: see --help")
def parse_args(argv=None):  # a flag for each hyperparameter, then the run's own
    parser = ArgumentParser(allow_abbrev=False, description="--batch-size sets batch_size, etc.")
    for name in HYPERPARAMETERS:
        default = globals()[name]
        parser.add_argument(flag(name), type=type(default), default=default)
    devices = [d for d in ("cuda", "mps") if getattr(torch, d).is_available()]
    devices.append("cpu")  # auto takes the first: CUDA, then Apple's GPU, then the CPU
    parser.add_argument("--device", default="auto", choices=["auto", *devices])
    parser.add_argument("--data", type=pathlib.Path, default=pathlib.Path("data/tinyplays.txt"))
    parser.add_argument("--out", type=pathlib.Path, default=pathlib.Path("runs", VERSION))
    parser.add_argument("--generate", action="store_true", help="sample from the run in --out")
    parser.add_argument("--prompt", default="", help="the text to start from: see sample()")
    args = parser.parse_args(argv)
    for name in HYPERPARAMETERS:
        value = getattr(args, name)
        low, high = RANGES.get(name, (1, 10**6))
        if type(value) is not str and not low <= value <= high:  # nan is refused too
            parser.error(f"argument {flag(name)}: {value} is not from {low} to {high}")
    if args.device == "auto":
        args.device = devices[0]
    return args
def flag(name):
    return "--" + name.replace("_", "-")
def one_line(text):  # a newline or another control character (in a path, say) escaped
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in str(text))
def say(line):  # on stderr, if it is still there: a closed terminal must not stop a save
    try:
        print(line, file=sys.stderr, flush=True)
    except (OSError, ValueError):  # gone with the terminal, or closed
        pass
def load_data(args):  # the text's characters, its splits, and its sha256 for the checkpoint
    data = one_line(args.data)
    try:
        if not args.data.is_file() or args.data.stat().st_size > 2**27:  # a FIFO: no end
            sys.exit(f"error: --data {data} is not a file of 128 MiB at most: pass a text")
        data_sha256 = hashlib.sha256(args.data.read_bytes()).hexdigest()
        chars, splits = read_data(args.data)
    except (OSError, UnicodeError) as e:
        sys.exit(f"error: cannot read --data {data} ({one_line(e)}): pass a UTF-8 text")
    if min(len(split) for split in splits.values()) <= args.block_size:
        sys.exit(f"error: --data {data} is too short: pass a longer text or a lower --block-size")
    return chars, splits, data_sha256
# A new model is built first on the meta device (shapes, no memory): the lesson's own checks run,
# and the memory that training needs is counted, before any weight exists.
def build_model(args, vocab_size):
    sizes = {name: getattr(args, name) for name in MODEL_ARGS}
    with torch.device("meta"):
        model = LanguageModel(vocab_size, **sizes)
        x = torch.zeros(args.batch_size, args.block_size, dtype=torch.long)  # (B, T)
        kept = []  # each tensor the forward keeps for backward, which makes a gradient of each
        with torch.autograd.graph.saved_tensors_hooks(kept.append, lambda nothing: nothing):
            model(x, x)
    # the weights, their gradients and AdamW's two averages; then the batch's tensors, twice
    needed = 4 * sum(p.numel() * p.element_size() for p in model.parameters())
    needed += 2 * sum(t.numel() * t.element_size() for t in kept)
    available = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")  # Apple's GPU's too
    if args.device == "cuda":
        available = torch.cuda.get_device_properties(0).total_memory
    if needed > available:
        sys.exit(f"error: these sizes need about {needed / 2**30:.1f} GiB to train, more than the "
                 f"{available / 2**30:.1f} GiB of {args.device}: lower the batch's or the model's")
    return LanguageModel(vocab_size, **sizes)
def check_prompt(model, chars, args):  # refused now: what the model never saw, or sample() won't
    unknown = "".join(sorted(set(args.prompt) - set(chars)))
    if unknown:
        sys.exit(f"error: the prompt has characters the model never saw: {unknown!r}")
    dry_run = argparse.Namespace(**vars(args))
    dry_run.sample_chars = 0
    sample(model, chars, dry_run)  # the lesson's own checks of the prompt
def prepare(args):  # the text, and a new model on the device: all checked before any work
    chars, splits, data_sha256 = load_data(args)
    model = build_model(args, len(chars)).to(args.device)
    check_prompt(model, chars, args)
    return model, chars, splits, data_sha256
def load_checkpoint(args):  # the run in --out, each part checked: a file may be made by hand
    path = args.out / "ckpt.pt"
    made_by = VERSION
    try:
        if not path.is_file():  # missing; a FIFO would never end
            raise FileNotFoundError(path)
        with warnings.catch_warnings():  # torch's about pickle protocols: our line says more
            warnings.simplefilter("ignore")
            ckpt = torch.load(path, map_location=args.device, weights_only=True)
        made_by = ckpt["version"]
        chars = ckpt["chars"]
        if made_by != VERSION:
            raise ValueError("another version's")
        # read_data's vocabulary: each character once, sorted after the first (v8's blank)
        if chars[0] in chars[1:] or list(chars[1:]) != sorted(set(chars[1:])):
            raise ValueError("characters in an order read_data would not write")
        if not all(tensor.isfinite().all() for tensor in ckpt["state_dict"].values()):
            raise ValueError("weights that are not numbers")
        hp = vars(parse_args([f"{flag(k)}={v}" for k, v in ckpt["hyperparameters"].items()]))
        model = LanguageModel(len(chars), **{name: hp[name] for name in MODEL_ARGS})
        model.load_state_dict(ckpt["state_dict"])
    except (Exception, SystemExit) as e:  # another rung or step may have the same shapes
        why = type(e).__name__
        if made_by != VERSION:
            why = f"a run of {one_line(made_by)}"
        sys.exit(f"error: cannot load {one_line(path)} ({why}): pass --out a run of {VERSION}, "
                 "or train one")
    return model.to(args.device), chars
def is_run(folder):  # its three files and nothing else (a folder named ckpt.pt is the user's)
    names = sorted(os.listdir(folder))
    return names == RUN_FILES and all((folder / name).is_file() for name in names)
def replaceable(folder):  # what a run may replace: nothing, an empty folder, or a run's
    if not os.path.lexists(folder):
        return True
    return folder.is_dir() and (not os.listdir(folder) or is_run(folder))
# The run: what train() logs to, and --out, replaced whole by it with nothing else touched. It
# works in .NAME.partial beside --out (on its filesystem: a rename moves a folder whole), under
# the operating system's lock, which dies with the process however it ends.
class Run:
    def __init__(self, args):
        self.args = args
        self.out = pathlib.Path(os.path.realpath(args.out))  # a symlink: the folder it names
        self.partial = self.out.parent / f".{self.out.name}.partial"
        # the folders this run will make above --out (innermost first): they go while empty
        self.made = [folder for folder in self.out.parents if not os.path.lexists(folder)]
        self.lock = None  # .NAME.partial/lock, open and locked while this run holds it
        self.rows = []  # (step, train loss, val loss, seconds): metrics.csv
        self.steps = 0  # steps trained: a run stopped before its first has nothing to save
        try:
            self.check()
        except OSError as e:  # a name too long, say
            sys.exit(f"error: --out {one_line(self.out)}: {e.strerror}: pass another --out")
    def check(self):  # before any work: can this run replace --out?
        out = one_line(self.out)
        above = next((f for f in self.out.parents if os.path.lexists(f)), self.out)
        if self.out == pathlib.Path.cwd():
            sys.exit(f"error: --out {out} is the current folder: pass a folder of its own")
        if not above.is_dir() or os.path.lexists(self.out) and not self.out.is_dir():
            sys.exit(f"error: --out {out} is not a folder, or is in a file: pass a folder")
        if not replaceable(self.out):
            sys.exit(f"error: --out {out} holds files that are not a run's: pass a new folder, "
                     "an empty one or a run's")
        if is_run(above):
            sys.exit(f"error: --out {out} would be inside {one_line(above)}, a run's folder, "
                     "which holds its three files and no more: pass another")
        if os.path.ismount(self.out) or self.out.is_dir() and not os.access(self.out, os.W_OK):
            sys.exit(f"error: --out {out} is a mount point or read-only, so it cannot be moved "
                     "aside: pass a folder inside it, or another")
    def take(self):  # .NAME.partial and the folders above it made, then locked
        if os.path.islink(self.partial):  # never through a link: what it names is not ours
            sys.exit(f"error: {one_line(self.partial)} is a link: remove it, or pass another --out")
        try:
            os.makedirs(self.partial, exist_ok=True)  # one a run that died left is taken over
            lock = open(self.partial / "lock", "a")
        except OSError as e:
            sys.exit(f"error: cannot make {one_line(e.filename)} ({e.strerror}): pass another "
                     "--out")
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)  # released when this process ends
        except BlockingIOError:
            lock.close()
            sys.exit(f"error: another run is writing {one_line(self.out)}: wait until it ends, "
                     "or pass another --out")
        self.lock = lock
        for name in sorted(os.listdir(self.partial)):  # what a run that died left there
            if name == "old" and not os.path.lexists(self.out):  # it had moved --out aside
                os.replace(self.partial / name, self.out)
                say(f"note: {one_line(self.out)} is back: a run that died had moved it aside")
            elif name != "lock":
                say(f"note: {self.keep(self.partial / name)} holds what a run that died left")
        if not replaceable(self.out):  # what was put back holds files of the user's
            sys.exit(f"error: --out {one_line(self.out)} holds files that are not a run's: pass "
                     "a new folder, an empty one or a run's")
        self.start = time.time()
    def evaluation(self, step, losses):  # and a bar, on a terminal, for the steps to the next
        self.rows.append((step, losses["train"], losses["val"], time.time() - self.start))
        left = min(self.args.eval_interval, self.args.max_iters - step)
        self.bar = tqdm(total=left, leave=False, disable=left == 0 or not os.isatty(2))
    def step(self, step, loss):
        if not torch.isfinite(loss):
            sys.exit(f"error: the loss became {loss.item()} at step {step}: lower --lr")
        self.bar.update()
        if self.bar.n == self.bar.total:  # the estimate's line comes next: the bar goes first
            self.bar.close()
        self.steps = step + 1
    def keep(self, path):  # a file or a folder moved beside --out, as NAME.kept-1 (-2, ...)
        n = 1
        while os.path.lexists(f"{self.out}.kept-{n}"):
            n += 1
        os.rename(path, f"{self.out}.kept-{n}")
        return one_line(f"{self.out}.kept-{n}")
    def save(self, model, chars, text, data_sha256):  # written aside, looked at again, swapped in
        new = self.partial / "new"
        checkpoint = io.BytesIO()
        torch.save({"version": VERSION, "step": self.steps, "chars": chars,
                    "hyperparameters": {k: getattr(self.args, k) for k in HYPERPARAMETERS},
                    "data_sha256": data_sha256, "state_dict": model.state_dict()}, checkpoint)
        metrics = ["step,train_loss,val_loss,elapsed_s\n"]
        for row in self.rows:
            metrics.append("%d,%.6f,%.6f,%.2f\n" % row)
        files = {"ckpt.pt": checkpoint.getvalue(), "metrics.csv": "".join(metrics).encode(),
                 "sample.txt": text.encode("utf-8")}
        path = new
        try:
            os.mkdir(new)
            for name, content in files.items():
                path = new / name
                path.write_bytes(content)
        except OSError as e:  # a full disk
            sys.exit(f"error: cannot write {one_line(path)} ({e.strerror}): the training is "
                     "lost, and --out is as it was: free some space, or pass another --out")
        if not replaceable(self.out):  # the user put a file into --out while the run trained
            sys.exit(f"error: {one_line(self.out)} now holds files that are not a run's, so it "
                     f"is as it was: the training is saved in {self.keep(new)}")
        try:
            if os.path.lexists(self.out):
                os.replace(self.out, self.partial / "old")
            os.replace(new, self.out)
        except OSError as e:  # a mount point, or read-only: close() puts the old run back
            sys.exit(f"error: cannot move the run into {one_line(self.out)} ({e.strerror}): it "
                     f"is as it was, and the training is saved in {self.keep(new)}")
        remove_run(self.partial / "old")  # anything else in it: the next run keeps it
    def close(self):  # the old run back if a swap went half way; what this run made goes
        if self.lock is not None:
            if os.path.isdir(self.partial / "old") and not os.path.lexists(self.out):
                os.replace(self.partial / "old", self.out)
            remove_run(self.partial / "new")  # written, then a full disk
            os.unlink(self.partial / "lock")
            remove_empty(self.partial)
            self.lock.close()
        for folder in self.made:
            if os.path.lexists(self.out) or not remove_empty(folder):
                break
def remove_run(folder):  # a run's three files, by name, then its folder if now empty
    for name in RUN_FILES:
        if os.path.isfile(folder / name):
            os.unlink(folder / name)
    remove_empty(folder)
def remove_empty(folder):  # os.rmdir: never what is in a folder. Whether the folder is gone
    try:
        os.rmdir(folder)
    except OSError:  # missing, or it holds something this run did not make
        return not os.path.lexists(folder)
    return True
def stop(signum, frame):  # the run stops; the next signals are ignored, so a save ends whole
    ignore_stop_signals()
    raise KeyboardInterrupt
def ignore_stop_signals():
    for signum in STOP_SIGNALS:
        signal.signal(signum, signal.SIG_IGN)
def train_into(run, args):  # the checks, the training and the save: the exit status
    torch.manual_seed(args.seed)
    model, chars, splits, data_sha256 = prepare(args)
    run.take()
    text = "(stopped: no sample)\n"
    error = None
    status = 130
    try:
        train(model, splits, args, run)
        text = sample(model, chars, args)
        print(text, flush=True)
        status = 0
    except KeyboardInterrupt:
        pass
    except OSError:  # the output closed (| head), full (> /dev/full) or gone with the terminal
        sys.stdout = None
    except ValueError as e:  # v8's sample reads the text again: it may have gone
        error = one_line(e)
        text = f"(no sample: {error})\n"
        status = 1
    ignore_stop_signals()  # from here the save is never cut short
    if run.steps == 0:
        say("stopped at step 0: nothing was written")
        return status
    run.save(model, chars, text, data_sha256)
    if error is not None:
        say(f"error: {error}: the run is saved in {one_line(run.out)}, without a sample")
    elif status == 130:
        say(f"stopped at step {run.steps}: saved in {one_line(run.out)}")
    return status
def main(argv=None):  # 0 done, 1 an error (one line on stderr), 130 stopped
    for signum in STOP_SIGNALS:
        signal.signal(signum, stop)
    if sys.stdout is not None:  # None when closed (>&-)
        sys.stdout.reconfigure(errors="backslashreplace")  # a character the terminal cannot show
    torch.set_num_threads(1)  # one thread: a seed gives the same figures on any machine
    run = None
    try:
        args = parse_args(argv)
        if not args.generate:
            run = Run(args)  # --out checked, before any work
            return train_into(run, args)
        model, chars = load_checkpoint(args)
        check_prompt(model, chars, args)
        text = sample(model, chars, args)
        try:
            print(text, flush=True)
        except OSError:  # the output closed (| head) or full: nothing more goes there
            sys.stdout = None
            say("stopped: nothing was written")
            return 130
        return 0
    except ValueError as e:  # a rule of the lesson's, as it words it, before any training
        sys.exit(f"error: {one_line(e)}")
    except KeyboardInterrupt:  # Ctrl-C, SIGTERM or SIGHUP before the training, or | head
        say("stopped: nothing was written")
        return 130
    finally:
        ignore_stop_signals()  # Python's shutdown would put back the default: death
        if run is not None:
            run.close()  # the lock goes with the process
if __name__ == "__main__":
    sys.exit(main())
