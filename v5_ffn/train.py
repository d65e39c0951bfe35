"""v5_ffn: a feed-forward layer (Linear + ReLU) after multi-head attention: attention gathers, the FFN computes.

Train:     python v5_ffn/train.py            (defaults below, CPU: about half a minute)
Generate:  python v5_ffn/train.py --generate --prompt "MARGERY:"
Compare:   diff -u v4_multihead/train.py v5_ffn/train.py
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
MODEL_ARGS = ["block_size", "n_embd", "n_head"]

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
class MultiHeadAttention(nn.Module):
    """nh causal self-attention heads computed in parallel."""

    def __init__(self, n_embd, n_head, block_size):
        super().__init__()
        self.n_head = n_head
        # one (C, C) matrix each holds the query, key and value weights of all nh heads side by side
        self.query = nn.Linear(n_embd, n_embd, bias=False)
        self.key = nn.Linear(n_embd, n_embd, bias=False)
        self.value = nn.Linear(n_embd, n_embd, bias=False)
        self.register_buffer("tril", torch.tril(torch.ones(block_size, block_size)))

    def forward(self, x):
        B, T, C = x.shape
        hs = C // self.n_head
        q = self.query(x).view(B, T, self.n_head, hs).transpose(1, 2)  # (B, nh, T, hs)
        k = self.key(x).view(B, T, self.n_head, hs).transpose(1, 2)  # (B, nh, T, hs)
        v = self.value(x).view(B, T, self.n_head, hs).transpose(1, 2)  # (B, nh, T, hs)
        wei = q @ k.transpose(-2, -1) * hs**-0.5  # (B, nh, T, T): keeps the softmax input at unit variance
        wei = wei.masked_fill(self.tril[:T, :T] == 0, float("-inf"))  # (B, nh, T, T): no peeking ahead
        wei = F.softmax(wei, dim=-1)  # (B, nh, T, T)
        out = wei @ v  # (B, nh, T, hs)
        out = out.transpose(1, 2).reshape(B, T, C)  # (B, T, C): the heads concatenated
        return out


class FeedForward(nn.Module):
    """Per-position computation: a linear layer and a ReLU."""

    def __init__(self, n_embd):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(n_embd, n_embd),
            nn.ReLU(),
        )

    def forward(self, x):
        return self.net(x)  # (B, T, C)


class LanguageModel(nn.Module):
    """Token + position embeddings, multi-head attention, a feed-forward layer, and a linear head to next-character logits."""

    def __init__(self, vocab_size, block_size=block_size, n_embd=n_embd, n_head=n_head):
        super().__init__()
        if n_embd % n_head:
            raise ValueError(f"n_embd ({n_embd}) must be a multiple of n_head ({n_head}): change --n-embd or --n-head")
        self.block_size = block_size
        self.token_embedding_table = nn.Embedding(vocab_size, n_embd)
        self.position_embedding_table = nn.Embedding(block_size, n_embd)
        self.sa_heads = MultiHeadAttention(n_embd, n_head, block_size)
        self.ffwd = FeedForward(n_embd)
        self.lm_head = nn.Linear(n_embd, vocab_size)

    def forward(self, idx, targets=None):
        B, T = idx.shape
        tok_emb = self.token_embedding_table(idx)  # (B, T, C)
        pos_emb = self.position_embedding_table(torch.arange(T, device=idx.device))  # (T, C)
        x = tok_emb + pos_emb  # (B, T, C)
        x = self.sa_heads(x)  # (B, T, C): each position gathers from the ones before it
        x = self.ffwd(x)  # (B, T, C): each position computes on what it gathered
        logits = self.lm_head(x)  # (B, T, vocab_size)
        if targets is None:
            return logits, None
        loss = F.cross_entropy(logits.view(B * T, -1), targets.view(B * T))
        return logits, loss

    @torch.no_grad()
    def generate(self, idx, max_new_tokens):
        """Extend idx (B, T) by max_new_tokens characters, each sampled from the model's prediction."""
        for _ in range(max_new_tokens):
            idx_cond = idx[:, -self.block_size:]  # (B, T'): there are only block_size positions
            logits, _ = self(idx_cond)  # (B, T', vocab_size)
            probs = F.softmax(logits[:, -1, :], dim=-1)  # (B, vocab_size): the last position predicts what comes next
            idx_next = torch.multinomial(probs, num_samples=1)  # (B, 1)
            idx = torch.cat((idx, idx_next), dim=1)  # (B, T + 1)
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
