"""v5_ffn: a feed-forward layer (Linear, ReLU) after attention: attention gathers, the FFN computes.

Train:     python v5_ffn/train.py                          (defaults below; CPU: half a minute)
Generate:  python v5_ffn/train.py --generate --prompt "MARGERY:"
Compare:   diff -u v4_multihead/train.py v5_ffn/train.py
"""
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
MODEL_ARGS = ["block_size", "n_embd", "n_head"]  # the hyperparameters LanguageModel takes

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
class MultiHeadAttention(nn.Module):
    """nh causal self-attention heads, computed in parallel."""

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
        wei = q @ k.transpose(-2, -1) * hs**-0.5  # (B, nh, T, T): variance no longer grows with hs
        wei = wei.masked_fill(self.tril[:T, :T] == 0, float("-inf"))  # (B, nh, T, T): causal
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
    """Token and position embeddings, multi-head attention, a feed-forward layer, a linear head."""

    def __init__(self, vocab_size, block_size=block_size, n_embd=n_embd, n_head=n_head):
        super().__init__()
        if n_embd % n_head:
            raise ValueError(f"n_embd ({n_embd}) must be a multiple of n_head ({n_head})")
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
        """Extend idx (B, T) by max_new_tokens characters, each sampled from the prediction."""
        for _ in range(max_new_tokens):
            idx_cond = idx[:, -self.block_size:]  # (B, T'): there are only block_size positions
            logits, _ = self(idx_cond)  # (B, T', vocab_size)
            probs = F.softmax(logits[:, -1, :], dim=-1)  # (B, vocab_size): the next character's
            idx_next = torch.multinomial(probs, num_samples=1)  # (B, 1)
            idx = torch.cat((idx, idx_next), dim=1)  # (B, T + 1)
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
import argparse, hashlib, io, os, pathlib, shutil, signal, sys, time  # noqa: E401
HYPERPARAMETERS = [k for k, v in globals().items() if type(v) in (int, float, str) and k[0] != "_"]
VERSION = pathlib.Path(__file__).resolve().parent.name  # v1_bigram, or a step's name
RANGES = {"lr": (1e-6, 10.0), "seed": (0, 2**63 - 2), "dropout": (0.0, 0.9),  # seed + 1 is used
          "mask_prob": (0.01, 1.0), "chunk_size_ff": (0, 10**6), "sample_chars": (0, 10**5)}

class ArgumentParser(argparse.ArgumentParser):  # bad input: one line, sys.exit("error: ...")
    def error(self, message):  # one line, not argparse's usage block
        sys.exit(f"error: {message}: see --help")

def within(kind, low, high):  # a flag's type: an int or a float from low to high
    def number(text):  # argparse's message for "x": invalid number value
        if not low <= (value := kind(text)) <= high:  # nan too
            raise argparse.ArgumentTypeError(f"{text} is not from {low} to {high}")
        return value
    return number

def parse_args(argv=None):  # the flags (any other int is from 1 to 10**6), the device, the sizes
    p = ArgumentParser(allow_abbrev=False, description="--batch-size sets batch_size, etc.")
    for name in HYPERPARAMETERS:
        value = globals()[name]
        kind = str if type(value) is str else within(type(value), *RANGES.get(name, (1, 10**6)))
        p.add_argument("--" + name.replace("_", "-"), type=kind, default=value)
    p.add_argument("--data", type=pathlib.Path, default=pathlib.Path("data/tinyplays.txt"))
    p.add_argument("--out", type=pathlib.Path, default=pathlib.Path("runs", VERSION))
    p.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda"])
    p.add_argument("--generate", action="store_true", help="sample from the run in --out")
    p.add_argument("--prompt", default="", help="the text to start from: see sample()")
    args = p.parse_args(argv)
    args.device = args.device.replace("auto", "cuda" if torch.cuda.is_available() else "cpu")
    if args.device == "cuda" and not torch.cuda.is_available():
        sys.exit("error: --device cuda: no GPU that torch can use here: use --device cpu")
    B, T, C, nh, L, ff = (getattr(args, k, 1) for k in ("batch_size", "block_size", "n_embd",
                                                        "n_head", "n_layer", "intermediate_size"))
    if L * (16 * C * (C + ff) + B * T * (3 * nh * T + 12 * C + 2 * ff)) > 2**31:  # a step's floats
        sys.exit("error: these sizes need over 8 GiB: lower the batch's or the model's")
    return args

def load_data(args):  # the text, its vocabulary, and a new model
    if not args.data.is_file():  # a folder, a FIFO or /dev/zero would fail, or never end
        sys.exit(f"error: --data {args.data} is not a file: pass --data PATH to a text file")
    try:
        chars, splits = read_data(args.data)
    except (OSError, UnicodeError) as e:
        sys.exit(f"error: cannot read --data {args.data} as UTF-8 text ({e})")
    if min(len(split) for split in splits.values()) <= args.block_size:
        sys.exit(f"error: --data {args.data} is too short: pass a longer text or --block-size")
    return LanguageModel(len(chars), **{k: getattr(args, k) for k in MODEL_ARGS}), chars, splits

def load_checkpoint(args):  # the run in --out, each part checked: a file may be made by hand
    try:
        if not (args.out / "ckpt.pt").is_file():  # a FIFO would never end
            raise FileNotFoundError(args.out / "ckpt.pt")
        ckpt = torch.load(args.out / "ckpt.pt", map_location=args.device, weights_only=True)
        chars, hp = "".join(ckpt["chars"]), ckpt["hyperparameters"]
        if not chars or not all(t.isfinite().all() for t in ckpt["state_dict"].values()):
            raise ValueError("no characters, or weights that are not numbers")
        hp = parse_args([f"--{k.replace('_', '-')}={v}" for k, v in hp.items()])
        model = LanguageModel(len(chars), **{k: getattr(hp, k) for k in MODEL_ARGS})
        model.load_state_dict(ckpt["state_dict"])
    except (Exception, SystemExit) as e:
        sys.exit(f"error: cannot load {args.out}/ckpt.pt ({type(e).__name__}): train it first")
    return model, chars, None

class Run:  # what train() logs to: each loss checked, each estimate kept for metrics.csv
    def __init__(self, args):
        self.args, self.tmp = args, args.out.parent / f".{args.out.name}.partial"
        if args.out.exists() and not args.out.is_dir():  # checked now, not after the training
            sys.exit(f"error: --out {args.out} is a file: pass a folder")
        try:
            self.tmp.mkdir(parents=True)  # one run at a time: fails if the folder is there
        except OSError as e:
            sys.exit(f"error: cannot create {self.tmp}: {e.strerror}: change --out, or delete it")
        self.rows, self.steps, self.start = [], 0, time.time()
    def evaluation(self, step, losses):
        self.rows.append((step, losses["train"], losses["val"], time.time() - self.start))
    def step(self, step, loss):
        if not torch.isfinite(loss):
            sys.exit(f"error: the loss became {loss.item()} at step {step}: lower --lr")
        self.steps = step + 1

def save(run, model, chars, text):  # written beside --out, then moved in: it holds one whole run
    args, buffer = run.args, io.BytesIO()  # torch.save into a file: RuntimeError on a full disk
    torch.save({"version": VERSION, "step": run.steps, "chars": chars,
                "hyperparameters": {k: getattr(args, k) for k in HYPERPARAMETERS},
                "data_sha256": hashlib.sha256(args.data.read_bytes()).hexdigest(),
                "state_dict": model.state_dict()}, buffer)
    (run.tmp / "ckpt.pt").write_bytes(buffer.getvalue())
    (run.tmp / "metrics.csv").write_text("step,train_loss,val_loss,elapsed_s\n" + "".join(
        "%d,%.6f,%.6f,%.2f\n" % row for row in run.rows))
    (run.tmp / "sample.txt").write_text(text or "(stopped: no sample)\n", encoding="utf-8")
    args.out.mkdir(parents=True, exist_ok=True)
    for name in ["ckpt.pt", "metrics.csv", "sample.txt"]:
        os.replace(run.tmp / name, args.out / name)

def main(argv=None):
    signal.signal(signal.SIGTERM, signal.default_int_handler)  # SIGTERM stops as Ctrl-C does
    sys.stdout.reconfigure(errors="backslashreplace")  # a character the terminal cannot show
    torch.set_num_threads(1)  # one thread: a seed gives the same figures on any machine
    try:
        args = parse_args(argv)
        torch.manual_seed(args.seed)
        model, chars, splits = (load_checkpoint if args.generate else load_data)(args)
        if unknown := "".join(sorted(set(args.prompt) - set(chars))):  # checked before training
            sys.exit(f"error: the prompt has characters the model never saw: {unknown!r}")
        sample(model.to(args.device), chars, argparse.Namespace(**vars(args) | {"sample_chars": 0}))
        if args.generate:
            print(sample(model, chars, args))
            return 0
        run = Run(args)
    except ValueError as e:  # a rule of the lesson's, as it words it
        sys.exit(f"error: {' '.join(str(e).split())}")
    text = None
    try:
        try:
            train(model, splits, args, run)
            print(text := sample(model, chars, args))
        except (KeyboardInterrupt, BrokenPipeError):  # Ctrl-C, SIGTERM, | head: keep the run
            print(f"\nstopped at step {run.steps}", file=sys.stderr)
        if run.steps:
            save(run, model, chars, text)
    except OSError as e:  # a full disk: --out stays as it was
        sys.exit(f"error: cannot write to {args.out} ({e.strerror}): free some space")
    finally:
        shutil.rmtree(run.tmp, ignore_errors=True)
    return 130 if text is None else 0

if __name__ == "__main__":
    sys.exit(main())
