"""Bad input to the tools: one line on stderr, `error: what was wrong: what to do`, exit status 2,
before any work; Ctrl-C one line and 130; never a traceback. The shared idiom is tools/cli.py."""
import io
import os
import re
import subprocess
import sys

import pytest
import torch

from conftest import ROOT, VERSIONS, load_tool
from test_bad_input import assert_one_line_error
from test_tools import write_checkpoint, write_metrics

import cli
import versions

# every script with a command line: the tools (not their shared modules) and data/prepare.py
SCRIPTS = [f"tools/{p.name}" for p in sorted((ROOT / "tools").glob("*.py"))
           if "\ndef main(" in p.read_text()] + ["data/prepare.py"]


def script(path, *argv, env=None):
    """(exit code, stdout, stderr) of python <path> argv, in a process of its own."""
    proc = subprocess.run([sys.executable, str(ROOT / path), *map(str, argv)], capture_output=True,
                          text=True, timeout=120, env={**os.environ, **(env or {})})
    return proc.returncode, proc.stdout, proc.stderr


@pytest.fixture
def call(capsys):
    """call(tool, *argv) -> (exit code, stdout, stderr) of tools/<tool>.py's main()."""

    def _call(name, *argv):
        code = load_tool(name).main([str(a) for a in argv])
        captured = capsys.readouterr()
        return code, captured.out, captured.err

    return _call


# ---------------------------------------------------------------- the shared idiom, once
def test_the_ladder_and_the_checksum_are_written_once():
    on_disk = sorted(p.parent.name for p in ROOT.glob("v*/train.py"))
    assert sorted(versions.VERSIONS) == on_disk and VERSIONS is versions.VERSIONS
    assert load_tool("bench").VERSIONS is versions.VERSIONS
    sources = [*ROOT.glob("tools/*.py"), ROOT / "data" / "prepare.py", *ROOT.glob("tests/*.py")]
    holders = [p.name for p in sources if versions.TINY_SHAKESPEARE_SHA256 in p.read_text()]
    assert holders == ["versions.py"]
    for path in sources:  # one error idiom: no tool defines its own
        assert not re.search(r"^class \w*(Error|Failure)\b", path.read_text(), re.M) or (
            path.name == "cli.py"), path


@pytest.mark.parametrize("raised,code,err", [
    (cli.UserError("no file at x:\n  pass one"), 2, "error: no file at x: pass one\n"),
    (KeyboardInterrupt(), 130, "interrupted\n"),
    (KeyboardInterrupt("2 of 3 runs finished"), 130, "interrupted: 2 of 3 runs finished\n"),
])
def test_command_turns_bad_input_and_ctrl_c_into_one_line(raised, code, err, capsys):
    @cli.command
    def main(argv=None):
        print("started")
        raise raised

    assert main([]) == code
    assert capsys.readouterr() == ("started\n", err)


def test_command_writes_what_an_ascii_terminal_cannot_encode_escaped(monkeypatch):
    out = io.TextIOWrapper(io.BytesIO(), encoding="ascii")  # strict, as PYTHONIOENCODING=ascii
    monkeypatch.setattr(sys, "stdout", out)

    @cli.command
    def main(argv=None):
        print("caf\u00e9 \u2014 \u4e2d")
        return 0

    assert main([]) == 0
    out.flush()
    assert out.buffer.getvalue() == b"caf\\xe9 \\u2014 \\u4e2d\n"


@pytest.mark.parametrize("argv,expected", [
    (["--lr", "-1e-3"], ["--lr=-1e-3"]),
    (["--lr", "-inf", "--n", "-5"], ["--lr=-inf", "--n=-5"]),
    (["--lr", "-x"], ["--lr", "-x"]),  # a flag, not a number
    (["-o", "-1e3"], ["-o", "-1e3"]),  # short flags are left alone: -o=x would mean "=x"
    (["--lr=-1", "a"], ["--lr=-1", "a"]),
    (["--", "--lr", "-1e-3"], ["--", "--lr", "-1e-3"]),  # after --: another program's flags
])
def test_negative_numbers_are_joined_to_their_flag(argv, expected):
    assert cli.join_negative_values(argv) == expected


@pytest.mark.parametrize("argv,expected", [
    (["--ylim", "-1", "-2e-3", "a"], ["--ylim", " -1", " -2e-3", "a"]),
    (["--yl", "-1", "2", "--lr", "-1"], ["--yl", " -1", "2", "--lr=-1"]),  # a prefix, as argparse
    (["--ylim", "-x"], ["--ylim", "-x"]),
])
def test_negative_values_of_a_flag_that_takes_several_keep_their_places(argv, expected):
    assert cli.join_negative_values(argv, several=["--ylim"]) == expected


def test_the_parser_reads_a_negative_exponent_as_a_value_and_errors_in_one_line():
    p = cli.ArgumentParser(ROOT / "tools" / "x.py", "A tool.\n\nMore.")
    p.add_argument("--lr", type=float)
    p.add_argument("--n", type=int)
    assert p.parse_args(["--lr", "-1e-3"]).lr == -1e-3
    assert p.description == "A tool." and p.prog == "python tools/x.py"
    with pytest.raises(cli.UserError, match=r"^argument --n: invalid int value: '-1e3': "
                                            r"see python tools/x.py --help$"):
        p.parse_args(["--n", "-1e3"])


@pytest.mark.parametrize("argv,message", [
    (["data/prepare.py", "--timeout", "-1e-3"], "--timeout must be a number of seconds above 0"),
    (["tools/bench.py", "--seed", "-1e3"], "argument --seed: invalid int value: '-1e3'"),
    (["tools/bench_bert.py", "--warmup", "-2e1"], "argument --warmup: invalid int value: '-2e1'"),
])
def test_a_negative_number_gets_its_own_error_not_expected_one_argument(argv, message):
    code, out, err = script(*argv)
    assert_one_line_error((code, out, err), message, "error: ")
    assert code == 2 and "expected one argument" not in err


@pytest.mark.parametrize("path", SCRIPTS)
def test_every_help_opens_with_a_whole_sentence(path):
    code, out, err = script(path, "--help")
    description = out.split("\n\n")[1]  # after the usage block
    assert code == 0 and err == ""
    assert out.startswith(f"usage: python {path} ")
    assert description.rstrip().endswith("."), description


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


BAD_CHECKPOINTS = [
    (corrupt(b""), "cannot"),
    (truncated, "cannot"),
    (corrupt(b"not a checkpoint at all\n"), "cannot"),
    (saved([1, 2, 3]), "cannot"),
    (saved({"chars": "ab"}), "cannot"),
    (lambda folder: (folder / "ckpt.pt").unlink(missing_ok=True) or (folder / "ckpt.pt").mkdir(),
     "no checkpoint at"),
]


@pytest.mark.parametrize("damage,fragment", BAD_CHECKPOINTS + [
    (saved({"version": "v9_future"}), "names the version 'v9_future'"),
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
    run = write_metrics(tmp_path / "run", [(0, 4.3, 4.3, 0.0)])
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
    """Run folders of v7 and v8 (random weights) that learned TEXT's characters."""
    chars = "".join(sorted(set(TEXT)))
    v7 = write_checkpoint(tmp_path / "v7", "v7_bert_layer", chars=chars)
    v8 = write_checkpoint(tmp_path / "v8", "v8_bert_mlm", chars="_" + chars, eval_iters=2)
    return v7, v8


def test_fill_accuracy_runs_on_the_text_the_runs_learned(v7_and_v8, tmp_path, call):
    (tmp_path / "text.txt").write_text(TEXT, encoding="utf-8")
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
    result = call("fill_accuracy", "--v7", v7_and_v8[0], "--v8", v7_and_v8[1],
                  "--data", tmp_path / "text.txt")
    assert result[0] == 2
    assert_one_line_error(result, *fragments)


@pytest.mark.parametrize("damage,fragment", BAD_CHECKPOINTS)
def test_fill_accuracy_refuses_a_corrupt_checkpoint(damage, fragment, v7_and_v8, tmp_path, call):
    (tmp_path / "text.txt").write_text(TEXT, encoding="utf-8")
    damage(v7_and_v8[1])
    result = call("fill_accuracy", "--v7", v7_and_v8[0], "--v8", v7_and_v8[1],
                  "--data", tmp_path / "text.txt")
    assert result[0] == 2
    assert_one_line_error(result, fragment, str(v7_and_v8[1] / "ckpt.pt"))


# ---------------------------------------------------------------- make_figures.py
@pytest.mark.parametrize("damage,fragment", BAD_CHECKPOINTS + [
    (lambda folder: write_checkpoint(folder, "v6_block"), "not v7_bert_layer"),
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
    run = write_checkpoint(tmp_path / "run", "v7_bert_layer")
    code, out, err = call("make_figures", "--only", "attention", "--ckpt", run,
                          "-o", tmp_path / "figures")
    assert (code, err) == (0, "")
    assert (tmp_path / "figures" / "attention_v7.png").read_bytes()[:4] == b"\x89PNG"
    code, out, err = call("make_figures", "--only", "gelu", "-o", tmp_path / "gelu.png")
    assert (code, err) == (0, "") and (tmp_path / "gelu.png").is_file()


def test_make_figures_by_default_writes_where_git_ignores_it_not_over_the_docs():
    default = load_tool("make_figures").OUT
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


# ---------------------------------------------------------------- bench.py
@pytest.fixture
def bench(monkeypatch):
    """tools/bench.py with its runs replaced by a stand-in that records them."""
    tool, calls = load_tool("bench"), []

    def run_version(version, data, out, seed, extra):
        calls.append((version, seed))
        return {"version": version, "seed": seed, "params": 1, "steps": 30, "train_loss": 2.0,
                "val_loss": 2.0, "loop_s": 1.0, "process_s": 1.0, "tokens_per_s": 1.0}

    monkeypatch.setattr(tool, "run_version", run_version)
    return tool, calls


@pytest.mark.parametrize("extra,fragment", [
    (["--seed", "3"], "pass --seed N [N ...] before the --"),
    (["--seed=3"], "pass --seed N [N ...] before the --"),
    (["--se", "3"], "pass --seed N [N ...] before the --"),  # argparse takes a prefix
    (["--out", "x"], "pass --out DIR before the --"),
    (["--out=x"], "pass --out DIR before the --"),
    (["--data", "data/tinyplays.txt"], "pass --data PATH before the --"),
    (["--data=data/tinyplays.txt"], "pass --data PATH before the --"),
    (["--generate"], "this tool trains"),
    (["--no-such-flag"], "v1_bigram: unrecognized arguments: --no-such-flag"),
    (["--max-iters", "0"], "--max-iters must be from 1 to 1000000"),
    (["--help"], "stop v1_bigram/train.py before it trains"),
])
def test_bench_refuses_flags_after_dashes_before_any_run(extra, fragment, bench, capsys):
    tool, calls = bench
    code = tool.main(["--versions", "v1_bigram", "v4_multihead", "--", *extra])
    err = capsys.readouterr().err
    assert_one_line_error((code, "", err), fragment)
    assert code == 2 and calls == []


@pytest.mark.parametrize("argv,fragment", [
    (["--csv", "{tmp}"], "exists and is not a regular file"),
    (["--csv", "{tmp}/notes.txt/table.csv"], "which is a file, not a folder"),
    (["--csv", "/proc/table.csv"], "--csv /proc/table.csv cannot be written"),
    (["--versions", "v1_bigram", "v1_bigram"], "--versions names v1_bigram more than once"),
    (["--seed", "1", "1"], "--seed names 1 more than once"),
    (["--seed", "-1"], "v1_bigram: --seed must be from 0 to"),
])
def test_bench_refuses_bad_input_before_any_run(argv, fragment, bench, tmp_path, capsys):
    tool, calls = bench
    (tmp_path / "notes.txt").write_text("x")
    code = tool.main(["--versions", "v1_bigram", *[a.format(tmp=tmp_path) for a in argv]])
    assert_one_line_error((code, "", capsys.readouterr().err), fragment)
    assert code == 2 and calls == []


@pytest.mark.parametrize("extra,threads", [([], "1"),
                                           (["--threads", str(os.cpu_count())], os.cpu_count())])
def test_bench_says_the_threads_its_runs_use(extra, threads, bench, tmp_path, capsys):
    tool, calls = bench
    assert tool.main(["--versions", "v6_block", "--out", str(tmp_path), "--", *extra]) == 0
    assert f"| torch threads: {threads} |" in capsys.readouterr().out.splitlines()[0]
    assert calls == [("v6_block", 1337)]


def test_bench_ctrl_c_is_one_line_saying_which_runs_finished(bench, monkeypatch, tmp_path, capsys):
    tool, calls = bench
    finish = tool.run_version

    def second_is_interrupted(version, *args):
        if calls:
            raise KeyboardInterrupt
        return finish(version, *args)

    monkeypatch.setattr(tool, "run_version", second_is_interrupted)
    argv = ["--versions", "v1_bigram", "v4_multihead", "v6_block", "--out", str(tmp_path),
            "--csv", str(tmp_path / "table.csv")]
    assert tool.main(argv) == 130
    out, err = capsys.readouterr()
    assert err == ("interrupted: 1 of 3 runs finished (their rows are above); v4_multihead seed "
                   "1337 was stopped; --csv not written\n")
    assert re.search(r"^v1_bigram +1337 ", out, re.M) and not (tmp_path / "table.csv").exists()


def test_bench_a_failed_run_is_one_line(tmp_path, capsys):
    latin1 = tmp_path / "latin1.txt"
    latin1.write_bytes("caf\u00e9 ".encode("latin-1") * 3000)
    code = load_tool("bench").main(["--versions", "v1_bigram", "--data", str(latin1),
                                    "--out", str(tmp_path), "--", "--max-iters", "2"])
    assert_one_line_error((code, "", capsys.readouterr().err), "v1_bigram failed (error: ",
                          "run it alone to see why")
    assert code == 2


def test_bench_a_real_ctrl_c_is_one_line_and_130(tmp_path):
    """SIGINT to the bench and its run, as a terminal's Ctrl-C sends it to both."""
    import signal

    argv = [sys.executable, str(ROOT / "tools" / "bench.py"), "--versions", "v1_bigram",
            "--out", str(tmp_path), "--", "--max-iters", "1000000", "--eval-interval", "1000000"]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        assert proc.stdout.readline().startswith("dataset: ")  # the checks are done, runs begin
        os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 130
    assert err == "interrupted: 0 of 1 runs finished; v1_bigram seed 1337 was stopped\n"


@pytest.mark.parametrize("argv,fragment", [
    (["--", "--threads", "2"], "--threads after -- is this tool's own"),
    (["--", "--out=x"], "--out after -- is this tool's own"),
    (["--", "--lr", "-1e-3"], "v6_block: --lr must be from 1e-06 to 10.0, got -0.001"),
    (["--threads", "0"], "v6_block: --threads must be from 1 to"),
    (["--csv", "/proc/threads.csv"], "--csv /proc/threads.csv cannot be written"),
    (["--version", "v9"], "argument --version: invalid choice"),
])
def test_bench_threads_refuses_bad_input_before_any_run(argv, fragment, monkeypatch, capsys):
    tool = load_tool("bench_threads")
    monkeypatch.setattr(tool, "measure", lambda *a: pytest.fail("a run started"))
    assert_one_line_error((tool.main(argv), "", capsys.readouterr().err), fragment)


def test_bench_threads_times_each_case_and_writes_its_table(tmp_path, capsys):
    tool = load_tool("bench_threads")
    argv = ["--version", "v1_bigram", "--threads", "1", "--out", str(tmp_path / "runs"),
            "--csv", str(tmp_path / "t.csv"), "--", "--max-iters", "10", "--eval-iters", "2"]
    assert tool.main(argv) == 0
    rows = (tmp_path / "t.csv").read_text().splitlines()
    assert rows[0] == "threads,beside_a_second_run,loop_s,process_s,val_loss,steps"
    assert [r.split(",")[:2] for r in rows[1:]] == [["1", "False"], ["1", "True"]]
    assert rows[1].split(",")[4] == rows[2].split(",")[4], "a twin beside it changes no figure"
