"""v7_bert_layer: HuggingFace's BertLayer, rebuilt class by class, trained as a causal character model. GELU enters.

Train:     python v7_bert_layer/train.py            (defaults below, CPU: about a minute)
Generate:  python v7_bert_layer/train.py --generate --prompt "MARGERY:"
Compare:   diff -u v6_block/train.py v7_bert_layer/train.py
Where the LayerNorm goes: v6 is pre-norm (x + f(LN(x)), GPT style); BERT is post-norm (LN(x + f(x))).
"""
import argparse
import csv
import os
import re
import sys
import time
from pathlib import Path

import torch
import torch.nn as nn
from torch.nn import functional as F
from tqdm import tqdm

# ------------------------------------------------------------------ hyperparameters
# The lecture's defaults. Every one is also a flag: batch_size -> --batch-size.
batch_size = 32  # B: independent sequences per training step
block_size = 8  # T: characters of context the model sees
max_iters = 5000  # training steps
eval_interval = 500  # steps between two loss estimates
eval_iters = 200  # batches averaged per loss estimate
lr = 1e-3  # AdamW learning rate
seed = 1337  # seeds the initial weights, the batches and the sampling
n_embd = 32  # C: width of every token vector
n_head = 4  # nh: attention heads, each hs = C // nh wide
n_layer = 3  # BertLayers stacked on top of each other
dropout = 0.0  # dropout on hidden states and attention probabilities (0: off; BERT's 0.1 trains worse here)
hidden_act = "gelu"  # the FFN's activation: gelu (exact), gelu_new (tanh approximation), relu, silu, tanh
intermediate_size = 128  # width of the FFN's hidden layer (BERT: 4 * C)
chunk_size_ff = 0  # run the FFN on this many positions at a time to save memory (0: all at once)
MODEL_ARGS = ["block_size", "n_embd", "n_head", "n_layer", "dropout", "hidden_act", "intermediate_size",
              "chunk_size_ff"]

# ------------------------------------------------------------------ data
VERSION = Path(__file__).resolve().parent.name  # e.g. "v6_block": names the run folder and the checkpoint
ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "data" / "tinyplays.txt"


class UserError(Exception):
    """Bad input: main() prints it as one line and exits with status 2."""


def load_text(path):
    """Read the training text, refusing what cannot be trained on."""
    path = Path(path)
    if not path.is_file():
        raise UserError(f"no data file at {path}: pass --data PATH to a UTF-8 text file")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as e:
        raise UserError(f"{path} is not UTF-8 text (bad byte at offset {e.start}): convert it to UTF-8 first")
    if not text:
        raise UserError(f"{path} is empty: pass --data PATH to a text file with some content")
    return text


def split_text(text, block_size):
    """Characters -> integers, then the first 90% for training and the last 10% for validation."""
    chars = sorted(set(text))
    stoi = {ch: i for i, ch in enumerate(chars)}
    data = torch.tensor([stoi[ch] for ch in text], dtype=torch.long)
    n = int(0.9 * len(data))
    splits = {"train": data[:n], "val": data[n:]}
    for name, split in splits.items():
        if len(split) <= block_size:  # one example needs block_size + 1 characters
            raise UserError(
                f"the {name} split has {len(split)} characters, fewer than one block of {block_size} + 1: "
                f"use a longer text (at least {10 * (block_size + 1)} characters) or a smaller --block-size"
            )
    return "".join(chars), splits


def encode(s, chars):
    unknown = sorted(set(s) - set(chars))
    if unknown:
        raise UserError(f"the prompt has characters the model never saw: {''.join(unknown)!r}; use only characters of its training text")
    return [chars.index(ch) for ch in s]


def decode(ids, chars):
    return "".join(chars[i] for i in ids)


def get_batch(data, batch_size, block_size, device, generator):
    """batch_size random windows of the text: inputs x and the same windows shifted by one, y."""
    ix = torch.randint(len(data) - block_size, (batch_size,), generator=generator)  # (B,) window starts
    offsets = torch.arange(block_size)  # (T,)
    x = data[ix[:, None] + offsets]  # (B, T)
    y = data[ix[:, None] + offsets + 1]  # (B, T): the next character at every position
    return x.to(device), y.to(device)


# ------------------------------------------------------------------ model
# HuggingFace's class and attribute names throughout, so that a state dict moves between this BertLayer and theirs.
from dataclasses import dataclass  # the one import v7 adds, kept here so that the imports stay v6's


@dataclass
class BertConfig:
    """HF's field names with BERT-base defaults; LanguageModel fills one in from the hyperparameters."""

    vocab_size: int = 30522
    hidden_size: int = 768  # C
    num_hidden_layers: int = 12
    num_attention_heads: int = 12  # nh
    intermediate_size: int = 3072  # the FFN's hidden width, 4 * C
    hidden_act: str = "gelu"  # a name in ACT2FN, or any callable
    hidden_dropout_prob: float = 0.1
    attention_probs_dropout_prob: float = 0.1
    max_position_embeddings: int = 512
    initializer_range: float = 0.02  # std of BERT's normal initial weights (LanguageModel measured better without)
    layer_norm_eps: float = 1e-12
    chunk_size_feed_forward: int = 0  # 0: the FFN sees every position at once
    is_decoder: bool = False
    add_cross_attention: bool = False


ACT2FN = {  # HF's names: "gelu" is exact, x * Phi(x) with Phi from erf; "gelu_new" is GPT-2's tanh approximation
    "gelu": nn.GELU(),
    "gelu_new": nn.GELU(approximate="tanh"),
    "relu": nn.ReLU(),
    "silu": nn.SiLU(),
    "tanh": nn.Tanh(),
}


def apply_chunking_to_forward(forward_fn, chunk_size, chunk_dim, *input_tensors):
    """forward_fn on chunk_size slices along chunk_dim, joined: the same result with a smaller peak memory."""
    if chunk_size > 0:
        size = input_tensors[0].shape[chunk_dim]
        if any(t.shape[chunk_dim] != size for t in input_tensors):
            raise ValueError(f"all input tensors must have size {size} in dimension {chunk_dim}")
        if size % chunk_size:
            raise ValueError(f"The dimension to be chunked {size} has to be a multiple of the chunk size {chunk_size}")
        # HF keeps every chunk's output and concatenates them at the end; writing each into its slice of one
        # output tensor instead keeps a single chunk's intermediates alive at a time, and no second copy
        out = None
        for start in range(0, size, chunk_size):
            y = forward_fn(*(t.narrow(chunk_dim, start, chunk_size) for t in input_tensors))
            if out is None:  # the output's shape is known once the first chunk is through
                out = y.new_empty(y.shape[:chunk_dim] + (size,) + y.shape[chunk_dim + 1:])
            out.narrow(chunk_dim, start, chunk_size).copy_(y)
        return out
    return forward_fn(*input_tensors)


class BertEmbeddings(nn.Module):
    """Word + position embeddings, then LayerNorm and dropout (BERT's token types are left out: one text)."""

    def __init__(self, config):
        super().__init__()
        self.word_embeddings = nn.Embedding(config.vocab_size, config.hidden_size)
        self.position_embeddings = nn.Embedding(config.max_position_embeddings, config.hidden_size)
        self.LayerNorm = nn.LayerNorm(config.hidden_size, eps=config.layer_norm_eps)
        self.dropout = nn.Dropout(config.hidden_dropout_prob)

    def forward(self, input_ids, past_key_values_length=0):
        T = input_ids.shape[1]
        positions = torch.arange(past_key_values_length, past_key_values_length + T, device=input_ids.device)  # (T,)
        x = self.word_embeddings(input_ids) + self.position_embeddings(positions)  # (B, T, C)
        return self.dropout(self.LayerNorm(x))  # (B, T, C)


class BertSelfAttention(nn.Module):
    """nh heads of scaled dot-product attention; keys and values from encoder_hidden_states when cross-attending."""

    def __init__(self, config):
        super().__init__()
        if config.hidden_size % config.num_attention_heads:
            raise ValueError(f"The hidden size ({config.hidden_size}) is not a multiple of the number of attention "
                             f"heads ({config.num_attention_heads})")
        self.num_attention_heads = config.num_attention_heads
        self.attention_head_size = config.hidden_size // config.num_attention_heads  # hs
        self.all_head_size = self.num_attention_heads * self.attention_head_size
        self.query = nn.Linear(config.hidden_size, self.all_head_size)
        self.key = nn.Linear(config.hidden_size, self.all_head_size)
        self.value = nn.Linear(config.hidden_size, self.all_head_size)
        self.dropout = nn.Dropout(config.attention_probs_dropout_prob)
        self.is_decoder = config.is_decoder

    def transpose_for_scores(self, x):
        x = x.view(*x.shape[:-1], self.num_attention_heads, self.attention_head_size)  # (B, T, nh, hs)
        return x.transpose(1, 2)  # (B, nh, T, hs)

    def forward(self, hidden_states, attention_mask=None, head_mask=None, encoder_hidden_states=None,
                encoder_attention_mask=None, past_key_value=None, output_attentions=False):
        q = self.transpose_for_scores(self.query(hidden_states))  # (B, nh, T, hs)
        if encoder_hidden_states is not None:  # cross-attention: keys and values come from the encoder's S positions
            attention_mask = encoder_attention_mask
            if past_key_value is not None:  # the encoder's output does not change during decoding: reuse them
                k, v = past_key_value  # (B, nh, S, hs) each
            else:
                k = self.transpose_for_scores(self.key(encoder_hidden_states))  # (B, nh, S, hs)
                v = self.transpose_for_scores(self.value(encoder_hidden_states))  # (B, nh, S, hs)
        else:
            k = self.transpose_for_scores(self.key(hidden_states))  # (B, nh, T, hs)
            v = self.transpose_for_scores(self.value(hidden_states))  # (B, nh, T, hs)
            if past_key_value is not None:  # decoding: the P earlier positions' keys and values, computed once
                k = torch.cat([past_key_value[0], k], dim=2)  # (B, nh, S = P + T, hs)
                v = torch.cat([past_key_value[1], v], dim=2)  # (B, nh, S, hs)
        scores = q @ k.transpose(-1, -2) * self.attention_head_size**-0.5  # (B, nh, T, S)
        if attention_mask is not None:
            scores = scores + attention_mask  # (B, nh, T, S): additive, 0 keeps a key, a large negative masks it
        probs = self.dropout(F.softmax(scores, dim=-1))  # (B, nh, T, S)
        if head_mask is not None:
            probs = probs * head_mask  # (B, nh, T, S): a 0 silences a head
        context = (probs @ v).transpose(1, 2)  # (B, T, nh, hs)
        context = context.reshape(*context.shape[:-2], self.all_head_size)  # (B, T, C): the heads concatenated
        outputs = (context, probs) if output_attentions else (context,)
        return outputs + ((k, v),) if self.is_decoder else outputs  # a decoder hands its keys and values on


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
    """BertSelfAttention (`self`) then BertSelfOutput (`output`): attention with its residual and LayerNorm."""

    def __init__(self, config):
        super().__init__()
        self.self = BertSelfAttention(config)
        self.output = BertSelfOutput(config)

    def forward(self, hidden_states, attention_mask=None, head_mask=None, encoder_hidden_states=None,
                encoder_attention_mask=None, past_key_value=None, output_attentions=False):
        self_outputs = self.self(hidden_states, attention_mask, head_mask, encoder_hidden_states,
                                 encoder_attention_mask, past_key_value, output_attentions)
        attention_output = self.output(self_outputs[0], hidden_states)  # (B, T, C)
        return (attention_output,) + self_outputs[1:]  # then the probabilities and the keys/values, if any


class BertIntermediate(nn.Module):
    """The FFN's first half: expand C to intermediate_size, then the activation (a name in ACT2FN, or a callable)."""

    def __init__(self, config):
        super().__init__()
        self.dense = nn.Linear(config.hidden_size, config.intermediate_size)
        if isinstance(config.hidden_act, str):
            if config.hidden_act not in ACT2FN:
                raise ValueError(f"unknown activation {config.hidden_act!r}: "
                                 f"choose --hidden-act from {', '.join(ACT2FN)}")
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
    """Self-attention, cross-attention in a decoder that has it, then the FFN, optionally in chunks of positions."""

    def __init__(self, config):
        super().__init__()
        self.chunk_size_feed_forward = config.chunk_size_feed_forward
        self.seq_len_dim = 1  # chunks are cut along T
        self.attention = BertAttention(config)
        self.is_decoder = config.is_decoder
        self.add_cross_attention = config.add_cross_attention
        if self.add_cross_attention:
            if not self.is_decoder:
                raise ValueError(f"{self} should be used as a decoder model if cross attention is added")
            self.crossattention = BertAttention(config)
        self.intermediate = BertIntermediate(config)
        self.output = BertOutput(config)

    def forward(self, hidden_states, attention_mask=None, head_mask=None, encoder_hidden_states=None,
                encoder_attention_mask=None, past_key_value=None, output_attentions=False):
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
        if encoder_hidden_states is not None:
            if not hasattr(self, "crossattention"):
                raise ValueError(f"If `encoder_hidden_states` are passed, {self} has to be instantiated with "
                                 "cross-attention layers by setting `config.add_cross_attention=True`")
            cross_attn_past_key_value = past_key_value[-2:] if past_key_value is not None else None
            cross_attention_outputs = self.crossattention(attention_output, attention_mask, head_mask,
                                                          encoder_hidden_states, encoder_attention_mask,
                                                          cross_attn_past_key_value, output_attentions)
            attention_output = cross_attention_outputs[0]  # (B, T, C)
            outputs = outputs + cross_attention_outputs[1:-1]  # + (cross_attn_probs,)
            present_key_value = present_key_value + cross_attention_outputs[-1]  # + (cross_k, cross_v)
        layer_output = apply_chunking_to_forward(self.feed_forward_chunk, self.chunk_size_feed_forward,
                                                 self.seq_len_dim, attention_output)  # (B, T, C)
        outputs = (layer_output,) + outputs
        return outputs + (present_key_value,) if self.is_decoder else outputs

    def feed_forward_chunk(self, attention_output):
        intermediate_output = self.intermediate(attention_output)  # (B, T, intermediate_size)
        return self.output(intermediate_output, attention_output)  # (B, T, C)


class LanguageModel(nn.Module):
    """BERT as a decoder, as HF's BertLMHeadModel uses it: embeddings, n_layer causal BertLayers, an LM head."""

    def __init__(self, vocab_size, block_size=block_size, n_embd=n_embd, n_head=n_head, n_layer=n_layer,
                 dropout=dropout, hidden_act=hidden_act, intermediate_size=intermediate_size,
                 chunk_size_ff=chunk_size_ff):
        super().__init__()
        if n_embd % n_head:
            raise ValueError(f"n_embd ({n_embd}) must be a multiple of n_head ({n_head}): change --n-embd or --n-head")
        if not 0 <= dropout < 1:
            raise ValueError(f"--dropout must be at least 0 and below 1, got {dropout}")
        if chunk_size_ff and block_size % chunk_size_ff:
            raise ValueError(f"--chunk-size-ff ({chunk_size_ff}) must divide --block-size ({block_size}), or be 0 "
                             f"for no chunking: the FFN cuts the {block_size} positions into equal chunks")
        self.block_size = block_size
        self.config = BertConfig(vocab_size=vocab_size, hidden_size=n_embd, num_hidden_layers=n_layer,
                                 num_attention_heads=n_head, intermediate_size=intermediate_size, hidden_act=hidden_act,
                                 hidden_dropout_prob=dropout, attention_probs_dropout_prob=dropout,
                                 max_position_embeddings=block_size, chunk_size_feed_forward=chunk_size_ff,
                                 is_decoder=True)
        self.embeddings = BertEmbeddings(self.config)
        # encoder.layer.N, as in HF's BertModel: their weights load into ours, and ours into theirs
        self.encoder = nn.ModuleDict({"layer": nn.ModuleList([BertLayer(self.config) for _ in range(n_layer)])})
        # A linear head and PyTorch's default initialisation, chosen by measurement. Val loss on tiny shakespeare
        # after 5000 steps, seeds 1337 / 1: as here 2.064 / 2.091; BERT's init (weights normal(0, initializer_range),
        # zero biases) 2.092 / 2.099; HF's BertLMHeadModel head (dense, GELU, LayerNorm, then the word embeddings
        # as output weights) 2.143 / 2.159; both 2.107 / 2.109; --dropout 0.1 2.113 / 2.133.
        self.lm_head = nn.Linear(n_embd, vocab_size)

    def forward(self, idx, targets=None, past_key_values=None):
        """Logits (and the loss). With past_key_values (a list, [] at first) idx continues the text that the list
        caches, one (k, v) per layer, and the list is updated in place."""
        B, T = idx.shape
        P = past_key_values[0][0].shape[2] if past_key_values else 0  # positions already cached
        x = self.embeddings(idx, past_key_values_length=P)  # (B, T, C)
        # HF's extended causal mask: position P + t sees keys 0 .. P + t; 0 keeps, the most negative float masks
        mask = torch.full((T, P + T), torch.finfo(x.dtype).min, device=idx.device).triu(P + 1)  # (T, P + T)
        presents = []
        for i, layer in enumerate(self.encoder.layer):
            x, present = layer(x, mask, past_key_value=past_key_values[i] if past_key_values else None)  # (B, T, C)
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
        """Extend idx (B, T) by max_new_tokens characters, sampled (greedy: the most likely). While the text fits in
        block_size positions, the KV cache feeds the model only the new character."""
        # prompts and one-token steps need not be a multiple of the chunk size, and chunking only saves memory
        # (chunked == unchunked): generation runs unchunked
        for layer in self.encoder.layer:
            layer.chunk_size_feed_forward = 0
        cache, n_cached = [], 0
        for _ in range(max_new_tokens):
            if use_cache and idx.shape[1] <= self.block_size:
                logits, _ = self(idx[:, n_cached:], past_key_values=cache)  # (B, T - n_cached, vocab_size)
                n_cached = idx.shape[1]
            else:  # past the last position embedding: recompute the last block_size characters, as v6 does
                logits, _ = self(idx[:, -self.block_size:])  # (B, T', vocab_size)
            probs = F.softmax(logits[:, -1, :], dim=-1)  # (B, vocab_size): the last position predicts what comes next
            idx_next = probs.argmax(-1, keepdim=True) if greedy else torch.multinomial(probs, num_samples=1)  # (B, 1)
            idx = torch.cat((idx, idx_next), dim=1)  # (B, T + 1)
        for layer in self.encoder.layer:
            layer.chunk_size_feed_forward = self.config.chunk_size_feed_forward
        return idx


# ------------------------------------------------------------------ training
@torch.no_grad()
def estimate_loss(model, splits, args, device):
    """Mean loss over eval_iters random batches of each split: far less noisy than one batch."""
    model.eval()
    out = {}
    generator = torch.Generator().manual_seed(args.seed + 1)  # the same windows at every estimate, in every version
    for name, data in splits.items():
        losses = torch.zeros(args.eval_iters)
        for i in range(args.eval_iters):
            x, y = get_batch(data, args.batch_size, args.block_size, device, generator)
            _, loss = model(x, y)
            losses[i] = loss.item()
        out[name] = losses.mean().item()
    model.train()
    return out


def save_checkpoint(model, chars, args, step, out):
    """Weights, hyperparameters and vocabulary in one file, written atomically (a crash never leaves half a file)."""
    ckpt = {
        "version": VERSION,
        "step": step,
        "chars": chars,
        "model_args": {name: getattr(args, name) for name in MODEL_ARGS},
        "hyperparameters": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()},
        "state_dict": model.state_dict(),
    }
    tmp = out / "ckpt.pt.tmp"
    torch.save(ckpt, tmp)
    os.replace(tmp, out / "ckpt.pt")


def plot_losses(rows, out):
    import matplotlib

    matplotlib.use("Agg")  # draw to a file: no window, works without a display
    import matplotlib.pyplot as plt

    steps = [r[0] for r in rows]
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.plot(steps, [r[1] for r in rows], "--", label="train")
    ax.plot(steps, [r[2] for r in rows], "-", label="val")
    ax.set(xlabel="step", ylabel="cross-entropy loss (nats)", title=VERSION)
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(out / "loss.png", dpi=100)
    plt.close(fig)


def train(model, splits, args, device, out):
    """AdamW on random batches; a loss estimate every eval_interval steps goes to the log and metrics.csv."""
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
    generator = torch.Generator().manual_seed(args.seed)  # batches of their own: every version sees the same ones
    rows, start, step = [], time.time(), 0
    bar = tqdm(total=args.max_iters, desc=VERSION, unit="step", dynamic_ncols=True, disable=None)  # off when not a terminal
    with open(out / "metrics.csv", "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["step", "train_loss", "val_loss", "elapsed_s"])
        try:
            while True:
                if step % args.eval_interval == 0 or step == args.max_iters:
                    losses = estimate_loss(model, splits, args, device)
                    rows.append((step, losses["train"], losses["val"], time.time() - start))
                    writer.writerow([step, f"{losses['train']:.6f}", f"{losses['val']:.6f}", f"{rows[-1][3]:.2f}"])
                    f.flush()  # a crash or Ctrl-C keeps every row so far
                    bar.set_postfix(train=f"{losses['train']:.4f}", val=f"{losses['val']:.4f}")
                    bar.write(f"step {step:>5}/{args.max_iters} | train {losses['train']:.4f} | "
                              f"val {losses['val']:.4f} | {rows[-1][3]:6.1f} s")
                if step == args.max_iters:
                    break
                x, y = get_batch(splits["train"], args.batch_size, args.block_size, device, generator)
                _, loss = model(x, y)
                if not torch.isfinite(loss):
                    bar.close()
                    raise UserError(f"the loss became {loss.item()} at step {step}: lower --lr "
                                    f"(metrics so far are in {out / 'metrics.csv'})")
                optimizer.zero_grad(set_to_none=True)
                loss.backward()
                optimizer.step()
                step += 1
                bar.update(1)
        except KeyboardInterrupt:
            bar.close()
            print(f"\ninterrupted at step {step}: saving what was trained to {out}", file=sys.stderr)
            return rows, step, True
    bar.close()
    return rows, step, False


# ------------------------------------------------------------------ sampling
def sample(model, chars, prompt, n_chars, device):
    """The prompt (default: the vocabulary's first character, a newline in most texts) and n_chars sampled after it."""
    context = torch.tensor([encode(prompt or chars[0], chars)], dtype=torch.long, device=device)  # (1, T)
    model.eval()
    return decode(model.generate(context, max_new_tokens=n_chars)[0].tolist(), chars)


def load_checkpoint(out, device):
    path = out / "ckpt.pt"
    if not path.is_file():
        raise UserError(f"no checkpoint at {path}: train first with `python {VERSION}/train.py --out {out}`")
    try:
        ckpt = torch.load(path, map_location=device, weights_only=True)
    except Exception as e:
        raise UserError(f"{path} is not a readable checkpoint ({type(e).__name__}): train again to rewrite it")
    if not isinstance(ckpt, dict) or ckpt.get("version") != VERSION:
        written_by = ckpt.get("version", "an unknown script") if isinstance(ckpt, dict) else "an unknown script"
        raise UserError(f"{path} was written by {written_by}, not {VERSION}: "
                        f"use that version's train.py, or train {VERSION} with a different --out")
    try:
        model = LanguageModel(len(ckpt["chars"]), **ckpt["model_args"])
        model.load_state_dict(ckpt["state_dict"])
    except (KeyError, TypeError, ValueError, RuntimeError) as e:
        raise UserError(f"{path} does not fit this {VERSION} model ({type(e).__name__}): train again to rewrite it")
    return model.to(device), ckpt["chars"]


# ------------------------------------------------------------------ command line
TRAIN_ARGS = ["batch_size", "block_size", "max_iters", "eval_interval", "eval_iters", "lr", "seed"]


def parse_args(argv):
    helps = dict(re.findall(r"^(\w+) = .+?  # (.+)$", Path(__file__).read_text(), re.M))  # the comments above
    p = argparse.ArgumentParser(prog=f"python {VERSION}/train.py", description=__doc__.splitlines()[0])
    p.add_argument("--data", type=Path, default=DATA, help="UTF-8 text to train on (default: %(default)s)")
    for name in dict.fromkeys(TRAIN_ARGS + MODEL_ARGS):  # in order, each once
        default = globals()[name]
        if isinstance(default, bool):  # switches that are on by default get a --no-... flag
            p.add_argument("--no-" + name.replace("_", "-"), dest=name, action="store_false", help=f"turn off: {helps[name]}")
        else:
            p.add_argument("--" + name.replace("_", "-"), type=type(default), default=default,
                           help=f"{helps[name]} (default: %(default)s)")
    p.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda", "mps"],
                   help="auto picks cuda, then mps, then cpu (default: auto)")
    p.add_argument("--out", type=Path, default=ROOT / "runs" / VERSION, help="run folder (default: runs/%s)" % VERSION)
    p.add_argument("--sample-chars", type=int, default=500, help="characters to generate, 0 for none (default: 500)")
    p.add_argument("--generate", action="store_true", help="load ckpt.pt from --out and print generated text; no training")
    p.add_argument("--prompt", default=None, help="text that generation continues (default: a newline)")
    # one line, as for every other bad input, instead of argparse's usage block
    p.error = lambda message: p.exit(2, f"error: {message}: see python {VERSION}/train.py --help\n")
    return p.parse_args(argv)


def check_args(args):
    for name in dict.fromkeys(TRAIN_ARGS + MODEL_ARGS):
        value, default = getattr(args, name), globals()[name]
        if name == "seed" or isinstance(value, (bool, str)):
            continue
        if value < 0 or (value == 0 and default != 0):  # a default of 0 means "off", so 0 stays allowed there
            raise UserError(f"--{name.replace('_', '-')} must be {'0 or more' if default == 0 else 'positive'}, got {value}")
    if args.sample_chars < 0:
        raise UserError(f"--sample-chars must be 0 or more, got {args.sample_chars}")
    if not 0 <= args.seed < 2**63 - 1:  # torch takes 64-bit seeds, and the evaluation batches use seed + 1
        raise UserError(f"--seed must be a whole number from 0 to {2**63 - 2}, got {args.seed}")


def pick_device(name):
    available = {"cuda": torch.cuda.is_available(), "mps": torch.backends.mps.is_available(), "cpu": True}
    if name == "auto":
        return next(d for d in ("cuda", "mps", "cpu") if available[d])
    if not available[name]:
        raise UserError(f"--device {name} is not available here (torch {torch.__version__}): use --device cpu or auto")
    return name


def main(argv=None):
    args = parse_args(argv)
    try:
        check_args(args)
        device = pick_device(args.device)
        torch.manual_seed(args.seed)
        if args.generate:
            model, chars = load_checkpoint(args.out, device)
            print(sample(model, chars, args.prompt, args.sample_chars, device))
            return 0
        chars, splits = split_text(load_text(args.data), args.block_size)
        if args.prompt:
            encode(args.prompt, chars)  # refuse a bad prompt before training, not after
        try:
            model = LanguageModel(len(chars), **{name: getattr(args, name) for name in MODEL_ARGS}).to(device)
        except ValueError as e:
            raise UserError(str(e))
        n_params = sum(p.numel() for p in model.parameters())
        print(f"{VERSION} | {n_params:,} parameters | {args.data.name}: {sum(len(s) for s in splits.values()):,} "
              f"characters, vocabulary {len(chars)} | device {device} | out {args.out}")
        try:
            args.out.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise UserError(f"cannot create the run folder {args.out} ({e.strerror}): pass --out DIR, a writable folder")
        rows, step, interrupted = train(model, splits, args, device, args.out)
        save_checkpoint(model, chars, args, step, args.out)
        plot_losses(rows, args.out)
        if interrupted:
            return 130
        text = sample(model, chars, args.prompt, args.sample_chars, device) if args.sample_chars else ""
        (args.out / "sample.txt").write_text(text, encoding="utf-8")
        print(text)
        print(f"{VERSION} done: val {rows[-1][2]:.4f} (train {rows[-1][1]:.4f}) after {step} steps "
              f"in {rows[-1][3]:.1f} s | {n_params:,} parameters | {args.out}")
        return 0
    except UserError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # outside training (which saves its own work): while loading or generating text
        print("\ninterrupted: stopped before writing anything more", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
