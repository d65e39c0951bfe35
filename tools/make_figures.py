"""Draw the docs' figures from the real code and real runs, into docs/figures/.

    python tools/make_figures.py                  # all three (about a minute on 2 CPU cores)
    python tools/make_figures.py --only attention --ckpt runs/v7_bert_layer/ckpt.pt

- relu_vs_gelu.png: ReLU, GELU (exact, erf) and gelu_new (tanh), and their slopes, from v7's
  ACT2FN.
- attention_v7.png: the attention probabilities of a trained v7 (output_attentions=True) on 8
  characters of the validation text, every head of every layer. Needs a checkpoint written by
  `python v7_bert_layer/train.py`.
- ffn_memory_vs_chunk.png: peak extra memory of the BERT-base feed-forward at seq 4096 against the
  chunk size, each point a fresh process, measured as tools/bench_bert.py does.
The ladder's loss curves come from tools/plot_losses.py over reference/ (see the README).
"""
import argparse
import sys
import tempfile
from argparse import Namespace
from pathlib import Path

import torch

from versions import load_train

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "figures"


def pyplot():
    import matplotlib

    matplotlib.use("Agg")  # draw to a file: no window, works without a display
    import matplotlib.pyplot as plt

    return plt


def relu_vs_gelu(v7, out):
    plt = pyplot()
    x = torch.linspace(-4, 4, 401, requires_grad=True)
    fig, (ax, dx) = plt.subplots(1, 2, figsize=(9, 3.6))
    for name, style in (("relu", "-"), ("gelu", "-"), ("gelu_new", ":")):
        y = v7.ACT2FN[name](x)
        (slope,) = torch.autograd.grad(y.sum(), x)
        ax.plot(x.detach(), y.detach(), style, label=name)
        dx.plot(x.detach(), slope, style, label=name)
    ax.set(title="activation", xlabel="x", ylim=(-0.5, 4))
    dx.set(title="slope (what the gradient sees)", xlabel="x")
    for a in (ax, dx):
        a.axhline(0, color="k", linewidth=0.5)
        a.grid(alpha=0.3)
        a.legend()
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)


@torch.no_grad()
def attention_v7(v7, ckpt_path, out):
    if not ckpt_path.is_file():
        raise SystemExit(f"error: no checkpoint at {ckpt_path}: "
                         "train first with `python v7_bert_layer/train.py`, "
                         "or pass --ckpt PATH")
    ckpt = torch.load(ckpt_path, weights_only=True)
    if ckpt.get("version") != "v7_bert_layer":
        raise SystemExit(f"error: {ckpt_path} was written by {ckpt.get('version')}, "
                         "not v7_bert_layer: pass a v7 --ckpt")
    model = v7.LanguageModel(len(ckpt["chars"]), **ckpt["model_args"])
    model.load_state_dict(ckpt["state_dict"])
    model.eval()
    chars, T = ckpt["chars"], ckpt["model_args"]["block_size"]
    text = "\nAGATHA:\n"[:T] if set("\nAGATHA:") <= set(chars) else chars[:T]
    idx = torch.tensor([[chars.index(c) for c in text]])  # (1, T)
    x = model.embeddings(idx)  # (1, T, C)
    # the causal mask LanguageModel builds
    mask = torch.full((T, T), torch.finfo(x.dtype).min).triu(1)
    layers = model.encoder.layer
    probs = []
    for layer in layers:
        x, p, _ = layer(x, mask, output_attentions=True)  # p: (1, nh, T, T)
        probs.append(p[0])
    plt = pyplot()
    nh = probs[0].shape[0]
    fig, axes = plt.subplots(len(layers), nh, figsize=(2.2 * nh, 2.2 * len(layers)),
                             squeeze=False)
    labels = [repr(c)[1:-1] for c in text]
    for i, layer_probs in enumerate(probs):
        for h in range(nh):
            ax = axes[i][h]
            ax.imshow(layer_probs[h], vmin=0, vmax=1, cmap="viridis")
            ax.set_xticks(range(T), labels, fontsize=7)
            ax.set_yticks(range(T), labels, fontsize=7)
            ax.set_title(f"layer {i} head {h}", fontsize=8)
    fig.suptitle("v7 attention probabilities (row: query, column: key; dark = 0, yellow = 1)",
                 fontsize=9)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)


def ffn_memory_vs_chunk(out, seq=4096):
    import bench_bert as bench  # a sibling tool: tools/ is on sys.path
    chunks = [0, 2048, 1024, 512, 256, 128, 64]
    mib = []
    with tempfile.TemporaryDirectory() as tmp:
        for chunk in chunks:
            extra, output, _ = bench.memory_run(chunk, Namespace(long_seq=seq),
                                                Path(tmp) / "y.pt", None)
            mib.append(extra / 2**20)
            print(f"  chunk {chunk or 'none':>5}: peak extra {mib[-1]:6.1f} MiB "
                  f"(the output alone: {output / 2**20:.1f})")
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6, 3.8))
    xs = [seq if c == 0 else c for c in chunks]
    ax.plot(xs, mib, "o-")
    for x, y, c in zip(xs, mib, chunks):
        ax.annotate("0 (no chunking)" if c == 0 else str(c), (x, y), textcoords="offset points",
                    xytext=(4, 4), fontsize=8)
    ax.axhline(output / 2**20, color="k", linestyle="--", linewidth=1, label="the output itself")
    ax.set_xscale("log", base=2)
    ax.set(xlabel="chunk_size_feed_forward (positions per chunk)",
           ylabel="peak extra memory (MiB)",
           title=f"BERT-base feed-forward, seq {seq}, fp32, CPU")
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--only", choices=["gelu", "attention", "memory"], default=None)
    p.add_argument("--ckpt", type=Path, default=ROOT / "runs" / "v7_bert_layer" / "ckpt.pt",
                   help="a v7 checkpoint for the attention figure (default: %(default)s)")
    # one line, no usage block
    p.error = lambda message: p.exit(
        2, f"error: {message}: see python tools/make_figures.py --help\n")
    args = p.parse_args(argv)
    OUT.mkdir(parents=True, exist_ok=True)
    v7 = load_train("v7_bert_layer")
    jobs = {
        "gelu": lambda: relu_vs_gelu(v7, OUT / "relu_vs_gelu.png"),
        "attention": lambda: attention_v7(v7, args.ckpt, OUT / "attention_v7.png"),
        "memory": lambda: ffn_memory_vs_chunk(OUT / "ffn_memory_vs_chunk.png"),
    }
    for name, job in jobs.items():
        if args.only in (None, name):
            job()
            print(f"wrote {name} figure into {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
