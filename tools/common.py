"""What the tools share: the ladder, importing a train.py, running train.py as child processes,
writing a file aside or a folder whole, and one error idiom. Bad input is one line on stderr,
`error: what was wrong: what to do`, exit status 2, found before any work; Ctrl-C is one line
and exit status 130.

    from common import ArgumentParser, UserError, command

    @command
    def main(argv=None):
        args = ArgumentParser(__file__, __doc__).parse_args(argv)
        raise UserError(f"no file at {args.path}: pass an existing file")

Only the standard library at the top (data/prepare.py uses this file): torch is imported inside
the functions that need it.
"""
import argparse
import contextlib
import csv
import errno
import fcntl
import functools
import importlib.util
import io
import os
import pickle
import signal
import subprocess
import sys
import tempfile
import time
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VERSIONS = ["v1_bigram", "v4_multihead", "v5_ffn", "v6_block", "v7_bert_layer", "v8_bert_mlm"]
# v8's loss is over the characters its input hides, the others' over every next character
OBJECTIVES = {**{v: "next character" for v in VERSIONS}, "v8_bert_mlm": "masked characters"}
RUN_FILES = ["ckpt.pt", "metrics.csv", "sample.txt"]  # a run's folder: each train.py's RUN
TINY_SHAKESPEARE_SHA256 = "86c4e6aa9db7c042ec79f339dcb96d42b0075e16b8fc2e86bf0ca57e2dc565ed"


# ------------------------------------------------------------------ the error idiom
class UserError(Exception):
    """Bad input, worded `what was wrong: what to do`; command() prints it as one line."""


def one_line(text):
    """text on one line: a newline or another control character (in a path, say) is escaped, as
    each train.py's one_line does."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in str(text))


UMASK = os.umask(0o022)  # read, and put back at once: the mode a new file gets
os.umask(UMASK)
# Ctrl-C; kill, timeout and job schedulers; a closed terminal or a dropped ssh
STOP_SIGNALS = [signal.SIGINT, signal.SIGTERM, signal.SIGHUP]


def stop(signum, frame):
    """The handler of the stop signals: the first stops the tool; the ones after it are ignored,
    so that what the first set going (stopping the runs, a swap) ends whole."""
    ignore_stop_signals()
    raise KeyboardInterrupt


def ignore_stop_signals():
    for signum in STOP_SIGNALS:
        signal.signal(signum, signal.SIG_IGN)


@contextlib.contextmanager
def signals_held():
    """The stop signals wait (blocked, as the operating system holds them) until the block ends;
    one that came meanwhile is answered then."""
    before = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


def command(main):
    """main(argv) as a tool runs: a UserError is one `error:` line and exit status 2; Ctrl-C,
    SIGTERM or SIGHUP is one `interrupted` line (and what the KeyboardInterrupt says) and 130, and
    so is a closed output (`| head`); a path the system refuses (a name too long) is one `error:`
    line."""
    @functools.wraps(main)
    def run(argv=None):
        for stream in (sys.stdout, sys.stderr):  # PYTHONIOENCODING=ascii: escaped, not a crash
            if hasattr(stream, "reconfigure"):
                stream.reconfigure(errors="backslashreplace")
        for signum in STOP_SIGNALS:  # SIGTERM and SIGHUP stop as Ctrl-C does
            signal.signal(signum, stop)
        try:
            return main(argv)
        except UserError as e:
            print(f"error: {one_line(e)}", file=sys.stderr)
            return 2
        except (KeyboardInterrupt, BrokenPipeError) as e:
            if isinstance(e, BrokenPipeError):  # | head has gone: nothing more goes there
                sys.stdout, e = None, "its output was closed"
            reason = one_line(e)  # none: the bare word, never an empty `interrupted: `
            print(f"interrupted{': ' * bool(reason)}{reason}", file=sys.stderr)
            return 130
        except OSError as e:  # what no check foresaw: a name too long, a disk gone
            print(f"error: {one_line(e.filename)}: {e.strerror or e}: choose another path",
                  file=sys.stderr)
            return 2
        finally:  # Python's shutdown puts back the default (death) for a handler of its own
            ignore_stop_signals()
    return run


class ArgumentParser(argparse.ArgumentParser):
    """argparse's, for the tool at `script`: usage `python tools/x.py`, the description the first
    paragraph of `doc`, no abbreviated flags, and an error is one UserError line."""

    def __init__(self, script, doc, **kwargs):
        path = Path(script).resolve()
        if path.is_relative_to(ROOT):  # as typed from the checkout's root
            path = path.relative_to(ROOT)
        prog = "python " + path.as_posix()
        super().__init__(prog=prog, description=doc.split("\n\n")[0], allow_abbrev=False,
                         **kwargs)

    def error(self, message):
        raise UserError(f"{message}: see {self.prog} --help")

    def parse_with_extra(self, argv=None):
        """The args, with args.extra the flags after a `--`: the ones for every train.py."""
        argv = list(sys.argv[1:] if argv is None else argv)
        cut = argv.index("--") if "--" in argv else len(argv)
        args = self.parse_args(argv[:cut])
        args.extra = argv[cut + 1:]
        return args


def within(kind, low, high):
    """A flag's type: an int or a float from low to high (nan is refused too)."""
    def number(text):
        value = kind(text)
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{text} is not from {low} to {high}")
        return value
    number.__name__ = kind.__name__  # argparse's message for "x": invalid int value: 'x'
    return number


def message(exit):
    """The text of a train.py's sys.exit("error: ...") without its `error: `."""
    return str(exit.code).removeprefix("error: ")


# ------------------------------------------------------------------ the ladder's train.py files
def import_path(path, name):
    """The Python file at path, imported as a new module called name."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Raising:
    """What a call that raised gives: it agrees with another call that raised the same kind of
    error. frames: the traceback in the learner's file, as text. (Defined here, in a module both
    of exercise.py's processes import by one name, so that it travels between them.)"""

    def __init__(self, error, frames):
        self.name = type(error).__name__
        self.frames = frames

    def __eq__(self, other):
        return isinstance(other, Raising) and other.name == self.name

    def __repr__(self):
        return f"raises {self.name}"


class Pickler(pickle.Pickler):
    """A pickler for what exercise.py's processes send each other: a plain CPU tensor as its
    bytes, dtype and shape (torch's own pickling of a tensor costs 25 times as long, and a
    check sends thousands)."""

    def reducer_override(self, obj):
        import torch

        if type(obj) is not torch.Tensor or obj.layout != torch.strided or obj.requires_grad:
            return NotImplemented
        if obj.device.type != "cpu" or obj.dtype == torch.bfloat16:  # numpy has no bfloat16
            return NotImplemented
        data = obj.contiguous().numpy().tobytes()
        return tensor_from_bytes, (data, obj.dtype, tuple(obj.shape))


def tensor_from_bytes(data, dtype, shape):
    """The tensor Pickler sent: its own copy of the bytes."""
    import torch

    if not data:  # frombuffer refuses an empty buffer
        return torch.empty(shape, dtype=dtype)
    return torch.frombuffer(bytearray(data), dtype=dtype).reshape(shape)


def dumps(value):
    """value pickled by Pickler."""
    buffer = io.BytesIO()
    Pickler(buffer).dump(value)
    return buffer.getvalue()


def load_source(source, name, path):
    """A program given as text (or a parsed tree) as a new module called name, its tracebacks
    naming path: a step's program, which has no file of its own. Importing runs nothing."""
    module = types.ModuleType(name)
    module.__file__ = str(path)
    sys.modules[name] = module  # a dataclass looks its module up
    exec(compile(source, str(path), "exec"), module.__dict__)
    return module


def load_train(version):
    """The module <version>/train.py, e.g. load_train("v8_bert_mlm"). Importing runs nothing."""
    return import_path(ROOT / version / "train.py", f"{version}_train")


def seed_losses(dataset, version, root=ROOT):
    """The final val loss of each seed in reference/<dataset>/seeds.csv for version (the
    defaults over ten seeds), [] where the file or the version is not there. root: the checkout
    (regen passes its own)."""
    path = root / "reference" / dataset / "seeds.csv"
    if not path.is_file():
        return []
    with open(path, newline="", encoding="utf-8") as f:
        return [float(r["val_loss"]) for r in csv.DictReader(f) if r["version"] == version]


def load_run(folder, version=None):
    """(train.py module, its model in eval mode on the CPU, the checkpoint dict) of the run in
    folder, loaded by its version's own load_checkpoint. version: the one expected, or None.
    The dict's hyperparameters are the ones the model was built with: a missing one (an older
    or hand-made checkpoint) is the version's default, as load_checkpoint reads it."""
    import torch

    path = Path(folder) / "ckpt.pt"
    if not path.is_file():
        raise UserError(f"no checkpoint at {path}: pass a run folder a train.py wrote")
    try:
        ckpt = torch.load(path, map_location="cpu", weights_only=True)
        found = ckpt["version"]
    except Exception as e:  # empty, truncated, not a checkpoint, a list, no "version"
        raise UserError(f"cannot read {path} ({type(e).__name__}): train again") from None
    if found not in VERSIONS or version not in (None, found):
        raise UserError(f"{path} holds a run of {found!r}, not {version or 'a version'} of "
                        f"this ladder ({', '.join(VERSIONS)}): pass another run")
    module = load_train(found)
    try:
        model, _ = module.load_checkpoint(argparse.Namespace(out=Path(folder), device="cpu"))
    except SystemExit as e:  # the version's own one line
        raise UserError(message(e)) from None
    defaults = {name: getattr(module, name) for name in module.HYPERPARAMETERS}
    ckpt["hyperparameters"] = {**defaults, **ckpt["hyperparameters"]}
    return module, model.eval(), ckpt


# ------------------------------------------------------------------ output, written aside
def check_folder(path, flag, named=None):
    """Refuse now, before any work, a folder the tool (or a train.py) could not make or write in:
    a file there or above it, or a folder that takes no new files. Missing folders are fine.
    named: the path the message names (a file to go in the folder), if not the folder itself;
    when the folder is there, the file aside() would write beside it is the one tried."""
    named = Path(named or path)
    folder = Path(path)
    while not folder.exists() and not folder.is_symlink():
        folder = folder.parent  # the nearest one that exists: the missing ones will be made
    if not folder.is_dir():
        where = "" if folder == named else f" is under {folder}, which"
        raise UserError(f"{flag} {named}{where} is a file, not a folder: choose another path")
    try:
        if named.parent == folder:  # its name too: a name too long fails here, not after
            beside(named).unlink()
        else:
            tempfile.TemporaryFile(dir=folder).close()
    except OSError as e:
        raise UserError(f"{flag} {named} cannot be written ({e.strerror or e}): choose another "
                        "path") from None


def check_output(path, flag, runs=()):
    """The one rule for a file a tool writes, checked now, before any work: never into a run's
    folder, or where a run the tool starts will write (runs: their --out folders), never over a
    folder or a FIFO, and never where it cannot be written. aside() then writes it beside and
    moves it into place, so a symlink at that name is replaced, never written through."""
    path = Path(path)
    if path.exists() and not path.is_file():
        raise UserError(f"{flag} {path} exists and is not a regular file: name a file")
    where = Path(os.path.realpath(path))
    for run in runs:
        run = Path(os.path.realpath(run))
        if where == run or run in where.parents:
            raise UserError(f"{flag} {path} is where a run this tool starts will write ({run}): "
                            "write it elsewhere")
    for folder in where.parents:
        if is_run_folder(folder):
            raise UserError(f"{flag} {path} is in {folder}, a run's folder, which holds its "
                            "three files and no more: write it elsewhere")
    check_folder(path.parent, flag, named=path)


def is_run_folder(folder):
    """Whether folder holds a run, as a train.py writes it: its three files and nothing else (a
    folder named ckpt.pt is the user's). The rule of each train.py's is_run: a test holds the two
    to each other."""
    folder = Path(folder)
    try:
        names = sorted(os.listdir(folder))
    except OSError:  # not a folder, or one the user may not list
        return False
    return names == RUN_FILES and all((folder / name).is_file() for name in names)


def beside(path):
    """A new file beside path, named after it and unique (two writers never share it), which
    keeps its suffix (.png stays .png for matplotlib)."""
    fd, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.stem}.",
                                suffix=f".partial{path.suffix}")
    os.close(fd)
    os.chmod(name, 0o666 & ~UMASK)  # mkstemp's 0600 would keep the file from the user's group
    return Path(name)


@contextlib.contextmanager
def aside(path):
    """Yields a name beside path to write to; moved onto path (os.replace) when the block ends (a
    symlink there is replaced, what it names is kept). Any failure (a full disk) removes it, and
    path stays as it was: one UserError line."""
    path, tmp = Path(path), None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = beside(path)
        yield tmp
        os.replace(tmp, path)
    except OSError as e:
        advice = "free some space" if e.errno == errno.ENOSPC else "choose another path"
        raise UserError(f"cannot write {path} ({e.strerror or e}): it is as it was; {advice}") \
            from None
    finally:
        with contextlib.suppress(OSError):  # moved in, or never made
            if tmp:
                tmp.unlink()


def check_new_folder(path, flag, ours, kind):
    """The folder path resolves to (symlinks followed), refused now, before any work, unless a
    tool may replace it whole: it is new, empty, or ours(folder) says it holds `kind`. Never
    the current folder or one above it, never a mount point (it cannot be moved aside), never a
    file, never a folder inside a run's or one that holds `kind`."""
    folder = Path(os.path.realpath(path))
    if folder in [Path.cwd(), *Path.cwd().parents] or os.path.ismount(folder):
        raise UserError(f"{flag} {folder} is the current folder, one above it or a mount point: "
                        f"pass a folder of its own, e.g. {folder / 'run'}")
    check_folder(folder, flag)
    if not replaceable(folder, ours):
        raise UserError(f"{flag} {folder} holds files that are not {kind}: pass a new folder")
    for above in folder.parents:
        holds_kind = False  # a folder the user may not list holds none of ours
        if above.is_dir() and os.access(above, os.R_OK) and os.listdir(above):
            holds_kind = ours(above)
        if is_run_folder(above) or holds_kind:
            raise UserError(f"{flag} {folder} is inside {above}, which holds {kind} or a run: "
                            "pass a folder outside it")
    return folder


def replaceable(folder, ours):
    """Whether a tool may replace folder whole: it is missing, empty, or ours(folder)."""
    if not os.path.lexists(folder):
        return True
    return folder.is_dir() and (not os.listdir(folder) or ours(folder))


LOCKS = []  # the file descriptors of the locks new_folder holds now


@contextlib.contextmanager
def new_folder(path, flag, ours, kind, names=()):
    """The one way a tool writes a folder whole, by the rules a train.py writes its run by. It
    yields an empty folder to fill, .NAME.partial/new beside path, on its filesystem, under the
    operating system's lock (a second writer is refused; the lock dies with the process, however
    it ends). When the block ends, path is looked at again and replaced in two renames, with the
    stop signals held, so it holds the old content or the new, never a mix. Nothing is removed
    that this command did not make, or that is not a tool's: the old folder's runs and the files
    in names go, anything else is kept under a name this says; folders made above path go only
    while empty. Any failure or stop leaves path as it was."""
    folder = check_new_folder(path, flag, ours, kind)
    partial = folder.parent / f".{folder.name}.partial"
    made = []  # the folders this command made above path, outermost first
    lock = None
    if os.path.islink(partial):  # never through a link: what it names is not ours
        raise UserError(f"{partial} is a link: remove it, or pass another folder")
    try:
        try:
            for above in reversed(folder.parents):
                if not os.path.lexists(above):
                    os.mkdir(above)
                    made.append(above)
            os.makedirs(partial, exist_ok=True)  # one a command that died left is taken over
            lock = open(partial / "lock", "a")
        except OSError as e:
            raise UserError(f"cannot make {one_line(e.filename)} ({e.strerror or e}): choose "
                            "another path") from None
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)  # released when this process ends
        except BlockingIOError:
            lock.close()
            lock = None
            raise UserError(f"another command is writing {folder}: wait until it ends, or pass "
                            "another folder") from None
        LOCKS.append(lock.fileno())  # held by the runs it starts too: see train_all
        recover(partial, folder)
        (partial / "new").mkdir()
        yield partial / "new"
        if not replaceable(folder, ours):  # the user put a file there meanwhile
            raise UserError(f"{folder} now holds files that are not {kind}, so it is as it was: "
                            f"what was written is in {keep(partial / 'new', folder)}")
        with signals_held():
            try:
                if os.path.lexists(folder):
                    os.replace(folder, partial / "old")
                os.replace(partial / "new", folder)
            except OSError as e:
                raise UserError(f"cannot write {folder} ({e.strerror or e}): it is as it was") \
                    from None
        if not remove_written(partial / "old", names):
            print(f"note: {keep(partial / 'old', folder)} holds what came into {folder} as it "
                  "was replaced", file=sys.stderr)
    finally:
        if lock is not None:
            if os.path.isdir(partial / "old") and not os.path.lexists(folder):
                os.replace(partial / "old", folder)  # the swap went half way: the old is back
            if not remove_written(partial / "new", names):
                print(f"note: {keep(partial / 'new', folder)} holds what this command could not "
                      "remove", file=sys.stderr)
            os.unlink(partial / "lock")
            remove_empty(partial)
            if lock.fileno() in LOCKS:
                LOCKS.remove(lock.fileno())
            lock.close()
        for above in reversed(made):
            if os.path.lexists(folder) or not remove_empty(above):
                break


def recover(partial, folder):
    """What a writer that died left in partial (its lock is free): the folder it had moved aside
    goes back if folder is missing; anything else is kept beside folder, under a name this says."""
    for name in sorted(os.listdir(partial)):
        if name == "old" and not os.path.lexists(folder):
            os.replace(partial / name, folder)
            print(f"note: {folder} is back: a command that died had moved it aside",
                  file=sys.stderr)
        elif name != "lock":
            print(f"note: {keep(partial / name, folder)} holds what a command that died left "
                  f"in {partial}", file=sys.stderr)


def keep(path, folder):
    """path, a file or a folder, moved beside folder as NAME.kept-1 (or -2, ...): that name."""
    n = 1
    while os.path.lexists(f"{folder}.kept-{n}"):
        n += 1
    os.rename(path, f"{folder}.kept-{n}")
    return one_line(f"{folder}.kept-{n}")


def remove_written(folder, names):
    """Remove what a tool wrote in folder: each run's three files (in run folders at any depth),
    the files named in names, then each folder left empty, deepest first. Whether folder is gone
    (anything else in it is the user's, and stays). Nothing is removed recursively."""
    if not os.path.isdir(folder):
        return not os.path.lexists(folder)
    for root, _, files in os.walk(folder, topdown=False):
        root = Path(root)
        a_run = is_run_folder(root)
        for name in files:
            if name in names or a_run and name in RUN_FILES:
                os.unlink(root / name)
        remove_empty(root)
    return not os.path.lexists(folder)


def remove_empty(folder):
    """os.rmdir: a folder goes only while empty. Whether it is gone."""
    try:
        os.rmdir(folder)
    except OSError:  # missing, or it holds something
        return not os.path.lexists(folder)
    return True


def write_text(path, text):
    with aside(path) as tmp:
        tmp.write_text(text, encoding="utf-8")


def write_csv(path, rows):
    """rows (dicts with the same keys) as a CSV file with a header, written aside."""
    with aside(path) as tmp, open(tmp, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def pyplot():
    import matplotlib

    matplotlib.use("Agg")  # draw to a file: no window, works without a display
    import matplotlib.pyplot as plt
    return plt


# ------------------------------------------------------------------ train.py runs
OWN_FLAGS = ("--out", "--seed", "--data")  # the tools set these for every run they start


def check_flags(script, name, flags, extra, out=None):
    """Refuse now what the train.py at script would refuse later, before any run starts, with its
    own functions, as its main calls them: its flags (its parser), its --out if out is given (its
    Run's checks), then its prepare(): its data, its model's sizes and memory (built on the meta
    device first) and its prompt (a dry run of its sample). flags: the ones the tool sets;
    extra: the user's, after --; name: how the error names the run."""
    said = [f for f in extra for own in OWN_FLAGS if f == own or f.startswith(own + "=")]
    if said:
        raise UserError(f"{said[0].split('=')[0]} after -- is this tool's own: pass it before "
                        "the --")
    module = import_path(script, f"check_{Path(script).parent.name}")
    argv = [*map(str, flags), *extra]
    if out:
        argv += ["--out", str(out)]
    try:
        args = module.parse_args(argv)
        if args.generate:
            raise UserError("--generate after -- would only sample from old runs: leave it out")
        if out:
            module.Run(args)  # its checks of --out, as its main makes them
        module.prepare(args)  # its data, its model and its prompt, as its main checks them
    except SystemExit as e:
        if not isinstance(e.code, str):  # --help printed the help and stopped
            raise UserError(f"the flags after -- stop {name} before it trains: pass only "
                            "training flags") from None
        raise UserError(f"{name}: {message(e)}") from None
    except ValueError as e:  # a rule of the lesson's, as it words it
        raise UserError(f"{name}: {one_line(e)}") from None


def last_line(log, code):
    """What a run into out said last on stderr (its error, or what it saved when stopped); a run
    that said nothing: finished, stopped by SIGTERM while Python started (it wrote nothing), or
    killed (the next run into out takes over what it left)."""
    log.seek(0)
    lines = log.read().strip().splitlines()
    if lines:
        return one_line(lines[-1])
    if code == 0:
        return "finished"
    if code > 0:
        return f"exit status {code}"
    if code == -signal.SIGTERM:
        return "stopped while Python started: nothing was written"
    return f"killed by signal {-code}"


def train_all(runs, jobs=1, done=lambda i, rows: None):
    """Run train.py once per run, [(name, script, out, flags)], each its own process (train.py
    uses one CPU thread) in a session of its own, so that a terminal's Ctrl-C reaches this tool
    alone, `jobs` at a time; returns each run's metrics rows, in order. done(i, rows) is called
    as run i finishes. A bar on a terminal's stderr counts the runs. A failed run, Ctrl-C or
    SIGTERM stops every running run once (SIGTERM: each saves what it trained, as train.py does
    when stopped), starts no more, and says what each stopped run said it saved."""
    from tqdm import tqdm

    waiting, running, results, shown = list(range(len(runs))), {}, {}, 0.0
    bar = tqdm(total=len(runs), unit="run", leave=False,
               disable=not (sys.stderr and sys.stderr.isatty()))
    try:
        while waiting or running:
            while waiting and len(running) < jobs:
                i = waiting.pop(0)
                name, script, out, flags = runs[i]
                log = tempfile.TemporaryFile("w+")  # a file, not a pipe: it never fills up
                cmd = [sys.executable, str(script), "--out", str(out), *map(str, flags)]
                # each run holds the locks of the folders this tool writes, so that if the
                # tool is killed (kill -9) while they run, no one takes their folder over
                running[i] = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=log,
                                              start_new_session=True, pass_fds=LOCKS), log
            if time.time() - shown > 0.5:  # the names of the runs, and the time, move on
                bar.set_description(", ".join(runs[i][0] for i in running))
                shown = time.time()
            for i, (proc, log) in list(running.items()):
                if proc.poll() is None:
                    continue
                del running[i]
                if proc.returncode:
                    raise UserError(f"{runs[i][0]} failed "
                                    f"({last_line(log, proc.returncode)}): "
                                    f"run it alone to see why: python {' '.join(proc.args[1:])}")
                with open(Path(runs[i][2]) / "metrics.csv", newline="") as f:
                    results[i] = list(csv.DictReader(f))
                bar.update()
                bar.clear()  # done() may print a line
                done(i, results[i])
            time.sleep(0.05)
    except (KeyboardInterrupt, BrokenPipeError):  # Ctrl-C, SIGTERM, or done()'s | head gone
        said = stop_runs(runs, running)
        raise KeyboardInterrupt(f"{len(results)} of {len(runs)} runs finished{said}") from None
    finally:
        bar.close()
        stop_runs(runs, running)
    return [results[i] for i in range(len(runs))]


def stop_runs(runs, running):
    """SIGTERM, once, to each running run, then its own last line: '; NAME: stopped at step 9:
    saved in OUT' for each. The stop signals are held meanwhile; a run that does not stop
    within 30 s is killed (the next run into its folder takes over what it left)."""
    said = ""
    with signals_held():
        for proc, _ in running.values():
            proc.terminate()  # SIGTERM: train.py saves what it trained and stops
        for i, (proc, log) in list(running.items()):
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            said += f"; {runs[i][0]}: {last_line(log, proc.returncode)}"
            del running[i]
    return said


def check_jobs(jobs):
    """--jobs: from 1 to this machine's cores, since each run uses one thread."""
    cores = os.cpu_count() or 1
    if not 1 <= jobs <= cores:
        raise UserError(f"--jobs must be from 1 to {cores} (this machine's CPU cores), got {jobs}")
