"""Draw a trained run's attention weights on a prompt: every layer, every head, or those asked.

    python v4_multihead/train.py
    python tools/show_attention.py runs/v4_multihead --prompt "MARGERY:"
    python tools/show_attention.py runs/v8_bert_mlm --prompt $'MARGERY:\\nMorning! Th_re you _re.'
    python tools/show_attention.py runs/v6_block --prompt "MARGERY:" --layers 0 2 --heads 1 3

RUN is a run folder a train.py wrote, of any version from v4_multihead to v8_bert_mlm (v1_bigram
has no attention). The prompt is at most block_size characters the model saw in training (v8:
`_` is its mask token, a blank to fill); in bash, $'...' writes a newline as \\n. The figure goes
to runs/attention_<version>.png unless -o names another .png file.

One square per head, one row of squares per layer. In a square, row t is the query at the
prompt's t-th character, column s the key at its s-th, and the colour the weight that t's softmax
gives s: dark 0, yellow 1; every row sums to 1. v4 to v7 are causal: above the diagonal, 0. v8
sees both ways.

--layers and --heads draw only the layers and heads named, counted from 0: --layers 0 2
--heads 1 3 draws four squares. For a model of more than 16 squares (--n-layer 12 --n-head 16:
192, which take half a minute to draw) a line on stderr says how many are drawn.

Where the weights come from: v7 and v8 follow HF's BertSelfAttention, which returns them when
called with output_attentions=True. v4, v5 and v6 compute them inside MultiHeadAttention.forward
and return only the output; this tool records each attention module's input during the model's
own forward and recomputes the weights from the module's query and key layers, line for line as
forward does (tests/test_show_attention.py checks that they give the module's output).
"""
import inspect
import sys
from pathlib import Path

import torch
from torch.nn import functional as F

from common import (ROOT, VERSIONS, ArgumentParser, UserError, aside, check_output, command,
                    load_run, pyplot)

MAX_CHARS = 64  # a longer prompt's squares would be too small to read, the figure too large
MANY_PANELS = 16  # a model with more layers x heads than this: say how many squares are drawn
# the attention module of each rung, by class name: v4 to v6's, then HF's (v7, v8)
ATTENTION = ("MultiHeadAttention", "BertSelfAttention")


def attention_modules(model):
    """The model's attention modules, first layer first (the order they were built in)."""
    return [m for m in model.modules() if type(m).__name__ in ATTENTION]


def multihead_weights(attn, x):
    """(B, nh, T, T): the softmax weights that v4 to v6's MultiHeadAttention `attn` computes on
    its input x (B, T, C), as its forward does (which keeps them to itself)."""
    B, T, C = x.shape
    hs = C // attn.n_head
    q = attn.query(x).view(B, T, attn.n_head, hs).transpose(1, 2)  # (B, nh, T, hs)
    k = attn.key(x).view(B, T, attn.n_head, hs).transpose(1, 2)  # (B, nh, T, hs)
    wei = q @ k.transpose(-2, -1) * hs**-0.5  # (B, nh, T, T)
    wei = wei.masked_fill(attn.tril[:T, :T] == 0, float("-inf"))  # (B, nh, T, T): causal
    return F.softmax(wei, dim=-1)  # (B, nh, T, T)


def bert_weights(attn, args, kwargs):
    """(B, nh, T, S): the probabilities HF's BertSelfAttention `attn` returns when called again on
    the same arguments (hidden states, the model's mask, ...) with output_attentions=True."""
    call = inspect.signature(attn.forward).bind(*args, **kwargs)
    call.arguments["output_attentions"] = True
    return attn(*call.args, **call.kwargs)[1]


def module_inputs(model, idx):
    """[(attention module, its positional args, its keyword args)] of one forward of model on idx,
    first layer first: what each attention module was called with."""
    calls = []
    hooks = [m.register_forward_pre_hook(lambda m, args, kwargs: calls.append((m, args, kwargs)),
                                         with_kwargs=True) for m in attention_modules(model)]
    try:
        model(idx)
    finally:
        for hook in hooks:
            hook.remove()
    return calls


@torch.no_grad()
def weights(model, idx):
    """(n_layer, B, nh, T, T): every layer's attention weights of model (in eval mode) on idx
    (B, T)."""
    layers = []
    for attn, args, kwargs in module_inputs(model, idx):
        if type(attn).__name__ == "MultiHeadAttention":
            layers.append(multihead_weights(attn, args[0]))
        else:
            layers.append(bert_weights(attn, args, kwargs))
    return torch.stack(layers)


def label(char):
    """A character as a tick label: a newline as \\n, a space as an open box."""
    return {"\n": "\\n", " ": "\u2423", "\t": "\\t"}.get(char, char).replace("$", r"\$")


def label_text(prompt):
    """The prompt as a title writes it: quoted, a newline as \\n."""
    return repr(prompt).replace("$", r"\$")


def draw(wei, version, prompt, out, dpi=100, layers=None, heads=None):
    """wei (n_layer, nh, T, T), of the T characters of prompt, as one heatmap per head in a grid,
    written to out as a PNG. layers, heads: the model's indices of wei's layers and heads, for
    the titles (default: 0, 1, 2, ...)."""
    plt = pyplot()
    if layers is None:
        layers = list(range(wei.shape[0]))
    if heads is None:
        heads = list(range(wei.shape[1]))
    n_layer, nh, T, _ = wei.shape
    # inches per square: 32 characters need room for their labels; at most 40 inches in all
    cell = min(max(2.0, 0.11 * T), 40 / max(nh, n_layer))
    fig, axes = plt.subplots(n_layer, nh, figsize=(cell * nh + 1.2, cell * n_layer + 0.7),
                             squeeze=False, layout="constrained")
    labels = [label(c) for c in prompt]
    size = 7 if T <= 16 else 5
    for i in range(n_layer):
        for h in range(nh):
            ax = axes[i][h]
            image = ax.imshow(wei[i, h].numpy(), vmin=0, vmax=1, cmap="viridis")
            ax.set_xticks(range(T), labels, fontsize=size)
            ax.set_yticks(range(T), labels, fontsize=size)
            ax.tick_params(length=0)
            ax.set_title(f"layer {layers[i]} head {heads[h]}", fontsize=8)
    fig.colorbar(image, ax=axes, shrink=0.6, label="attention weight")
    fig.suptitle(f"{version} attention on {label_text(prompt)} "
                 "(row: query, column: key)", fontsize=9)
    with aside(out) as tmp:
        fig.savefig(tmp, dpi=dpi)
    plt.close(fig)


def encode(prompt, chars, block_size, run):
    """prompt as ids (1, T) in the checkpoint's vocabulary chars, or a UserError saying why not."""
    if not prompt:
        raise UserError("--prompt is empty: give at least one character, e.g. --prompt MARGERY:")
    unknown = "".join(sorted(set(prompt) - set(chars)))
    if unknown:
        raise UserError(f"--prompt has characters the model in {run} never saw: {unknown!r}: use "
                        "only characters of its training text")
    if len(prompt) > min(block_size, MAX_CHARS):
        raise UserError(f"--prompt has {len(prompt)} characters, more than the block_size "
                        f"({block_size}) of the model in {run} or {MAX_CHARS}: give at most "
                        f"{min(block_size, MAX_CHARS)}")
    return torch.tensor([[chars.index(c) for c in prompt]])  # (1, T)


def chosen(indices, count, flag, noun, run):
    """The indices a flag (--layers, --heads) picks, each once, in the order given; every one if
    the flag was left out; a UserError for one the model in run does not have."""
    if indices is None:
        return list(range(count))
    for index in indices:
        if not 0 <= index < count:
            raise UserError(f"{flag} {index}: the model in {run} has {count} {noun}, 0 to "
                            f"{count - 1}: pick from those")
    return list(dict.fromkeys(indices))


def squares_line(layers, heads, n_layer, nh):
    """The line that says how many squares of the model's n_layer x nh will be drawn."""
    if len(layers) == n_layer and len(heads) == nh:
        return (f"drawing all {n_layer * nh} squares ({n_layer} layers x {nh} heads), which takes "
                "a while: --layers and --heads pick some, e.g. --layers 0 --heads 0 1")
    return (f"drawing {len(layers) * len(heads)} of the model's {n_layer * nh} squares (layers "
            f"{', '.join(map(str, layers))} x heads {', '.join(map(str, heads))})")


@command
def main(argv=None):
    p = ArgumentParser(__file__, __doc__)
    p.add_argument("run", type=Path, help="a run folder, e.g. runs/v4_multihead, or its ckpt.pt")
    p.add_argument("--prompt", required=True, help="the characters to look at")
    p.add_argument("-o", "--output", type=Path, default=None,
                   help="the PNG file to write (default: runs/attention_<version>.png)")
    p.add_argument("--layers", type=int, nargs="+", metavar="L", default=None,
                   help="draw only these layers, counted from 0 (default: every layer)")
    p.add_argument("--heads", type=int, nargs="+", metavar="H", default=None,
                   help="draw only these heads, counted from 0 (default: every head)")
    args = p.parse_args(argv)
    if args.output is not None:  # checked before the run is read
        if args.output.suffix.lower() != ".png":
            raise UserError(f"-o {args.output}: the output must be a .png file")
        check_output(args.output, "-o")
    folder = args.run.parent if args.run.name == "ckpt.pt" and args.run.is_file() else args.run
    _, model, ckpt = load_run(folder)
    version = ckpt["version"]
    if not attention_modules(model):
        raise UserError(f"{folder} holds a {version} run, which has no attention: pass a run "
                        f"of {VERSIONS[1]} to {VERSIONS[-1]}")
    idx = encode(args.prompt, ckpt["chars"], ckpt["hyperparameters"]["block_size"], folder)
    output = args.output or ROOT / "runs" / f"attention_{version}.png"
    check_output(output, "-o")
    wei = weights(model, idx)[:, 0]  # (n_layer, nh, T, T)
    n_layer, nh = wei.shape[0], wei.shape[1]
    layers = chosen(args.layers, n_layer, "--layers", "layers", folder)
    heads = chosen(args.heads, nh, "--heads", "heads", folder)
    if n_layer * nh > MANY_PANELS:
        print(squares_line(layers, heads, n_layer, nh), file=sys.stderr)
    wei = wei[layers][:, heads]  # (len(layers), len(heads), T, T)
    draw(wei, version, args.prompt, output, layers=layers, heads=heads)
    print(f"wrote {output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
