"""Saying what a difference is, where no catalogued mistake matches: how the learner's tensor
relates to the target's (a scale, a sign, the other axis, a shift by one position, a missing
ReLU, ...), and where inside a module the two programs part. exercise.py asks; the words are
catalogue.TEXT's.

relation() tries each relation in turn on the two tensors, as one would by hand at a prompt,
and says the first that holds; where none does, how far apart they are and where, as
Karpathy's cmp() does in the lecture on backpropagation.
"""
import math

import torch
import torch.nn.functional as F
from torch.overrides import TorchFunctionMode

ATOL, RTOL = 1e-5, 1e-4  # exercise.py's: what rounding explains


def near(a, b):
    """a and b hold the same numbers, to within rounding (infinities where the other has them)."""
    return a.shape == b.shape and torch.allclose(a.double(), b.double(), RTOL, ATOL,
                                                 equal_nan=True)


ACTIVATIONS = [("ReLU", F.relu), ("GELU", F.gelu), ("tanh", torch.tanh)]


def relation(mine, theirs):
    """(key, values) for catalogue.TEXT: how the learner's tensor mine relates to the target's
    theirs. Integer tensors (a batch) are compared position by position."""
    if mine.shape != theirs.shape:
        return other_shape(mine, theirs)
    if not mine.is_floating_point() or not theirs.is_floating_point():
        return positions(mine, theirs)
    a, b = mine.double(), theirs.double()
    finite = torch.isfinite(a) & torch.isfinite(b)
    if near(a, -b):
        return "rel:sign", {}
    shift = offset(a, b)
    if shift:
        return "rel:offset", {"c": shift}
    if finite.all() and b.abs().max() > 0:
        k = (a * b).sum() / (b * b).sum()
        if abs(k) > 1e-6 and abs(k - 1) > 1e-3 and near(a, k * b):  # 0 times: no scale
            return "rel:scale", {"k": f"{k.item():.4g}"}
    if a.dim() >= 2 and a.shape[-1] == a.shape[-2] and near(a, b.transpose(-2, -1)):
        return "rel:transposed", {}
    if a.dim() >= 2 and a.shape[1] > 1:  # (B, T, ...): positions along dim 1
        if near(a[:, 1:], b[:, :-1]):
            return "rel:shift_later", {}
        if near(a[:, :-1], b[:, 1:]):
            return "rel:shift_earlier", {}
    axes = summing_axes(a), summing_axes(b)
    if axes[0] and axes[1] and axes[0] != axes[1]:
        return "rel:axis", {"theirs": axes[1][0], "yours": axes[0][0]}
    dropped = dropout(a, b)
    if dropped:
        return "rel:dropped", dropped
    dropped = dropout(b, a)
    if dropped:
        return "rel:not_dropped", dropped
    for name, f in ACTIVATIONS:
        if near(a, f(b)):
            return "rel:extra_fn", {"fn": name}
        if near(b, f(a)):
            return "rel:missing_fn", {"fn": name}
    if finite.all() and near(a.flatten().sort().values, b.flatten().sort().values):
        return "rel:moved", {}
    return apart(a, b)


def dropout(a, b):
    """{share, scale} where a is b with some numbers set to 0 and the rest scaled by one number
    greater than 1, as dropout does in training; else None."""
    live = b != 0  # where the target's is 0 already (a masked future), nothing is dropped
    kept = (a != 0) & live
    if kept.equal(live) or not kept.any():
        return None
    scale = (a[kept] / b[kept]).mean()
    if scale <= 1 or not near(a[kept], scale * b[kept]):
        return None
    n = live.sum().item()
    share = 1 - kept.sum().item() / n
    p = 1 - 1 / scale.item()
    if abs(share - p) > 4 * math.sqrt(p * (1 - p) / n) + 1 / n:  # not the share p drops
        return None
    return {"share": f"{share:.0%}", "scale": f"{scale.item():.4g}", "p": f"{p:.2g}"}


def summing_axes(t):
    """The axes along which t, all of it at least 0, sums to 1 (a softmax's), counted from the
    end as Python does (-1: the last)."""
    if t.dim() < 2 or not torch.isfinite(t).all() or (t < 0).any():
        return []
    return [d - t.dim() for d in range(t.dim()) if t.shape[d] > 1 and
            torch.allclose(t.sum(d), torch.ones(()).double(), 0, 1e-4)]


def apart(a, b):
    """How far apart: the largest difference, where it is, and how many entries differ."""
    diff = torch.where(a == b, 0.0, (a - b).abs()).nan_to_num(float("inf"))  # -inf, -inf: 0
    where = index(int(diff.argmax()), diff.shape)
    wrong = ~torch.isclose(a, b, RTOL, ATOL, equal_nan=True)
    return "rel:apart", {"max": f"{diff.max().item():.3g}", "at": where, "n": int(wrong.sum()),
                         "of": a.numel(), "yours_at": f"{a[where].item():.4g}",
                         "theirs_at": f"{b[where].item():.4g}"}


def index(flat, shape):
    """The index in a tensor of shape of its item number flat (torch.unravel_index, which takes
    a second to import)."""
    where = []
    for size in reversed(shape):
        where.append(flat % size)
        flat //= size
    return tuple(reversed(where))


def other_shape(mine, theirs):
    """Shapes differ: the same numbers with the axes in another order, the same numbers in
    another shape, or simply another shape."""
    if mine.dim() == theirs.dim() and sorted(mine.shape) == sorted(theirs.shape):
        for order in orders(mine.dim()):
            moved = mine.permute(order)
            if moved.shape == theirs.shape and near(moved.double(), theirs.double()):
                return "rel:axes", {"yours": tuple(mine.shape), "theirs": tuple(theirs.shape)}
    if mine.numel() == theirs.numel() and mine.is_floating_point() and near(
            mine.flatten().double().sort().values, theirs.flatten().double().sort().values):
        return "rel:reshaped", {"yours": tuple(mine.shape), "theirs": tuple(theirs.shape)}
    return "rel:shape", {"yours": tuple(mine.shape), "theirs": tuple(theirs.shape)}


def orders(n):
    """Every order of n axes but the first (the identity)."""
    import itertools

    return list(itertools.permutations(range(n)))[1:]


def offset(mine, theirs):
    """The number c, not 0 and not a mask's huge one, where mine is theirs + c in every entry (a
    position counted from another start); else None."""
    if mine.dtype == torch.bool or theirs.dtype == torch.bool or mine.numel() == 0:
        return None
    shift = mine.double() - theirs.double()
    c = shift.flatten()[0]
    if c != 0 and c.abs() < 1e6 and torch.allclose(shift, c.expand_as(shift), 0, ATOL):
        return f"{c.item():+.4g}"
    return None


def positions(mine, theirs):
    """Integer tensors of one shape (B, T): a shift by one position, -100 (skip) where the
    target has a character or the other way round, or which positions differ."""
    if mine.dtype == torch.bool and theirs.dtype == torch.bool and mine.equal(~theirs):
        return "rel:inverted", {}
    shift = offset(mine, theirs)
    if shift:
        return "rel:offset", {"c": shift}
    if mine.dim() == 2 and mine.shape[1] > 1:
        if mine[:, 1:].equal(theirs[:, :-1]):
            return "rel:shift_later", {}
        if mine[:, :-1].equal(theirs[:, 1:]):
            return "rel:shift_earlier", {}
    skip_mine, skip_theirs = mine == -100, theirs == -100
    if skip_theirs.any() or skip_mine.any():
        chosen_theirs = ~skip_theirs
        if skip_mine.equal(skip_theirs):
            return "rel:chosen_values", {"n": int((mine != theirs).sum()),
                                         "of": int(chosen_theirs.sum())}
        values = {"yours": int((~skip_mine).sum()), "theirs": int(chosen_theirs.sum()),
                  "both": int((~skip_mine & chosen_theirs).sum()),
                  "zeros": int(((mine == 0) & skip_theirs).sum())}
        if values["zeros"]:  # 0 where -100 belongs: the loss scores the positions it skips
            return "rel:chosen_zeros", values
        return "rel:chosen", values
    wrong = mine != theirs
    first = tuple(int(i) for i in wrong.nonzero()[0])
    return "rel:entries", {"n": int(wrong.sum()), "of": mine.numel(), "at": first}


# ------------------------------------------------------------------ inside one module
SHOWN = {"mul": "a * b", "rmul": "a * b", "truediv": "a / b", "rtruediv": "a / b",
         "add": "a + b", "radd": "a + b", "sub": "a - b", "rsub": "a - b", "matmul": "a @ b",
         "rmatmul": "a @ b", "pow": "a ** b", "getitem": "a[...]", "neg": "-a"}


def shown(op):
    """An op as the code writes it: mul as a * b, getitem as a[...]; a function by its name."""
    return f"`{SHOWN.get(op, op)}`"



UNSET = {"empty", "empty_like", "new_empty", "empty_strided", "new_empty_strided"}


class Trace(TorchFunctionMode):
    """Records what each torch function gives (its name, a copy of the floating tensor it
    returns, copies of the tensors it was given) while the module called `inside` runs: x @ w,
    a softmax, masked_fill, a view."""

    def __init__(self, model, inside):
        super().__init__()
        self.seen, self.depth = [], 0
        module = model.get_submodule(inside)
        self.hooks = [module.register_forward_pre_hook(self.enter),
                      module.register_forward_hook(self.leave)]

    def enter(self, module, given):
        self.depth += 1

    def leave(self, module, given, output):
        self.depth -= 1

    def __torch_function__(self, func, types, args=(), kwargs=None):
        if kwargs is None:
            kwargs = {}
        out = func(*args, **kwargs)
        name = getattr(func, "__name__", str(func)).strip("_")
        if name in UNSET:  # memory not yet written: whatever it holds means nothing
            return out
        if self.depth and isinstance(out, torch.Tensor) and out.is_floating_point():
            given = [a.detach().clone() for a in args if isinstance(a, torch.Tensor)]
            self.seen.append((name, out.detach().clone(), given))
        return out

    def remove(self):
        for h in self.hooks:
            h.remove()


def parting(mine, theirs):
    """Where two traces of one module part: (the target's op, its tensor, the learner's same op
    given the same input (the op itself differs: its dim, eps or approximation), the learner's
    tensors of its shape after the last one that agreed then those before it, and [(the input
    the learner's same op is given, the target's)]), at the first tensor the target computes
    that the learner's code never does; None where it computes every one of them."""
    return next(partings(mine, theirs), None)


def partings(mine, theirs):
    """parting()'s tuple at each tensor the target computes that the learner's code never does,
    in the target's order."""
    last = -1
    for name, t, given in theirs:
        found = [i for i, (_, m, _) in enumerate(mine) if near(m, t)]
        if found:
            last = max(last, found[0])
            continue
        shaped = [(i, n, m, g) for i, (n, m, g) in enumerate(mine) if m.shape == t.shape]
        same = [m for i, n, m, g in shaped if n == name and alike(g, given) and
                close_enough(m, t)]
        after = [m for i, n, m, g in shaped if i > last]
        before = [m for i, n, m, g in shaped if i <= last]
        fed = []  # the same op after the last that agreed: the first of its inputs that differs
        for i, n, m, g in shaped:
            if i > last and n == name and len(g) == len(given) and not fed:
                fed = [(a, b) for a, b in zip(g, given) if a.shape == b.shape and not near(a, b)]
        yield name, t, same, after + before[::-1], fed[:1]


def agreeing(mine, theirs):
    """How many of the target's tensors, in the order it computes them, the learner's code
    computes too, before the first one it never does."""
    for count, (_, t, _) in enumerate(theirs):
        if not any(near(m, t) for _, m, _ in mine):
            return count
    return len(theirs)


def alike(mine, theirs):
    """Two lists of an op's input tensors hold the same numbers."""
    return len(mine) == len(theirs) and all(near(a, b) for a, b in zip(mine, theirs))


def close_enough(mine, theirs):
    """mine is theirs made another way (another eps, dim or approximation), not another thing
    altogether: a relation with a name, or within a tenth of theirs' largest number."""
    key, _ = relation(mine, theirs)
    if key != "rel:apart":
        return True
    top = theirs.double().nan_to_num(0, 0, 0).abs().max()
    return bool(((mine.double() - theirs.double()).nan_to_num(0, 0, 0).abs().max() <= 0.1 * top))


def earlier(theirs, given, op_tensor):
    """The target's tensors before op_tensor in its trace, and the module's input first."""
    found = [("input", t) for t in given]
    for name, t, _ in theirs:
        if t is op_tensor:
            break
        found.append((name, t))
    return found


def named_relation(candidates, theirs, earlier):
    """relation() of the first candidate that relates to theirs in a way with a name (a scale,
    the other axis, a term one side adds: one of earlier, the target's tensors before theirs),
    else of the first candidate: how far apart."""
    for mine in candidates:
        key, values = relation(mine, theirs)
        if key != "rel:apart":
            return key, values
        for name, t in earlier:
            kind = "term"
            if name == "input":
                kind = "input"
            if near(theirs.double() - mine.double(), t.double()):
                return f"rel:missing_{kind}", {"op": name}
            if near(mine.double() - theirs.double(), t.double()):
                return f"rel:extra_{kind}", {"op": name}
    return relation(candidates[0], theirs)
