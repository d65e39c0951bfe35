"""v7's BertLayer against transformers' at BERT-base size: forward time, and the memory that \
chunking saves, and does not save in training.

    python tools/maintainers/bert_time_and_memory.py     # all three, BERT-base size, CPU, fp32
    python tools/maintainers/bert_time_and_memory.py --repeats 5   # a quicker, noisier look

(1) Forward time: one BertLayer (hidden 768, 12 heads, intermediate 3072), batch 8, seq 128, eval
    mode, no grad. Ours and transformers' (eager attention, the oracle the tests use; SDPA, its
    default, for reference) hold the same weights. Each round runs all three in a rotating order;
    after --warmup rounds, --repeats rounds are timed. The figures: median times, and the median of
    the per-round ratios (a slow spell of the machine cancels out).
(2) Chunked feed-forward at seq 4096, batch 1: the peak extra memory of the FFN (BertIntermediate +
    BertOutput through apply_chunking_to_forward) with --chunk positions at a time vs all at once.
    Each setting runs in a fresh process, after a warm-up call on a few positions has loaded the
    math libraries: the kernel's peak resident memory (VmHWM, reset to the current value through
    /proc/self/clear_refs just before the call) minus the resident memory just before it (VmRSS);
    the median of --memory-runs processes. getrusage's ru_maxrss would not do: Linux carries it
    across exec, so a child started by a large parent inherits the parent's peak. The FFN's output
    (seq x 768 floats) is part of both figures; the table also shows the extra memory beyond it,
    and the figures with malloc's caching of freed buffers turned off (live tensors only).
(3) Chunked feed-forward in training, seq 512: the activations autograd saves for the backward
    pass, counted with torch.autograd.graph.saved_tensors_hooks, unchunked and with --train-chunk.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tools/, for common
from common import ArgumentParser, UserError, command, load_train, one_line, within  # noqa: E402

MiB = 2**20


def base_layers(attn_implementation):
    """Our BertLayer and transformers', BERT-base size, the same random weights, eval mode."""
    import transformers
    from transformers.models.bert.modeling_bert import BertLayer as HFBertLayer

    v7 = load_train("v7_bert_layer")
    torch.manual_seed(0)
    theirs = HFBertLayer(transformers.BertConfig(attn_implementation=attn_implementation)).eval()
    with torch.no_grad():
        for p in theirs.parameters():
            p.copy_(torch.randn_like(p) * 0.02)
    ours = v7.BertLayer(v7.BertConfig()).eval()
    ours.load_state_dict(theirs.state_dict(), strict=True)
    return ours, theirs


@torch.no_grad()
def forward_time(args):
    ours, eager = base_layers("eager")
    _, sdpa = base_layers("sdpa")
    sdpa.load_state_dict(eager.state_dict(), strict=True)
    x = torch.randn(args.batch, args.seq, 768)
    runs = {"ours": lambda: ours(x)[0], "eager": lambda: eager(x), "sdpa": lambda: sdpa(x)}
    diff = {name: (runs["ours"]() - fn()).abs().max().item()
            for name, fn in runs.items() if name != "ours"}
    times = {name: [] for name in runs}
    names = list(runs)
    for i in range(args.warmup + args.repeats):
        # rotate the order: no layer always runs first
        for name in names[i % 3:] + names[:i % 3]:
            start = time.perf_counter()
            runs[name]()
            if i >= args.warmup:
                times[name].append(time.perf_counter() - start)
    med = {name: statistics.median(t) for name, t in times.items()}
    ratio = {name: statistics.median(a / b for a, b in zip(times["ours"], times[name]))
             for name in ("eager", "sdpa")}
    print(f"(1) BertLayer forward, batch {args.batch}, seq {args.seq}, hidden 768, 12 heads, "
          f"intermediate 3072, fp32, CPU ({torch.get_num_threads()} threads), eval, no grad; "
          f"{args.repeats} rounds after {args.warmup} warm-up")
    print(f"    ours                     {1000 * med['ours']:8.1f} ms (median)")
    for name in ("eager", "sdpa"):
        print(f"    transformers, {name + ':':<6}     {1000 * med[name]:8.1f} ms   "
              f"ours / theirs {ratio[name]:.3f} (median of the rounds)   "
              f"max |ours - theirs| = {diff[name]:.1e}")
    print(f"    ours / transformers' eager: {ratio['eager']:.3f} (the median of the per-round "
          "ratios, not the ratio of the medians)")


def memory_kib(field):
    """VmRSS (resident now) or VmHWM (peak resident since the process started or the last reset),
    in KiB."""
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith(field + ":"))


@torch.no_grad()
def memory_child(chunk, seq, out_path):
    """Runs in its own process: the FFN at one chunk size; prints the figures as JSON, saves the
    output."""
    v7 = load_train("v7_bert_layer")
    torch.manual_seed(0)
    layer = v7.BertLayer(v7.BertConfig(chunk_size_feed_forward=chunk)).eval()
    x = torch.randn(1, seq, 768)
    ffn = lambda h: v7.apply_chunking_to_forward(  # noqa: E731
        layer.feed_forward_chunk, chunk, 1, h)
    ffn(x[:, :chunk or 16])  # warm-up on one chunk: loads the math libraries
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")  # reset VmHWM to the current resident memory
        reset = True
    except OSError:
        reset = False
    before, peak_before = memory_kib("VmRSS"), memory_kib("VmHWM")
    y = ffn(x)
    peak_after = memory_kib("VmHWM")
    torch.save(y, out_path)
    print(json.dumps({"before": before * 1024, "peak_before": peak_before * 1024,
                      "peak_after": peak_after * 1024,
                      "reset": reset, "output": y.numel() * y.element_size()}))


def memory_run(chunk, args, out, env):
    """One fresh process at one chunk size: its figures (bytes) and its output."""
    cmd = [sys.executable, str(Path(__file__).resolve()), "--_memory-child", str(chunk),
           "--long-seq", str(args.long_seq), "--_out", str(out)]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        said = proc.stderr.strip().splitlines() or [f"exit status {proc.returncode}"]
        raise UserError(f"the memory run with chunk {chunk} failed ({one_line(said[-1])}): "
                        f"run it alone to see why: {' '.join(cmd)}")
    f = json.loads(proc.stdout.strip().splitlines()[-1])
    if f["peak_before"] > f["before"] + MiB:
        print(f"    note: chunk {chunk}: the peak could not be reset and an earlier one "
              f"({f['peak_before'] / MiB:.1f} MiB) was above the resident memory before the call "
              f"({f['before'] / MiB:.1f} MiB): understated")
    return f["peak_after"] - f["before"], f["output"], torch.load(out, weights_only=True)


def chunked_memory(args):
    # glibc's malloc keeps some freed buffers of a few MiB in its heap, so the same run peaks a few
    # MiB higher or lower from one process to the next: the median of --memory-runs, and a second
    # column with a fixed mmap threshold, where every large buffer is its own mapping, returned
    # when freed: the live tensors alone.
    fixed = {**os.environ, "MALLOC_MMAP_THRESHOLD_": str(128 * 1024)}
    extra, fixed_extra, y = {}, {}, {}
    with tempfile.TemporaryDirectory() as tmp:
        for chunk in (0, args.chunk):
            out = Path(tmp) / f"y{chunk}.pt"
            runs = [memory_run(chunk, args, out, os.environ) for _ in range(args.memory_runs)]
            extra[chunk], output, y[chunk] = (statistics.median(r[0] for r in runs),
                                              runs[0][1], runs[0][2])
            fixed_extra[chunk] = memory_run(chunk, args, out, fixed)[0]
    diff = (y[0] - y[args.chunk]).abs().max().item()
    print(f"(2) Chunked feed-forward, batch 1, seq {args.long_seq}, hidden 768, "
          "intermediate 3072, "
          f"fp32, eval, no grad; each run in a fresh process")
    print(f"    {'chunk':>8} {'peak extra MiB':>15} {'beyond the output':>18} "
          f"{'live tensors only':>18}")
    for chunk in extra:
        print(f"    {chunk:>8} {extra[chunk] / MiB:>15.1f} {(extra[chunk] - output) / MiB:>18.1f} "
              f"{fixed_extra[chunk] / MiB:>18.1f}")
    ratio = extra[0] / extra[args.chunk]
    print(f"    peak extra memory, chunk 0 / chunk {args.chunk}: {ratio:.1f}x lower; "
          f"beyond the output: "
          f"{(extra[0] - output) / (extra[args.chunk] - output):.1f}x; live tensors only: "
          f"{fixed_extra[0] / fixed_extra[args.chunk]:.1f}x")
    out, inter = output / MiB, 2 * args.long_seq * 3072 * 4 / MiB  # fp32 bytes, in MiB
    print(f"    in theory (live tensors): chunk 0 holds the intermediate and its activation, "
          f"2 x {args.long_seq} x 3072 floats = {inter:.1f} MiB; "
          f"chunk {args.chunk} holds {inter * args.chunk / args.long_seq:.1f} MiB of them")
    print(f"    at a time; a chunked run allocates the whole output ({out:.1f} MiB) before its "
          f"first chunk, so the output sets a floor under every chunked peak")
    print(f"    max |chunked - unchunked| = {diff:.1e}")


def saved_for_backward_bytes(v7, layer, x):
    """Bytes of the activations autograd saves when layer's FFN runs on x, chunked as layer is
    configured (the weights left out, x counted)."""
    weights = {w.data_ptr() for w in layer.parameters()}
    saved = {}

    def pack(t):
        if t.data_ptr() not in weights:
            saved[(t.data_ptr(), tuple(t.shape))] = t.numel() * t.element_size()
        return t
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        v7.apply_chunking_to_forward(layer.feed_forward_chunk, layer.chunk_size_feed_forward,
                                     layer.seq_len_dim, x)
    return sum(saved.values())


def saved_for_backward(args):
    """(3) In training, autograd keeps what each chunk needs for the backward pass: the bytes the
    FFN saves, with and without chunks."""
    v7 = load_train("v7_bert_layer")
    print(f"(3) Chunked feed-forward in training, batch 1, seq {args.train_seq}, hidden 768, "
          f"intermediate 3072, fp32: activations autograd saves for the backward pass")
    for chunk in (0, args.train_chunk):
        torch.manual_seed(0)
        layer = v7.BertLayer(v7.BertConfig(chunk_size_feed_forward=chunk))
        x = torch.randn(1, args.train_seq, 768, requires_grad=True)
        print(f"    chunk {chunk:>4}: {saved_for_backward_bytes(v7, layer, x) / MiB:6.1f} MiB "
              "saved for backward")
    print("    chunking saves memory in training only together with recomputation")


@command
def main(argv=None):
    p = ArgumentParser(__file__, __doc__)
    p.add_argument("--only", choices=["time", "memory", "training"],
                   help="run one of the three benchmarks (default: all)")
    p.add_argument("--batch", type=within(int, 1, 32), default=8,
                   help="batch for the timing (default: %(default)s)")
    p.add_argument("--seq", type=within(int, 1, 512), default=128,
                   help="sequence length for the timing (default: %(default)s)")
    p.add_argument("--repeats", type=within(int, 1, 1000), default=20,
                   help="timed runs of each layer (default: %(default)s)")
    p.add_argument("--warmup", type=within(int, 0, 100), default=3,
                   help="untimed runs first (default: %(default)s)")
    p.add_argument("--long-seq", type=within(int, 1, 16384), default=4096,
                   help="sequence length for the memory (default: %(default)s)")
    p.add_argument("--chunk", type=within(int, 1, 16384), default=256,
                   help="chunk size to compare with 0 (default: %(default)s)")
    p.add_argument("--train-seq", type=within(int, 1, 4096), default=512,
                   help="sequence length for the training figure (default: %(default)s)")
    p.add_argument("--train-chunk", type=within(int, 1, 4096), default=64,
                   help="chunk size for the training figure (default: %(default)s)")
    p.add_argument("--memory-runs", type=within(int, 1, 20), default=3,
                   help="processes per chunk size (default: %(default)s)")
    p.add_argument("--_memory-child", type=int, default=None, help=argparse.SUPPRESS)
    p.add_argument("--_out", type=Path, default=None, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args._memory_child is not None:
        memory_child(args._memory_child, args.long_seq, args._out)
        return 0
    if args.long_seq % args.chunk:
        p.error(f"--chunk ({args.chunk}) must divide --long-seq ({args.long_seq}), "
                "as apply_chunking_to_forward requires")
    if args.train_seq % args.train_chunk:
        p.error(f"--train-chunk ({args.train_chunk}) must divide --train-seq ({args.train_seq}), "
                "as apply_chunking_to_forward requires")
    try:
        import transformers
    except ImportError:
        p.error("transformers is not installed: pip install -r requirements.txt")
    print(f"torch {torch.__version__}, transformers {transformers.__version__}")
    if args.only in (None, "time"):
        forward_time(args)
    if args.only in (None, "memory"):
        if not Path("/proc/self/status").is_file():
            p.error("the memory benchmark reads /proc/self/status: "
                    "run it on Linux, or pass --only time")
        chunked_memory(args)
    if args.only in (None, "training"):
        saved_for_backward(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
