"""Climb the ladder yourself: write each rung's new idea (or one step's) into the program before
it, and check your code against the rung's own program in a few seconds.

    python tools/exercise.py                          # the exercises, in reading order
    python tools/exercise.py v5_ffn                   # writes exercises/v5_ffn/train.py
    python tools/exercise.py v5_ffn --check           # checks it against v5_ffn/train.py
    python tools/exercise.py v6_block/02-residual     # one step: starts from step 01's program
    python tools/exercise.py v6_block/02-residual --check --file my_train.py
    python tools/exercise.py v5_ffn --check --lang zh # hints in Chinese (or a zh_* locale)
    python tools/exercise.py v5_ffn --check --piece FeedForward  # one class, before wiring it

An exercise file is the program of the rung (or step) before, its docstring saying what to
build. Edit the lesson part; leave the plumbing below the fence as it is. A check imports your
file in a process of its own (so that nothing it does at import reaches the target or the
verdict), then compares it with the target program stage by stage and stops at the first
difference:

    hyperparameters  their names and default values, and MODEL_ARGS
    parameters       names and shapes, at small odd sizes and at the defaults (v4 to v6:
                     layers you named otherwise are matched by kind and shape in the order
                     they run, q, k and v by the outputs they give, and said so)
    layers           each torch.nn layer's settings: a LayerNorm's eps, a Dropout's p
    initial weights  the mean, spread and shape of spread of each tensor your model starts from
    outputs          the target's weights copied into your model: every module's output, the
                     logits, the loss and the gradients, compared
    data             read_data: the vocabulary and the splits
    batches          get_batch under the same generator (v8: a get_batch that draws another
                     way passes when it keeps what masking promises over many draws: each
                     chosen position a target, the rest -100, the same shares hidden, kept
                     and replaced; the training then uses the target's batches)
    causality        whether a later character changes an earlier prediction, and whether
                     eval mode gives the same logits twice
    calls            the rung's other calls (generation, a prompt, a short window, a cache,
                     its config), compared
    training         a short training from the same weights and batches: the same losses
    runs             your file run as a script for 2 steps: it trains and logs them

Where your code equals a mistake in tools/catalogue.py, the hint names that mistake and the doc
section that explains it. Otherwise the check says what the difference is: at the first module
whose output differs, whether its input differs already (then the difference is made in the
code that calls it), and where inside the torch calls part, how yours relates to the target's
(tools/diagnose.py: a scale, a sign, the other axis, a shift by one, a missing term). Code
that is right but ordered differently passes: values agree to within float rounding.
Exit status: 0 passed, 1 your code differs (or raised), 2 bad input to the tool.
"""
import ast
import contextlib
import gc
import hashlib
import io
import itertools
import math
import multiprocessing
import os
import pickle
import re
import signal
import sys
import tempfile
import textwrap
import time
import traceback
import types
import unicodedata
import zlib
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import (ROOT, VERSIONS, ArgumentParser, UserError, aside, command,  # noqa: E402
                    Raising, dumps, ignore_stop_signals, load_source, one_line,
                    seed_losses,
                    write_text)
from steps import applied, read  # noqa: E402
import catalogue  # noqa: E402

EXERCISES = ROOT / "exercises"
DATA = ROOT / "data" / "tinyplays.txt"
SMALL = {"batch_size": 2, "block_size": 5, "n_embd": 12, "n_head": 3, "n_layer": 2,
         "dropout": 0.1, "intermediate_size": 20, "chunk_size_ff": 1,  # odd: a swap fails
         "sample_chars": 9,  # past block_size, so that generation must slide its window
         "lr": 2e-3, "seed": 7, "hidden_act": "relu", "mask_prob": 0.4}  # not the defaults: code
# that reads the global, not args.lr, differs here
TRAIN_STEPS, TRAIN_SIZES = 6, 0  # the short training: 6 steps at the small sizes
# Float tolerances. Right code in another order rounds differently: v4's list of heads and its
# batched heads (one function) differ by 3e-7 in a logit, 8e-9 in a gradient and 5e-7 in a loss
# over the short training (tools/maintainers/bench_exercises.py measures it). A catalogued
# mistake differs by 1e-3 or more.
ATOL, RTOL = 1e-5, 1e-4
LOSS_TOL = 1e-4


# ------------------------------------------------------------------ the exercises
def exercise_names():
    """[(name, what it builds)] in reading order: each rung, then its steps. Read from the step
    patches' first lines, not by applying them: a broken patch spoils only its own rung."""
    found = []
    for version in VERSIONS[1:]:
        found.append((version, describe(read(ROOT / version / "train.py"))))
        for path in sorted((ROOT / version / "steps").glob("*.diff")):
            title = next((line[1:] for line in read(path).splitlines()
                          if line.startswith('+"""')), '"""?: ?')
            found.append((f"{version}/{path.stem}", describe(title)))
    return found


def programs(name):
    """(start, target) of the exercise called name: the rung before and the rung, or the step
    before and the step, the rung's patches applied up to that step and no further."""
    version, _, step = name.partition("/")
    before = read(ROOT / VERSIONS[VERSIONS.index(version) - 1] / "train.py")
    if not step:
        return before, read(ROOT / version / "train.py")
    start = before
    for found, text, _ in applied(version, before):
        if found == step:
            return start, text
        start = text
    raise UserError(f"no step {name}")


def exercises():
    """[(name, start text, target text)] of every exercise, in reading order (every chain
    built: for the tests and the benchmark)."""
    return [(name, *programs(name)) for name, _ in exercise_names()]


def renamed():
    """{old exercise name: new name} from tools/renamed.csv (regen writes it when steps are
    renumbered)."""
    path = ROOT / "tools" / "renamed.csv"
    if not path.is_file():
        return {}
    rows = [line.split(",") for line in read(path).splitlines()[1:] if line]
    return {old: new for old, new in rows}


def find(name, names, lang=""):
    """The exercise called name: v5_ffn, v6_block/02-residual, v6_block/02 or with a slash.
    lang: the flag the commands it suggests carry (" --lang zh"), or none."""
    name = name.strip("/").removeprefix("exercises/").removesuffix("/train.py")
    for found, _ in names:
        rung, _, step = found.partition("/")
        if name == found or step and name == f"{rung}/{step[:2]}":
            return found
    if name in renamed():
        new = renamed()[name]
        raise refusal("err:renamed", lang, name=name, new=new)
    if name == VERSIONS[0]:
        raise refusal("err:first_rung", lang, name=name, first=VERSIONS[1])
    raise refusal("err:no_exercise", lang, name=name)


def refusal(key, lang, **values):
    """The UserError of catalogue.TEXT[key], in Chinese where lang (the flag the commands it
    suggests carry) is " --lang zh"."""
    zh = lang == " --lang zh"
    return UserError(catalogue.TEXT[key][zh].format(lang=lang, **values))


def describe(target):
    """What the target program is, from its docstring's first line."""
    first = target.split('"""')[1].splitlines()[0]
    return first.split(": ", 1)[1].rstrip(".")


def folder(name):
    return EXERCISES / name


def starting_file(name, start, target, lang):
    """The start program with its docstring replaced by the exercise's."""
    said = catalogue.TEXT["docstring"][lang == "zh"].format(
        name=name, what=describe(target), task=catalogue.TASKS[name][lang == "zh"],
        run=run_command(name))
    said = "\n".join(line if "python " in line else textwrap.fill(  # commands stay whole
        line, 99 if line.isascii() else 48) for line in said.splitlines())  # a 汉字: 2 columns
    head, _, rest = start.split('"""', 2)
    return f'{head}"""{said}\n"""{rest}'


def run_command(name):
    """The full training of the exercise's file, into a folder of its own under runs/mine."""
    rung, _, step = name.partition("/")
    out = f"runs/mine/{rung}" + f"-{step[:2]}" * bool(step)  # v6_block-02: beside the rung's
    return f"python {Path('exercises', name, 'train.py')} --out {out}"


# ------------------------------------------------------------------ loading a program
class Raised(Exception):
    """The learner's code raised: the traceback's frames in their file, and the error. finding:
    what the check found before it, said first."""

    finding = ""


def import_learner(path):
    """The learner's file as a module; refused first if importing it would train (a call of
    main() or train() outside `if __name__ == "__main__":`)."""
    try:
        source = path.read_text(encoding="utf-8-sig")  # a BOM: as Python reads it
    except UnicodeDecodeError as e:  # GBK or Latin-1, say: Python reads UTF-8
        raise Differs("imports", "not_utf8", error=str(e)) from None
    with learners(path):
        tree = ast.parse(source, str(path))
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)) or isinstance(node, ast.If) and \
                "__name__" in ast.unparse(node.test):
            continue
        for call in ast.walk(node):
            if isinstance(call, ast.Call) and getattr(call.func, "id", "") in ("main", "train"):
                raise Differs("imports", "main_on_import", line=call.lineno)
    import torch

    before = torch.get_default_dtype(), torch.is_grad_enabled()
    try:
        with learners(path):  # parsed once, above
            module = load_source(tree, f"exercise_{zlib.crc32(str(path).encode())}", path)
    finally:  # torch's defaults, set by the file, would hold for the target's run too
        after = torch.get_default_dtype(), torch.is_grad_enabled()
        torch.set_default_dtype(before[0])
        torch.set_grad_enabled(before[1])
    if after != before:
        raise Differs("imports", "torch_defaults")
    return module


@contextlib.contextmanager
def learners(path):
    """Whatever the learner's code raises becomes Raised: their frames and the error."""
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            yield
    except (Differs, Raised):
        raise
    except (Exception, SystemExit) as e:  # SystemExit: their sys.exit(), or argparse's
        raise Raised(their_frames(e, path)) from None


def their_frames(error, path):
    """The traceback's frames in the learner's file, then the error (a syntax error: its line
    and caret, in whichever file it is)."""
    frames = [f for f in traceback.extract_tb(error.__traceback__) if Path(f.filename) == path]
    said = "".join(traceback.format_exception_only(error)).rstrip() if isinstance(
        error, SyntaxError) else f"{type(error).__name__}: {error}"
    return "".join(traceback.format_list(frames)) + said


class Differs(Exception):
    """A stage found a difference: key names the message in catalogue.TEXT, with its values."""

    def __init__(self, stage, key, **values):
        super().__init__(key)
        self.stage, self.key, self.values = stage, key, values


# ------------------------------------------------------------------ the learner's own process
TIME_LIMIT = 60  # seconds a check may take in all; a check that stops here has met a loop


class Ended(Exception):
    """The learner's process ended, or ran past TIME_LIMIT, before it answered: key and values
    name the message in catalogue.TEXT."""

    def __init__(self, key, **values):
        super().__init__(key)
        self.key, self.values = key, values


class Learner:
    """The learner's file, imported in a process of its own. ask(what) returns what a stage
    observes of it there. Their code never runs in this process, so nothing it patches, starts
    or exits reaches the target's observations or the verdict, and close() always ends it.

    On Linux the process is forked from this one and starts with the target already loaded;
    elsewhere it is a fresh Python that loads it."""

    def __init__(self, name, target_text, path, cache):
        method = "fork" if sys.platform == "linux" else "spawn"
        context = multiprocessing.get_context(method)
        self.conn, theirs = context.Pipe()
        if method != "fork":
            cache = {}  # a fresh process loads the target itself
        self.deadline = time.monotonic() + TIME_LIMIT
        self.process = context.Process(target=serve, daemon=True,
                                       args=(name, target_text, str(path), theirs, cache))
        gc.freeze()  # a forked process's collections would touch, and so copy, every object
        try:
            self.process.start()
        finally:
            gc.unfreeze()
        theirs.close()  # theirs is the child's end: with it closed here, its exit ends recv
        self.stage = "imports"

    def ask(self, what):
        """What the learner's code gives for what (a stage, or "imports"): a value, or Differs
        or Raised as their process found them."""
        self.send(what)
        return self.reply()

    def send(self, what):
        """Ask for what, and let the answer come while this process works on the target's."""
        self.stage = what
        self.conn.send(what)

    def reply(self):
        """The answer to the last thing sent."""
        left = self.deadline - time.monotonic()
        if not self.conn.poll(max(left, 0)):
            raise Ended("too_slow", limit=TIME_LIMIT)
        try:
            reply = pickle.loads(self.conn.recv_bytes())
        except EOFError:
            raise Ended("ended") from None
        return unpacked(reply)

    def close(self):
        """End the learner's process and whatever it started (SIGKILL: their code may ignore
        SIGTERM)."""
        self.conn.close()
        if hasattr(os, "killpg"):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.process.pid, signal.SIGKILL)
        self.process.kill()
        self.process.join()


def serve(name, target_text, path, conn, cache):
    """The learner's process: load the target (unless forked with it), then answer each request
    with what it observes of the learner's file, pickled (common.Pickler: tensors by value)."""
    ignore_stop_signals()  # the parent stops this process
    if hasattr(os, "setpgid"):  # a group of its own: what their code forks is ended with it
        os.setpgid(0, 0)
    file = LearnersFile(known_target(name, target_text, cache), Path(path))
    while True:
        try:
            what = conn.recv()
        except EOFError:  # the parent closed its end
            return
        conn.send_bytes(file.respond(what))


class LearnersFile:
    """The learner's file as their process sees it: respond(what) imports it ("imports") or
    observes it, and gives the reply pickled."""

    def __init__(self, known, path):
        self.known = known
        self.path = path
        self.module = None

    def respond(self, what):
        try:
            if what == "imports":
                self.module = import_learner(self.path)
                value = learn_names(self.module, self.known.ctx, self.known.name)
            else:
                with learners(self.path):
                    value = answer(self.module, self.known.ctx, what)
            reply = ("value", value)
        except Raised as e:
            reply = ("raised", str(e))
        except Differs as d:
            reply = ("differs", d.stage, d.key, d.values)
        try:
            return dumps(plain(reply))
        except Exception as e:  # what plain() could not make plain
            return dumps(("raised", f"what your code gave could not be sent: "
                                    f"{type(e).__name__}: {e}"))


def unpacked(reply):
    """A reply's value, or the Raised or Differs it carries."""
    kind = reply[0]
    if kind == "raised":
        raise Raised(reply[1])
    if kind == "differs":
        raise Differs(reply[1], reply[2], **reply[3])
    return reply[1]


class InProcess:
    """A Learner for a program of our own (a catalogued mistake, in the tests): the same
    requests and replies, answered in this process, without a process of its own."""

    def __init__(self, name, target_text, path, cache):
        self.file = LearnersFile(known_target(name, target_text, cache), Path(path))
        self.stage = "imports"

    def ask(self, what):
        self.send(what)
        return self.reply()

    def send(self, what):
        self.stage = what

    def reply(self):
        return unpacked(pickle.loads(self.file.respond(self.stage)))

    def close(self):
        RENAMED.clear()  # as a process's end would


def answer(learner, ctx, what):
    """What the learner's code gives for a request: a stage's name, or (what, its arguments):
    ("trace", a module's name in the target, a size, a call), ("call_records", a call's
    number), ("piece", a class's name), ("records", a size)."""
    if isinstance(what, str):
        return STAGES_BY_NAME[what](learner, ctx)
    kind, *arguments = what
    return ASKED[kind](learner, ctx, *arguments)


def plain(value):
    """value in types both processes know by one name: a tensor detached, a tuple, list or dict
    of any subclass (an output class or a namedtuple of the learner's file) as the plain one, and
    an object of the learner's own class as its class's name and its fields."""
    import torch

    if isinstance(value, torch.Tensor):
        return value.detach()
    if value is None or isinstance(value, (bool, int, float, complex, str, bytes, Raising)):
        return value
    if isinstance(value, tuple):
        return tuple(plain(v) for v in value)
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {plain(k): plain(v) for k, v in value.items()}
    if hasattr(value, "__dict__") and not callable(value):
        return (type(value).__name__, plain(vars(value)))
    return repr(value)


def learn_names(learner, ctx, name):
    """matched_names for the learner's model, kept for every later stage in this process."""
    RENAMED.clear()
    names = matched_names(learner, ctx, name)
    if names:
        RENAMED[id(learner)] = names
    return names


# ------------------------------------------------------------------ what a check compares
def settings(target, small):
    """The target's args: its defaults, or the small odd sizes for the flags it has (and a
    short text: v8's sample() reads --data whole)."""
    flags = [f"--{k.replace('_', '-')}={v}" for k, v in SMALL.items()
             if small and k in target.HYPERPARAMETERS]
    return target.parse_args([*flags, "--device", "cpu", "--data", str(
        short_text() if small else DATA)])


def short_text():
    """A file of every character of the corpus, then its first 5,000 characters: the same
    vocabulary in a text read in a millisecond."""
    global SHORT
    if SHORT is None:
        SHORT = tempfile.TemporaryDirectory()  # removed when the check ends
        text = DATA.read_text(encoding="utf-8")
        Path(SHORT.name, "short.txt").write_text("".join(sorted(set(text))) + text[:5000],
                                                 encoding="utf-8")
    return Path(SHORT.name, "short.txt")


SHORT = None


TEXTS = {}  # (read_data's code, its constants): the vocabulary and the splits it gave


class Context:
    """What every stage needs, made once from the target: the text, its args at both sizes, a
    batch of each, and the target's initial weights."""

    def __init__(self, target):
        import torch

        torch.set_num_threads(1)  # as train.py runs: the same rounding on any machine
        self.torch, self.target, self.path = torch, target, Path(target.__file__)
        key = (target.read_data.__code__.co_code, target.read_data.__code__.co_consts)
        if key not in TEXTS:  # the same read_data in most exercises: read once
            TEXTS[key] = target.read_data(DATA)
        self.chars, self.splits = TEXTS[key]
        self.configs = [settings(target, small) for small in (True, False)]
        self.batches, self.weights = [], []
        for args in self.configs:
            self.batches.append(target.get_batch(self.splits["train"], args,
                                                 torch.Generator().manual_seed(0)))
            self.weights.append({k: v.detach().clone() for k, v in
                                 build(target, self, args).named_parameters()})


def seed(torch, number):
    """torch.manual_seed(number) for the CPU, without its checks: a check seeds thousands of
    times, and each of those costs a millisecond."""
    torch.default_generator.manual_seed(number)


def build(module, ctx, args, weights=None):
    """module's LanguageModel with the target's MODEL_ARGS from args, seeded as train.py seeds
    it; weights (by the target's names) copied in."""
    torch = ctx.torch
    seed(torch, args.seed)
    model = module.LanguageModel(len(ctx.chars),
                                 **{k: getattr(args, k) for k in ctx.target.MODEL_ARGS})
    if weights:
        with torch.no_grad():
            for name, p in model.named_parameters():
                p.copy_(weights[as_target(module, name)])
    return model


RENAMED = {}  # id(the learner's module): matched_names' match, kept out of the learner's names


def as_target(module, name):
    """A parameter's or a module's name as the target calls it, where matched_names found that
    the learner's differ by name alone: a module inside a renamed one is renamed with it."""
    names = RENAMED.get(id(module), {})
    if name in names:
        return names[name]
    parts = name.split(".")
    for cut in range(len(parts) - 1, 0, -1):  # the longest renamed module that holds it
        above = ".".join(parts[:cut])
        if above in names:
            return ".".join([names[above], *parts[cut:]])
    return name


def matched_names(learner, ctx, name):
    """{the learner's parameter or module name: the target's} where some names differ from the
    target's but the layers do not: in v4 to v6 (in v7 and v8 HF's names are the lesson), the
    parameters whose names the target lacks have the shapes of the target's that the learner
    lacks, at both sizes, and are matched shape by shape in the order each runs them (GPT-2's
    ln_1, attn, ln_2, mlp match the target's ln1, sa, ln2, ffwd). Layers of one kind
    side by side in one module (q, k and v, renamed and declared in another order) are paired
    in the order under which the model's outputs agree, where one does. None where every name
    is the target's, where the model cannot be built with the target's arguments (a stage says
    why), or where the layers differ too."""
    if name.split("/")[0] not in VERSIONS[1:4]:
        return None
    models = []
    for args in ctx.configs:
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                models.append(build(learner, ctx, args))
        except Exception:
            return None
    orders = sibling_orders(models[0], ctx.weights[0])
    runs = [run_order(model, ctx, size) for size, model in enumerate(models)]
    best = None
    best_score = None
    theirs = None
    for order in orders:  # the declared order first: it wins a tie
        found = match(models, runs, ctx, order)
        if not found:  # every name the target's, or other layers: no order changes that
            return None
        if len(orders) == 1:
            return found
        if theirs is None:  # the target's, made once for every order
            theirs = forward(ctx.target, ctx, 0, False)["logits"], trace(ctx.target, ctx, "", 0)
        score = agreement(learner, ctx, found, theirs)
        if best_score is None or score > best_score:
            best = found
            best_score = score
    return best


def match(models, runs, ctx, order):
    """matched_names' match for the learner's models at both sizes, the layers of each side
    taken in the order they run (runs: run_order's for each model; declared order where they
    run alike, or not at all) and the layers side by side in the order given (sibling_orders);
    {} where every name is the target's."""
    found = {}
    for size, (model, weights) in enumerate(zip(models, ctx.weights)):
        swap = swapped(model, weights, order)
        theirs_runs = target_run_order(ctx, size)
        declared = [(n, tuple(p.shape)) for n, p in model.named_parameters()]
        names = {n for n, _ in declared}
        mine_only = []  # in the order they run, a layer's place taken by the layer swap gives
        for n, shape in sorted(declared, key=lambda item: ran(item[0], runs[size])):
            layer, _, own = n.rpartition(".")
            swapped_name = f"{swap.get(layer, layer)}.{own}"
            if swapped_name not in weights:
                mine_only.append((swapped_name, shape))
        theirs_only = sorted([(t, tuple(p.shape)) for t, p in weights.items() if t not in names],
                             key=lambda item: ran(item[0], theirs_runs))
        if not mine_only and not theirs_only:  # the target's names, in any order
            return {}
        pairs = by_shape(mine_only, theirs_only)
        if pairs is None:
            return {}
        for n, t in pairs:
            found[n] = t
            module = n.split(".")[:-1]
            theirs_module = t.split(".")[:-1]
            if module and theirs_module:  # the layer that holds it
                found.setdefault(".".join(module), ".".join(theirs_module))
            # and the modules above it, as deep in both, up to where the names agree
            while len(module) == len(theirs_module) > 1 and module[:-1] != theirs_module[:-1]:
                module = module[:-1]
                theirs_module = theirs_module[:-1]
                found.setdefault(".".join(module), ".".join(theirs_module))
    return found


def ran(name, runs):
    """When the layer holding the parameter called name first runs (runs: run_order's); after
    every one that runs where it never does."""
    return runs.get(name.rpartition(".")[0], len(runs))


def run_order(model, ctx, size):
    """{a module's name: how many modules ran before it first did} in a forward pass of the
    batch at ctx.configs[size]; {} where the forward raises (then declared order is used)."""
    runs = {}
    hooks = []
    for n, m in model.named_modules():
        def first(module, given, n=n):
            runs.setdefault(n, len(runs))
        hooks.append(m.register_forward_pre_hook(first))
    x, y = ctx.batches[size]
    try:
        with ctx.torch.no_grad(), contextlib.redirect_stdout(io.StringIO()):
            model(x, y)
    except Exception:  # a stage says why
        runs = {}
    finally:
        for h in hooks:
            h.remove()
    return runs


def target_run_order(ctx, size):
    """run_order of the target's model, made once per Context."""
    if not hasattr(ctx, "target_runs"):
        ctx.target_runs = [run_order(build(ctx.target, ctx, args), ctx, i)
                           for i, args in enumerate(ctx.configs)]
    return ctx.target_runs[size]


def siblings(model, weights):
    """{(a module, what each of its layers holds): its layers of that kind whose names the
    target lacks, by their own names, in declared order}."""
    layers = {}
    for n, p in model.named_parameters():
        if n not in weights:
            layer, _, own = n.rpartition(".")
            layers.setdefault(layer, []).append((own, tuple(p.shape)))
    found = {}
    for layer, held in layers.items():
        parent, _, local = layer.rpartition(".")
        found.setdefault((parent, tuple(held)), []).append(local)
    return found


def sibling_orders(model, weights, most=24):
    """The orders in which to pair the layers of one kind side by side in one module: [{their
    names in declared order: in the order to pair them}], the declared order first; only that
    one where there would be more than most."""
    kinds = sorted({tuple(names) for names in siblings(model, weights).values()
                    if len(names) > 1})
    choices = [list(itertools.permutations(names)) for names in kinds]
    if math.prod(len(c) for c in choices) > most:
        return [{}]
    return [dict(zip(kinds, picked)) for picked in itertools.product(*choices)]


def swapped(model, weights, order):
    """{a layer's name: the layer that takes its place} under order."""
    swap = {}
    for (parent, _), names in siblings(model, weights).items():
        prefix = ""
        if parent:
            prefix = parent + "."
        for a, b in zip(names, order.get(tuple(names), names)):
            swap[prefix + a] = prefix + b
    return swap


def agreement(learner, ctx, names, theirs):
    """How far the learner's model, its weights the target's under names, agrees with the
    target's at the small sizes (theirs: its logits and trace there): (whether the logits
    agree, how many of the tensors the target computes, in order, the learner's code computes
    too before the first it never does)."""
    import diagnose  # it imports torch: only where a check needs it

    RENAMED[id(learner)] = names
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            mine = forward(learner, ctx, 0, False)
            mine_trace = trace(learner, ctx, "", 0)
    except Exception:  # a stage says why
        return False, 0
    finally:
        RENAMED.pop(id(learner), None)
    logits, theirs_trace = theirs
    return close(mine["logits"], logits), diagnose.agreeing(mine_trace, theirs_trace)


def by_shape(mine, theirs):
    """[(my name, the target's)] for the parameters whose names differ: each layer's
    parameters with the layer that holds them, the layers paired kind by kind (a LayerNorm of
    C, a Linear from C to 4C) in the order each side lists them. None where the layers are
    not the same kinds, as many times."""
    groups = {}
    for side, names in enumerate((mine, theirs)):
        layers = {}
        for n, shape in names:  # in the order given: a layer's parameters together
            layer, _, own = n.rpartition(".")
            layers.setdefault(layer, []).append((own, shape))
        for layer, held in layers.items():
            groups.setdefault(tuple(held), ([], []))[side].append(layer)
    if any(len(a) != len(b) for a, b in groups.values()):
        return None
    pairs = []
    for held, (a, b) in groups.items():
        for layer, their_layer in zip(a, b):
            pairs += [(f"{layer}.{own}", f"{their_layer}.{own}") for own, _ in held]
    return pairs


def named_otherwise(names, zh):
    """The line that says how matched_names matched: the outermost names that differ (what a
    renamed layer holds is said with it), the first two, and how many more."""
    text = catalogue.TEXT
    pairs = []
    for mine, theirs in names.items():
        if mine == theirs:
            continue
        above = mine.rpartition(".")[0]
        if above in names and names[above] != above:
            continue
        pairs.append(text["named_pair"][zh].format(mine=mine, theirs=theirs))
    joiner = "; "
    if zh:
        joiner = "；"
    shown = joiner.join(pairs[:2])
    if len(pairs) > 2:
        shown += text["and_more"][zh].format(n=len(pairs) - 2)
    return text["named_otherwise"][zh].format(pairs=shown)


def hyperparameters(module, ctx):
    names = getattr(module, "HYPERPARAMETERS", [])
    return {"values": {k: getattr(module, k) for k in names},  # MODEL_ARGS in any order
            "MODEL_ARGS": sorted(getattr(module, "MODEL_ARGS", []))}


def parameters(module, ctx):
    return [{as_target(module, k): tuple(p.shape)
             for k, p in build(module, ctx, args).named_parameters()} for args in ctx.configs]


def aliases(module, ctx, size):
    """{a parameter's second name: its first} for each parameter that the model at
    ctx.configs[size] holds under two names (one module placed in two places), by the target's
    names: named_parameters() gives each parameter once, under its first name."""
    first = {}
    found = {}
    model = build(module, ctx, ctx.configs[size])
    for name, p in model.named_parameters(remove_duplicate=False):
        name = as_target(module, name)
        if id(p) in first:
            found[name] = first[id(p)]
        else:
            first[id(p)] = name
    return found


def layers(module, ctx):
    """Each torch.nn layer's settings at the default sizes, by the target's names: what no weight
    shows (a LayerNorm's eps, a Dropout's p, a GELU's form). Layers only, not what holds them
    (a ModuleList for a Sequential is right); inplace is left out: no check can see it."""
    model = build(module, ctx, ctx.configs[1])
    renamed = {as_target(module, n) for n in names_of(model) if as_target(module, n) != n}
    found = {}
    for n, m in model.named_modules():
        leaf = next(m.children(), None) is None  # a container (Sequential) has no settings
        if n and leaf and type(m).__module__.startswith("torch.nn."):
            kept = [item for item in m.extra_repr().split(", ") if not item.startswith("inplace")]
            label = as_target(module, n)
            if label == n and n in renamed:  # a ReLU at net.2 where your net.1 is the target's
                label = f"{n} (yours)"  # net.2: no counterpart by name (outputs compare it)
            found[label] = f"{type(m).__name__}({', '.join(kept)})"
    return found


def same_layers(a, b):
    """The layers both models have, by name, set alike (a layer one lacks shows in outputs)."""
    return all(a[k] == b[k] for k in a.keys() & b.keys())


def initial_weights(module, ctx):
    """Each tensor's mean, spread, size and shape of spread as the model starts (default sizes):
    N(0, 0.02) and PyTorch's own uniform start differ here, and no weight copied in can hide it.
    The shape: the share within one spread of the mean (a normal draw 68%, a uniform one 58%)."""
    model = build(module, ctx, ctx.configs[1])
    found = {}
    for k, p in model.named_parameters():
        p = p.detach().double()
        std = 0.0
        within = 0.0
        if p.numel() > 1:
            std = p.std().item()
            within = ((p - p.mean()).abs() < std).double().mean().item()
        found[as_target(module, k)] = (p.mean().item(), std, p.numel(), within)
    return found


def outputs(module, ctx):
    """At each size, from the target's weights and one batch, in training mode with one seed:
    the logits, the loss and the gradients; and at the small sizes, the tensors each module
    takes and gives, call by call (those of the default sizes are asked for only where the
    small ones agree: they weigh on the way between processes)."""
    return [forward(module, ctx, 0, True), forward(module, ctx, 1, False)]


def forward(module, ctx, size, record, calls=None, inputs=None):
    """One forward and backward pass at ctx.configs[size], the modules' tensors recorded or
    not: into calls and inputs where given, which keep what was recorded if the pass raises."""
    torch = ctx.torch
    args, weights, (x, y) = ctx.configs[size], ctx.weights[size], ctx.batches[size]
    model = build(module, ctx, args, weights)
    if calls is None:
        calls = {}
    if inputs is None:
        inputs = {}
    hooks = []
    if record:
        hooks = recorders(module, model, calls, inputs)
    seed(torch, 1)  # dropout draws the same masks
    try:
        logits, loss = model(x, y)
        loss.backward()
    finally:
        for h in hooks:
            h.remove()
    grads = {as_target(module, k): p.grad for k, p in model.named_parameters()}
    return {"calls": calls, "inputs": inputs, "logits": logits.detach(), "loss": loss.detach(),
            "grads": grads}


def shapes(module, ctx, size):
    """The shapes of the tensors each module takes and gives, call by call, by the target's
    names, in forward() at ctx.configs[size], recorded until it ends or raises."""
    calls = {}
    inputs = {}
    try:
        forward(module, ctx, size, True, calls, inputs)
    except Exception:  # the error is said already: what came before it is asked for here
        pass
    return {"gives": first_shapes(calls), "takes": first_shapes(inputs)}


def first_shapes(records):
    """{a module's name: the shape of the first tensor of its first call}."""
    found = {}
    for name, each in records.items():
        if each and each[0]:
            found[name] = tuple(each[0][0].shape)
    return found


def shape_before_error(known, learner, zh):
    """Where the learner's forward raised: the first module, in the order the target's modules
    finish, whose output has another shape in yours, in one line ("" if there is none); where
    its input has another shape already, the module that made it is said instead."""
    text = catalogue.TEXT
    try:
        mine = learner.ask(("shapes", 0))
    except (Raised, Differs, Ended):  # nothing more to learn: their error is said as it is
        return ""
    target = observed(known, "outputs", outputs)[0]
    theirs = {"gives": first_shapes(target["calls"]), "takes": first_shapes(target["inputs"])}
    for name, shape in theirs["gives"].items():
        if name not in mine["gives"] or mine["gives"][name] == shape:
            continue
        values = {"module": name, "kind": kind(known.target, known.ctx, name, zh),
                  "yours": mine["gives"][name], "theirs": shape}
        given = mine["takes"].get(name)
        if given is None or given == theirs["takes"].get(name):
            return text["raised_after"][zh].format(**values)
        parent = name.rpartition(".")[0]  # "": the model itself
        what = kind(known.target, known.ctx, parent, zh)
        if parent:
            place = text["place_caller"][zh].format(caller=parent, what=what)
        else:
            place = text["place_model"][zh].format(what=what)
        return text["raised_given"][zh].format(module=name, kind=values["kind"], yours=given,
                                               theirs=theirs["takes"][name], place=place)
    return ""


def recorders(module, model, calls, inputs):
    """A recorder hook on each of model's modules, by the target's name for it: the hooks."""
    names = {}  # a module shared by two places (one GELU object) would mix their outputs
    for n, m in model.named_modules(remove_duplicate=False):
        names.setdefault(id(m), []).append(n)
    renamed = {as_target(module, n) for n in names_of(model) if as_target(module, n) != n}
    hooks = []
    for n, m in model.named_modules():
        label = as_target(module, n)
        if label == n and n in renamed:  # a ReLU at net.0 where the Linear named net.0 is yours
            label = f"{n} (yours)"
        if n and len(names[id(m)]) == 1:
            hooks.append(m.register_forward_hook(recorder(label, calls, inputs)))
    return hooks


def names_of(model):
    return [n for n, _ in model.named_modules()]


def recorder(name, calls, inputs):
    """A forward hook that keeps copies of the tensors a module takes and gives, call by call
    (copies: an in-place ReLU after a Linear would change the Linear's output)."""
    def hook(module, given, output):
        inputs.setdefault(name, []).append([t.detach().clone() for t in flat(given)])
        calls.setdefault(name, []).append([t.detach().clone() for t in flat(output)])
    return hook


def trace(module, ctx, inside, size, call=None):
    """The torch functions that the module called inside (the target's name for it) runs, and
    what each gives, as forward() runs the model at ctx.configs[size], or as the rung's call
    number call runs it."""
    import diagnose  # it imports torch: only where a check needs it
    if call is not None:
        model, names = call_model(module, ctx, call)
    else:
        args, weights, (x, y) = ctx.configs[size], ctx.weights[size], ctx.batches[size]
        model = build(module, ctx, args, weights)
    own = {as_target(module, n): n for n, _ in model.named_modules()}
    tracer = diagnose.Trace(model, own[inside])
    with tracer:
        if call is not None:
            evaluate(ctx, call, names)
        else:
            seed(ctx.torch, 1)
            model(x, y)
    tracer.remove()
    return tracer.seen


def call_records(module, ctx, call):
    """The tensors each of the model's modules takes and gives while the rung's call number
    call runs, as calls() runs it: {calls, inputs}."""
    model, names = call_model(module, ctx, call)
    calls, inputs = {}, {}
    hooks = recorders(module, model, calls, inputs)
    hooks.append(model.register_forward_hook(recorder(MODEL, calls, inputs)))
    try:
        evaluate(ctx, call, names)
    finally:
        for h in hooks:
            h.remove()
    return {"calls": calls, "inputs": inputs}


def call_model(module, ctx, call):
    """The model as calls() has it just before its call number call (the calls before it run:
    one may have set eval mode), and the names a call sees."""
    torch, args, (x, y) = ctx.torch, ctx.configs[0], ctx.batches[0]
    model = build(module, ctx, args, ctx.weights[0])
    names = {"model": model, "m": module, "x": x, "y": y, "args": args, "torch": torch,
             "chars": ctx.chars, "fill": fill}
    for i in range(call):
        with contextlib.suppress(Exception):
            evaluate(ctx, i, names)
    return model, names


def evaluate(ctx, i, names):
    """The rung's call number i, on names: seeded, then h drawn (a hidden state some calls
    take), then the call."""
    seed(ctx.torch, 3)
    names["h"] = ctx.torch.randn(2, 5, 12)
    text = ctx.calls[i]
    if text not in CODE:
        CODE[text] = compile(text, "<call>", "eval")
    with contextlib.redirect_stdout(io.StringIO()):
        return eval(CODE[text], names)  # noqa: S307 the catalogue's own


def data(module, ctx):
    """read_data on a short text: its vocabulary and its splits."""
    return module.read_data(short_text())


RUN_STEPS = 2
# what a file run for RUN_STEPS steps, evaluating at each, does: exits with 0, and its
# metrics.csv holds step 0 (before training), each step, and the last
RUN_PROMISE = {"status": 0, "steps": [str(step) for step in range(RUN_STEPS + 1)]}


def runs(module, ctx):
    """The file itself run as a script, as a learner trains it, for RUN_STEPS steps at the small
    sizes into a folder of its own: its exit status and the steps its metrics.csv holds."""
    import runpy

    flags = ["--max-iters", str(RUN_STEPS), "--eval-interval", "1", "--eval-iters", "1"]
    for k, v in SMALL.items():
        if k in module.HYPERPARAMETERS and k not in ("lr", "seed"):
            flags += [f"--{k.replace('_', '-')}", str(v)]
    before = sys.argv, sys.stdout, sys.stderr  # put back after: InProcess runs it here
    with tempfile.TemporaryDirectory() as folder, open(os.devnull, "w") as quiet:
        out = Path(folder) / "run"
        sys.argv = [module.__file__, *flags, "--device", "cpu", "--data", str(short_text()),
                    "--out", str(out)]
        sys.stdout = quiet  # a real file: the plumbing reconfigures it
        sys.stderr = quiet
        status = 0
        try:
            runpy.run_path(module.__file__, run_name="__main__")
        except SystemExit as e:
            status = e.code
        finally:
            sys.argv, sys.stdout, sys.stderr = before
        steps = []
        metrics = out / "metrics.csv"
        if metrics.is_file():
            steps = sorted({line.split(",")[0] for line in metrics.read_text().splitlines()[1:]})
    return {"status": status, "steps": steps}


def batches(module, ctx):
    return [module.get_batch(ctx.splits["train"], args, ctx.torch.Generator().manual_seed(2))
            for args in ctx.configs]


MASKING_ROWS, MASKING_DRAWS, MASKING_TEXT = 256, 64, 2000  # rows a draw, draws, characters
STARTS = 10  # where windows start: the text cut in this many parts


def masking(module, ctx):
    """What get_batch's masking gives over MASKING_DRAWS draws of MASKING_ROWS windows at both
    sizes, from the first MASKING_TEXT characters: enough to judge a get_batch that draws
    another way by what masking promises. For each size, {shape, counts: how many positions a
    row chooses, again: whether the same generator gives the same batch, whole: the share of
    rows whose chosen targets and unchosen inputs make a window of the text, starts: how often
    a window starts in each tenth of the text, shares: of the chosen, the shares shown as the
    mask token (id 0), as themselves and as another character, replaced: how many as another,
    per_row: how often a row hides 0, 1, 2 ... of its chosen positions by the mask token, then
    keeps 0, 1, 2 ..., noise: how often each id is that other character (the last entry: ids
    beyond the vocabulary), where: how often each position is chosen, next: how often the
    position after a chosen one is chosen too, pairs: of how many}."""
    return [masking_at(module, ctx, args) for args in ctx.configs]


def masking_at(module, ctx, args):
    torch = ctx.torch
    args = type(args)(**{**vars(args), "batch_size": MASKING_ROWS})
    data = ctx.splits["train"][:MASKING_TEXT]
    T = args.block_size
    # every window of the text as one number, sum of id * 1000003**t wrapping at 2**64: two
    # windows alike by chance once in about 2**64
    powers = torch.full((T,), 1000003).cumprod(0)  # (T,)
    keys, order = (data.unfold(0, T, 1) * powers).sum(-1).sort()  # (N,): sorted, and where from
    vocab = len(ctx.chars)
    counts = set()
    whole = 0
    shape = None
    shown = torch.zeros(3)  # the mask token, itself, another character
    noise = torch.zeros(vocab + 1)
    where = torch.zeros(T)
    starts = torch.zeros(STARTS)
    per_row = torch.zeros(2, T + 1)  # rows hiding 0, 1, 2 ... by the mask token; keeping
    pairs = torch.zeros(2)  # chosen positions with a next one; of them, the next chosen too
    first = None  # draw 0's batch, drawn again at the end: the same generator, the same batch
    for draw in range(MASKING_DRAWS):
        x, y = module.get_batch(data, args, torch.Generator().manual_seed(draw))
        shape = (tuple(x.shape), tuple(y.shape))
        if x.shape != y.shape or x.shape != (MASKING_ROWS, T):
            break
        if first is None:
            first = (x, y)
        chosen = y != -100
        counts |= set(chosen.sum(1).tolist())
        text = torch.where(chosen, y, x)  # (B, T)
        key = (text.long() * powers).sum(-1)  # (B,)
        found = torch.searchsorted(keys, key).clamp(max=len(keys) - 1)
        real = keys[found] == key  # (B,): a window of the text
        whole += int(real.sum())
        starts += torch.bincount(order[found[real]] * STARTS // len(keys), minlength=STARTS)
        masked = chosen & (x == 0)
        kept = chosen & (x == y) & ~masked
        other = chosen & ~masked & ~kept
        shown += torch.tensor([masked.sum(), kept.sum(), other.sum()], dtype=torch.float)
        per_row[0] += torch.bincount(masked.sum(1), minlength=T + 1)[:T + 1]
        per_row[1] += torch.bincount(kept.sum(1), minlength=T + 1)[:T + 1]
        noise += torch.bincount(x[other].clamp(0, vocab), minlength=vocab + 1)[:vocab + 1]
        where += chosen.sum(0)
        pairs += torch.tensor([chosen[:, :-1].sum(), (chosen[:, :-1] & chosen[:, 1:]).sum()])
    rows = MASKING_ROWS * MASKING_DRAWS
    again = False
    if first is not None:
        x, y = module.get_batch(data, args, torch.Generator().manual_seed(0))
        again = bool(x.equal(first[0]) and y.equal(first[1]))
    return {"shape": shape, "counts": sorted(counts), "again": again, "whole": whole / rows,
            "starts": (starts / starts.sum().clamp(min=1)).tolist(),
            "shares": (shown / shown.sum().clamp(min=1)).tolist(),
            "per_row": (per_row / rows).flatten().tolist(),
            "noise": (noise / noise.sum().clamp(min=1)).tolist(),
            "where": (where / rows).tolist(), "next": [(pairs[1] / pairs[0].clamp(min=1)).item()],
            "pairs": int(pairs[0]), "replaced": int(shown[2])}


def keeps_promises(mine, theirs):
    """Whether the learner's masking (masking()) keeps what the target's promises, at each size:
    the same shapes and counts, the same batch from the same generator, every row a window of
    the text, the same shares of mask, kept and other, the same share of each position chosen,
    of chosen positions followed by another, and of windows starting in each tenth of the text
    (each within 6 standard errors of a difference between two samples of that size: right code
    fails about once in 10**8), and the rows hiding alike (within 0.1 in total variation: right
    code differs by about 0.01) and the other characters drawn alike (within 5.5 / sqrt(n) for n
    of them: two samples of right code differ by about 3.4 / sqrt(n), 0.06 at the small sizes
    and 0.04 at the default ones; drawn from half the text instead, by 0.09; uniformly, 0.5)."""
    return broken_promise(mine, theirs) is None


def within_sampling(mine, theirs, n):
    """Whether each share in mine is within 6 standard errors of theirs, both from n draws."""
    for a, b in zip(mine, theirs):
        if abs(a - b) > 6 * math.sqrt(2 * b * (1 - b) / max(n, 1)) + 1e-9:
            return False
    return True


def total_variation(a, b):
    """The total variation between two distributions: half the sum of the differences."""
    return sum(abs(x - y) for x, y in zip(a, b)) / 2


def broken_promise(mine, theirs):
    """(key, values) into catalogue.TEXT for the first promise of masking that the learner's
    masking (masking()) breaks, at the first size where one is broken; None where it keeps
    them all."""
    rows = MASKING_ROWS * MASKING_DRAWS
    for a, b in zip(mine, theirs):
        if a["shape"] != b["shape"]:
            return "promise:shape", {"yours": a["shape"], "value": b["shape"]}
        T = b["shape"][0][1]
        if a["counts"] != b["counts"]:
            return "promise:counts", {"yours": a["counts"], "value": b["counts"], "T": T}
        if not a["again"]:
            return "promise:again", {}
        if a["whole"] != 1.0:
            return "promise:whole", {"share": f"{1 - a['whole']:.0%}"}
        if not within_sampling(a["starts"], b["starts"], rows):
            return "promise:starts", {"yours": shares(a["starts"]),
                                      "value": shares(b["starts"])}
        if not within_sampling(a["shares"], b["shares"], rows * b["counts"][0]):
            return "promise:shares", {"yours": shares(a["shares"]), "value": shares(b["shares"])}
        if total_variation(a["per_row"], b["per_row"]) > 0.1:  # two distributions: each within 0.05
            return "promise:per_row", {}
        if not within_sampling(a["where"], b["where"], rows):
            i = max(range(T), key=lambda i: abs(a["where"][i] - b["where"][i]))
            return "promise:where", {"i": i, "yours": f"{a['where'][i]:.0%}",
                                     "value": f"{b['where'][i]:.0%}"}
        if not within_sampling(a["next"], b["next"], b["pairs"]):
            return "promise:next", {"yours": f"{a['next'][0]:.0%}", "value": f"{b['next'][0]:.0%}"}
        if total_variation(a["noise"], b["noise"]) > 5.5 / math.sqrt(max(b["replaced"], 1)):
            return "promise:noise", {}
    return None


def shares(values):
    """Shares as percentages: '80% / 10% / 10%'."""
    return " / ".join(f"{v:.0%}" for v in values)


def on_target_batches(module, ctx):
    """training() with the target's get_batch: for a get_batch that draws another way and keeps
    what masking promises, so that both trainings see the same batches."""
    own = module.get_batch
    module.get_batch = ctx.target.get_batch
    try:
        return training(module, ctx)
    finally:
        module.get_batch = own


def causality(module, ctx):
    """For each position, whether its logits change when the last character changes; and
    whether the model in eval mode gives the same logits twice (dropout off)."""
    torch, args, (x, _) = ctx.torch, ctx.configs[0], ctx.batches[0]
    model = build(module, ctx, args, ctx.weights[0]).eval()
    other = x.clone()
    other[:, -1] = (other[:, -1] + 1) % len(ctx.chars)
    with torch.no_grad():
        seed(torch, 5)
        a, b = model(x)[0], model(other)[0]
        seed(torch, 6)
        again = model(x)[0]
    return {"sees": [bool((a[:, t] - b[:, t]).abs().max() > 1e-4) for t in range(x.shape[1])],
            "same twice": torch.allclose(a, again, 0, 0, equal_nan=True)}


def fill(model):
    """Every parameter set from its own name: the same values whatever order made them."""
    import torch

    with torch.no_grad():
        for name, p in model.named_parameters():
            g = torch.Generator().manual_seed(zlib.crc32(name.encode()))
            p.copy_(torch.randn(p.shape, generator=g) * 0.3)
    return model


def calls(module, ctx):
    """The rung's other calls (catalogue.CALLS), each evaluated from the target's weights, on a
    model in training mode, as main() hands it to sample() (after training, or as loaded): a
    function that needs eval mode must set it. {values: what each gives, modes: whether the
    model is in training mode after it}."""
    model, names = call_model(module, ctx, 0)
    results, modes = [], []
    for i in range(len(ctx.calls)):
        modes.append(model.training)  # as the call before left it
        try:
            results.append(evaluate(ctx, i, names))
        except Exception as e:  # the target's own refusals are part of what it does
            results.append(Raising(e, their_frames(e, Path(module.__file__))))
    modes.append(model.training)
    return {"values": results, "modes": modes[1:]}


CODE = {}  # each call's text, compiled once


class Log:
    """What train() logs to, as the plumbing's Run does: each step's loss and each estimate."""

    def __init__(self):
        self.losses = []

    def evaluation(self, step, losses):
        self.losses += [losses["train"], losses["val"]]

    def step(self, step, loss):
        self.losses.append(loss.item())


def training(module, ctx, model=None):
    """TRAIN_STEPS steps of the module's own train() from the target's weights (or model): the
    losses."""
    args = ctx.configs[TRAIN_SIZES]
    short = type(args)(**{**vars(args), "max_iters": TRAIN_STEPS, "eval_interval": TRAIN_STEPS,
                          "eval_iters": 2})
    if model is None:
        model = build(module, ctx, args, ctx.weights[TRAIN_SIZES])
    log = Log()
    seed(ctx.torch, 4)
    module.train(model, ctx.splits, short, log)
    return log.losses


# ------------------------------------------------------------------ one piece
def pieces(target):
    """The classes of the target's model that a learner can check alone: its nn.Modules but the
    model itself."""
    import torch

    return [n for n, v in vars(target).items() if isinstance(v, type) and issubclass(
        v, torch.nn.Module) and v.__module__ == target.__name__ and n != "LanguageModel"]


def piece_sample(target, ctx, cls):
    """How the target's model builds and calls its first cls, at the small sizes in eval mode:
    (the constructor's args and kwargs, its parameters, the args and kwargs of its first
    call)."""
    torch = ctx.torch
    made = []
    kind_of = getattr(target, cls)
    original = kind_of.__init__

    def init(self, *args, **kwargs):  # the target's own class, put back below
        made.append((self, args, kwargs))
        original(self, *args, **kwargs)

    kind_of.__init__ = init
    try:
        model = build(target, ctx, ctx.configs[0], ctx.weights[0]).eval()
    finally:
        kind_of.__init__ = original
    if not made:
        raise Differs("piece", "piece_unused", cls=cls)
    first, args, kwargs = made[0]
    given = []

    def hook(module, call_args, call_kwargs, output):
        if not given:
            given.append((call_args, call_kwargs))

    handle = first.register_forward_hook(hook, with_kwargs=True)
    with torch.no_grad():
        model(*ctx.batches[0])
    handle.remove()
    weights = {k: v.detach().clone() for k, v in first.named_parameters()}  # buffers aside
    return args, kwargs, weights, given[0]


def piece(module, ctx, cls):
    """module's class cls, built and called as the target's model builds and calls its own, from
    the same weights: {params: [(name, shape)], gives: [tensors]}. A config object the target
    passes is rebuilt with module's own class of its name."""
    torch = ctx.torch
    args, kwargs, theirs, (call_args, call_kwargs) = piece_sample(ctx.target, ctx, cls)
    own = getattr(module, cls, None)
    if not isinstance(own, type):
        raise Differs("piece", "piece_missing", cls=cls, pieces=", ".join(pieces(ctx.target)))

    def mine(value):  # the target's BertConfig, say, as the learner's BertConfig
        name = type(value).__name__
        if type(value).__module__ == ctx.target.__name__ and isinstance(
                getattr(module, name, None), type):
            return getattr(module, name)(**vars(value))
        return value

    seed(torch, ctx.configs[0].seed)
    try:
        made = own(*[mine(a) for a in args], **{k: mine(v) for k, v in kwargs.items()})
    except TypeError as e:  # other arguments: say how the target's model builds it
        shown_args = ", ".join([*map(short_repr, args),
                                *(f"{k}={short_repr(v)}" for k, v in kwargs.items())])
        raise Differs("piece", "piece_args", cls=cls, call=f"{cls}({shown_args})",
                      error=f"{type(e).__name__}: {e}") from None
    params = dict(made.named_parameters())
    if sorted(params) == sorted(theirs):  # the target's names, in any order
        pairs = [(params[n], theirs[n]) for n in theirs]
    else:  # other names: by the order they are declared in, where the shapes agree
        pairs = list(zip(params.values(), theirs.values()))
    if len(params) != len(theirs) or any(p.shape != v.shape for p, v in pairs):
        raise Differs("piece", "piece_params", cls=cls,
                      yours=[(n, tuple(p.shape)) for n, p in params.items()],
                      value=[(n, tuple(v.shape)) for n, v in theirs.items()])
    with torch.no_grad():
        for p, v in pairs:
            p.copy_(v)
        gives = made.eval()(*call_args, **call_kwargs)
    return {"gives": [t.detach() for t in flat(gives)]}


def short_repr(value):
    """value as a constructor call shows it: a config by its class's name."""
    if hasattr(value, "__dict__") and not isinstance(value, type):
        return f"{type(value).__name__}(...)"
    return repr(value)


def check_piece(name, target_text, path, cls, lang="en", say=print, cache=None):
    """Check one class of the file at path against the target's: True when it computes what the
    target's computes, from the same weights and input."""
    import diagnose  # it imports torch: only where a check needs it
    zh = lang == "zh"
    text = catalogue.TEXT
    if cache is None:
        cache = {}
    known = known_target(name, target_text, cache)
    if cls not in pieces(known.target):
        raise refusal("err:no_piece", " --lang zh" * zh, name=name, cls=cls,
                      pieces=", ".join(pieces(known.target)))
    learner = Learner(name, target_text, Path(path).resolve(), cache)

    def compare():
        learner.ask("imports")
        say(text["ok"][zh].format(stage=text["stage:imports"][zh]))
        learner.send(("piece", cls))
        theirs = plain(piece(known.target, known.ctx, cls))
        mine = learner.reply()
        if not close(mine["gives"], theirs["gives"]):
            how = text["rel:shape"][zh].format(yours=len(mine["gives"]),
                                               theirs=len(theirs["gives"]))
            if len(mine["gives"]) == len(theirs["gives"]):
                key, values = diagnose.relation(*first_tensors(mine["gives"], theirs["gives"]))
                how = text[key][zh].format(**values)
            raise Differs("piece", "piece_output", cls=cls, how=how)

    if not verdict(compare, learner, name, zh, say):
        return False
    lang_flag = " --lang zh" * zh
    say(wrap(text["piece_passed"][zh].format(cls=cls, name=name, lang=lang_flag)))
    return True


# ------------------------------------------------------------------ comparing
def close(a, b):
    """a and b agree: tensors to within rounding, containers item by item, the rest equal."""
    import torch

    if isinstance(a, torch.Tensor) or isinstance(b, torch.Tensor):
        return (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor)
                and a.shape == b.shape and a.dtype == b.dtype
                and (torch.allclose(a, b, RTOL, ATOL) if a.is_floating_point() else a.equal(b)))
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(close(p, q) for p, q in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(close(a[k], b[k]) for k in a)
    if isinstance(a, float) and isinstance(b, float):  # eps 1e-12 is not 1e-5
        return math.isclose(a, b, rel_tol=RTOL)
    return type(a) is type(b) and a == b


def same_scale(a, b):
    """Initial weights: each tensor's mean and spread as the target's, within five times what
    drawing n numbers again explains (the same code may draw them in another order), and a
    twentieth of the spread: a constant (ones, zeros) is matched exactly. N(0, 0.025) for
    N(0, 0.02) is caught in a 32 x 32 matrix. And from 64 numbers on, the share within one
    spread: a uniform draw with the target's normal spread is caught."""
    def agree(mine, theirs):
        (m, s, _, w), (mean, std, n, within) = mine, theirs
        shaped = n < 64 or abs(w - within) <= 5 * (within * (1 - within) / n)**0.5 + 0.02
        return abs(m - mean) <= 5 * std / n**0.5 + 1e-6 and \
            abs(s - std) <= 0.05 * std + 5 * std / (2 * n)**0.5 + 1e-6 and shaped
    return a.keys() == b.keys() and all(agree(a[k], b[k]) for k in a)


def same_losses(a, b):
    return len(a) == len(b) and all(abs(p - q) <= LOSS_TOL for p, q in zip(a, b))


def same_outputs(a, b):
    """The observable result: logits, loss and gradients at each size."""
    return all(close(p["logits"], q["logits"]) and close(p["loss"], q["loss"])
               and close(p["grads"], q["grads"]) for p, q in zip(a, b))


STAGES = [  # (stage, observe(module, ctx), agree(learner's, target's)) in the order checked
    ("hyperparameters", hyperparameters, close),
    ("parameters", parameters, close),
    ("layers", layers, same_layers),
    ("initial weights", initial_weights, same_scale),
    ("outputs", outputs, same_outputs),
    ("data", data, close),
    ("batches", batches, close),
    ("causality", causality, close),
    ("calls", calls, close),
    ("training", training, same_losses),
    ("runs", runs, close),
]


# ------------------------------------------------------------------ saying what differs
def difference(stage, mine, theirs, target, ctx, learner, zh=False):
    """The generic message for a stage's difference: (key, values) into catalogue.TEXT. learner:
    the learner's process (Learner), to ask what else its code gives."""
    import diagnose  # it imports torch: only where a check needs it
    if stage == "hyperparameters":
        a, b = mine["values"], theirs["values"]
        for k in b:
            if k not in a:
                return "hp_missing", {"name": k, "value": b[k]}
            if not close(a[k], b[k]) and a[k] == b[k]:  # 0 for 0.0: another type
                return "hp_type", {"name": k, "value": b[k], "yours": a[k],
                                   "kind": type(b[k]).__name__}
            if not close(a[k], b[k]):
                return "hp_value", {"name": k, "value": b[k], "yours": a[k]}
        extra = [k for k in a if k not in b]
        if extra:
            return "hp_extra", {"name": extra[0]}
        return "model_args", {"yours": mine["MODEL_ARGS"], "value": theirs["MODEL_ARGS"]}
    if stage == "parameters":
        i = 0  # the small sizes, unless they agree
        if mine[0] == theirs[0]:
            i = 1
        a, b = mine[i], theirs[i]
        extra = [k for k in a if k not in b]
        for k in b:
            if k not in a and extra and a[extra[0]] == b[k]:  # the same shape, another name
                return "param_renamed", {"name": k, "shape": b[k], "what": catalogue.word(k, zh),
                                         "extra": extra[0]}
            if k not in a and extra:  # one in place of the other: say what the target has there
                module = extra[0].rpartition(".")[0]
                return "param_instead", {"name": k, "shape": b[k], "what": catalogue.word(k, zh),
                                         "extra": extra[0], "module": module,
                                         "kind": kind(target, ctx, module, zh)}
            if k not in a:
                shared = learner.ask(("aliases", i))
                if k in shared:  # one module placed twice: its weights under two names
                    return "param_shared", {"name": k, "first": shared[k],
                                            "what": catalogue.word(k, zh)}
                top = k.split(".")[0]
                held = [n for n in b if n.startswith(top + ".")]
                if len(held) > 1 and not any(n.startswith(top + ".") for n in a):
                    return "module_unregistered", {"module": top, "n": len(held),
                                                   "what": catalogue.word(k, zh)}
                return "param_missing", {"name": k, "shape": b[k], "what": catalogue.word(k, zh)}
            if a[k] != b[k]:
                return "param_shape", {"name": k, "shape": b[k], "yours": a[k],
                                       "what": catalogue.word(k, zh)}
        return "param_extra", {"name": extra[0]}
    if stage == "layers":
        k = next(k for k in sorted(theirs.keys() & mine.keys()) if mine[k] != theirs[k])
        return "layers", {"name": k, "yours": mine[k], "value": theirs[k]}
    if stage == "data":
        (chars, splits), (their_chars, their_splits) = mine, theirs
        if chars != their_chars:
            if len(chars) != len(their_chars):
                return "data_chars", {"yours": len(chars), "value": len(their_chars)}
            i = next(i for i, (a, b) in enumerate(zip(chars, their_chars)) if a != b)
            return "data_order", {"char": their_chars[i], "yours": chars.find(their_chars[i]),
                                  "value": i}
        sizes = {k: len(v) for k, v in splits.items()}
        their_sizes = {k: len(v) for k, v in their_splits.items()}
        return "data_splits", {"yours": sizes, "value": their_sizes}
    if stage == "runs":
        return "runs", {"status": mine["status"], "steps": len(mine["steps"]),
                        "value": len(theirs["steps"])}
    if stage == "initial weights":
        differ = [k for k in theirs if not same_scale({k: mine[k]}, {k: theirs[k]})]
        k = differ[0]
        more = ""
        if len(differ) > 1:  # one tensor, or every one: an init that never reaches them?
            more = catalogue.TEXT["init_more"][zh].format(n=len(differ), of=len(theirs))
        return "init", {"name": k, "yours": start_words(mine[k]), "value": start_words(theirs[k]),
                        "more": more}
    if stage == "outputs":
        learned = learner.ask("causality")
        rule = causality(target, ctx)
        causal = ""
        if learned != rule:
            causal = why_not_causal(learned, rule)
        for size, word in enumerate(("small", "default")):
            p, q = mine[size], theirs[size]
            if size == 1:  # the small sizes agree: each module's tensors at the default sizes
                p = learner.ask(("records", 1))
                q = records(target, ctx, 1)
            for name, outs in q["calls"].items():
                held = any(n.startswith(name + ".") for n in p["calls"])
                if name not in p["calls"] and (held or not weighs(target, ctx, name)):
                    continue  # nn.ReLU where yours calls F.relu, a Sequential yours has not:
                    # no counterpart to compare (what it holds is compared)
                if name not in p["calls"]:
                    return "never_called", {"name": name, "what": kind(target, ctx, name, zh)}
                if not close(p["calls"][name], outs):
                    why, evidence = inside(name, p, q, target, ctx, learner, zh, size)
                    if causal in ("peeks", "blind_self"):  # a mask's doing: said too
                        also = catalogue.TEXT["and_causal"][zh].format(
                            causal=catalogue.TEXT[causal][zh])
                        why = joined([why, also], zh)
                    return "first_module", {"name": name, "what": kind(target, ctx, name, zh),
                                            "why": why, "evidence": evidence, "size": word}
            if causal:
                return causal, {}
            if not close(p["logits"], q["logits"]) or not close(p["loss"], q["loss"]):
                return "logits", {"size": word}
            name = next((k for k in q["grads"] if not close(p["grads"][k], q["grads"][k])), None)
            if name:
                return "grads", {"name": name, "size": word}
        return "logits", {"size": "default"}  # not reached: same_outputs found a difference
    if stage == "batches":
        size, (a, b) = next((size, pair) for size, pair in zip(("small", "default"), zip(
            mine, theirs)) if not close(*pair))  # a, b: the learner's (x, y), the target's
        which = 0
        if not close(a[1], b[1]):
            which = 1  # the targets say what the batch means (which positions are scored): first
        key, values = diagnose.relation(a[which], b[which])
        chosen = b[1] != -100
        if key == "rel:entries" and which == 0 and not chosen.all():
            moved = a[0] != b[0]
            if not moved[~chosen].any():  # the windows agree: only how chosen ones are hidden
                key = "hidden"
                values = {"n": int(moved.sum()), "of": int(chosen.sum())}
        if key == "rel:entries":  # other windows or choices: other random draws
            key = "draws"
        if key in ("draws", "hidden", "rel:chosen") and masked(theirs):  # a promise it breaks
            broken = broken_promise(learner.ask(("masking",)), masking(target, ctx))
            if broken:
                key, values = broken
        how = catalogue.TEXT[key][zh].format(**values)
        if size == "small" and close(mine[1], theirs[1]):  # the default flags agree
            how += catalogue.TEXT["small_only"][zh]
        return "batches", {"which": "xy"[which], "size": size, "how": how}
    if stage == "causality":
        return why_not_causal(mine, theirs), {}
    if stage == "calls":
        for i, (p, q) in enumerate(zip(mine["values"], theirs["values"])):
            if mine["modes"][i] != theirs["modes"][i]:  # it left the model in another mode
                mode = catalogue.TEXT
                return "calls_mode", {"call": ctx.calls[i],
                                      "yours": mode[f"mode:{mine['modes'][i]}"][zh],
                                      "value": mode[f"mode:{theirs['modes'][i]}"][zh]}
            if not close(p, q):
                where, p, q = first_difference(p, q)
                values = {"call": ctx.calls[i] + where, "value": summary(q, zh=zh),
                          "yours": summary(p, q, zh), "more": ""}
                found = None
                if not isinstance(p, Raising) and not isinstance(q, Raising):
                    found = in_call(i, target, ctx, learner, zh)
                if found:  # and where it parts, after a full stop
                    key, more = found
                    values["more"] = catalogue.TEXT["sentence_end"][zh] + \
                        catalogue.TEXT[key][zh].format(**more)
                return "calls", values
    i = next((i for i, (p, q) in enumerate(zip(mine, theirs)) if not abs(p - q) <= LOSS_TOL),
             min(len(mine), len(theirs)))  # or where the shorter list of losses ends
    return "training", {"yours": f"{mine[i]:.6f}" if i < len(mine) else "none",
                        "value": f"{theirs[i]:.6f}" if i < len(theirs) else "none"}


def inside(name, p, q, target, ctx, learner, zh, size, call=None):
    """Why the module called name gives another output, in words: (the finding, the evidence).
    Where its input differs already, the difference is made before it: in the module that calls
    it (or above, up to the model, whose inputs are the batch). There, at the first tensor the
    target computes that the learner's code never does, how the learner's nearest one relates to
    it. size: 0 for the small sizes, 1 for the default ones (said: they alone differ)."""
    import diagnose  # it imports torch: only where a check needs it
    text = catalogue.TEXT
    runs = len(p["calls"][name]), len(q["calls"][name])
    if runs[0] != runs[1]:  # ln1 used twice: one run more, nothing in it wrong
        finding = text["run_count"][zh].format(name=name, yours=runs[0], theirs=runs[1])
        return finding, ""
    where = name
    while where and not (where in p["inputs"] and close(p["inputs"][where], q["inputs"][where])):
        where = where.rpartition(".")[0]  # the module that calls it
    what = kind(target, ctx, where, zh)
    note = ""
    if size == 1:
        note = text["size_note"][zh]
    if where == name:
        place = text["place_in"][zh].format(name=name, what=what)
        evidence = text["traced_here"][zh].format(size=note)
    else:
        if where:
            place = text["place_caller"][zh].format(caller=where, what=what)
        else:
            place = text["place_model"][zh].format(what=what)
        given = flat(p["inputs"][name])[:1]
        source = [n for n, outs in q["calls"].items() if given and n != name and any(
            close(given[0], t) for t in flat(outs))]
        fed = ""
        if source:
            fed = text["input_from"][zh].format(source=source[0])
        evidence = text["traced_from"][zh].format(name=name, what=kind(target, ctx, name, zh),
                                                  size=note, source=fed)
        order = called_in_order(p, q, where)
        if order:  # the same layers, called in another order: that is the difference
            finding = text["order"][zh].format(place=place, yours=order[0], theirs=order[1])
            return finding, evidence
    theirs_trace = trace(target, ctx, where, size, call)
    mine_trace = learner.ask(("trace", where, size, call))
    parts = diagnose.partings(mine_trace, theirs_trace)
    part = next(parts, None)
    if part is None:  # every tensor computed, and still the output differs: its last step
        key, values = diagnose.relation(*first_tensors(p["calls"][name], q["calls"][name]))
        how = text[key][zh].format(**values)
        return text["at_the_end"][zh].format(place=place, how=how), evidence
    given = []
    if call is None:
        given = list(ctx.batches[size])  # the model's: the batch
    if where in q["inputs"]:
        given = flat(q["inputs"][where])
    outputs = {n: flat(outs) for n, outs in q["calls"].items()}  # to name a tensor by its module
    key, values, named = said_at(part, theirs_trace, given, outputs)
    if not named:  # k.T where the target has q.T: the scores a few ops on say more
        for later in itertools.islice(parts, LOOK_AHEAD):
            found = said_at(later, theirs_trace, given, outputs)
            if found[2]:
                key, values, named = found
                break
    how, how_values = values["how"]
    ops = {op for op, _, _ in mine_trace}
    if how in ("rel:missing_fn", "rel:extra_fn") and how_values["fn"].lower() in ops:
        how = "rel:fn_elsewhere"  # yours applies it too, at another step: not missing
    values["how"] = text[how][zh].format(**how_values)
    return text[key][zh].format(place=place, **values), evidence


LOOK_AHEAD = 6  # the target's tensors after the first the learner never computes, to relate


def said_at(part, theirs_trace, given, outputs):
    """(a key into catalogue.TEXT, its values with how as (key, values), whether the relation
    has a name) for a parting of two traces (diagnose.parting). outputs: {a module's name: the
    tensors it gave}, so that an earlier tensor a module gave is named by the module."""
    import diagnose  # it imports torch: only where a check needs it

    op, theirs, same, candidates, fed = part
    values = {"op": diagnose.shown(op), "shape": tuple(theirs.shape)}  # `a * b`, `softmax`
    if same:  # the same op on the same input: the op itself is another (its dim, its eps)
        values["how"] = diagnose.relation(same[0], theirs)
        if values["how"][0] == "rel:moved" and op in ("cat", "stack"):  # not a view's doing
            values["how"] = ("rel:joined_order", {})
        return "same_input", values, True
    if not candidates:
        values["how"] = ("rel:none", {})
        return "never_computes", values, False
    before = []
    for op, t in diagnose.earlier(theirs_trace, given, theirs):
        gave = [n for n, outs in outputs.items() if any(close(t, o) for o in outs)]
        if gave and op != "input":  # attention's output, not "its earlier reshape"
            op = gave[0]
        before.append((op, t))
    if fed:  # the same op, given another input: how that input differs, where it has a name
        how = diagnose.named_relation([fed[0][0]], fed[0][1], before)
        if how[0] != "rel:apart":
            values["how"] = how
            return "fed_at", values, True
    values["how"] = diagnose.named_relation(candidates, theirs, before)
    named = values["how"][0] != "rel:apart" and theirs.numel() > 1  # two numbers: any offset
    return "parts_at", values, named


def called_in_order(p, q, where):
    """(yours, the target's): the first of where's own layers that the learner's model calls
    where the target's calls another, the same layers in both; None where the order agrees."""
    def children(calls):
        return [n for n in calls if n.rpartition(".")[0] == where and n != where]
    mine, theirs = children(p["calls"]), children(q["calls"])
    if sorted(mine) != sorted(theirs):
        return None
    for a, b in zip(mine, theirs):
        if a != b:
            return a, b
    return None


def joined(sentences, zh):
    """Sentences one after another: a space between English ones, none between Chinese ones."""
    if zh:
        return "".join(sentences)
    return " ".join(sentences)


def first_tensors(mine, theirs):
    """The first pair of tensors, call by call, where mine and theirs part."""
    for a, b in zip(flat(mine), flat(theirs)):
        if not close(a, b):
            return a, b
    return flat(mine)[0], flat(theirs)[0]


def in_call(i, target, ctx, learner, zh):
    """(key, values) for where call number i parts from the target's: where the model's own
    runs agree but one of them is given another input, in the code around the model (sampling,
    the window it feeds); else at the first of the model's modules whose output differs, as
    inside() says it. None where every module agrees (or the call builds a module of its own,
    which no name finds)."""
    import diagnose  # it imports torch: only where a check needs it

    p = learner.ask(("call_records", i))
    q = call_records(target, ctx, i)
    runs = p["inputs"].get(MODEL, []), q["inputs"].get(MODEL, [])
    for j, (a, b) in enumerate(zip(*runs)):
        if close(a, b):
            continue
        if j > 0 and close(p["calls"][MODEL][:j], q["calls"][MODEL][:j]):
            key, values = diagnose.relation(*first_tensors(a, b))
            return "calls_between", {"runs": j, "how": catalogue.TEXT[key][zh].format(**values)}
        break
    for name, outs in q["calls"].items():
        if name != MODEL and name in p["calls"] and not close(p["calls"][name], outs):
            why, evidence = inside(name, p, q, target, ctx, learner, zh, 0, i)
            return "calls_module", {"name": name, "what": kind(target, ctx, name, zh),
                                    "why": why, "evidence": evidence}
    return None


MODEL = "(the model)"  # call_records' name for the model's own runs


def start_words(start):
    """(mean, spread, size, share within one spread) as the init message gives them."""
    mean, spread, _, within = start
    return f"{mean:.3f}, {spread:.3f}, {within:.0%}"


def why_not_causal(mine, theirs):
    """Which rule of what a position sees the learner's model breaks."""
    if not mine["same twice"]:
        return "random_in_eval"
    if any(mine["sees"][:-1]) and not any(theirs["sees"][:-1]):
        return "peeks"
    return "blind" if any(theirs["sees"][:-1]) else "blind_self"


def kind(target, ctx, name, zh=False):
    """The class of the target's module called name, e.g. FeedForward ("nothing": none)."""
    layer = target_layer(target, ctx, name)
    if layer is None:
        return catalogue.TEXT["nothing"][zh]
    return type(layer).__name__


def weighs(target, ctx, name):
    """Whether the target's module called name holds parameters (a ReLU holds none)."""
    layer = target_layer(target, ctx, name)
    return layer is not None and next(layer.parameters(), None) is not None


def target_layer(target, ctx, name):
    """The target's module called name in its model at the small sizes (built once), or None."""
    if getattr(ctx, "small_model", None) is None:
        ctx.small_model = build(target, ctx, ctx.configs[0])
    try:
        return ctx.small_model.get_submodule(name)
    except AttributeError:
        return None


def flat(value):
    """The tensors in a module's outputs (a tensor, a tuple of them, nested), as a list."""
    import torch

    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in flat(v)]
    return []


def first_difference(mine, theirs, where=""):
    """(where, my part, their part): the first item, however deep, where mine and theirs part."""
    if isinstance(mine, (list, tuple)) and isinstance(theirs, (list, tuple)) and \
            len(mine) == len(theirs):
        for i, (p, q) in enumerate(zip(mine, theirs)):
            if not close(p, q):
                return first_difference(p, q, f"{where}[{i}]")
    if isinstance(mine, dict) and isinstance(theirs, dict) and mine.keys() == theirs.keys():
        for k in mine:
            if not close(mine[k], theirs[k]):
                return first_difference(mine[k], theirs[k], f"{where}[{k!r}]")
    return where, mine, theirs


def summary(value, other=None, zh=False):
    """value in a few words; where it has other's shape, how far it is from other."""
    import torch

    text = catalogue.TEXT
    if isinstance(value, Raising):
        return text["summary_raises"][zh].format(name=value.name)
    if isinstance(value, torch.Tensor):
        far = ""
        if isinstance(other, torch.Tensor) and other.shape == value.shape:
            if value.is_floating_point() and other.is_floating_point():
                far = text["summary_far"][zh].format(
                    far=f"{(value - other).abs().max().item():.2g}")
            else:
                far = text["summary_items"][zh].format(n=(value != other).sum().item(),
                                                       of=value.numel())
        return text["summary_tensor"][zh].format(shape=tuple(value.shape), far=far)
    if isinstance(value, (list, tuple, dict)):
        return text["summary_many"][zh].format(kind=type(value).__name__, n=len(value))
    return one_line(repr(value))[:80]


# ------------------------------------------------------------------ the check
def known_target(name, target_text, cache):
    """The exercise's target loaded, with its Context, what it gives at each stage (observed,
    filled as stages ask) and its mistakes: made once per cache, a dict kept between checks."""
    if name not in cache or cache[name].text != target_text:
        target = load_source(target_text, f"target_{len(cache)}", ROOT / name / "train.py")
        ctx = Context(target)
        ctx.calls = catalogue.CALLS.get(name.split("/")[0], [])
        cache[name] = types.SimpleNamespace(target=target, ctx=ctx, observed={}, seen={},
                                            mistakes=catalogue.mistakes_for(name, target_text),
                                            name=name, text=target_text)
    return cache[name]


KNOWN = {}  # known_target's cache for main(): a process that checks again loads nothing again


def observed(known, stage, observe):
    """What the target gives at stage, observed once. Run as a script, every rung does what the
    plumbing promises (RUN_PROMISE), and the target is not run: the tests check that each does."""
    if stage in known.observed:
        return known.observed[stage]
    if stage == "runs":
        return RUN_PROMISE
    with contextlib.redirect_stdout(io.StringIO()):
        known.observed[stage] = plain(observe(known.target, known.ctx))  # as the learner's
    return known.observed[stage]


def check(name, target_text, path, lang="en", say=print, cache=None, process=Learner):
    """Check the file at path against the exercise's target; True when it passes. Each stage's
    line goes to say(); a difference ends with one hint. cache: a dict kept between calls (the
    target, what it gives at each stage, its mistakes), so that each is loaded once. The file
    runs in a process of its own (Learner); this one decides, from what it sends. (The tests
    give InProcess for programs of their own that need no process.)"""
    zh = lang == "zh"
    text = catalogue.TEXT
    if cache is None:
        cache = {}
    known = known_target(name, target_text, cache)
    path = Path(path).resolve()
    learner = process(name, target_text, path, cache)

    def compare():
        names = learner.ask("imports")
        source = path.read_text(encoding="utf-8-sig")  # it imported: it reads
        say(text["ok"][zh].format(stage=text["stage:imports"][zh]))
        if names:  # used by every stage, and by the catalogue's matching
            say(wrap(named_otherwise(names, zh)))
        drawn_otherwise = False
        for stage, observe, agree in STAGES:
            asked = stage
            if stage == "training" and drawn_otherwise:
                asked = ("on_target_batches",)
            learner.send(asked)
            theirs = observed(known, stage, observe)
            try:
                mine = learner.reply()
            except Raised as e:  # the first forward: where did yours part from the target's?
                if stage == "outputs":
                    e.finding = shape_before_error(known, learner, zh)
                raise
            if agree(mine, theirs):
                say(text["ok"][zh].format(stage=text[f"stage:{stage}"][zh]))
                continue
            if stage == "batches" and masked(theirs) and keeps_promises(
                    learner.ask(("masking",)), observed(known, "masking", masking)):
                say(wrap(text["drawn_otherwise"][zh]))  # judged by what masking promises
                drawn_otherwise = True
                continue
            known.seen[source, stage] = mine  # if it is a catalogued mistake's text
            m = mistake(known, stage, mine, agree)
            if not m and stage == "calls":
                raised = [p for p, q in zip(mine["values"], theirs["values"])
                          if isinstance(p, Raising) and p != q]
                if raised:
                    raise Raised(raised[0].frames)  # their bug, not our call
            key, values = difference(stage, mine, theirs, known.target, known.ctx, learner, zh)
            raise Differs(stage, key, mistake=m, **values)

    if not verdict(compare, learner, name, zh, say):
        return False
    say(text["passed"][zh].format(run=run_command(name), expect=expected(name, zh)))
    return True


def masked(batches):
    """Whether the target's batches are masked-LM ones: targets that skip positions (-100)."""
    return any(bool((y == -100).any()) for _, y in batches)


def verdict(compare, learner, name, zh, say):
    """compare(), what it finds said (a difference, the learner's error, their process ended),
    and the learner's process ended after it: True when it found nothing."""
    text = catalogue.TEXT
    try:
        compare()
    except Differs as d:
        said(d, name, zh, say)
        return False
    except Raised as e:
        if e.finding:  # said first, then their frames
            say(wrap(e.finding))
        say(text["raised"][zh].format(error=str(e)))
        return False
    except Ended as e:
        stage = text[f"stage:{learner.stage}"][zh]
        say(wrap(text[e.key][zh].format(stage=stage, **e.values)))
        return False
    finally:
        learner.close()
    return True


def said(d, name, zh, say):
    """What a check says of the difference d: the stage, why, and a hint or where to read."""
    text = catalogue.TEXT
    values = {}
    for k, v in d.values.items():
        if k == "size":
            v = text.get(f"size:{v}", (v, v))[zh]
        values[k] = v
    if "which" in values:  # x or y, in words
        values["which_words"] = text["which:" + values["which"]][zh]
    why = text[d.key][zh].format(**values)
    say(wrap(text["differs"][zh].format(stage=text[f"stage:{d.stage}"][zh], why=why)))
    m = d.values.get("mistake")
    if m:
        say(wrap(text["hint"][zh].format(hint=m["hint"][zh], doc=doc_section(m, zh))))
    elif d.stage != "imports":
        rung = name.split("/")[0]  # where to read, not the task again
        say(wrap(text["no_hint"][zh].format(path=f"{rung}/README{'.zh-CN' * zh}.md")))


def wrap(message):
    """Each line of message in lines of at most 99 columns, continued under its indent (a
    Chinese character takes two columns, and a line may break between any two of them)."""
    lines = []
    for line in message.splitlines():
        depth = len(line) - len(line.lstrip())
        if depth == 0:  # a line that starts at the margin continues under its text
            depth = 6
        indent = " " * depth
        if columns(line) == len(line):  # no wide characters: textwrap, by words
            lines.append(textwrap.fill(line, 99, subsequent_indent=indent))
            continue
        # words of ASCII, then each wide character and each space on its own
        pieces = re.findall(r"[!-~]+|\s|.", line)
        current = ""
        for piece in pieces:
            closing = piece in "，。：；）、！？”"  # never at a line's start: it stays behind
            if columns(current + piece) > 99 and current.strip() and not closing:
                lines.append(current.rstrip())
                current = indent
                if piece.isspace():
                    continue
            current += piece
        lines.append(current.rstrip())
    return "\n".join(lines)


def mistake(known, stage, mine, agree):
    """The first catalogued mistake whose observation at stage agrees with the learner's; one
    that agrees with the target's there too shows nothing at this stage, and names nothing."""
    observe = STAGES_BY_NAME[stage]
    for i, m in enumerate(known.mistakes):
        key = m["text"], stage  # a program's observations follow from its text
        if key not in known.seen:
            try:
                if m["text"] not in known.seen:  # the mistake's program, loaded once
                    known.seen[m["text"]] = load_source(m["text"], f"mistake_{i}",
                                                        known.ctx.path)
                module = known.seen[m["text"]]
                with contextlib.redirect_stdout(io.StringIO()):
                    known.seen[key] = plain(observe(module, known.ctx))
            except Exception:  # a mistake that raises here matches nothing
                known.seen[key] = None
        found = known.seen[key]
        if found is not None and agree(mine, found) and not agree(found, known.observed[stage]):
            return m
    return None


STAGES_BY_NAME = {stage: observe for stage, observe, _ in STAGES}


def records(module, ctx, size):
    """forward() at ctx.configs[size] with each module's tensors recorded."""
    return forward(module, ctx, size, True)


ASKED = {"trace": trace, "call_records": call_records, "piece": piece, "records": records,
         "masking": masking, "on_target_batches": on_target_batches, "aliases": aliases,
         "shapes": shapes}


def doc_section(m, zh):
    """Where the docs explain a mistake: the rung's doc in the learner's language, a section."""
    rung, *sections = m["doc"]
    return catalogue.TEXT["doc"][zh].format(path=f"{rung}/README{'.zh-CN' * zh}.md",
                                            section=sections[zh])


def expected(name, zh):
    """The full run's expected val loss, from reference/: for a rung, its reference run's and
    the range over the seeds of seeds.csv; for a step, the mean and range of its rows' seeds."""
    import csv

    rung, _, step = name.partition("/")
    if not step:
        with open(ROOT / "reference" / "tinyplays" / f"{rung}.csv") as f:
            last = list(csv.DictReader(f))[-1]
        ends = seed_losses("tinyplays", rung)
        return catalogue.TEXT["expect_rung"][zh].format(
            val=float(last["val_loss"]), step=last["step"], seeds=len(ends), low=min(ends),
            high=max(ends))
    with open(ROOT / "reference" / "steps" / f"{rung}.csv") as f:
        row = next(r for r in csv.DictReader(f) if r["step"] == step)
    if row["seeds"] == "1":
        return catalogue.TEXT["expect_one_seed"][zh].format(mean=float(row["val_mean"]))
    return catalogue.TEXT["expect_step"][zh].format(
        mean=float(row["val_mean"]), low=float(row["val_min"]), high=float(row["val_max"]),
        seeds=row["seeds"])


# ------------------------------------------------------------------ the command line
def language(given):
    if given:
        return given
    for var in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = os.environ.get(var, "")
        if value.lower().startswith("zh"):
            return "zh"
        if value:
            return "en"
    return "en"


def columns(text):
    """The columns text takes on a terminal: a Chinese character takes two."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def fitted(line, width):
    """line cut to at most width columns, an ellipsis marking the cut: one line on a screen."""
    if columns(line) <= width:
        return line
    while columns(line) > width - 1:
        line = line[:-1]
    return line + "…"


def passed_file(name):
    return folder(name) / ".passed"


def refuse_what_is_in_the_way(name, lang=""):
    """A UserError for what is in the way of the exercise's file: a file where its folder should
    be; a folder or a link to nothing where the file should be. (The file itself is written
    beside and moved into place, so a stop never leaves half of it.)"""
    mine = folder(name) / "train.py"
    again = f"python tools/exercise.py {name}{lang}"
    folders = [f for f in [mine.parent, *mine.parent.parents] if f.is_relative_to(EXERCISES)]
    for above in folders:
        if os.path.lexists(above) and not above.is_dir():
            raise refusal("err:not_folder", lang, path=shown(above), again=again)
    if not os.path.lexists(mine):
        return
    if not mine.is_file():
        raise refusal("err:not_file", lang, path=shown(mine), again=again)


def status(name, zh):
    """passed (the exercise's file as it passed), edited (changed since), started, or nothing."""
    marker, mine = passed_file(name), folder(name) / "train.py"
    if not mine.is_file():
        return ""
    if not marker.is_file():
        return catalogue.TEXT["started"][zh]
    passed = marker.read_text(encoding="utf-8").strip() == sha256(mine)
    return catalogue.TEXT["passed_status" if passed else "edited"][zh]


def shown(path):
    """path as the learner would type it from the repository's root."""
    return path.relative_to(ROOT) if path.is_relative_to(ROOT) else path


def sha256(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


@command
def main(argv=None):
    p = ArgumentParser(__file__, __doc__)
    p.add_argument("exercise", nargs="?", help="a rung (v5_ffn) or a step (v6_block/02-residual)")
    p.add_argument("--check", action="store_true", help="check your file against the target")
    p.add_argument("--file", type=Path, help="the file to check (default: the exercise's)")
    p.add_argument("--piece", metavar="CLASS", help="with --check: check one class alone "
                   "(say FeedForward), from the target's weights and input, before wiring it in")
    p.add_argument("--lang", choices=["en", "zh"], help="hints in English or Chinese (default: "
                   "the locale's)")
    args = p.parse_args(argv)
    zh = language(args.lang) == "zh"
    lang = ""
    if zh:
        lang = " --lang zh"  # carried into every command a message suggests
    names = exercise_names()
    if args.exercise is None:
        if args.check or args.file:
            raise refusal("err:need_exercise", lang)
        for name, what in names:
            if zh:  # the task, in Chinese, as much as the line holds
                what = catalogue.TASKS[name][1]
            indent = "  " * ("/" in name)
            label = status(name, zh)
            label += " " * (8 - columns(label))
            print(fitted(f"{indent}{name:<{40 - len(indent)}} {label} {what}", 99))
        print(catalogue.TEXT["list_footer"][zh])
        return 0
    name = find(args.exercise, names, lang)
    start, target = programs(name)
    if args.piece and not args.check:
        raise refusal("err:piece_check", lang, name=name, cls=args.piece)
    if args.file and not args.check:
        raise refusal("err:file_check", lang, name=name, file=args.file)
    mine = folder(name) / "train.py"
    if not args.file:  # the exercise's own file: nothing else in its place
        refuse_what_is_in_the_way(name, lang)
    if not args.check:
        if os.path.lexists(mine):
            raise refusal("err:exists", lang, path=shown(mine))
        # written beside and moved into place: a stop half way leaves no half file at mine
        with aside(mine) as tmp:
            tmp.write_text(starting_file(name, start, target, "zh" if zh else "en"),
                           encoding="utf-8")
        print(catalogue.TEXT["written"][zh].format(
            path=shown(mine), task=catalogue.TASKS[name][zh], name=name))
        return 0
    path = args.file or mine
    if not path.is_file():
        if args.file:
            raise refusal("err:file_not_file", lang, path=path)
        raise refusal("err:no_file", lang, path=path, name=name)
    cache = KNOWN
    if args.piece:  # a class the target has, said before any work
        known = known_target(name, target, cache)
        if args.piece not in pieces(known.target):
            raise refusal("err:no_piece", lang, name=name, cls=args.piece,
                          pieces=", ".join(pieces(known.target)))
    print(catalogue.TEXT["checking"][zh].format(path=shown(path.resolve()), name=name))
    if args.piece:  # one class: no pass mark, the file as a whole is not checked
        passed = check_piece(name, target, path, args.piece, "zh" if zh else "en", cache=cache)
        if passed:
            return 0
        return 1
    if not check(name, target, path, "zh" if zh else "en", cache=cache):
        return 1
    if path.resolve() == mine.resolve():  # the list says which of your exercises passed
        # a convenience: a read-only folder goes without. Written beside and moved into
        # place: a link at .passed is replaced, never written through
        with contextlib.suppress(UserError):
            write_text(passed_file(name), sha256(path) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
