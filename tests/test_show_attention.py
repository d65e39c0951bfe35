"""tools/show_attention.py: the attention weights of every rung from v4 on, drawn from a run
folder. The weights must be the ones the code computes: for v4 to v6 the tool recomputes them
outside MultiHeadAttention.forward, so a test checks that they give the module's real output."""
import subprocess

import pytest
import torch

from conftest import ATTENTION_VERSIONS, ROOT, import_path, load, load_tool, randomize
from test_bad_input import assert_one_line_error
from test_tools import write_checkpoint

CHARS = "\n !,.:?ABCDEGHKLMNOPRSTWYaehnot"
# small, odd sizes, so that a swapped dimension fails loudly; v8 sees a longer window, as its own
SIZES = {"block_size": 7, "n_embd": 12, "n_head": 3, "n_layer": 2, "intermediate_size": 37,
         "dropout": 0.1}  # dropout: the tool must read the weights in eval mode, without it
PROMPTS = {version: "MARGERY" for version in ATTENTION_VERSIONS} | {"v8_bert_mlm": "MA_G_RY"}


def tiny_run(folder, version, **sizes):
    """folder/ckpt.pt of version at SIZES with random weights, drawn large enough that the heads
    do not all spread their weight evenly."""
    module = load(version)
    torch.manual_seed(0)
    hp = {name: {**SIZES, **sizes}.get(name, getattr(module, name))
          for name in module.HYPERPARAMETERS}
    chars = "_" + CHARS if version == "v8_bert_mlm" else CHARS
    model = randomize(module.LanguageModel(len(chars), **{k: hp[k] for k in module.MODEL_ARGS}))
    folder.mkdir(parents=True, exist_ok=True)
    torch.save({"version": version, "step": 0, "chars": chars, "hyperparameters": hp,
                "data_sha256": "0" * 64, "state_dict": model.state_dict()}, folder / "ckpt.pt")
    return folder


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """{version: a tiny run folder} for every rung with attention."""
    tmp = tmp_path_factory.mktemp("runs")
    return {version: tiny_run(tmp / version, version) for version in ATTENTION_VERSIONS}


@pytest.fixture
def call(capsys):
    """call(*argv) -> (exit code, stdout, stderr) of show_attention's main()."""
    tool = load_tool("show_attention")

    def _call(*argv):
        code = tool.main([str(a) for a in argv])
        captured = capsys.readouterr()
        return code, captured.out, captured.err

    return _call


def test_both_ways_of_finding_the_weights_draw_a_png(runs, tmp_path, call):
    for version in ("v4_multihead", "v8_bert_mlm"):  # recomputed (v4 to v6); returned (v7, v8)
        output = tmp_path / f"{version}.png"
        code, out, err = call(runs[version], "--prompt", PROMPTS[version], "-o", output)
        assert (code, err) == (0, "")
        assert out == f"wrote {output}\n"
        assert output.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

def test_the_run_folders_ckpt_pt_will_do_too(runs, tmp_path, call):
    code, out, err = call(runs["v4_multihead"] / "ckpt.pt", "--prompt", "MA",
                          "-o", tmp_path / "x.png")
    assert (code, err) == (0, "") and (tmp_path / "x.png").is_file()


def test_by_default_the_figure_goes_where_git_ignores_it(runs, tmp_path, capsys):
    tool = load_tool("show_attention")
    tool.ROOT = tmp_path  # the repo's own runs/ stays as it was
    assert tool.main([str(runs["v4_multihead"]), "--prompt", "MA"]) == 0
    assert (tmp_path / "runs" / "attention_v4_multihead.png").is_file()
    ignored = subprocess.run(["git", "check-ignore", "-q", "runs/attention_v4_multihead.png"],
                             cwd=ROOT)
    assert ignored.returncode == 0


@pytest.mark.parametrize("version", ATTENTION_VERSIONS)
def test_the_weights_are_each_rows_probabilities_causal_up_to_v7(version, runs):
    tool = load_tool("show_attention")
    _, model, ckpt = tool.load_run(runs[version])
    idx = torch.tensor([[ckpt["chars"].index(c) for c in PROMPTS[version]]] * 2)  # (2, 7)
    wei = tool.weights(model, idx)  # (n_layer, B, nh, T, T)
    n_layer = SIZES["n_layer"] if "n_layer" in load(version).MODEL_ARGS else 1
    assert wei.shape == (n_layer, 2, 3, 7, 7)
    assert torch.allclose(wei.sum(-1), torch.ones(wei.shape[:-1]), atol=1e-6)
    above = wei.triu(1)  # each query's weight on the keys after it
    if version == "v8_bert_mlm":  # it sees both ways
        assert above.sum() > 1
    else:
        assert above.abs().max() == 0
    assert wei.amax() > 0.5  # the random heads are not all flat


@pytest.mark.parametrize("version", ATTENTION_VERSIONS)
@pytest.mark.parametrize("T", [7, 4])  # a full window, and a shorter one
def test_the_weights_applied_to_the_values_give_the_modules_own_output(version, T, runs):
    """The weights the tool reads, times the module's own value projection, are what the module
    returned in the model's real forward: for v4 to v6, which recompute the weights, this is the
    check that the tool follows MultiHeadAttention.forward."""
    tool = load_tool("show_attention")
    _, model, _ = tool.load_run(runs[version])
    idx = torch.randint(len(CHARS), (2, T))  # (B, T)
    seen = {}  # attention module -> (its input, its output), of the model's forward

    def record(module, args, output):  # returns None: a forward hook's value replaces the output
        seen.setdefault(module, (args[0], output))

    hooks = [attn.register_forward_hook(record) for attn in tool.attention_modules(model)]
    with torch.no_grad():
        model(idx)
        wei = tool.weights(model, idx)  # (n_layer, B, nh, T, T)
    for hook in hooks:
        hook.remove()
    assert len(seen) == len(wei) == len(tool.attention_modules(model))
    for attn, layer_wei in zip(tool.attention_modules(model), wei):
        x, output = seen[attn]
        nh = layer_wei.shape[1]
        with torch.no_grad():
            v = attn.value(x).view(2, T, nh, -1).transpose(1, 2)  # (B, nh, T, hs)
            out = (layer_wei @ v).transpose(1, 2).reshape(2, T, -1)  # (B, T, C)
            if hasattr(attn, "proj"):  # v6's output projection
                out = attn.proj(out)
        real = output if torch.is_tensor(output) else output[0]  # BERT's: a tuple
        torch.testing.assert_close(out, real)


def test_make_figures_draws_v7s_attention_with_this_tool(runs, tmp_path, monkeypatch):
    figures = import_path(ROOT / "tools" / "maintainers" / "make_figures.py", "make_figures")
    drawn = []
    monkeypatch.setattr(figures.show_attention, "draw", lambda wei, *rest, **kw: drawn.append(wei))
    _, model, ckpt = figures.load_run(runs["v7_bert_layer"])
    figures.attention_v7(model, ckpt, tmp_path / "x.png")
    idx = torch.tensor([[CHARS.index(c) for c in "\nAGATHA"]])
    assert torch.equal(drawn[0], figures.show_attention.weights(model, idx)[:, 0])


def v1_run(tmp_path):
    return write_checkpoint(tmp_path / "v1", "v1_bigram", chars=CHARS)


def empty_checkpoint(tmp_path):
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "ckpt.pt").write_bytes(b"")
    return tmp_path / "run"


def crafted(version, change):
    """A run of version whose checkpoint change(ckpt) has altered: NaN weights, no characters."""
    def make(tmp_path):
        folder = tiny_run(tmp_path / f"crafted_{version}", version)
        ckpt = torch.load(folder / "ckpt.pt", weights_only=True)
        change(ckpt)
        torch.save(ckpt, folder / "ckpt.pt")
        return folder
    return make


def nan_weights(ckpt):
    for t in ckpt["state_dict"].values():
        if t.is_floating_point():
            t.fill_(float("nan"))


def under_a_file(tmp_path):
    (tmp_path / "a_file").write_text("x")
    return tmp_path / "a_file" / "x.png"


@pytest.mark.parametrize("make_run,prompt,make_output,fragments", [
    (v1_run, "MA", None, ["holds a v1_bigram run, which has no attention",
                          "pass a run of v4_multihead to v8_bert_mlm"]),
    ("v4_multihead", "MAZE", None, ["characters the model", "never saw: 'Z'"]),
    ("v7_bert_layer", "MA_", None, ["never saw: '_'"]),  # the mask token is v8's alone
    ("v8_bert_mlm", "MARGERY!", None, ["8 characters, more than the block_size (7)"]),
    ("long", "MA" * 33, None, ["66 characters, more than the block_size (100)", "at most 64"]),
    ("v6_block", "", None, ["--prompt is empty"]),
    (lambda tmp_path: tmp_path / "missing", "MA", None, ["no checkpoint at"]),
    (lambda tmp_path: empty_checkpoint(tmp_path), "MA", None, ["cannot read", "ckpt.pt"]),
    ("v5_ffn", "MA", under_a_file, ["which is a file, not a folder"]),
    # never a picture of weights that are not numbers; no vocabulary: no torch warning first
    *[(crafted(version, change), "MA", None, ["cannot load", "ckpt.pt"])
      for version in ("v4_multihead", "v8_bert_mlm")
      for change in (nan_weights, lambda ckpt: ckpt.update(chars=""))],
    ("v5_ffn", "MA", lambda tmp_path: tmp_path / "x.pdf", ["the output must be a .png file"]),
])
def test_bad_input_is_one_line_and_writes_nothing(make_run, prompt, make_output, fragments,
                                                 runs, tmp_path, call):
    if make_run == "long":  # the figure stays readable, and its size bounded
        runs = {"long": tiny_run(tmp_path / "long", "v4_multihead", block_size=100)}
    run = runs[make_run] if isinstance(make_run, str) else make_run(tmp_path)
    output = make_output(tmp_path) if make_output else tmp_path / "x.png"
    before = sorted(tmp_path.rglob("*"))
    result = call(run, "--prompt", prompt, "-o", output)
    assert_one_line_error(result, *fragments)
    assert result[1] == ""
    assert sorted(tmp_path.rglob("*")) == before


def test_a_full_disk_leaves_the_old_picture(runs, tmp_path, call, full_disk_savefig):
    output = tmp_path / "x.png"
    output.write_bytes(b"the old picture")

    result = call(runs["v4_multihead"], "--prompt", "MA", "-o", output)
    assert_one_line_error(result, f"cannot write {output} (No space left on device)")
    assert output.read_bytes() == b"the old picture" and len(list(tmp_path.iterdir())) == 1


def test_a_large_model_says_how_many_panels_and_draws_the_layers_and_heads_asked(tmp_path,
                                                                                 capsys):
    run = tiny_run(tmp_path / "big", "v6_block", n_layer=12, n_head=16, n_embd=16)
    tool = load_tool("show_attention")
    draw, drawn = tool.draw, []
    tool.draw = lambda wei, *args, **kwargs: drawn.append(tuple(wei.shape[:2]))
    assert tool.main([str(run), "--prompt", "MA", "-o", str(tmp_path / "all.png")]) == 0
    err = capsys.readouterr().err
    assert drawn == [(12, 16)] and len(err.splitlines()) == 1 and "192" in err
    tool.draw = draw
    output = tmp_path / "some.png"
    argv = [str(run), "--prompt", "MA", "-o", str(output), "--layers", "0", "2", "--heads", "1",
            "3"]
    assert tool.main(argv) == 0 and output.is_file()
    assert "4" in capsys.readouterr().err
    for flags, bad in [(["--layers", "0", "12"], "12"), (["--heads", "-1"], "-1")]:
        tool.draw = lambda *args, **kwargs: drawn.append("drawn")
        code = tool.main([str(run), "--prompt", "MA", "-o", str(tmp_path / "x.png"), *flags])
        captured = capsys.readouterr()
        assert_one_line_error((code, captured.out, captured.err), bad)
        assert drawn == [(12, 16)] and not (tmp_path / "x.png").exists()
