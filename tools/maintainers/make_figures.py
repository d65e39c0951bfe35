"""Draw the docs' figures from the real code and real runs.

    python tools/maintainers/make_figures.py          # all three into runs/figures/ (a minute)
    python tools/maintainers/make_figures.py --only attention -o runs/attention.png
    python tools/maintainers/make_figures.py -o docs/figures   # redraw the committed figures

The figures go into runs/figures/ (git-ignored) unless -o names another folder, or with --only
one .png file: the docs' committed figures are replaced only when you ask, with -o docs/figures.

- relu_vs_gelu.png: ReLU, GELU (exact, erf) and gelu_new (tanh), and their slopes, from v7's
  ACT2FN.
- attention_v7.png: the attention probabilities of a trained v7 (output_attentions=True) on 8
  characters of the validation text, every head of every layer, as tools/show_attention.py draws
  them. Needs a checkpoint written by `python v7_bert_layer/train.py` (--ckpt: its run folder, or
  the ckpt.pt in it).
- ffn_memory_vs_chunk.png: peak extra memory of the BERT-base feed-forward at seq 4096 against the
  chunk size, each point a fresh process, measured as
  tools/maintainers/bert_time_and_memory.py does.
The ladder's loss curves come from tools/plot_losses.py over reference/ (see the README).
"""
import sys
import tempfile
from argparse import Namespace
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tools/, for common
import show_attention  # noqa: E402
from common import (ROOT, ArgumentParser, UserError, aside, check_output, command,  # noqa: E402
                    load_run, load_train, pyplot)

OUT = ROOT / "runs" / "figures"  # not docs/figures: a run never replaces a committed figure
FIGURES = {"gelu": "relu_vs_gelu.png", "attention": "attention_v7.png",
           "memory": "ffn_memory_vs_chunk.png"}


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


def v7_run(path):
    """v7's run, loaded and checked by v7's own load_checkpoint: (model, checkpoint dict). path:
    the run folder, or the ckpt.pt in it."""
    path = Path(path)
    if not path.is_dir() and path.name != "ckpt.pt":
        raise UserError(f"--ckpt {path} is neither a run folder nor a ckpt.pt: pass v7's run "
                        "folder (python v7_bert_layer/train.py writes runs/v7_bert_layer)")
    _, model, ckpt = load_run(path if path.is_dir() else path.parent, "v7_bert_layer")
    return model, ckpt


def attention_v7(model, ckpt, out):
    """The trained v7's attention on 8 characters of the val text, drawn by show_attention.py."""
    chars, T = ckpt["chars"], ckpt["hyperparameters"]["block_size"]
    text = "\nAGATHA:\n"[:T] if set("\nAGATHA:") <= set(chars) else chars[:T]
    idx = torch.tensor([[chars.index(c) for c in text]])  # (1, T)
    wei = show_attention.weights(model, idx)[:, 0]  # (n_layer, nh, T, T)
    show_attention.draw(wei, "v7_bert_layer", text, out)


def ffn_memory_vs_chunk(out, seq=4096):
    from bert_time_and_memory import memory_run  # a sibling script
    chunks = [0, 2048, 1024, 512, 256, 128, 64]
    mib = []
    with tempfile.TemporaryDirectory() as tmp:
        for chunk in chunks:
            extra, output, _ = memory_run(chunk, Namespace(long_seq=seq),
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


def outputs(out, only):
    """{figure: the file it goes to}: in the folder out, or out itself when it names a .png."""
    if out.suffix.lower() == ".png":
        if only is None:
            raise UserError(f"-o {out} is one file, for three figures: pass a folder, or --only "
                            "to draw one")
        return {only: out}
    if out.exists() and not out.is_dir():
        raise UserError(f"-o {out} is a file, not a folder or a .png: pass a folder")
    if out.suffix and not out.is_dir():  # f.jpg would be made a folder holding .png files
        raise UserError(f"-o {out} looks like a file name ({out.suffix}), and the figures are "
                        ".png files in a folder: pass a folder without a suffix (or one that "
                        "exists), or --only NAME with -o FILE.png")
    return {name: out / file for name, file in FIGURES.items() if only in (None, name)}


@command
def main(argv=None):
    p = ArgumentParser(__file__, __doc__)
    p.add_argument("--only", choices=list(FIGURES), default=None)
    p.add_argument("--ckpt", type=Path, default=ROOT / "runs" / "v7_bert_layer",
                   help="v7's run folder, or its ckpt.pt, for the attention figure "
                        "(default: %(default)s)")
    p.add_argument("-o", "--out", type=Path, default=OUT,
                   help="a folder for the figures (a new one's name has no suffix such as "
                        ".jpg), or with --only a .png file (default: %(default)s; "
                        "-o docs/figures replaces the docs' own)")
    args = p.parse_args(argv)
    paths = outputs(args.out, args.only)
    for path in paths.values():  # all checked before the first is drawn
        check_output(path, "-o")
    run = v7_run(args.ckpt) if "attention" in paths else None  # a bad one is refused first
    v7 = load_train("v7_bert_layer")
    jobs = {"gelu": lambda path: relu_vs_gelu(v7, path),
            "attention": lambda path: attention_v7(*run, path),
            "memory": ffn_memory_vs_chunk}
    for name, path in paths.items():
        with aside(path) as tmp:
            jobs[name](tmp)
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
