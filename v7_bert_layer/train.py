"""v7_bert_layer: HuggingFace's BertLayer, rebuilt class by class, in a causal character model.

Train:     python v7_bert_layer/train.py                   (defaults below; CPU: 1 to 2 minutes)
Generate:  python v7_bert_layer/train.py --generate --prompt "MARGERY:"
Compare:   diff -u v6_block/train.py v7_bert_layer/train.py  (step by step: tools/steps.py)
Where the LayerNorm goes: v6 is pre-norm, x + f(LN(x)); BERT is post-norm, LN(x + f(x)).
"""
from dataclasses import dataclass

import torch
import torch.nn as nn
from torch.nn import functional as F

# hyperparameters: the lecture's values. Each is a flag too: --batch-size sets args.batch_size
batch_size = 32  # B: independent sequences per training step
block_size = 8  # T: characters of context the model sees
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
MODEL_ARGS = ["block_size", "n_embd", "n_head", "n_layer", "dropout", "hidden_act",
              "intermediate_size", "chunk_size_ff"]  # the hyperparameters LanguageModel takes

# ------------------------------------------------------------------ data
def read_data(path):
    """The vocabulary, and the text as integers: the first 90% to train on, the rest to validate."""
    text = path.read_text(encoding="utf-8")  # the whole corpus as one string
    chars = "".join(sorted(set(text)))  # every character in the text, in a fixed order
    data = torch.tensor(encode(text, chars), dtype=torch.long)  # (N,)
    n = int(0.9 * len(data))
    return chars, {"train": data[:n], "val": data[n:]}

def encode(s, chars):
    stoi = {ch: i for i, ch in enumerate(chars)}
    return [stoi[ch] for ch in s]  # string -> list of integers

def decode(ids, chars):
    return "".join(chars[i] for i in ids)  # list of integers -> string

def get_batch(data, args, generator):
    """B random windows of the text: inputs x, and targets y, the same windows one character on."""
    ix = torch.randint(len(data) - args.block_size, (args.batch_size,), generator=generator)  # (B,)
    offsets = torch.arange(args.block_size)  # (T,)
    x = data[ix[:, None] + offsets]  # (B, T)
    y = data[ix[:, None] + offsets + 1]  # (B, T): the next character at every position
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
    layer_norm_eps: float = 1e-12
    chunk_size_feed_forward: int = 0  # 0: the FFN sees every position at once
    is_decoder: bool = False
    add_cross_attention: bool = False

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
    """Word + position embeddings, LayerNorm and dropout (no token types: there is one text)."""

    def __init__(self, config):
        super().__init__()
        self.word_embeddings = nn.Embedding(config.vocab_size, config.hidden_size)
        self.position_embeddings = nn.Embedding(config.max_position_embeddings, config.hidden_size)
        self.LayerNorm = nn.LayerNorm(config.hidden_size, eps=config.layer_norm_eps)
        self.dropout = nn.Dropout(config.hidden_dropout_prob)

    def forward(self, input_ids, past_key_values_length=0):
        P, T = past_key_values_length, input_ids.shape[1]
        positions = torch.arange(P, P + T, device=input_ids.device)  # (T,)
        x = self.word_embeddings(input_ids) + self.position_embeddings(positions)  # (B, T, C)
        return self.dropout(self.LayerNorm(x))  # (B, T, C)

class BertSelfAttention(nn.Module):
    """nh heads of scaled dot-product attention; keys and values from the encoder if crossing."""

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
        self.is_decoder = config.is_decoder

    def transpose_for_scores(self, x):
        x = x.view(*x.shape[:-1], self.num_attention_heads, self.attention_head_size)
        return x.transpose(1, 2)  # (B, T, nh, hs) -> (B, nh, T, hs)

    def forward(self, hidden_states, attention_mask=None, head_mask=None,
                encoder_hidden_states=None, encoder_attention_mask=None, past_key_value=None,
                output_attentions=False):
        q = self.transpose_for_scores(self.query(hidden_states))  # (B, nh, T, hs)
        if encoder_hidden_states is not None:  # cross-attention: k and v of S encoder positions
            attention_mask = encoder_attention_mask
            if past_key_value is not None:  # the encoder's output does not change while decoding
                k, v = past_key_value  # (B, nh, S, hs) each
            else:
                k = self.transpose_for_scores(self.key(encoder_hidden_states))  # (B, nh, S, hs)
                v = self.transpose_for_scores(self.value(encoder_hidden_states))  # (B, nh, S, hs)
        else:
            k = self.transpose_for_scores(self.key(hidden_states))  # (B, nh, T, hs)
            v = self.transpose_for_scores(self.value(hidden_states))  # (B, nh, T, hs)
            if past_key_value is not None:  # decoding: the P earlier positions' keys and values
                k = torch.cat([past_key_value[0], k], dim=2)  # (B, nh, S = P + T, hs)
                v = torch.cat([past_key_value[1], v], dim=2)  # (B, nh, S, hs)
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
        return outputs + ((k, v),) if self.is_decoder else outputs  # a decoder hands on its k and v

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
                encoder_hidden_states=None, encoder_attention_mask=None, past_key_value=None,
                output_attentions=False):
        self_outputs = self.self(hidden_states, attention_mask, head_mask, encoder_hidden_states,
                                 encoder_attention_mask, past_key_value, output_attentions)
        attention_output = self.output(self_outputs[0], hidden_states)  # (B, T, C)
        return (attention_output,) + self_outputs[1:]  # then the probabilities, and k and v if any

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
    """Self-attention, cross-attention if the decoder has it, then the FFN, maybe in chunks."""

    def __init__(self, config):
        super().__init__()
        self.chunk_size_feed_forward = config.chunk_size_feed_forward
        self.seq_len_dim = 1  # chunks are cut along T
        self.attention = BertAttention(config)
        self.is_decoder = config.is_decoder
        self.add_cross_attention = config.add_cross_attention
        if self.add_cross_attention:
            if not self.is_decoder:
                raise ValueError(f"{self} should be used as a decoder model if cross attention is "
                                 "added")
            self.crossattention = BertAttention(config)
        self.intermediate = BertIntermediate(config)
        self.output = BertOutput(config)

    def forward(self, hidden_states, attention_mask=None, head_mask=None,
                encoder_hidden_states=None, encoder_attention_mask=None, past_key_value=None,
                output_attentions=False):
        cross = encoder_hidden_states is not None
        if cross and not hasattr(self, "crossattention"):
            raise ValueError("encoder_hidden_states need cross-attention layers: build the layer "
                             "with `config.add_cross_attention=True`")
        if past_key_value is not None and len(past_key_value) != (4 if cross else 2):
            raise ValueError(f"past_key_value holds {len(past_key_value)} tensors; this call needs "
                             f"{4 if cross else 2}: self k, v (and cross k, v with encoder states)")
        self_attn_past_key_value = past_key_value[:2] if past_key_value is not None else None
        self_attention_outputs = self.attention(hidden_states, attention_mask, head_mask,
                                                output_attentions=output_attentions,
                                                past_key_value=self_attn_past_key_value)
        attention_output = self_attention_outputs[0]  # (B, T, C)
        if self.is_decoder:
            outputs = self_attention_outputs[1:-1]  # (self_attn_probs,) or ()
            present_key_value = self_attention_outputs[-1]  # (self_k, self_v)
        else:
            outputs = self_attention_outputs[1:]
        if cross:
            cross_attn_past_key_value = past_key_value[-2:] if past_key_value is not None else None
            cross_attention_outputs = self.crossattention(
                attention_output, attention_mask, head_mask, encoder_hidden_states,
                encoder_attention_mask, cross_attn_past_key_value, output_attentions)
            attention_output = cross_attention_outputs[0]  # (B, T, C)
            outputs = outputs + cross_attention_outputs[1:-1]  # + (cross_attn_probs,)
            present_key_value = present_key_value + cross_attention_outputs[-1]  # + (cross k, v)
        layer_output = apply_chunking_to_forward(self.feed_forward_chunk,  # (B, T, C)
                                                 self.chunk_size_feed_forward, self.seq_len_dim,
                                                 attention_output)
        outputs = (layer_output,) + outputs
        return outputs + (present_key_value,) if self.is_decoder else outputs

    def feed_forward_chunk(self, attention_output):
        intermediate_output = self.intermediate(attention_output)  # (B, T, intermediate_size)
        return self.output(intermediate_output, attention_output)  # (B, T, C)

class LanguageModel(nn.Module):
    """BERT's layers in a GPT-style causal model: embeddings, causal BertLayers, a linear head."""

    def __init__(self, vocab_size, block_size=block_size, n_embd=n_embd, n_head=n_head,
                 n_layer=n_layer, dropout=dropout, hidden_act=hidden_act,
                 intermediate_size=intermediate_size, chunk_size_ff=chunk_size_ff):
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
            max_position_embeddings=block_size, chunk_size_feed_forward=chunk_size_ff,
            is_decoder=True)
        self.embeddings = BertEmbeddings(self.config)
        # encoder.layer.N, as in HF's BertModel: their weights load into ours, and ours into theirs
        layers = [BertLayer(self.config) for _ in range(n_layer)]
        self.encoder = nn.ModuleDict({"layer": nn.ModuleList(layers)})
        # A linear head with PyTorch's init, as in v6 (BertLMHeadModel's head is dense, GELU,
        # LayerNorm and a decoder tied to the word embeddings; see the doc for why not here)
        self.lm_head = nn.Linear(n_embd, vocab_size)

    def forward(self, idx, targets=None, past_key_values=None):
        """Logits and loss; past_key_values, one (k, v) per layer, is a cache ([] at first)."""
        B, T = idx.shape
        P = past_key_values[0][0].shape[2] if past_key_values else 0  # positions already cached
        if P + T > self.block_size:
            raise ValueError(f"{P} cached and {T} new positions are more than block_size "
                             f"({self.block_size}), the number of position embeddings")
        x = self.embeddings(idx, past_key_values_length=P)  # (B, T, C)
        # HF's extended causal mask: position P + t sees keys 0 .. P + t; the lowest float hides
        mask = torch.full((T, P + T), torch.finfo(x.dtype).min, device=idx.device).triu(P + 1)
        presents = []
        for i, layer in enumerate(self.encoder.layer):
            past = past_key_values[i] if past_key_values else None
            x, present = layer(x, mask, past_key_value=past)  # (B, T, C)
            presents.append(present)
        if past_key_values is not None:
            past_key_values[:] = presents  # one (k, v) per layer, each (B, nh, P + T, hs)
        logits = self.lm_head(x)  # (B, T, vocab_size)
        if targets is None:
            return logits, None
        loss = F.cross_entropy(logits.view(B * T, -1), targets.view(B * T))
        return logits, loss

    @torch.no_grad()
    def generate(self, idx, max_new_tokens, greedy=False, use_cache=True):
        """Extend idx (B, T) by max_new_tokens characters, sampled (greedy: the most likely)."""
        # one-position steps cannot fill a chunk, and chunks change no result: run unchunked
        for layer in self.encoder.layer:
            layer.chunk_size_feed_forward = 0
        cache, n_cached = [], 0
        for _ in range(max_new_tokens):
            # positions are absolute: past block_size there is no embedding for the next one, so
            # the window slides, as in v6, and every cached key would sit at a wrong position
            if use_cache and idx.shape[1] <= self.block_size:  # feed only what is new
                logits, _ = self(idx[:, n_cached:], past_key_values=cache)  # (B, T', V)
                n_cached = idx.shape[1]
            else:  # the last block_size characters, recomputed
                logits, _ = self(idx[:, -self.block_size:])  # (B, T', vocab_size)
            probs = F.softmax(logits[:, -1, :], dim=-1)  # (B, vocab_size): the next character's
            idx_next = probs.argmax(-1, keepdim=True) if greedy else probs.multinomial(1)
            idx = torch.cat((idx, idx_next), dim=1)  # (B, T + 1)
        for layer in self.encoder.layer:  # and as configured again
            layer.chunk_size_feed_forward = self.config.chunk_size_feed_forward
        return idx

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
def sample(model, chars, args):
    """Text to continue (default: the vocabulary's first character), and sample_chars more."""
    prompt = encode(args.prompt or chars[0], chars)
    context = torch.tensor([prompt], dtype=torch.long, device=args.device)  # (1, T)
    model.eval()
    return decode(model.generate(context, max_new_tokens=args.sample_chars)[0].tolist(), chars)

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
