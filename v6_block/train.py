"""v6_block: the Transformer Block (attention, 4x FFN, residual paths, pre-norm LayerNorm), stacked.

Train:     python v6_block/train.py                        (defaults below; CPU: about a minute)
Generate:  python v6_block/train.py --generate --prompt "MARGERY:"
Compare:   diff -u v5_ffn/train.py v6_block/train.py  (step by step: tools/steps.py)
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
n_layer = 3  # layers stacked on top of each other
dropout = 0.0  # dropout probability (0: off, as in the lecture at this size)
MODEL_ARGS = ["block_size", "n_embd", "n_head", "n_layer", "dropout"]  # what LanguageModel takes

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
    """nh causal self-attention heads, computed in parallel, then an output projection."""

    def __init__(self, n_embd, n_head, block_size, dropout):
        super().__init__()
        self.n_head = n_head
        # one (C, C) matrix each holds the query, key and value weights of all nh heads side by side
        self.query = nn.Linear(n_embd, n_embd, bias=False)
        self.key = nn.Linear(n_embd, n_embd, bias=False)
        self.value = nn.Linear(n_embd, n_embd, bias=False)
        self.register_buffer("tril", torch.tril(torch.ones(block_size, block_size)))
        self.attn_dropout = nn.Dropout(dropout)
        self.proj = nn.Linear(n_embd, n_embd)  # each head may now write into all C channels
        self.resid_dropout = nn.Dropout(dropout)

    def forward(self, x):
        B, T, C = x.shape
        hs = C // self.n_head
        q = self.query(x).view(B, T, self.n_head, hs).transpose(1, 2)  # (B, nh, T, hs)
        k = self.key(x).view(B, T, self.n_head, hs).transpose(1, 2)  # (B, nh, T, hs)
        v = self.value(x).view(B, T, self.n_head, hs).transpose(1, 2)  # (B, nh, T, hs)
        wei = q @ k.transpose(-2, -1) * hs**-0.5  # (B, nh, T, T): variance no longer grows with hs
        wei = wei.masked_fill(self.tril[:T, :T] == 0, float("-inf"))  # (B, nh, T, T): causal
        wei = F.softmax(wei, dim=-1)  # (B, nh, T, T)
        wei = self.attn_dropout(wei)
        out = wei @ v  # (B, nh, T, hs)
        out = out.transpose(1, 2).reshape(B, T, C)  # (B, T, C): the heads concatenated
        return self.resid_dropout(self.proj(out))  # (B, T, C)

class FeedForward(nn.Module):
    """Per-position MLP: expand to 4 * C, ReLU, project back to C."""

    def __init__(self, n_embd, dropout):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(n_embd, 4 * n_embd),  # 4x wider inside, as in "Attention Is All You Need"
            nn.ReLU(),
            nn.Linear(4 * n_embd, n_embd),
            nn.Dropout(dropout),
        )

    def forward(self, x):
        return self.net(x)  # (B, T, C)

class Block(nn.Module):
    """Communication (attention), then computation (FFN): each reads LayerNorm(x) and adds to x."""

    def __init__(self, n_embd, n_head, block_size, dropout):
        super().__init__()
        self.sa = MultiHeadAttention(n_embd, n_head, block_size, dropout)
        self.ffwd = FeedForward(n_embd, dropout)
        self.ln1 = nn.LayerNorm(n_embd)
        self.ln2 = nn.LayerNorm(n_embd)

    def forward(self, x):
        x = x + self.sa(self.ln1(x))  # (B, T, C): x rides the residual path past attention
        x = x + self.ffwd(self.ln2(x))  # (B, T, C): and past the FFN
        return x

class LanguageModel(nn.Module):
    """Token and position embeddings, n_layer Blocks, a final LayerNorm, a linear head to logits."""

    def __init__(self, vocab_size, block_size=block_size, n_embd=n_embd, n_head=n_head,
                 n_layer=n_layer, dropout=dropout):
        super().__init__()
        if n_embd % n_head:
            raise ValueError(f"n_embd ({n_embd}) must be a multiple of n_head ({n_head})")
        self.block_size = block_size
        self.token_embedding_table = nn.Embedding(vocab_size, n_embd)
        self.position_embedding_table = nn.Embedding(block_size, n_embd)
        self.blocks = nn.Sequential(*[Block(n_embd, n_head, block_size, dropout)
                                      for _ in range(n_layer)])
        self.ln_f = nn.LayerNorm(n_embd)  # the final LayerNorm, before the head
        self.lm_head = nn.Linear(n_embd, vocab_size)

    def forward(self, idx, targets=None):
        B, T = idx.shape
        tok_emb = self.token_embedding_table(idx)  # (B, T, C)
        pos_emb = self.position_embedding_table(torch.arange(T, device=idx.device))  # (T, C)
        x = tok_emb + pos_emb  # (B, T, C)
        x = self.blocks(x)  # (B, T, C)
        x = self.ln_f(x)  # (B, T, C)
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
from tqdm import tqdm
HYPERPARAMETERS = [k for k, v in globals().items() if type(v) in (int, float, str) and k[0] != "_"]
VERSION = pathlib.Path(__file__).resolve().parent.name  # v1_bigram, or a step's name
RANGES = {"lr": (1e-6, 10.0), "seed": (0, 2**63 - 2), "dropout": (0.0, 0.9),  # seed + 1 is used
          "mask_prob": (0.01, 1.0), "chunk_size_ff": (0, 10**6), "sample_chars": (0, 10**5)}
RUN = ["ckpt.pt", "metrics.csv", "sample.txt"]  # a run's folder holds these three files, no more
HELD = []  # why Ctrl-C and SIGTERM no longer stop anything: see stop()

class ArgumentParser(argparse.ArgumentParser):  # bad input: one line, sys.exit("error: ...")
    def error(self, message):  # one line, not argparse's usage block
        sys.exit(f"error: {message}: see --help")

def parse_args(argv=None):  # the flags, each number in its range (any other int: 1 to 10**6)
    p = ArgumentParser(allow_abbrev=False, description="--batch-size sets batch_size, etc.")
    for name in HYPERPARAMETERS:
        p.add_argument("--" + name.replace("_", "-"), type=type(v := globals()[name]), default=v)
    found = [d for d in ("cuda", "mps") if getattr(torch, d).is_available()] + ["cpu"]
    p.add_argument("--device", default="auto", choices=["auto", *found])  # auto: the first
    p.add_argument("--data", type=pathlib.Path, default=pathlib.Path("data/tinyplays.txt"))
    p.add_argument("--out", type=pathlib.Path, default=pathlib.Path("runs", VERSION))
    p.add_argument("--generate", action="store_true", help="sample from the run in --out")
    p.add_argument("--prompt", default="", help="the text to start from: see sample()")
    args = p.parse_args(argv)
    for name, (low, high) in [(n, RANGES.get(n, (1, 10**6))) for n in HYPERPARAMETERS]:
        if type(v := getattr(args, name)) is not str and not low <= v <= high:  # nan too
            p.error(f"argument --{name.replace('_', '-')}: {v} is not from {low} to {high}")
    args.device = args.device.replace("auto", found[0])  # CUDA, then Apple's MPS, then the CPU
    return args

def load_data(args):  # the text, its vocabulary, and a new model; the sizes checked first
    try:
        if not args.data.is_file() or args.data.stat().st_size > 2**27:  # a FIFO: no end
            sys.exit(f"error: --data {args.data} is not a file of 128 MiB at most: pass a text")
        args.data_sha256 = hashlib.sha256(args.data.read_bytes()).hexdigest()  # once, now
        chars, splits = read_data(args.data)
        if hashlib.sha256(args.data.read_bytes()).hexdigest() != args.data_sha256:
            sys.exit(f"error: --data {args.data} changed while it was read: run again")
    except (OSError, UnicodeError) as e:
        sys.exit(f"error: cannot read --data {args.data} as UTF-8 text ({e})")
    if min(len(split) for split in splits.values()) <= args.block_size:
        sys.exit(f"error: --data {args.data} is too short: pass a longer text or --block-size")
    V, nh = len(chars), getattr(args, "n_head", 0)  # a step's floats; v1: a V x V table
    B, T, C, L = (args.batch_size, args.block_size, getattr(args, "n_embd", V),
                  getattr(args, "n_layer", min(nh, 1)))
    ff = getattr(args, "intermediate_size", 4 * C * min(L, 1))  # v6's FFN; v4 and v5 have less
    if (8 * C * (L * (4 * C + 2 * ff) + (1 + min(L, 1)) * V)  # weights, gradients, AdamW's
            + B * T * ((4 * L + 2) * nh * T + 2 * (L + 1) * ff + 32 * L * C + 6 * V) > 3 * 2**30):
        sys.exit("error: these sizes need over 12 GiB: lower the batch's or the model's")
    return LanguageModel(len(chars), **{k: getattr(args, k) for k in MODEL_ARGS}), chars, splits

def load_checkpoint(args):  # the run in --out, each part checked: a file may be made by hand
    path, made_by = args.out / "ckpt.pt", VERSION
    try:  # not a FIFO: it would never end
        ckpt = torch.load(path if path.is_file() else "", map_location=args.device,
                          weights_only=True)
        made_by, chars, hp = ckpt["version"], "".join(ckpt["chars"]), ckpt["hyperparameters"]
        if made_by != VERSION or not chars or not all(
                t.isfinite().all() for t in ckpt["state_dict"].values()):
            raise ValueError("another model, no characters, or weights that are not numbers")
        hp = parse_args([f"--{k.replace('_', '-')}={v}" for k, v in hp.items()])
        model = LanguageModel(len(chars), **{k: getattr(hp, k) for k in MODEL_ARGS})
        model.load_state_dict(ckpt["state_dict"])
    except (Exception, SystemExit) as e:  # another rung's or step's may have the same shapes
        why = f"a run of {made_by}" if made_by != VERSION else type(e).__name__
        sys.exit(f"error: cannot load {path} ({why}): pass --out a run of {VERSION}, or train")
    return model, chars, None

def is_run(folder):  # exactly these three files (a subfolder named ckpt.pt is the user's)
    return sorted(p.name if p.is_file() else "/" for p in folder.iterdir()) == RUN

class Run:  # what train() logs to: each loss checked, each estimate kept, a bar between them
    def __init__(self, args):  # --out, symlinks resolved: new, empty or a run's, and taken
        self.args, self.rows, self.steps, self.start = args, [], 0, time.time()
        self.out = out = pathlib.Path(os.path.realpath(args.out))  # a symlink: the folder it names
        self.tmp = out.parent / f".{out.name}.partial"  # beside it: on its filesystem
        try:  # a name too long fails here too
            mine = not os.path.lexists(out) or out.is_dir() and (not os.listdir(out) or is_run(out))
            moves = not out.is_dir() or os.access(out, os.W_OK) and not os.path.ismount(out)
            sub = (up := next((f for f in out.parents if f.exists()), out)).is_dir() and is_run(up)
            if not (mine and moves) or sub or out in (pathlib.Path.cwd(), pathlib.Path(
                    os.path.realpath(args.data)).parent):
                sys.exit(f"error: --out {out}: pass a new folder, an empty one or a run's, not "
                         "the current folder, --data's, a mount point, a read-only folder or "
                         "one in a run's")
            self.made = [f for f in out.parents if not f.exists()][-1:]  # gone if none is saved
            self.tmp.mkdir(parents=True)  # fails if another run made it
        except OSError as e:
            sys.exit(f"error: {self.tmp} ({e.strerror}): " + ("if no run is writing it, delete it"
                     if isinstance(e, FileExistsError) else "pass another --out"))
    def evaluation(self, step, losses):  # and a bar for the steps up to the next one
        self.rows.append((step, losses["train"], losses["val"], time.time() - self.start))
        left = min(self.args.eval_interval, self.args.max_iters - step)  # on a terminal's stderr
        self.bar = tqdm(total=left, leave=False, disable=not (left and os.isatty(2)))
    def step(self, step, loss):
        if not torch.isfinite(loss):
            sys.exit(f"error: the loss became {loss.item()} at step {step}: lower --lr")
        self.bar.update()
        if self.bar.n == self.bar.total:  # the estimate's line comes next: the bar goes first
            self.bar.close()
        self.steps = step + 1

def save(run, model, chars, text):  # written beside --out, then swapped in: one whole run
    new, buffer = run.tmp / "new", io.BytesIO()  # not into a file: a full disk is an OSError
    new.mkdir()
    torch.save({"version": VERSION, "step": run.steps, "chars": chars,
                "hyperparameters": {k: getattr(run.args, k) for k in HYPERPARAMETERS},
                "data_sha256": run.args.data_sha256, "state_dict": model.state_dict()}, buffer)
    (new / "ckpt.pt").write_bytes(buffer.getvalue())
    (new / "metrics.csv").write_text("step,train_loss,val_loss,elapsed_s\n" + "".join(
        "%d,%.6f,%.6f,%.2f\n" % row for row in run.rows))
    (new / "sample.txt").write_text(text or "(stopped: no sample)\n", encoding="utf-8")
    if run.out.exists():
        os.replace(run.out, run.tmp / "old")
    os.replace(new, run.out)

def stop(signum, frame):  # the first Ctrl-C or SIGTERM stops the run; the next wait for its save
    if not HELD:  # HELD: a stop or a save is under way
        HELD.append(signum)
        raise KeyboardInterrupt

def main(argv=None):
    HELD.clear()
    for s in (signal.SIGINT, signal.SIGTERM):  # SIGTERM stops as Ctrl-C does
        signal.signal(s, stop)
    if sys.stdout:  # None when closed (>&-)
        sys.stdout.reconfigure(errors="backslashreplace")  # a character the terminal cannot show
    torch.set_num_threads(1)  # one thread: a seed gives the same figures on any machine
    run = text = None
    try:
        try:
            args = parse_args(argv)
            torch.manual_seed(args.seed)
            run = None if args.generate else Run(args)  # --out checked and taken, before work
            model, chars, splits = (load_checkpoint if args.generate else load_data)(args)
            if unknown := "".join(sorted(set(args.prompt) - set(chars))):  # before training
                sys.exit(f"error: the prompt has characters the model never saw: {unknown!r}")
            sample(model.to(args.device), chars, argparse.Namespace(**vars(args) | {
                "sample_chars": 0}))
            if args.generate:
                return print(sample(model, chars, args)) or 0
            train(model, splits, args, run)
            print(text := sample(model, chars, args))
        except (KeyboardInterrupt, OSError) as e:  # Ctrl-C, SIGTERM, | head, >/dev/full: keep it
            sys.stdout = None if isinstance(e, OSError) else sys.stdout
        except ValueError as e:  # a rule of the lesson's, as it words it; or v8's text, gone
            print(f"error: {' '.join(str(e).split())}", file=sys.stderr)
            if not (run and run.steps):
                return 1
        HELD.append("save")  # from here the save is never cut short
        if run and run.steps:
            save(run, model, chars, text)
        said = f" at step {run.steps}" if run else ""  # --generate: no run
        said += f": saved in {run.out}" if run and run.steps else ": nothing was written"
        return 0 if text else print(f"stopped{said}", file=sys.stderr) or 130
    except OSError as e:  # a full disk: --out is as it was
        sys.exit(f"error: cannot write {e.filename} ({e.strerror}): --out is as it was")
    finally:  # Python's shutdown would put back the default (death) for a handler of its own
        for s in (signal.SIGINT, signal.SIGTERM):
            signal.signal(s, signal.SIG_IGN)
        if run and (run.tmp / "old").exists() and not run.out.exists():
            os.replace(run.tmp / "old", run.out)  # the swap went half way: the old is back
        if run:  # the folder beside --out, and the ones made above it if nothing was saved
            for folder in [run.tmp] + ([] if run.out.exists() else run.made):
                shutil.rmtree(folder, ignore_errors=True)

if __name__ == "__main__":
    sys.exit(main())
