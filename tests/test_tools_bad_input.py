"""Bad input to the tools: one line on stderr, `error: what was wrong: what to do`, exit status 2,
before any work; never a traceback. The shared idiom is tools/common.py (tests/test_tools.py)."""
import hashlib
import os
import subprocess
import sys

import pytest
import torch

from conftest import ROOT, import_path, load_tool
from test_bad_input import assert_one_line_error
from test_tools import write_checkpoint, write_metrics

MAINTAINERS = ROOT / "tools" / "maintainers"
# every script with a command line: the tools, the maintainers' scripts and data/'s two
SCRIPTS = sorted([*(ROOT / "tools").glob("*.py"), *MAINTAINERS.glob("*.py"),
                  ROOT / "data" / "prepare.py", ROOT / "data" / "make_tinyplays.py"])
SCRIPTS = [p for p in SCRIPTS if "\ndef main(" in p.read_text()]


def script(path, *argv, env=None):
    """(exit code, stdout, stderr) of python <path> argv, in a process of its own."""
    proc = subprocess.run([sys.executable, str(ROOT / path), *map(str, argv)], capture_output=True,
                          text=True, timeout=120, env={**os.environ, **(env or {})})
    return proc.returncode, proc.stdout, proc.stderr


def tool(name):
    """tools/<name>.py, or tools/maintainers/<name>.py."""
    path = MAINTAINERS / f"{name}.py"
    return import_path(path, name) if path.is_file() else load_tool(name)


@pytest.fixture
def call(capsys):
    """call(tool, *argv) -> (exit code, stdout, stderr) of the tool's main()."""

    def _call(name, *argv):
        code = tool(name).main([str(a) for a in argv])
        captured = capsys.readouterr()
        return code, captured.out, captured.err

    return _call


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: p.name)
def test_every_help_names_its_command_and_unknown_flags_are_one_line(path, capsys):
    module = import_path(path, f"script_{path.stem}")
    with pytest.raises(SystemExit) as e:
        module.main(["--help"])
    out = capsys.readouterr().out
    assert e.value.code == 0 and out.startswith(f"usage: python {path.relative_to(ROOT)} ")
    assert module.main(["--no-such-flag"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1 and "--help" in err


# ---------------------------------------------------------------- plot_losses.py
def metrics_file(content):
    def make(tmp_path):
        folder = tmp_path / "run"
        folder.mkdir()
        (folder / "metrics.csv").write_bytes(content)
        return folder
    return make


@pytest.mark.parametrize("make_run,fragment", [
    (metrics_file("step,train_loss,val_loss\n0,4.2,4.2\n# caf\u00e9\n".encode("latin-1")),
     "cannot read"),
    (metrics_file(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), "cannot read"),
    (metrics_file(b"step,train_loss,val_loss\n0,4.2\x00,4.2\n"), "not numbers"),
    (metrics_file(b""), "no step,train_loss,val_loss rows"),
    (metrics_file(b"step,train_loss,val_loss\n"), "no step,train_loss,val_loss rows"),
    (metrics_file(b"step,loss\n0,4.2\n"), "no step,train_loss,val_loss rows"),
    (metrics_file(b"step,train_loss,val_loss\n0,4.2\n"), "not numbers"),
    (metrics_file(b"step,train_loss,val_loss\n0.5,4.2,4.2\n"), "not numbers"),
    (lambda tmp_path: (tmp_path / "run" / "metrics.csv").mkdir(parents=True) or tmp_path / "run",
     "no metrics.csv"),
])
def test_plot_losses_refuses_what_is_not_a_metrics_csv(make_run, fragment, tmp_path, call):
    result = call("plot_losses", make_run(tmp_path), "-o", tmp_path / "x.png")
    assert result[0] == 2
    assert_one_line_error(result, fragment)
    assert not (tmp_path / "x.png").exists()


def truncated(folder):
    if not (folder / "ckpt.pt").is_file():
        write_checkpoint(folder, "v6_block")
    data = (folder / "ckpt.pt").read_bytes()
    (folder / "ckpt.pt").write_bytes(data[:len(data) // 2])


def corrupt(content):
    def write(folder):
        (folder / "ckpt.pt").write_bytes(content)
    return write


def saved(obj):
    return lambda folder: torch.save(obj, folder / "ckpt.pt")


def crafted(folder):
    """A checkpoint whose chars is a number, not the vocabulary."""
    if not (folder / "ckpt.pt").is_file():
        write_checkpoint(folder, "v7_bert_layer")
    ckpt = torch.load(folder / "ckpt.pt", weights_only=True)
    torch.save({**ckpt, "chars": 3}, folder / "ckpt.pt")


BAD_CHECKPOINTS = [
    (corrupt(b""), "cannot"),
    (truncated, "cannot"),
    (corrupt(b"not a checkpoint at all\n"), "cannot"),
    (saved([1, 2, 3]), "cannot"),
    (saved({"chars": "ab"}), "cannot"),
    (crafted, "cannot load"),  # its version's own load_checkpoint refuses it
    (lambda folder: (folder / "ckpt.pt").unlink(missing_ok=True) or (folder / "ckpt.pt").mkdir(),
     "no checkpoint at"),
]


@pytest.mark.parametrize("damage,fragment", BAD_CHECKPOINTS + [
    (saved({"version": "v9_future"}), "holds a run of 'v9_future'"),
])
def test_plot_losses_reference_refuses_a_corrupt_checkpoint(damage, fragment, tmp_path, call):
    run = write_metrics(tmp_path / "v6_block", [(0, 4.3, 4.3, 0.0), (5000, 1.7, 1.7, 50.0)])
    damage(run)
    result = call("plot_losses", run, "--reference", "-o", tmp_path / "x.png")
    assert result[0] == 2
    assert_one_line_error(result, fragment, str(run / "ckpt.pt"))
    assert not (tmp_path / "x.png").exists()


def test_plot_losses_reference_needs_a_run_folder(tmp_path, call):
    run = write_metrics(tmp_path / "v6_block", [(0, 4.3, 4.3, 0.0)])
    copy = tmp_path / "copy.csv"
    copy.write_text((run / "metrics.csv").read_text())
    result = call("plot_losses", copy, "--reference", "-o", tmp_path / "x.png")
    assert result[0] == 2
    assert_one_line_error(result, "--reference reads a run folder's ckpt.pt")


def under_a_file(tmp_path):
    (tmp_path / "a_file").write_text("x")
    return tmp_path / "a_file" / "plots" / "x.png"


def a_folder(tmp_path):
    (tmp_path / "x.png").mkdir()
    return tmp_path / "x.png"


def a_fifo(tmp_path):
    os.mkfifo(tmp_path / "x.png")
    return tmp_path / "x.png"


BAD_OUTPUTS = [
    (under_a_file, "which is a file, not a folder"),
    (a_folder, "exists and is not a regular file"),
    (a_fifo, "exists and is not a regular file"),
    # /proc takes no new files, not even root's
    (lambda tmp_path: "/proc/x.png", "/proc/x.png cannot be written"),
]


@pytest.mark.parametrize("make_output,fragment", BAD_OUTPUTS)
def test_plot_losses_checks_its_output_before_it_reads_or_draws(make_output, fragment, tmp_path):
    run = write_metrics(tmp_path / "run", [(0, 4.3, 4.3, 0.0)])
    output = make_output(tmp_path)
    # in a process of its own: a FIFO opened for writing would wait for a reader
    result = script("tools/plot_losses.py", run, tmp_path / "missing_run", "-o", output)
    assert result[0] == 2 and result[1] == ""
    assert_one_line_error(result, "-o ", fragment)


def test_plot_losses_refuses_a_title_matplotlib_cannot_draw(tmp_path, call):
    run = write_metrics(tmp_path / "run", [(0, 4.3, 4.3, 0.0), (10, 3.0, 3.1, 1.0)])
    result = call("plot_losses", run, "--title", r"cost $\frac$", "-o", tmp_path / "x.png")
    assert result[0] == 2
    assert_one_line_error(result, "cannot draw the title or a label", "literal $ as \\$")
    assert not (tmp_path / "x.png").exists()


def test_plot_losses_on_an_ascii_terminal_escapes_what_it_cannot_encode(tmp_path):
    run = write_metrics(tmp_path / "caf\u00e9", [(0, 4.3, 4.3, 0.0), (10, 3.0, 3.1, 1.0)])
    output = tmp_path / "caf\u00e9.png"
    code, out, err = script("tools/plot_losses.py", run, "-o", output,
                            env={"PYTHONIOENCODING": "ascii"})
    assert (code, err) == (0, "") and output.is_file()
    assert out == f"wrote {str(output).replace(chr(0xe9), chr(92) + 'xe9')} (1 runs)\n"


# ---------------------------------------------------------------- fill_accuracy.py
TEXT = "the cat sat on a mat.\nA dog ran to the cat.\n" * 40


@pytest.fixture
def v7_and_v8(tmp_path):
    """Run folders of v7 and v8 (random weights) that learned TEXT, the file tmp_path/text.txt."""
    chars = "".join(sorted(set(TEXT)))
    (tmp_path / "text.txt").write_text(TEXT, encoding="utf-8")
    v7 = write_checkpoint(tmp_path / "v7", "v7_bert_layer", data=tmp_path / "text.txt",
                          chars=chars)
    v8 = write_checkpoint(tmp_path / "v8", "v8_bert_mlm", data=tmp_path / "text.txt",
                          chars="_" + chars, eval_iters=2)
    return v7, v8


def trained_on(folders, path):
    """Each run's ckpt.pt made to record the sha256 of the file at path, as if it trained on it."""
    for folder in folders:
        ckpt = torch.load(folder / "ckpt.pt", weights_only=True)
        sha256 = hashlib.sha256(path.read_bytes()).hexdigest()
        torch.save({**ckpt, "data_sha256": sha256}, folder / "ckpt.pt")


def test_fill_accuracy_runs_on_the_text_the_runs_learned(v7_and_v8, tmp_path, call):
    code, out, err = call("fill_accuracy", "--v7", v7_and_v8[0], "--v8", v7_and_v8[1],
                          "--data", tmp_path / "text.txt")
    assert (code, err) == (0, "") and "v8, both sides" in out


@pytest.mark.parametrize("text,fragments", [
    # the same characters, but one is not UTF-8: latin-1's bytes for "é" in a comment
    ((TEXT + "caf\u00e9\n").encode("latin-1"), ["cannot read", "as UTF-8 text", "pass --data"]),
    (b"\xff\xfe" + TEXT.encode("utf-16-le"), ["as UTF-8 text"]),
    # every character the runs learned, but too little val text for a window around each
    ((TEXT[:45] * 3).encode(), ["too short for windows of 8 and 32 characters"]),
    (b"", ["is not the text the checkpoints learned"]),
])
def test_fill_accuracy_refuses_a_text_it_cannot_use(text, fragments, v7_and_v8, tmp_path, call):
    (tmp_path / "text.txt").write_bytes(text)
    trained_on(v7_and_v8, tmp_path / "text.txt")  # the sha256 matches: the checks past it run
    result = call("fill_accuracy", "--v7", v7_and_v8[0], "--v8", v7_and_v8[1],
                  "--data", tmp_path / "text.txt")
    assert result[0] == 2
    assert_one_line_error(result, *fragments)


@pytest.mark.parametrize("damage,fragment", BAD_CHECKPOINTS)
def test_fill_accuracy_refuses_a_corrupt_checkpoint(damage, fragment, v7_and_v8, tmp_path, call):
    damage(v7_and_v8[1])
    result = call("fill_accuracy", "--v7", v7_and_v8[0], "--v8", v7_and_v8[1],
                  "--data", tmp_path / "text.txt")
    assert result[0] == 2
    assert_one_line_error(result, fragment, str(v7_and_v8[1] / "ckpt.pt"))


# ---------------------------------------------------------------- make_figures.py
@pytest.mark.parametrize("damage,fragment", BAD_CHECKPOINTS + [
    (lambda folder: write_checkpoint(folder, "v6_block"), "'v6_block', not v7_bert_layer"),
])
def test_make_figures_refuses_a_corrupt_checkpoint(damage, fragment, tmp_path, call):
    (tmp_path / "run").mkdir()
    damage(tmp_path / "run")
    for ckpt in (tmp_path / "run", tmp_path / "run" / "ckpt.pt"):  # the folder, or its ckpt.pt
        result = call("make_figures", "--only", "attention", "--ckpt", ckpt,
                      "-o", tmp_path / "figures")
        assert result[0] == 2
        assert_one_line_error(result, fragment)
    assert not (tmp_path / "figures").exists()


def test_make_figures_draws_into_the_folder_it_is_given(tmp_path, call):
    """The GELU figure; the attention one is show_attention's (tests/test_show_attention.py)."""
    code, out, err = call("make_figures", "--only", "gelu", "-o", tmp_path / "figures")
    assert (code, err) == (0, "")
    assert (tmp_path / "figures" / "relu_vs_gelu.png").read_bytes()[:4] == b"\x89PNG"


def test_make_figures_by_default_writes_where_git_ignores_it_not_over_the_docs():
    default = tool("make_figures").OUT
    assert not default.is_relative_to(ROOT / "docs")
    ignored = subprocess.run(["git", "check-ignore", "-q", str(default / "attention_v7.png")],
                             cwd=ROOT)
    assert ignored.returncode == 0


@pytest.mark.parametrize("argv,fragment", [
    (["-o", "x.png"], "is one file, for three figures: pass a folder, or --only"),
    (["--only", "attention", "--ckpt", "{tmp}/notes.txt"], "neither a run folder nor a ckpt.pt"),
    (["--only", "gelu", "-o", "{tmp}/notes.txt"], "is a file, not a folder or a .png"),
    (["--only", "gelu", "-o", "{tmp}/notes.txt/x.png"], "which is a file, not a folder"),
    (["--only", "gelu", "-o", "/proc/figures"],
     "-o /proc/figures/relu_vs_gelu.png cannot be written"),
])
def test_make_figures_refuses_a_bad_path_before_drawing(argv, fragment, tmp_path, call):
    (tmp_path / "notes.txt").write_text("x")
    result = call("make_figures", *[a.format(tmp=tmp_path) for a in argv])
    assert result[0] == 2
    assert_one_line_error(result, fragment)


# ---------------------------------------------------------------- bert_time_and_memory.py
@pytest.mark.parametrize("flags,message", [
    (["--only", "time", "--batch", "100000", "--seq", "4096"], "--batch: 100000 is not from 1 to"),
    (["--seq", "4096"], "--seq: 4096 is not from 1 to 512"),
    (["--long-seq", "10000000"], "--long-seq: 10000000 is not from 1 to"),
    (["--chunk", "300"], "--chunk (300) must divide --long-seq (4096)"),
    (["--warmup", "-1"], "--warmup: -1 is not from 0 to 100"),
])
def test_bert_time_and_memory_caps_its_sizes_in_one_line(flags, message, call):
    assert_one_line_error(call("bert_time_and_memory", *flags), message)
