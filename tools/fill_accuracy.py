"""How often a model guesses a hidden character of the val text: the comparison that v7's and v8's
val losses cannot make (v7's is over every next character, v8's over masked ones only).

    python v7_bert_layer/train.py && python v8_bert_mlm/train.py
    python tools/fill_accuracy.py                     # runs/v7_bert_layer vs runs/v8_bert_mlm
    python tools/fill_accuracy.py --data data/tinyshakespeare.txt \
        --v7 runs/bench/v7_bert_layer --v8 runs/bench/v8_bert_mlm

Each val position is hidden in turn, and each model guesses it from the characters it may see:
  v7, left:   the block_size characters before it (how v7 is trained and used);
  v8, both:   a block_size window with the hidden character in the middle, as the mask token;
  v8, left:   a block_size window that ends at the hidden character (v8 denied its right side).
It prints the share guessed right (the top guess) and the mean cross-entropy of the true character.
It also prints v8's masked-LM accuracy on the batches and masks of its val_loss estimate.
"""
import argparse
import sys
from pathlib import Path

import torch
from torch.nn import functional as F

from versions import load_train

ROOT = Path(__file__).resolve().parent.parent


def load_model(module, folder):
    """(model in eval mode, its vocabulary, its hyperparameters) from folder/ckpt.pt, loaded and
    checked by the version's own load_checkpoint: a run of another version is refused."""
    try:
        model, chars = module.load_checkpoint(argparse.Namespace(out=folder, device="cpu"))
    except module.UserError as e:
        raise SystemExit(f"error: {e}") from None
    ckpt = torch.load(folder / "ckpt.pt", map_location="cpu", weights_only=True)
    return model.eval(), chars, ckpt["hyperparameters"]


@torch.no_grad()
def score(model, windows, at, targets, mask_id=None, batch=2048):
    """(right guesses, summed cross-entropy) of model over windows (N, T) at column `at`, where
    targets (N,) are the true characters; mask_id, if given, hides column `at` first."""
    right, nats = 0, 0.0
    for i in range(0, len(windows), batch):
        x, y = windows[i:i + batch].clone(), targets[i:i + batch]
        if mask_id is not None:
            x[:, at] = mask_id
        logits = model(x)[0][:, at]  # (n, vocab_size)
        if mask_id is not None:
            logits[:, mask_id] = float("-inf")  # the mask token is never an answer
        right += (logits.argmax(-1) == y).sum().item()
        nats += F.cross_entropy(logits, y, reduction="sum").item()
    return right, nats


def compare(v7_dir, v8_dir, data):
    """{row name: (accuracy, cross-entropy)} over every val position all three rows can score."""
    m7, m8 = load_train("v7_bert_layer"), load_train("v8_bert_mlm")
    model7, chars7, hp7 = load_model(m7, v7_dir)
    model8, chars8, hp8 = load_model(m8, v8_dir)
    if chars8 != "_" + chars7:
        raise SystemExit("error: the two checkpoints were trained on different texts: pass runs "
                         "of the same --data")
    text_chars, splits = m7.read_data(data)
    if text_chars != chars7:
        raise SystemExit(f"error: {data} is not the text the checkpoints learned: pass --data")
    val7 = splits["val"]  # v7's ids; v8's are one more ("_", the mask token, is v8's id 0)
    t7, t8 = hp7["block_size"], hp8["block_size"]
    mid = t8 // 2  # v8's hidden column: mid characters on its left, t8 - 1 - mid on its right
    first, last = max(t7, t8 - 1), len(val7) - (t8 - mid)  # positions every row can see around
    pos = torch.arange(first, last + 1)  # (N,)
    target = val7[pos]
    rows = {}
    windows = val7[pos[:, None] - t7 + torch.arange(t7)]  # (N, t7): the characters before
    rows["v7, left side"] = score(model7, windows, t7 - 1, val7[pos])
    windows = val7[pos[:, None] - mid + torch.arange(t8)] + 1  # (N, t8): around, in v8's ids
    rows["v8, both sides"] = score(model8, windows, mid, target + 1, mask_id=0)
    windows = val7[pos[:, None] - t8 + 1 + torch.arange(t8)] + 1  # (N, t8): ending at it
    rows["v8, left side"] = score(model8, windows, t8 - 1, target + 1, mask_id=0)
    # as v8's val_loss: the same val batches and masks, here scored by accuracy
    args = argparse.Namespace(**hp8, device="cpu")
    generator = torch.Generator().manual_seed(args.seed + 1)
    right = total = 0
    with torch.no_grad():
        for _ in range(args.eval_iters):
            x, y = m8.get_batch(splits["val"] + 1, args, generator)
            guess = model8(x)[0].argmax(-1)
            right += ((guess == y) & (y != -100)).sum().item()
            total += (y != -100).sum().item()
    n = len(pos)
    table = {name: (r / n, nats / n) for name, (r, nats) in rows.items()}
    return table, n, (t7, t8, mid), right / total


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--v7", type=Path, default=ROOT / "runs" / "v7_bert_layer",
                   help="v7's run folder")
    p.add_argument("--v8", type=Path, default=ROOT / "runs" / "v8_bert_mlm",
                   help="v8's run folder")
    p.add_argument("--data", type=Path, default=ROOT / "data" / "tinyplays.txt",
                   help="the text both were trained on")
    p.error = lambda message: p.exit(2, f"error: {message}: see python tools/fill_accuracy.py "
                                        "--help\n")
    args = p.parse_args(argv)
    if not args.data.is_file():
        print(f"error: no text at {args.data}: pass --data PATH", file=sys.stderr)
        return 2
    try:
        table, n, (t7, t8, mid), mlm_accuracy = compare(args.v7, args.v8, args.data)
    except SystemExit as e:
        print(e, file=sys.stderr)
        return 2
    print(f"{args.data.name}: {n:,} val characters, each hidden in turn "
          f"(v7 sees {t7} on the left; v8 sees {mid} left and {t8 - 1 - mid} right, "
          f"or {t8 - 1} left)")
    print(f"{'model, sees':<16} {'right':>7} {'nats':>7}")
    for name, (accuracy, nats) in table.items():
        print(f"{name:<16} {accuracy:>7.1%} {nats:>7.4f}")
    print(f"v8's masked-LM accuracy on its val_loss batches: {mlm_accuracy:.1%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
