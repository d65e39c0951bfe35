"""v8_bert_mlm: BERT's own objective: attention both ways, trained to fill in hidden characters.

Train:     python v8_bert_mlm/train.py                   (defaults below; CPU: about 3 minutes)
Fill in:   python v8_bert_mlm/train.py --generate --prompt "MARGERY: I pr_y you, s_r."
Compare:   diff -u v7_bert_layer/train.py v8_bert_mlm/train.py  (step by step: tools/steps.py)
v7 predicts each next character from the left side; v8 hides some characters and sees both sides.
"""
import signal  # first: a Ctrl-C while the libraries below load stops the script at once
if __name__ == "__main__":  # (from main() on, the plumbing answers it)
    signal.signal(signal.SIGINT, signal.SIG_DFL)
import argparse  # argparse, sys, time, pathlib, matplotlib and tqdm serve the plumbing at the end
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import torch
import torch.nn as nn
from matplotlib.figure import Figure
from torch.nn import functional as F
from tqdm import tqdm

# ------------------------------------------------------------------ hyperparameters
# The lecture's values. Each is also a flag (batch_size -> --batch-size); the functions below read
# the value in effect from args (args.batch_size).
batch_size = 32  # B: independent sequences per training step
block_size = 32  # T: characters of context the model sees (v7: 8; see the doc for why 32)
max_iters = 5000  # training steps
eval_interval = 500  # steps between two loss estimates
eval_iters = 200  # batches averaged per loss estimate
lr = 1e-3  # AdamW learning rate
seed = 1337  # seeds the initial weights, the batches and the sampling
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
# The values each number may take, both ends included; the plumbing refuses others before any work
LIMITS = {"batch_size": (1, 2048), "block_size": (1, 2048), "max_iters": (1, 10**6),
          "eval_interval": (1, 10**6), "eval_iters": (1, 10**4), "lr": (1e-6, 10.0),
          "seed": (0, 2**63 - 2),  # the estimates use seed + 1; torch's largest is 2**63 - 1
          "n_embd": (1, 1024), "n_head": (1, 64), "n_layer": (1, 48), "dropout": (0.0, 0.9),
          "intermediate_size": (1, 4096), "chunk_size_ff": (0, 2048), "mask_prob": (0.01, 1.0)}

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
    # of the chosen: 80% become the mask token (id 0), 10% a random character (drawn from the text,
    # where BERT draws from its whole vocabulary) and 10% stay, so that the model cannot tell
    # which of the characters it sees are tested
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
    """Word + position + token-type embeddings (sentence A or B; here all 0), LayerNorm, dropout."""

    def __init__(self, config):
        super().__init__()
        self.word_embeddings = nn.Embedding(config.vocab_size, config.hidden_size)
        self.position_embeddings = nn.Embedding(config.max_position_embeddings, config.hidden_size)
        self.token_type_embeddings = nn.Embedding(config.type_vocab_size, config.hidden_size)
        self.LayerNorm = nn.LayerNorm(config.hidden_size, eps=config.layer_norm_eps)
        self.dropout = nn.Dropout(config.hidden_dropout_prob)

    def forward(self, input_ids, token_type_ids=None, past_key_values_length=0):
        P, T = past_key_values_length, input_ids.shape[1]
        positions = torch.arange(P, P + T, device=input_ids.device)  # (T,)
        if token_type_ids is None:
            token_type_ids = torch.zeros_like(input_ids)  # (B, T): all type 0
        x = self.word_embeddings(input_ids) + self.token_type_embeddings(token_type_ids)
        x = x + self.position_embeddings(positions)  # (B, T, C): HF's order, to the last bit
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
            max_position_embeddings=block_size, chunk_size_feed_forward=chunk_size_ff,
            **config)  # is_decoder=False: no cache, no causal mask
        self.embeddings = BertEmbeddings(self.config)
        # encoder.layer.N, as in HF's BertModel: their weights load into ours, and ours into theirs
        layers = [BertLayer(self.config) for _ in range(n_layer)]
        self.encoder = nn.ModuleDict({"layer": nn.ModuleList(layers)})
        self.cls = BertOnlyMLMHead(self.config)  # cls.predictions, as in BertForMaskedLM
        self.cls.predictions.decoder.weight = self.embeddings.word_embeddings.weight  # tied
        self.apply(self._init_weights)

    def _init_weights(self, module):
        """BERT's initial weights, as HF's _init_weights: N(0, 0.02), biases 0 (LayerNorms start at
        1 and 0 anyway). PyTorch's N(0, 1) embeddings, now also the decoder, would start the loss
        near 13 instead of ln(vocab_size)."""
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
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
    generator = torch.Generator().manual_seed(args.seed)  # the batches: the same in every version
    log.start()  # metrics.csv and the progress bar; its clock starts here
    for step in range(args.max_iters + 1):
        if step % args.eval_interval == 0 or step == args.max_iters:
            losses = estimate_loss(model, splits, args)
            log.evaluation(step, losses)  # one line on screen, one row in metrics.csv
        if step == args.max_iters:
            break
        x, y = get_batch(splits["train"], args, generator)  # (B, T), (B, T)
        _, loss = model(x, y)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        log.step(step, loss)  # the progress bar; stops the run if the loss is not a number

# ------------------------------------------------------------------ generation
# BERT does not write left to right: it fills in blanks, all at once, from both sides
def fill_in(model, ids):
    """ids (B, T) with the mask token (0) at the blanks: the most likely character at each blank,
    and the three most likely there with their probabilities."""
    logits, _ = model(ids)  # (B, T, vocab_size)
    probs = F.softmax(logits[..., 1:], dim=-1)  # (B, T, vocab_size - 1): never the mask token
    top_p, top_i = probs.topk(3, dim=-1)  # (B, T, 3) each
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
# The command line, input checks, device choice, run folder, checkpoints, metrics.csv, progress
# bar, plot and signals. As in nanoGPT, every global above that is a number, a switch or a name is
# a hyperparameter:
import hashlib, os, re, shutil  # the plumbing's own imports; the others are at the top
HYPERPARAMETERS = [name for name, value in globals().items()
                   if isinstance(value, (int, float, str)) and not name.startswith("_")]
HELP = dict(re.findall(r"^(\w+) = [^#\n]*# (.*)", Path(__file__).read_text("utf-8"), re.M))
VERSION = Path(__file__).resolve().parent.name  # "v1_bigram": names the run folder and checkpoint
ROOT = next((p for p in Path(__file__).resolve().parents  # the repository, also for a step
             if (p / "data" / "tinyplays.txt").is_file()), Path(__file__).resolve().parent.parent)
RUN_FILES = ["ckpt.pt", "metrics.csv", "loss.png", "sample.txt"]  # a run folder holds these

class UserError(Exception):
    """Bad input: main() prints it as one line and exits with status 2."""

class ArgumentParser(argparse.ArgumentParser):
    def error(self, message):  # as argparse's docs allow: one line instead of a usage block
        raise UserError(f"{message}: see {self.prog} --help")

def path(text):  # --data and --out: "" would mean the current folder
    if not text.strip():
        raise ValueError(text)
    return Path(text)

def parse_args(argv):
    argv = list(sys.argv[1:] if argv is None else argv)
    for i in reversed(range(1, len(argv))):  # "--lr -1e-3": argparse would take -1e-3 for a flag
        if argv[i - 1][:2] == "--" and "=" not in argv[i - 1] and re.match(r"-[\d.]", argv[i]):
            argv[i - 1:i + 1] = [f"{argv[i - 1]}={argv[i]}"]
    p = ArgumentParser(prog=f"python {VERSION}/train.py", description=__doc__.splitlines()[0])
    p.add_argument("--data", type=path, default=ROOT / "data" / "tinyplays.txt",
                   help="the UTF-8 text to learn (default: data/tinyplays.txt)")
    for name in HYPERPARAMETERS:  # the help is the comment beside the hyperparameter above
        flag, default, text = "--" + name.replace("_", "-"), globals()[name], HELP.get(name, "")
        text = text.replace("%", "%%")  # argparse reads %(...)s in a help text
        if isinstance(default, bool):  # a switch, on by default: --no-NAME turns it off
            p.add_argument("--no-" + flag[2:], dest=name, action="store_false",
                           help=f"turn off: {text}")
        else:
            limits = "; %s to %s" % LIMITS[name] if name in LIMITS else ""
            p.add_argument(flag, type=type(default), default=default, metavar=type(default)
                           .__name__.upper(), help=f"{text} (default: %(default)s{limits})")
    p.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda", "mps"],
                   help="auto (the default): cuda if there is one, else mps, else cpu")
    p.add_argument("--threads", type=int, default=1, help="CPU threads (default: 1, with which a "
                   "seed gives the same figures on any number of cores)")
    p.add_argument("--out", type=path, default=ROOT / "runs" / VERSION,
                   help=f"the run's folder (default: runs/{VERSION})")
    p.add_argument("--sample-chars", type=int, default=500,
                   help="characters to generate or show (default: %(default)s)")
    p.add_argument("--generate", action="store_true", help="no training: generate from --out")
    p.add_argument("--prompt", default="", help=sample.__doc__.splitlines()[0])
    return p.parse_args(argv)

def advice(error, fallback):
    """A lesson's ValueError, and the flags to change: those its message names, else fallback."""
    text = str(error)
    if "--" in text:  # the lesson has named the flag itself
        return UserError(text)
    named = [f"--{n.replace('_', '-')}" for n in HYPERPARAMETERS if re.search(rf"\b{n}\b", text)]
    return UserError(f"{text}: change {' or '.join(named) or fallback}")

def check_args(args):
    """Refuse a number outside its LIMITS (the lesson's, then the plumbing's own), a --data that is
    not a file, or a device that is not there; return the device."""
    own = {"threads": (1, os.cpu_count() or 1), "sample_chars": (0, 100_000)}
    for name, (low, high) in (LIMITS | own).items():
        value = getattr(args, name)
        if not low <= value <= high:  # nan too
            raise UserError(f"--{name.replace('_', '-')} must be from {low} to {high}, got {value}")
    if not args.data.is_file():  # a folder, a FIFO or /dev/zero would hang or fill the memory
        what = "is not a regular file" if args.data.exists() else "does not exist"
        raise UserError(f"--data {args.data} {what}: pass --data PATH to a text file")
    cuda, mps = torch.cuda.is_available(), torch.backends.mps.is_available()
    device = {"auto": "cuda" if cuda else "mps" if mps else "cpu"}.get(args.device, args.device)
    if device == "cuda" and not cuda or device == "mps" and not mps:
        raise UserError(f"--device {device} is not available here: use --device cpu or auto")
    return device

def load_checkpoint(args):
    path = args.out / "ckpt.pt"
    if not path.is_file():
        raise UserError(f"no checkpoint at {path}: train first, with python {VERSION}/train.py")
    try:
        ckpt = torch.load(path, map_location=args.device, weights_only=True)
        if ckpt["version"] == VERSION:
            model = LanguageModel(len(ckpt["chars"]), **ckpt["model_args"])
            model.load_state_dict(ckpt["state_dict"])
    except Exception as e:
        raise UserError(f"cannot load {path} into this {VERSION} ({type(e).__name__}): train again")
    if ckpt["version"] != VERSION:
        raise UserError(f"{path} was written by {ckpt['version']}, not {VERSION}: use its train.py")
    return model.to(args.device), ckpt["chars"]

class Run:
    """The run folder, metrics.csv, progress bar and signals. The run is written to out/.partial
    and moved into place at the end: --out holds one whole run, or stays as it was."""

    def __init__(self, args):
        self.out, self.tmp, self.made = args.out, args.out / ".partial", not args.out.exists()
        if args.out.is_dir() and any(p.name[0] != "." for p in args.out.iterdir()):
            try:  # a folder with files in it must hold a run of this version
                owner = "a %s run" % torch.load(args.out / "ckpt.pt", weights_only=True)["version"]
            except Exception:
                owner = "files but no ckpt.pt that loads"
            if owner != f"a {VERSION} run":
                raise UserError(f"{args.out} holds {owner}, not a {VERSION} run: change --out")
        try:
            self.tmp.mkdir(parents=True)  # one run at a time: mkdir fails if the folder is there
        except FileExistsError:
            raise UserError(f"another run is writing to {self.out} (if none is, it was killed: "
                            f"delete {self.tmp})")
        except OSError as e:
            raise UserError(f"cannot create the run folder {self.out} ({e.strerror}): change --out")
        self.rows, self.steps, self.got, self.hold = [], 0, None, False
        self.bar = tqdm(total=args.max_iters, desc=VERSION, unit="step", disable=None)  # None: tty
        self.before = {s: signal.signal(s, self) for s in (signal.SIGINT, signal.SIGTERM)}

    def __call__(self, signum, frame):  # Ctrl-C or SIGTERM: the first stops the training
        self.got = self.got or signum
        if not self.hold:  # later ones, or any once the last step is done, wait for the save
            self.hold = True
            raise KeyboardInterrupt

    def start(self):  # after the optimizer is built: its first build imports for about 2 s
        (self.tmp / "metrics.csv").write_text("step,train_loss,val_loss,elapsed_s\n")
        self.start_time = time.time()

    def evaluation(self, step, losses):
        self.rows.append((step, losses["train"], losses["val"], time.time() - self.start_time))
        with open(self.tmp / "metrics.csv", "a") as f:  # each row is on disk at once
            f.write("%d,%.6f,%.6f,%.2f\n" % self.rows[-1])
        self.hold = self.hold or step == self.bar.total  # the last: from now on the run is saved
        self.bar.write("step %5d/%d | train %.4f | val %.4f | %6.1f s"
                       % (step, self.bar.total, *self.rows[-1][1:]))

    def step(self, step, loss):
        if not torch.isfinite(loss):
            raise UserError(f"the loss became {loss.item()} at step {step}: lower --lr")
        self.steps = step + 1
        self.bar.update(1)

    def plot(self, path):
        steps, train, val = ([row[i] for row in self.rows] for i in range(3))
        ax = Figure(figsize=(6, 4), layout="tight").subplots()
        ax.plot(steps, train, "--", steps, val, "-")
        ax.set(xlabel="step", ylabel="cross-entropy loss (nats)", title=VERSION)
        ax.legend(["train", "val"])
        ax.figure.savefig(path, dpi=100)

    def commit(self):  # each file replaces its namesake; an old one this run did not write goes
        for name in RUN_FILES:
            if (self.tmp / name).exists():
                os.replace(self.tmp / name, self.out / name)
            else:
                (self.out / name).unlink(missing_ok=True)

    def close(self):
        self.bar.close()
        shutil.rmtree(self.tmp, ignore_errors=True)
        if self.made and not any(self.out.iterdir()):
            self.out.rmdir()
        for s, handler in self.before.items():
            signal.signal(s, handler)

def main(argv=None):
    if hasattr(sys.stdout, "reconfigure"):  # a terminal that cannot show a character: \xe9
        sys.stdout.reconfigure(errors="backslashreplace")
    try:
        args = parse_args(argv)
        args.device = check_args(args)
        torch.set_num_threads(args.threads)  # 1: the fastest here, and the same sums anywhere
        torch.manual_seed(args.seed)
        if args.generate:
            model, chars = load_checkpoint(args)
        else:
            try:
                chars, splits = read_data(args.data)
            except (OSError, UnicodeDecodeError) as e:  # unreadable, or not UTF-8
                raise UserError(f"cannot read {args.data} as UTF-8 text ({e}): pass --data PATH")
            except ValueError as e:  # the lesson's own rule about its text
                raise advice(e, "--data")
            if min(len(split) for split in splits.values()) <= args.block_size:  # block_size + 1
                raise UserError(f"{args.data} is too short for a block in each split: use a longer "
                                "text or a smaller --block-size")
            try:
                model = LanguageModel(len(chars), **{n: getattr(args, n) for n in MODEL_ARGS})
            except ValueError as e:  # the model's own rule: name the flags to change
                raise advice(e, "the model's flags")
        unknown = "".join(sorted(set(args.prompt) - set(chars)))
        if unknown:  # checked before training, not after
            raise UserError(f"the prompt has characters the model never saw: {unknown!r}")
        try:  # a sample of 0 characters checks the prompt now, not after the training
            dry_run = argparse.Namespace(**vars(args) | {"sample_chars": 0})
            text = sample(model.to(args.device), chars, args if args.generate else dry_run)
        except ValueError as e:  # the lesson's rule about its prompt
            raise advice(e, "--prompt")
        if args.generate:
            print(text)
            return 0
        n_params = sum(p.numel() for p in model.parameters())
        print(f"{VERSION} | {n_params:,} parameters | vocabulary {len(chars)} | on {args.device}")
        run = Run(args)  # the log train() writes to
        try:
            try:
                train(model, splits, args, run)
            except KeyboardInterrupt:
                how = "terminated" if run.got == signal.SIGTERM else "interrupted"
                saving = f"saving to {args.out}" if run.steps else f"{args.out} stays as it was"
                print(f"\n{how} at step {run.steps}: {saving}", file=sys.stderr)
                if not run.steps:
                    return 128 + (run.got or signal.SIGINT)
            ckpt = {"version": VERSION, "step": run.steps, "n_params": n_params, "chars": chars,
                    "model_args": {name: getattr(args, name) for name in MODEL_ARGS},
                    "hyperparameters": {name: getattr(args, name) for name in HYPERPARAMETERS},
                    "data": str(args.data), "threads": args.threads,  # what else sets the run
                    "data_sha256": hashlib.sha256(args.data.read_bytes()).hexdigest()}
            torch.save({**ckpt, "state_dict": model.state_dict()}, run.tmp / "ckpt.pt")
            run.plot(run.tmp / "loss.png")
            finished = run.rows[-1][0] == args.max_iters
            if finished:
                text = sample(model, chars, args)
                (run.tmp / "sample.txt").write_text(text, encoding="utf-8")
            run.commit()
        except OSError as e:  # a full disk, a folder made read-only: the old run stays as it was
            raise UserError(f"cannot write the run to {args.out} ({e.strerror}): change --out")
        finally:
            run.close()
        if finished:
            print(text)
            print(f"{VERSION} done: step %d | train %.4f | val %.4f | %.1f s" % run.rows[-1])
        if run.got or not finished:  # stopped by a signal, or by a KeyboardInterrupt
            return 128 + (run.got or signal.SIGINT)
        return 0
    except UserError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # before the first training step, or while generating
        print("\ninterrupted: nothing written", file=sys.stderr)
        return 130
    except (MemoryError, RuntimeError) as e:  # "can't allocate memory", or a device's "out of"
        if isinstance(e, RuntimeError) and "alloc" not in str(e) and "out of memory" not in str(e):
            raise
        print("error: these sizes do not fit in memory: lower --batch-size, --block-size, "
              "--eval-iters or the model's sizes", file=sys.stderr)
        return 2

if __name__ == "__main__":
    sys.exit(main())
