"""tools/diagnose.py: each relation between a learner's tensor and the target's is named, and
two tensors related in no such way are said to be apart, with where and by how much."""

import pytest
import torch
import torch.nn.functional as F

from conftest import load_tool

diagnose = load_tool("diagnose")
T = torch.randn(2, 5, 5, generator=torch.Generator().manual_seed(0))  # (B, T, T)


@pytest.mark.parametrize("mine, theirs, key", [
    (-T, T, "rel:sign"),
    (T * 2.5, T, "rel:scale"),
    (T.transpose(-2, -1), T, "rel:transposed"),
    (torch.cat([T[:, :1], T[:, :-1]], 1), T, "rel:shift_later"),
    (torch.cat([T[:, 1:], T[:, -1:]], 1), T, "rel:shift_earlier"),
    (T.softmax(-2), T.softmax(-1), "rel:axis"),
    (F.relu(T), T, "rel:extra_fn"),
    (T, F.relu(T), "rel:missing_fn"),
    (T.flatten()[torch.randperm(50, generator=torch.Generator().manual_seed(1))].view(2, 5, 5),
     T, "rel:moved"),
    (T.transpose(0, 1), T, "rel:axes"),
    (T.reshape(5, 10), T, "rel:reshaped"),
    (T[:, :3], T, "rel:shape"),
    (T + 1, T, "rel:offset"),
    (T * T, T, "rel:apart"),
])
def test_each_relation_is_named(mine, theirs, key):
    assert diagnose.relation(mine, theirs)[0] == key


def test_a_dropout_is_named_with_its_share_and_scale():
    probs = T.softmax(-1)
    kept = torch.rand(probs.shape, generator=torch.Generator().manual_seed(2)) > 0.25
    key, values = diagnose.relation(probs * kept / 0.75, probs)
    assert key == "rel:dropped" and values["scale"] == "1.333" and values["p"] == "0.25"


def test_apart_says_where_the_largest_difference_is():
    mine = T.clone()
    mine[1, 2, 3] += 7
    key, values = diagnose.relation(mine, T)
    assert key == "rel:apart" and values["at"] == (1, 2, 3) and values["n"] == 1


@pytest.mark.parametrize("mine, key", [
    (torch.tensor([[2, 3, 4, 5], [6, 7, 8, 9]]), "rel:shift_later"),
    (torch.tensor([[1, -100, 3, -100], [-100, 6, -100, -100]]), "rel:chosen"),
    (torch.tensor([[0, 2, 0, 4], [0, 0, 7, 0]]), "rel:chosen_zeros"),
    (torch.tensor([[-100, 2, -100, 7], [-100, -100, 7, -100]]), "rel:chosen_values"),
])
def test_a_batch_s_targets_are_compared_position_by_position(mine, key):
    theirs = torch.tensor([[-100, 2, -100, 4], [-100, -100, 7, -100]])
    if key == "rel:shift_later":
        theirs = torch.tensor([[1, 2, 3, 4], [5, 6, 7, 8]])
        mine = torch.tensor([[0, 1, 2, 3], [0, 5, 6, 7]])
    assert diagnose.relation(mine, theirs)[0] == key


def test_a_trace_finds_the_first_tensor_the_learner_never_computes():
    x = torch.randn(2, 3, 4)

    class Scores(torch.nn.Module):
        def __init__(self, scale):
            super().__init__()
            self.scale = scale

        def forward(self, x):
            return (x @ x.transpose(-2, -1) * self.scale).softmax(-1)

    traces = []
    for scale in (0.5, 0.25):
        model = Scores(scale)
        tracer = diagnose.Trace(model, "")
        with tracer:
            model(x)
        tracer.remove()
        traces.append(tracer.seen)
    op, theirs, same, candidates, _ = diagnose.parting(traces[1], traces[0])
    assert op == "mul" and diagnose.named_relation(same + candidates, theirs, []) == (
        "rel:scale", {"k": "0.5"})


def test_a_mask_read_the_other_way_and_positions_from_another_start_are_named():
    mask = torch.ones(4, 4, dtype=torch.bool).tril()
    assert diagnose.relation(~mask, mask)[0] == "rel:inverted"
    assert diagnose.relation(torch.arange(3), torch.arange(2, 5)) == ("rel:offset", {"c": "-2"})
