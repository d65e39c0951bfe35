"""Shared helpers: import a version's train.py by path, run its main() on a tiny corpus, read the
committed results."""
import csv
import functools
import os
import re
import signal
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))  # as when a tool runs: it imports its siblings
from common import VERSIONS, import_path, load_train  # noqa: E402

ATTENTION_VERSIONS = VERSIONS[1:]  # the ones with n_embd / n_head / a context window
# the ones that predict the next character and write text left to right; v8 fills in blanks
CAUSAL_VERSIONS = VERSIONS[:-1]

# the module v*/train.py, imported without running it, once per test session
load = functools.cache(load_train)


@functools.cache
def oracle():
    """transformers, the oracle for v7 and later, imported on first use: the import takes 5 s,
    so the modules that use it are marked `oracle` and run in one process (share_group)."""
    import transformers

    return transformers


def hf():
    """transformers' modeling_bert, where BertLayer and BertEmbeddings live."""
    return oracle().models.bert.modeling_bert


def repo_docs(pattern):
    """The repository's Markdown files matching pattern, as paths relative to ROOT: not those in
    runs/, in hidden folders (.git, .venv, .pytest_cache) or in a virtual environment by any name
    (a folder with a pyvenv.cfg), where installed packages bring Markdown of their own."""
    found = []
    for path in ROOT.glob(pattern):
        rel = path.relative_to(ROOT)
        folders = [ROOT.joinpath(*rel.parts[:i]) for i in range(1, len(rel.parts))]
        if rel.parts[0] != "runs" and not any(part.startswith(".") for part in rel.parts) \
                and not any((f / "pyvenv.cfg").exists() for f in folders):
            found.append(str(rel))
    return sorted(found)


def step_named(version, slug):
    """The step of version whose name ends in slug ("09-gelu" for "gelu"): tests name steps by
    what they do, so a renumbering leaves them right."""
    if slug.startswith("00-"):
        return slug
    found = [p.stem for p in (ROOT / version / "steps").glob(f"[0-9][0-9]-{slug}.diff")]
    assert len(found) == 1, f"{version} has no one step called {slug}: {found}"
    return found[0]


def load_tool(name):
    """The module tools/<name>.py, imported afresh."""
    return import_path(ROOT / "tools" / f"{name}.py", f"tool_{name}")


def randomize(module, scale=0.5):
    """Every parameter of module drawn again from N(0, scale^2), biases and LayerNorms included, so
    that no default (zeros, ones) can hide a misplaced tensor. Returns module."""
    import torch

    with torch.no_grad():
        for p in module.parameters():
            p.copy_(torch.randn_like(p) * scale)
    return module


def reference_results(dataset):
    """{version: row} of reference/<dataset>/bench.csv: the seeded default runs the docs quote."""
    with open(ROOT / "reference" / dataset / "bench.csv", newline="") as f:
        return {row["version"]: row for row in csv.DictReader(f)}


def folder_bytes(folder):
    """{name: bytes} of every file in folder, hidden ones included: a folder's whole state."""
    return {p.name: p.read_bytes() if p.is_file() else "a folder" for p in sorted(folder.iterdir())}


def n_params(module):
    return sum(p.numel() for p in module.parameters())


@pytest.fixture(autouse=True)
def signals_as_python_sets_them():
    """A train.py's or a tool's main() leaves its own Ctrl-C handler behind, as a process that
    ends would; the next test starts with Python's."""
    yield
    for s in (signal.SIGINT, signal.SIGTERM):
        signal.signal(s, signal.default_int_handler)


@pytest.fixture(scope="session")
def tiny_corpus(tmp_path_factory):
    """The first 20,000 characters of the repo's dataset: enough for a few training steps in well
    under a second."""
    path = tmp_path_factory.mktemp("corpus") / "tiny.txt"
    path.write_text((ROOT / "data" / "tinyplays.txt").read_text(encoding="utf-8")[:20_000],
                    encoding="utf-8")
    return path


def tiny_args(corpus, out, *extra):
    """Flags for a run that takes well under a second: 12 steps, small batches, an estimate of 2
    batches each way every 4 steps."""
    return ["--data", str(corpus), "--out", str(out), "--max-iters", "12", "--eval-interval", "4",
            "--eval-iters", "2", "--batch-size", "8", "--sample-chars", "20", "--device", "cpu",
            *map(str, extra)]


def on_call(monkeypatch, module, n, action):
    """action() runs at module.get_batch's n-th call: 2 * 2 calls per estimate of a tiny run, one
    per step."""
    real, calls = module.get_batch, [0]

    def get_batch(*args):
        calls[0] += 1
        if calls[0] == n:
            action()
        return real(*args)

    monkeypatch.setattr(module, "get_batch", get_batch)


def call_main(module, argv):
    """module.main(argv) as the command line sees it: sys.exit("error: ...") becomes exit status 1
    with the message on stderr, as Python does when the script runs."""
    try:
        return module.main([str(a) for a in argv])
    except SystemExit as e:
        if isinstance(e.code, str):
            print(e.code, file=sys.stderr)
            return 1
        return e.code
    finally:  # main() holds Ctrl-C off while it saves; the process it ran in is a test's
        for s in (signal.SIGINT, signal.SIGTERM):
            signal.signal(s, signal.default_int_handler)


@pytest.fixture
def run(capsys):
    """run(version, argv) -> (exit code, stdout, stderr) of that version's main()."""

    def _run(version, argv):
        code = call_main(load(version), argv)
        captured = capsys.readouterr()
        return code, captured.out, captured.err

    return _run


@pytest.fixture(scope="session")
def trained(tiny_corpus, tmp_path_factory):
    """{version: run folder} of one tiny run of each version, trained once per test session. Tests
    that change a run copy it first (shutil.copytree)."""
    folders = {}
    for version in VERSIONS:
        out = tmp_path_factory.mktemp("trained") / version
        assert call_main(load(version), tiny_args(tiny_corpus, out)) == 0, version
        folders[version] = out
    return folders


@pytest.fixture
def full_disk_savefig(monkeypatch):
    """matplotlib's savefig writes half a PNG, then the disk is full."""
    from matplotlib.figure import Figure

    def half_then_full(self, path, **kwargs):
        open(path, "wb").write(b"\x89PNG half")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(Figure, "savefig", half_then_full)


def marked_line(text, marker):
    """[the line a `<!-- marker -->` comment introduces, for each one in text]: the rest of the
    comment's own line, or if that is blank, the next line that is not."""
    lines = []
    for m in re.finditer(r"<!-- %s -->(.*)\n?((?:[ \t]*\n)*)(.*)" % re.escape(marker), text):
        lines.append(m.group(1).strip() or m.group(3).strip())
    return lines


def share_group(item):
    """The tests that share a first parameter (one exercise, one version) in one module are one
    group: what the module loads once for that parameter is then loaded in one process. The tests
    of the modules marked `oracle` are one group: only its process imports transformers."""
    if item.get_closest_marker("oracle"):
        return "oracle"
    if not hasattr(item, "callspec"):
        return item.nodeid
    first = next(iter(item.callspec.params.values()))
    return item.module.__name__, repr(first)


def groups_of(items):
    """The items in their groups (share_group), in the order collected: a process that leaves a
    file's tests and comes back would set up its module's fixtures again."""
    groups = {}
    for item in items:
        groups.setdefault(share_group(item), []).append(item)
    return list(groups.values())


def claimed(groups, folder):
    """The items of each group this process claims, in order. A process claims a group by
    making a file named by its number in folder; for every other process, making it fails."""
    for number, group in enumerate(groups):
        try:
            os.close(os.open(os.path.join(folder, str(number)), os.O_CREAT | os.O_EXCL))
        except FileExistsError:  # another process has it
            continue
        yield from group


@pytest.hookimpl(tryfirst=True)
def pytest_runtestloop(session):
    """tools/run_tests.py runs one pytest per core, each told the same folder in TESTS_CLAIMS.
    Every process collects every test, and each runs the groups it claims: the next one not yet
    claimed, each time it finishes one, so that the processes end together however long each
    group takes. Without TESTS_CLAIMS, pytest's own loop runs every test."""
    folder = os.environ.get("TESTS_CLAIMS")
    if not folder or session.testsfailed or session.config.option.collectonly:
        return None  # pytest's own loop
    items = claimed(groups_of(session.items), folder)
    item = next(items, None)
    while item is not None:
        nextitem = next(items, None)  # known before this item's teardown, which needs it
        item.config.hook.pytest_runtest_protocol(item=item, nextitem=nextitem)
        if session.shouldfail:
            raise session.Failed(session.shouldfail)
        if session.shouldstop:
            raise session.Interrupted(session.shouldstop)
        item = nextitem
    return True
