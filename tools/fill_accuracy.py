"""How often v7 and v8 guess a hidden character of the val text. Their val losses cannot answer
that: v7's is over every next character, v8's over masked ones only.

    python v7_bert_layer/train.py && python v8_bert_mlm/train.py
    python tools/fill_accuracy.py                     # runs/v7_bert_layer vs runs/v8_bert_mlm
    python tools/fill_accuracy.py --data data/tinyshakespeare.txt \
        --v7 runs/bench/v7_bert_layer --v8 runs/bench/v8_bert_mlm

Each val position is hidden in turn, and each model guesses it from the characters it may see:
  v7, left:   the block_size characters before it (how v7 is trained and used);
  v8, both:   a block_size window with the hidden character in the middle, as the mask token;
  v8, left:   a block_size window that ends at the hidden character (v8 denied its right side).
It prints the share guessed right (the top guess) and the mean cross-entropy of the true character.
It also prints v8's masked-LM accuracy on the batches and masks of its val_loss estimate: over
all the chosen positions, by what the input shows at them (the mask token, another character,
the character itself) and by where they sit in the window (first column, last, middle half).
"""
import argparse
import hashlib
import sys
from pathlib import Path

import torch
from torch.nn import functional as F

from common import ArgumentParser, UserError, command, load_run


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


def check_same_text(data, runs):
    """Refuse a --data that is not, byte for byte, the text the runs trained on: the same
    characters are not enough (another text would be scored as if it were their val part).
    runs: [(run folder, its checkpoint dict)]; each records data_sha256, as train.py saves it."""
    for folder, ckpt in runs:
        if not isinstance(ckpt.get("data_sha256"), str):
            raise UserError(f"{Path(folder) / 'ckpt.pt'} does not record the sha256 of its text "
                            "(data_sha256): pass a run folder a train.py wrote")
    if len({ckpt["data_sha256"] for _, ckpt in runs}) > 1:
        raise UserError("the two checkpoints were trained on different texts (their data_sha256 "
                        "differ): pass runs of the same --data")
    trained = runs[0][1]["data_sha256"]
    try:
        sha256 = hashlib.sha256(Path(data).read_bytes()).hexdigest()
    except OSError as e:
        raise UserError(f"cannot read {data} ({e.strerror or e}): pass --data, the text both "
                        "runs were trained on") from None
    if sha256 != trained:
        raise UserError(f"{data} is not the text the runs were trained on (its sha256 begins "
                        f"{sha256[:12]}, theirs {trained[:12]}): pass --data, the file both "
                        "runs were trained on")


def compare(v7_dir, v8_dir, data):
    """{row name: (accuracy, cross-entropy)} over every val position all three rows can score."""
    # each loaded and checked by its version's own load_checkpoint: another version's is refused
    m7, model7, ckpt7 = load_run(v7_dir, "v7_bert_layer")
    m8, model8, ckpt8 = load_run(v8_dir, "v8_bert_mlm")
    chars7, hp7, hp8 = ckpt7["chars"], ckpt7["hyperparameters"], ckpt8["hyperparameters"]
    check_same_text(data, [(v7_dir, ckpt7), (v8_dir, ckpt8)])  # one text, this one
    try:
        text_chars, splits = m7.read_data(data)
    except (OSError, UnicodeDecodeError) as e:  # unreadable, or not UTF-8 (a latin-1 file)
        raise UserError(f"cannot read {data} as UTF-8 text ({type(e).__name__}): pass --data, "
                        "the text both runs were trained on") from None
    if text_chars != chars7:
        raise UserError(f"{data} is not the text the checkpoints learned: pass --data")
    val7 = splits["val"]  # v7's ids; v8's are one more ("_", the mask token, is v8's id 0)
    t7, t8 = hp7["block_size"], hp8["block_size"]
    mid = t8 // 2  # v8's hidden column: mid characters on its left, t8 - 1 - mid on its right
    first, last = max(t7, t8 - 1), len(val7) - (t8 - mid)  # positions every row can see around
    # v8's val_loss batches below need a block_size + 1 window too
    if last < first or len(val7) <= t8:
        raise UserError(f"the val part of {data} ({len(val7)} characters) is too short for "
                        f"windows of {t7} and {t8} characters: pass --data, the text both runs "
                        "were trained on")
    pos = torch.arange(first, last + 1)  # (N,)
    target = val7[pos]
    rows = {}
    windows = val7[pos[:, None] - t7 + torch.arange(t7)]  # (N, t7): the characters before
    rows["v7, left side"] = score(model7, windows, t7 - 1, val7[pos])
    windows = val7[pos[:, None] - mid + torch.arange(t8)] + 1  # (N, t8): around, in v8's ids
    rows["v8, both sides"] = score(model8, windows, mid, target + 1, mask_id=0)
    windows = val7[pos[:, None] - t8 + 1 + torch.arange(t8)] + 1  # (N, t8): ending at it
    rows["v8, left side"] = score(model8, windows, t8 - 1, target + 1, mask_id=0)
    n = len(pos)
    table = {name: (r / n, nats / n) for name, (r, nats) in rows.items()}
    return table, n, (t7, t8, mid), mlm_accuracy(m8, model8, hp8, splits["val"] + 1)


@torch.no_grad()
def mlm_accuracy(m8, model8, hp8, val8):
    """{which chosen positions: share guessed right} on v8's val_loss batches and masks (val8:
    the val text in v8's ids): all of them ("chosen"); by what the input shows there ("masked",
    the mask token; "random", another character; "unchanged", the character itself, a random
    draw of the same character included); by column ("first", nothing on its left; "last",
    nothing on its right; "middle", the middle half of the window)."""
    args = argparse.Namespace(**hp8, device="cpu")
    generator = torch.Generator().manual_seed(args.seed + 1)  # as v8's estimate_loss draws them
    T = args.block_size
    column = torch.arange(T)  # (T,)
    counts = {}  # name: [right, total]
    for _ in range(args.eval_iters):
        x, y = m8.get_batch(val8, args, generator)  # (B, T) each
        chosen = y != -100  # (B, T)
        right = (model8(x)[0].argmax(-1) == y) & chosen  # (B, T)
        groups = {"chosen": chosen, "masked": chosen & (x == 0),
                  "random": chosen & (x != 0) & (x != y), "unchanged": chosen & (x == y),
                  "first": chosen & (column == 0), "last": chosen & (column == T - 1),
                  "middle": chosen & (column >= T // 4) & (column < T - T // 4)}
        for name, where in groups.items():
            r, n = counts.setdefault(name, [0, 0])
            counts[name] = [r + (right & where).sum().item(), n + where.sum().item()]
    return {name: r / n if n else float("nan") for name, (r, n) in counts.items()}


@command
def main(argv=None):
    p = ArgumentParser(__file__, __doc__)
    p.add_argument("--v7", type=Path, default=Path("runs/v7_bert_layer"), help="v7's run folder")
    p.add_argument("--v8", type=Path, default=Path("runs/v8_bert_mlm"), help="v8's run folder")
    p.add_argument("--data", type=Path, default=Path("data/tinyplays.txt"),
                   help="the text both were trained on: the same file, checked against the "
                        "sha256 each checkpoint records")
    args = p.parse_args(argv)
    if not args.data.is_file():
        raise UserError(f"no text at {args.data}: pass --data PATH")
    table, n, (t7, t8, mid), a = compare(args.v7, args.v8, args.data)
    print(f"{args.data.name}: {n:,} val characters, each hidden in turn "
          f"(v7 sees {t7} on the left; v8 sees {mid} left and {t8 - 1 - mid} right, "
          f"or {t8 - 1} left)")
    print(f"{'model, sees':<16} {'right':>7} {'nats':>7}")
    for name, (accuracy, nats) in table.items():
        print(f"{name:<16} {accuracy:>7.1%} {nats:>7.4f}")
    print(f"v8's masked-LM accuracy on its val_loss batches: {a['chosen']:.1%} of the chosen "
          f"positions; shown the mask token {a['masked']:.1%}, another character "
          f"{a['random']:.1%}, the character itself {a['unchanged']:.1%}; in the window's first "
          f"column {a['first']:.1%}, its last {a['last']:.1%}, its middle half "
          f"{a['middle']:.1%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
