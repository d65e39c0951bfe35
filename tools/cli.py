"""What every tool's command line shares: bad input is one line on stderr, `error: what was
wrong: what to do`, and exit status 2, found before any work; Ctrl-C is one line and exit status
130; never a traceback.

    from cli import ArgumentParser, UserError, command

    @command
    def main(argv=None):
        args = ArgumentParser(__file__, __doc__).parse_args(argv)
        raise UserError(f"no file at {args.path}: pass an existing file")

    if __name__ == "__main__":
        sys.exit(main())

Standard library only: data/prepare.py uses it too.
"""
import argparse
import csv
import functools
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BAD_INPUT, INTERRUPTED = 2, 130  # exit statuses; 130 is 128 + SIGINT, as a shell reports Ctrl-C


class UserError(Exception):
    """Bad input, worded `what was wrong: what to do`; command() prints it as one `error:` line."""


def one_line(text):
    return " ".join(str(text).split())


def command(main):
    """A tool's main(argv) as it runs: a UserError becomes one `error:` line and BAD_INPUT, Ctrl-C
    one `interrupted` line (with what the KeyboardInterrupt says, if anything) and INTERRUPTED.
    Text the terminal cannot encode (PYTHONIOENCODING=ascii) is written escaped, not a crash."""

    @functools.wraps(main)
    def run(argv=None):
        for stream in (sys.stdout, sys.stderr):
            if hasattr(stream, "reconfigure"):  # a real text stream, not a test's stand-in
                stream.reconfigure(errors="backslashreplace")
        try:
            return main(argv)
        except UserError as e:
            print(f"error: {one_line(e)}", file=sys.stderr)
            return BAD_INPUT
        except KeyboardInterrupt as e:
            print(f"interrupted{': ' * bool(e.args)}{one_line(e)}", file=sys.stderr)
            return INTERRUPTED

    return run


def is_negative_number(arg):
    try:
        float(arg)
    except ValueError:  # a flag, not a number
        return False
    return arg.startswith("-")


def join_negative_values(argv, several=()):
    """['--lr', '-1e-3'] -> ['--lr=-1e-3']. argparse knows -1 and -.5 as numbers but takes -1e-3
    or -inf for a flag, and would say the value is missing instead of checking it. Only --long
    flags are joined (-o=x would mean '=x'), and nothing after a bare --. A flag in `several`
    takes more than one value (--ylim LOW HIGH): the negative numbers after it keep their places,
    each behind a space (' -1'), which argparse takes for a value and float() and int() read
    past."""
    joined, rest = [], list(argv)
    while rest:
        arg = rest.pop(0)
        if arg == "--":
            return joined + [arg] + rest
        if arg.startswith("--") and "=" not in arg and len(arg) > 2 and any(
                flag.startswith(arg) for flag in several):  # argparse takes a prefix
            joined.append(arg)
            while rest and (is_negative_number(rest[0]) or not rest[0].startswith("-")):
                value = rest.pop(0)
                joined.append(f" {value}" if value.startswith("-") else value)
            continue
        if arg.startswith("--") and "=" not in arg and rest and is_negative_number(rest[0]):
            arg = f"{arg}={rest.pop(0)}"
        joined.append(arg)
    return joined


class ArgumentParser(argparse.ArgumentParser):
    """argparse's, for the script at path `script`: the usage says `python tools/x.py`, the
    description is the first paragraph of `doc`, an error is a UserError naming --help, and
    `--flag -1e-3` gives -1e-3 to --flag."""

    def __init__(self, script, doc, **kwargs):
        prog = "python " + Path(script).resolve().relative_to(ROOT).as_posix()
        super().__init__(prog=prog, description=doc.split("\n\n")[0], **kwargs)

    def error(self, message):  # as argparse's docs allow: one line instead of a usage block
        message = message.replace("' -", "'-")  # a value as given, not as join_negative_values
        raise UserError(f"{message}: see {self.prog} --help")

    def parse_known_args(self, args=None, namespace=None):
        args = sys.argv[1:] if args is None else args
        several = [flag for action in self._actions if action.nargs not in (None, "?", 0)
                   for flag in action.option_strings if flag.startswith("--")]
        return super().parse_known_args(join_negative_values(args, several), namespace)


def check_jobs(jobs):
    """Refuse a --jobs that is not from 1 to this machine's CPU cores: each job runs one train.py
    on one thread, and more jobs than cores only wait for each other."""
    cores = os.cpu_count() or 1
    if not 1 <= jobs <= cores:
        raise UserError(f"--jobs must be from 1 to {cores} (this machine's CPU cores), "
                        f"got {jobs}")


def check_output(path, flag):
    """Refuse, before any work, a path a tool could not write: one that exists and is not a
    regular file (a folder; a FIFO or a device, never opened, since opening a FIFO waits for a
    reader), one under a file, or one in a folder that does not take new files."""
    path = Path(path)
    try:
        if path.exists() and not path.is_file():
            raise UserError(f"{flag} {path} exists and is not a regular file: name a file")
        folder = path.parent  # the nearest folder that exists: the missing ones will be made
        while not folder.exists():
            folder = folder.parent
        if not folder.is_dir():
            raise UserError(f"{flag} {path} is under {folder}, which is a file, not a folder: "
                            "choose another path")
        if path.exists():
            open(path, "ab").close()  # opened to append, not truncated: the file is unchanged
        else:
            tempfile.TemporaryFile(dir=folder).close()
    except OSError as e:
        raise UserError(f"{flag} {path} cannot be written ({e.strerror or e}): choose another "
                        "path") from None


def write_csv(path, rows):
    """rows (dicts with the same keys) as a CSV file at path, with a header; its folder is made.
    Check the path with check_output before the work that makes the rows."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
