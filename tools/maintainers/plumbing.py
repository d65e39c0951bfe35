# ========================== plumbing below: the same in every version; you may stop reading here
import argparse, fcntl, hashlib, io, os, pathlib, signal, sys, time, warnings  # noqa
from tqdm import tqdm
HYPERPARAMETERS = [k for k, v in globals().items() if type(v) in (int, float, str) and k[0] != "_"]
VERSION = pathlib.Path(__file__).resolve().parent.name  # v1_bigram, or a step's name
# each number flag's range; any other int's is 1 to 10**6 (seed + 1 is used too; a model of
# 1,000 layers takes seconds to build, and of 10**6 hours)
RANGES = {"lr": (1e-6, 10.0), "seed": (0, 2**63 - 2), "dropout": (0.0, 0.9), "n_layer": (1, 1000),
          "mask_prob": (0.01, 1.0), "chunk_size_ff": (0, 10**6), "sample_chars": (0, 10**5)}
RUN_FILES = ["ckpt.pt", "metrics.csv", "sample.txt"]  # a run's folder: these three, no more
# Ctrl-C; kill, timeout and job schedulers; a closed terminal or a dropped ssh
STOP_SIGNALS = [signal.SIGINT, signal.SIGTERM, signal.SIGHUP]
class ArgumentParser(argparse.ArgumentParser):
    def error(self, message):  # one line, not argparse's usage block
        sys.exit(f"error: {one_line(message)}: see --help")
def parse_args(argv=None):  # a flag for each hyperparameter, then the run's own
    parser = ArgumentParser(allow_abbrev=False, description="--batch-size sets batch_size, etc.")
    for name in HYPERPARAMETERS:
        default = globals()[name]
        parser.add_argument(flag(name), type=type(default), default=default)
    devices = [d for d in ("cuda", "mps") if getattr(torch, d).is_available()]
    devices.append("cpu")  # auto takes the first: CUDA, then Apple's GPU, then the CPU
    parser.add_argument("--device", default="auto", choices=["auto", *devices])
    parser.add_argument("--data", type=pathlib.Path, default=pathlib.Path("data/tinyplays.txt"))
    parser.add_argument("--out", type=pathlib.Path, default=pathlib.Path("runs", VERSION))
    parser.add_argument("--generate", action="store_true", help="sample from the run in --out")
    parser.add_argument("--prompt", default="", help="the text to start from: see sample()")
    args = parser.parse_args(argv)
    for name in HYPERPARAMETERS:
        value = getattr(args, name)
        low, high = RANGES.get(name, (1, 10**6))
        if type(value) is not str and not low <= value <= high:  # nan is refused too
            parser.error(f"argument {flag(name)}: {value} is not from {low} to {high}")
    if args.device == "auto":
        args.device = devices[0]
    return args
def flag(name):
    return "--" + name.replace("_", "-")
def one_line(text):  # a newline or another control character (in a path, say) escaped
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in str(text))
def say(line):  # on stderr, if it is still there: a closed terminal must not stop a save
    try:
        print(line, file=sys.stderr, flush=True)
    except (OSError, ValueError):  # gone with the terminal, or closed
        pass
def load_data(args):  # the text's characters, its splits, and its sha256 for the checkpoint
    data = one_line(args.data)
    try:
        if not args.data.is_file() or args.data.stat().st_size > 2**27:  # a FIFO: no end
            sys.exit(f"error: --data {data} is not a file of 128 MiB at most: pass a text")
        data_sha256 = hashlib.sha256(args.data.read_bytes()).hexdigest()
        chars, splits = read_data(args.data)
    except (OSError, UnicodeError) as e:
        sys.exit(f"error: cannot read --data {data} ({one_line(e)}): pass a UTF-8 text")
    if min(len(split) for split in splits.values()) <= args.block_size:
        sys.exit(f"error: --data {data} is too short: pass a longer text or a lower --block-size")
    return chars, splits, data_sha256
# A new model is built first on the meta device (shapes, no memory): the lesson's own checks run,
# and the memory that training needs is counted, before any weight exists.
def build_model(args, vocab_size):
    sizes = {name: getattr(args, name) for name in MODEL_ARGS}
    with torch.device("meta"):
        model = LanguageModel(vocab_size, **sizes)
        x = torch.zeros(args.batch_size, args.block_size, dtype=torch.long)  # (B, T)
        kept = []  # each tensor the forward keeps for backward, which makes a gradient of each
        with torch.autograd.graph.saved_tensors_hooks(kept.append, lambda nothing: nothing):
            model(x, x)
    # the weights, their gradients and AdamW's two averages; then the batch's tensors, twice
    needed = 4 * sum(p.numel() * p.element_size() for p in model.parameters())
    needed += 2 * sum(t.numel() * t.element_size() for t in kept)
    available = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")  # Apple's GPU's too
    if args.device == "cuda":
        available = torch.cuda.get_device_properties(0).total_memory
    if needed > available:
        sys.exit(f"error: these sizes need about {needed / 2**30:.1f} GiB to train, more than the "
                 f"{available / 2**30:.1f} GiB of {args.device}: lower the batch's or the model's")
    return LanguageModel(vocab_size, **sizes)
def check_prompt(model, chars, args):  # refused now: what the model never saw, or sample() won't
    unknown = "".join(sorted(set(args.prompt) - set(chars)))
    if unknown:
        sys.exit(f"error: the prompt has characters the model never saw: {unknown!r}")
    dry_run = argparse.Namespace(**vars(args))
    dry_run.sample_chars = 0
    sample(model, chars, dry_run)  # the lesson's own checks of the prompt
def prepare(args):  # the text, and a new model on the device: all checked before any work
    chars, splits, data_sha256 = load_data(args)
    model = build_model(args, len(chars)).to(args.device)
    check_prompt(model, chars, args)
    return model, chars, splits, data_sha256
def load_checkpoint(args):  # the run in --out, each part checked: a file may be made by hand
    path = args.out / "ckpt.pt"
    made_by = VERSION
    try:
        if not path.is_file():  # missing; a FIFO would never end
            raise FileNotFoundError(path)
        with warnings.catch_warnings():  # torch's about pickle protocols: our line says more
            warnings.simplefilter("ignore")
            ckpt = torch.load(path, map_location=args.device, weights_only=True)
        made_by = ckpt["version"]
        chars = ckpt["chars"]
        if made_by != VERSION:
            raise ValueError("another version's")
        # read_data's vocabulary: each character once, sorted after the first (v8's blank)
        if chars[0] in chars[1:] or list(chars[1:]) != sorted(set(chars[1:])):
            raise ValueError("characters in an order read_data would not write")
        if not all(tensor.isfinite().all() for tensor in ckpt["state_dict"].values()):
            raise ValueError("weights that are not numbers")
        hp = vars(parse_args([f"{flag(k)}={v}" for k, v in ckpt["hyperparameters"].items()]))
        model = LanguageModel(len(chars), **{name: hp[name] for name in MODEL_ARGS})
        model.load_state_dict(ckpt["state_dict"])
    except (Exception, SystemExit) as e:  # another rung or step may have the same shapes
        why = type(e).__name__
        if made_by != VERSION:
            why = f"a run of {one_line(made_by)}"
        sys.exit(f"error: cannot load {one_line(path)} ({why}): pass --out a run of {VERSION}, "
                 "or train one")
    return model.to(args.device), chars
def is_run(folder):  # its three files and nothing else (a folder named ckpt.pt is the user's)
    names = sorted(os.listdir(folder))
    return names == RUN_FILES and all((folder / name).is_file() for name in names)
def replaceable(folder):  # what a run may replace: nothing, an empty folder, or a run's
    if not os.path.lexists(folder):
        return True
    return folder.is_dir() and (not os.listdir(folder) or is_run(folder))
# The run: what train() logs to, and --out, replaced whole by it with nothing else touched. It
# works in .NAME.partial beside --out (on its filesystem: a rename moves a folder whole), under
# the operating system's lock, which dies with the process however it ends.
class Run:
    def __init__(self, args):
        self.args = args
        self.out = pathlib.Path(os.path.realpath(args.out))  # a symlink: the folder it names
        self.partial = self.out.parent / f".{self.out.name}.partial"
        # the folders this run will make above --out (innermost first): they go while empty
        self.made = [folder for folder in self.out.parents if not os.path.lexists(folder)]
        self.lock = None  # .NAME.partial/lock, open and locked while this run holds it
        self.rows = []  # (step, train loss, val loss, seconds): metrics.csv
        self.steps = 0  # steps trained: a run stopped before its first has nothing to save
        try:
            self.check()
        except OSError as e:  # a name too long, say
            sys.exit(f"error: --out {one_line(self.out)}: {e.strerror}: pass another --out")
    def check(self):  # before any work: can this run replace --out?
        out = one_line(self.out)
        above = next((f for f in self.out.parents if os.path.lexists(f)), self.out)
        if self.out == pathlib.Path.cwd():
            sys.exit(f"error: --out {out} is the current folder: pass a folder of its own")
        if not above.is_dir() or os.path.lexists(self.out) and not self.out.is_dir():
            sys.exit(f"error: --out {out} is not a folder, or is in a file: pass a folder")
        if not replaceable(self.out):
            sys.exit(f"error: --out {out} holds files that are not a run's: pass a new folder, "
                     "an empty one or a run's")
        if is_run(above):
            sys.exit(f"error: --out {out} would be inside {one_line(above)}, a run's folder, "
                     "which holds its three files and no more: pass another")
        if os.path.ismount(self.out) or self.out.is_dir() and not os.access(self.out, os.W_OK):
            sys.exit(f"error: --out {out} is a mount point or read-only, so it cannot be moved "
                     "aside: pass a folder inside it, or another")
    def take(self):  # .NAME.partial and the folders above it made, then locked
        if os.path.islink(self.partial):  # never through a link: what it names is not ours
            sys.exit(f"error: {one_line(self.partial)} is a link: remove it, or pass another --out")
        try:
            os.makedirs(self.partial, exist_ok=True)  # one a run that died left is taken over
            lock = open(self.partial / "lock", "a")
        except OSError as e:
            sys.exit(f"error: cannot make {one_line(e.filename)} ({e.strerror}): pass another "
                     "--out")
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)  # released when this process ends
        except BlockingIOError:
            lock.close()
            sys.exit(f"error: another run is writing {one_line(self.out)}: wait until it ends, "
                     "or pass another --out")
        self.lock = lock
        for name in sorted(os.listdir(self.partial)):  # what a run that died left there
            if name == "old" and not os.path.lexists(self.out):  # it had moved --out aside
                os.replace(self.partial / name, self.out)
                say(f"note: {one_line(self.out)} is back: a run that died had moved it aside")
            elif name != "lock":
                say(f"note: {self.keep(self.partial / name)} holds what a run that died left")
        if not replaceable(self.out):  # what was put back holds files of the user's
            sys.exit(f"error: --out {one_line(self.out)} holds files that are not a run's: pass "
                     "a new folder, an empty one or a run's")
        self.start = time.time()
    def evaluation(self, step, losses):  # and a bar, on a terminal, for the steps to the next
        self.rows.append((step, losses["train"], losses["val"], time.time() - self.start))
        left = min(self.args.eval_interval, self.args.max_iters - step)
        self.bar = tqdm(total=left, leave=False, disable=left == 0 or not os.isatty(2))
    def step(self, step, loss):
        if not torch.isfinite(loss):
            sys.exit(f"error: the loss became {loss.item()} at step {step}: lower --lr")
        self.bar.update()
        if self.bar.n == self.bar.total:  # the estimate's line comes next: the bar goes first
            self.bar.close()
        self.steps = step + 1
    def keep(self, path):  # a file or a folder moved beside --out, as NAME.kept-1 (-2, ...)
        n = 1
        while os.path.lexists(f"{self.out}.kept-{n}"):
            n += 1
        os.rename(path, f"{self.out}.kept-{n}")
        return one_line(f"{self.out}.kept-{n}")
    def save(self, model, chars, text, data_sha256):  # written aside, looked at again, swapped in
        new = self.partial / "new"
        checkpoint = io.BytesIO()
        torch.save({"version": VERSION, "step": self.steps, "chars": chars,
                    "hyperparameters": {k: getattr(self.args, k) for k in HYPERPARAMETERS},
                    "data_sha256": data_sha256, "state_dict": model.state_dict()}, checkpoint)
        metrics = ["step,train_loss,val_loss,elapsed_s\n"]
        for row in self.rows:
            metrics.append("%d,%.6f,%.6f,%.2f\n" % row)
        files = {"ckpt.pt": checkpoint.getvalue(), "metrics.csv": "".join(metrics).encode(),
                 "sample.txt": text.encode("utf-8")}
        path = new
        try:
            os.mkdir(new)
            for name, content in files.items():
                path = new / name
                path.write_bytes(content)
        except OSError as e:  # a full disk
            sys.exit(f"error: cannot write {one_line(path)} ({e.strerror}): the training is "
                     "lost, and --out is as it was: free some space, or pass another --out")
        if not replaceable(self.out):  # the user put a file into --out while the run trained
            sys.exit(f"error: {one_line(self.out)} now holds files that are not a run's, so it "
                     f"is as it was: the training is saved in {self.keep(new)}")
        try:
            if os.path.lexists(self.out):
                os.replace(self.out, self.partial / "old")
            os.replace(new, self.out)
        except OSError as e:  # a mount point, or read-only: close() puts the old run back
            sys.exit(f"error: cannot move the run into {one_line(self.out)} ({e.strerror}): it "
                     f"is as it was, and the training is saved in {self.keep(new)}")
        remove_run(self.partial / "old")  # anything else in it: the next run keeps it
    def close(self):  # the old run back if a swap went half way; what this run made goes
        if self.lock is not None:
            if os.path.isdir(self.partial / "old") and not os.path.lexists(self.out):
                os.replace(self.partial / "old", self.out)
            remove_run(self.partial / "new")  # written, then a full disk
            os.unlink(self.partial / "lock")
            remove_empty(self.partial)
            self.lock.close()
        for folder in self.made:
            if os.path.lexists(self.out) or not remove_empty(folder):
                break
def remove_run(folder):  # a run's three files, by name, then its folder if now empty
    for name in RUN_FILES:
        if os.path.isfile(folder / name):
            os.unlink(folder / name)
    remove_empty(folder)
def remove_empty(folder):  # os.rmdir: never what is in a folder. Whether the folder is gone
    try:
        os.rmdir(folder)
    except OSError:  # missing, or it holds something this run did not make
        return not os.path.lexists(folder)
    return True
def stop(signum, frame):  # the run stops; the next signals are ignored, so a save ends whole
    ignore_stop_signals()
    raise KeyboardInterrupt
def ignore_stop_signals():
    for signum in STOP_SIGNALS:
        signal.signal(signum, signal.SIG_IGN)
def train_into(run, args):  # the checks, the training and the save: the exit status
    torch.manual_seed(args.seed)
    model, chars, splits, data_sha256 = prepare(args)
    run.take()
    text = "(stopped: no sample)\n"
    error = None
    status = 130
    try:
        train(model, splits, args, run)
        text = sample(model, chars, args)
        print(text, flush=True)
        status = 0
    except KeyboardInterrupt:
        pass
    except OSError:  # the output closed (| head), full (> /dev/full) or gone with the terminal
        sys.stdout = None
    except ValueError as e:  # v8's sample reads the text again: it may have gone
        error = one_line(e)
        text = f"(no sample: {error})\n"
        status = 1
    ignore_stop_signals()  # from here the save is never cut short
    if run.steps == 0:
        say("stopped at step 0: nothing was written")
        return status
    run.save(model, chars, text, data_sha256)
    if error is not None:
        say(f"error: {error}: the run is saved in {one_line(run.out)}, without a sample")
    elif status == 130:
        say(f"stopped at step {run.steps}: saved in {one_line(run.out)}")
    return status
def main(argv=None):  # 0 done, 1 an error (one line on stderr), 130 stopped
    for signum in STOP_SIGNALS:
        signal.signal(signum, stop)
    if sys.stdout is not None:  # None when closed (>&-)
        sys.stdout.reconfigure(errors="backslashreplace")  # a character the terminal cannot show
    torch.set_num_threads(1)  # one thread: a seed gives the same figures on any machine
    run = None
    try:
        args = parse_args(argv)
        if not args.generate:
            run = Run(args)  # --out checked, before any work
            return train_into(run, args)
        model, chars = load_checkpoint(args)
        check_prompt(model, chars, args)
        text = sample(model, chars, args)
        try:
            print(text, flush=True)
        except OSError:  # the output closed (| head) or full: nothing more goes there
            sys.stdout = None
            say("stopped: nothing was written")
            return 130
        return 0
    except ValueError as e:  # a rule of the lesson's, as it words it, before any training
        sys.exit(f"error: {one_line(e)}")
    except KeyboardInterrupt:  # Ctrl-C, SIGTERM or SIGHUP before the training, or | head
        say("stopped: nothing was written")
        return 130
    finally:
        ignore_stop_signals()  # Python's shutdown would put back the default: death
        if run is not None:
            run.close()  # the lock goes with the process
if __name__ == "__main__":
    sys.exit(main())
