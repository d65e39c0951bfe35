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
import functools
import importlib.util
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
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
    return " ".join(str(text).split())


UMASK = os.umask(0o022)  # read, and put back at once: the mode a new file gets
os.umask(UMASK)
HELD = []  # a stop or the end under way: Ctrl-C and SIGTERM then change nothing (see stop)


def stop(signum, frame):
    """The handler of Ctrl-C and SIGTERM: the first stops the tool; the ones after it, and any
    once main() has returned, do nothing, so that what the first set going (saving, stopping the
    runs) ends whole and the exit status is main()'s."""
    if not HELD:
        HELD.append(signum)
        raise KeyboardInterrupt


def command(main):
    """main(argv) as a tool runs: a UserError is one `error:` line and exit status 2; Ctrl-C or
    SIGTERM is one `interrupted` line (and what the KeyboardInterrupt says) and 130, and so is a
    closed output (`| head`); a path the system refuses (a name too long) is one `error:` line."""
    @functools.wraps(main)
    def run(argv=None):
        for stream in (sys.stdout, sys.stderr):  # PYTHONIOENCODING=ascii: escaped, not a crash
            if hasattr(stream, "reconfigure"):
                stream.reconfigure(errors="backslashreplace")
        HELD.clear()
        for s in (signal.SIGINT, signal.SIGTERM):  # SIGTERM stops as Ctrl-C does
            signal.signal(s, stop)
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
            for s in (signal.SIGINT, signal.SIGTERM):
                signal.signal(s, signal.SIG_IGN)
    return run


class ArgumentParser(argparse.ArgumentParser):
    """argparse's, for the tool at `script`: usage `python tools/x.py`, the description the first
    paragraph of `doc`, no abbreviated flags, and an error is one UserError line."""

    def __init__(self, script, doc, **kwargs):
        prog = "python " + Path(script).resolve().relative_to(ROOT).as_posix()
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
        if not low <= (value := kind(text)) <= high:
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


def load_train(version):
    """The module <version>/train.py, e.g. load_train("v8_bert_mlm"). Importing runs nothing."""
    return import_path(ROOT / version / "train.py", f"{version}_train")


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
        model, _, _ = module.load_checkpoint(argparse.Namespace(out=Path(folder), device="cpu"))
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


def check_output(path, flag):
    """Refuse now, before any work, a file path the tool could not write: a folder, a FIFO, a
    file in a run's folder, or one check_folder refuses (its aside name too long, say)."""
    path = Path(path)
    if path.exists() and not path.is_file():
        raise UserError(f"{flag} {path} exists and is not a regular file: name a file")
    if is_run_folder(path.parent):
        raise UserError(f"{flag} {path} is in {path.parent}, a run's folder, which holds its "
                        "three files and no more: write it elsewhere")
    check_folder(path.parent, flag, named=path)


def is_run_folder(folder):
    """Whether folder holds a run, as a train.py writes it: its three files and nothing else."""
    return folder.is_dir() and sorted(os.listdir(folder)) == RUN_FILES


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
    file, never a folder inside one that holds `kind`, never a folder another run of the tool is
    writing (its .NAME.partial is there)."""
    folder = Path(os.path.realpath(path))
    if folder in [Path.cwd(), *Path.cwd().parents] or os.path.ismount(folder):
        raise UserError(f"{flag} {folder} is the current folder, one above it or a mount point: "
                        f"pass a folder of its own, e.g. {folder / 'run'}")
    check_folder(folder, flag)
    if os.path.lexists(folder) and (not folder.is_dir() or (os.listdir(folder) and not ours(
            folder))):
        raise UserError(f"{flag} {folder} holds files that are not {kind}: pass a new folder")
    if above := [f for f in folder.parents  # one the user may not list holds none of theirs
                 if os.access(f, os.R_OK) and f.is_dir() and os.listdir(f) and ours(f)]:
        raise UserError(f"{flag} {folder} is inside {above[0]}, which holds {kind}: pass a "
                        "folder outside it")
    partial = folder.parent / f".{folder.name}.partial"
    if os.path.lexists(partial):
        raise UserError(f"{partial} exists: another run is writing {folder}; if none is, delete "
                        "it and run again")
    return folder


@contextlib.contextmanager
def new_folder(path, flag, ours, kind):
    """The one way a tool writes a folder whole: yields an empty folder beside path, on its
    filesystem, to fill; when the block ends, path is replaced by it in two renames, with Ctrl-C
    and SIGTERM held off, so path holds the old content or the new, never a mix. Any failure or
    stop leaves path as it was. Checked first by check_new_folder."""
    folder = check_new_folder(path, flag, ours, kind)
    partial = folder.parent / f".{folder.name}.partial"
    try:
        partial.mkdir(parents=True)  # this command's alone: a second one fails here
        (partial / "new").mkdir()
    except OSError as e:
        advice = "if no run is writing it, delete it" if isinstance(e, FileExistsError) else \
            "choose another path"
        raise UserError(f"cannot make {partial} ({e.strerror or e}): {advice}") from None
    try:
        yield partial / "new"
        HELD.append("swap")  # Ctrl-C and SIGTERM do nothing until the swap is done
        try:
            if folder.exists():
                os.replace(folder, partial / "old")
            os.replace(partial / "new", folder)
        except OSError as e:
            raise UserError(f"cannot write {folder} ({e.strerror or e}): it is as it was") \
                from None
        finally:
            HELD.remove("swap")
    finally:
        if (partial / "old").exists() and not folder.exists():
            os.replace(partial / "old", folder)  # the swap went half way: the old is back
        shutil.rmtree(partial, ignore_errors=True)


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
    own functions: its flags (its parser), its data, its model's sizes, its prompt (a dry run of
    its sample, as its main makes), and, if out is given, its --out: new, empty or a run's (its
    RUN files). flags: the ones the tool sets; extra: the user's, after --; name: how the error
    names the run."""
    import torch

    if said := [f for f in extra for own in OWN_FLAGS if f == own or f.startswith(own + "=")]:
        raise UserError(f"{said[0].split('=')[0]} after -- is this tool's own: pass it before "
                        "the --")
    module = import_path(script, f"check_{Path(script).parent.name}")
    try:
        args = module.parse_args([*map(str, flags), *extra] + (["--out", str(out)] if out else []))
        if args.generate:
            raise UserError("--generate after -- would only sample from old runs: leave it out")
        if out:  # the rules of its Run, as a tool checks a folder it writes
            check_new_folder(out, "--out", is_run_folder, f"a run's ({', '.join(RUN_FILES)})")
        with torch.device("cpu" if args.prompt else "meta"):  # meta: shapes only, no memory
            model, chars, _ = module.load_data(args)
        if unknown := "".join(sorted(set(args.prompt) - set(chars))):
            raise UserError(f"{name}: --prompt has characters the text lacks: {unknown!r}")
        if args.prompt:
            module.sample(model, chars, argparse.Namespace(**vars(args) | {
                "sample_chars": 0, "device": "cpu"}))
    except SystemExit as e:
        if not isinstance(e.code, str):  # --help printed the help and stopped
            raise UserError(f"the flags after -- stop {name} before it trains: pass only "
                            "training flags") from None
        raise UserError(f"{name}: {message(e)}") from None
    except ValueError as e:  # a rule of the lesson's, as it words it
        raise UserError(f"{name}: {one_line(e)}") from None


def last_line(log, code, out):
    """What a run into out said last on stderr (its error, or what it saved when stopped); a run
    that said nothing: finished, stopped by SIGTERM while Python started (it wrote nothing), or
    killed, which may leave its .NAME.partial folder."""
    log.seek(0)
    partial = Path(out).parent / f".{Path(out).name}.partial"
    silent = ("finished" if code == 0 else f"exit status {code}" if code > 0 else
              "stopped while Python started: nothing was written" if code == -signal.SIGTERM else
              f"killed by signal {-code}: {partial} may be left; delete it")
    return one_line((log.read().strip().splitlines() or [silent])[-1])


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
                running[i] = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=log,
                                              start_new_session=True), log
            if time.time() - shown > 0.5:  # the names of the runs, and the time, move on
                bar.set_description(", ".join(runs[i][0] for i in running))
                shown = time.time()
            for i, (proc, log) in list(running.items()):
                if proc.poll() is None:
                    continue
                del running[i]
                if proc.returncode:
                    raise UserError(f"{runs[i][0]} failed "
                                    f"({last_line(log, proc.returncode, runs[i][2])}): "
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
    saved in OUT' for each. Ctrl-C and SIGTERM do nothing meanwhile; a run that does not stop
    within 30 s is killed."""
    said = ""
    if running:
        HELD.append("stopping the runs")
    for proc, _ in running.values():
        proc.terminate()  # SIGTERM: train.py saves what it trained and stops
    for i, (proc, log) in list(running.items()):
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        said += f"; {runs[i][0]}: {last_line(log, proc.returncode, runs[i][2])}"
        del running[i]
    return said


def check_jobs(jobs):
    """--jobs: from 1 to this machine's cores, since each run uses one thread."""
    cores = os.cpu_count() or 1
    if not 1 <= jobs <= cores:
        raise UserError(f"--jobs must be from 1 to {cores} (this machine's CPU cores), got {jobs}")
