"""Bad input: one line on stderr that says what is wrong and what to do, a non-zero exit, no
traceback, and nothing already written is touched."""
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from conftest import ATTENTION_VERSIONS, ROOT, VERSIONS, folder_bytes, load, tiny_args


def assert_one_line_error(result, *fragments):
    """result: (exit code, stdout, stderr). Bad input everywhere in the repo: exit status 2 and one
    `error:` line naming each fragment, no traceback."""
    code, out, err = result
    assert code == 2, (code, err)
    assert err.startswith("error: ") and err.count("\n") == 1, f"not one line: {err!r}"
    assert "Traceback" not in err + out
    for fragment in fragments:
        assert fragment in err, f"{fragment!r} missing from {err!r}"


def data_file(tmp_path, name, content):
    path = tmp_path / name
    (path.write_bytes(content) if isinstance(content, bytes)
     else path.write_text(content, encoding="utf-8"))
    return path


BAD_FLAGS = [  # the limits every lesson shares (LIMITS) and the plumbing's own
    ("--max-iters", "0", "--max-iters must be from 1 to 1000000, got 0"),
    ("--max-iters", "-5", "must be from 1 to 1000000, got -5"),
    ("--max-iters", "1000001", "must be from 1 to 1000000, got 1000001"),
    ("--eval-interval", "0", "must be from 1 to"),
    ("--eval-iters", "0", "must be from 1 to"),
    ("--eval-iters", "100000", "--eval-iters must be from 1 to 10000"),
    ("--batch-size", "-1", "must be from 1 to 2048"),
    ("--batch-size", "1000000", "must be from 1 to 2048"),
    ("--block-size", "0", "must be from 1 to 2048"),
    ("--lr", "0", "--lr must be from 1e-06 to 10.0, got 0.0"),
    ("--lr", "-0.001", "must be from 1e-06"),
    ("--lr", "inf", "must be from 1e-06 to 10.0, got inf"),
    ("--sample-chars", "-1", "--sample-chars must be from 0 to 100000"),
    ("--sample-chars", "1000000", "--sample-chars must be from 0 to 100000"),
    ("--seed", "-1", "--seed must be from 0 to 9223372036854775806, got -1"),
    ("--seed", str(2**64), f"--seed must be from 0 to {2**63 - 2}, got {2**64}"),
    ("--lr", "nan", "--lr must be from 1e-06 to 10.0, got nan"),
    ("--lr", "-1e-3", "got -0.001"),  # argparse alone reads -1e-3 as a flag
    ("--lr", "-.5", "got -0.5"),
    ("--threads", "0", "--threads must be from 1 to"),
    ("--threads", "100000", "--threads must be from 1 to"),
]


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("flag,value,message", BAD_FLAGS)
def test_bad_numbers(version, flag, value, message, run, tiny_corpus, tmp_path):
    assert_one_line_error(run(version, tiny_args(tiny_corpus, tmp_path, flag, value)),
                          flag, message)
    assert not tmp_path.exists() or not any(tmp_path.iterdir()), (
        "a refused run must not write anything")



@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("argv,message", [
    (["--max-iters", "abc"], "argument --max-iters: invalid int value: 'abc'"),
    (["--no-such-flag"], "unrecognized arguments: --no-such-flag"),
])
def test_flags_argparse_refuses_get_one_line_too(version, argv, message, run):
    expected = f"error: {message}: see python {version}/train.py --help\n"
    assert run(version, argv) == (2, "", expected)


@pytest.mark.parametrize("version", VERSIONS)
def test_an_out_folder_that_cannot_be_made(version, run, tiny_corpus, tmp_path):
    taken = tmp_path / "taken"
    taken.write_text("someone's file")
    assert_one_line_error(run(version, tiny_args(tiny_corpus, taken)),
                          f"cannot create the run folder {taken}", "--out")
    assert taken.read_text() == "someone's file"


@pytest.mark.parametrize("version", ["v6_block", "v7_bert_layer", "v8_bert_mlm"])
@pytest.mark.parametrize("value,message", [
    ("1", "--dropout must be from 0.0 to 0.9, got 1.0"),
    ("-0.1", "--dropout must be from 0.0 to 0.9, got -0.1"),
])
def test_dropout_outside_its_range(version, value, message, run, tiny_corpus, tmp_path):
    assert_one_line_error(
        run(version, tiny_args(tiny_corpus, tmp_path / "out", "--dropout", value)), message)
    assert not (tmp_path / "out").exists()

@pytest.mark.parametrize("version", VERSIONS)
def test_bad_data_files(version, run, tmp_path):
    out = tmp_path / "out"
    cases = [
        (tmp_path / "missing.txt", ("missing.txt does not exist", "--data PATH")),
        (data_file(tmp_path, "empty.txt", ""), ("too short for a block", "--block-size")),
        (data_file(tmp_path, "short.txt", "abcdefghijklmnopqrst"),
         ("too short for a block", "--block-size")),
        (data_file(tmp_path, "latin1.txt", "caf\xe9 ".encode("latin-1") * 100),
         ("as UTF-8 text", "position 3")),
    ]
    for path, fragments in cases:
        assert_one_line_error(run(version, tiny_args(path, out)), *fragments)
    assert not out.exists()


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("device", ["cuda", "mps"])
def test_unavailable_device(version, device, run, tiny_corpus, tmp_path, monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(torch.backends.mps, "is_available", lambda: False)
    # replace the trailing --device cpu
    argv = tiny_args(tiny_corpus, tmp_path)[:-2] + ["--device", device]
    assert_one_line_error(run(version, argv), f"--device {device} is not available", "--device cpu")


@pytest.mark.parametrize("version", ATTENTION_VERSIONS)
def test_n_embd_not_divisible_by_n_head(version, run, tiny_corpus, tmp_path):
    result = run(version, tiny_args(tiny_corpus, tmp_path, "--n-embd", 30, "--n-head", 4))
    assert_one_line_error(result, "n_embd (30) must be a multiple of n_head (4)", "--n-embd")


@pytest.mark.parametrize("version", VERSIONS)
def test_generate_without_a_checkpoint(version, run, tmp_path):
    result = run(version, ["--generate", "--out", tmp_path / "nothing"])
    assert_one_line_error(result, "no checkpoint at", f"python {version}/train.py")


@pytest.mark.parametrize("version", VERSIONS)
def test_generate_from_a_broken_checkpoint(version, run, tmp_path):
    (tmp_path / "ckpt.pt").write_bytes(b"not a checkpoint at all")
    assert_one_line_error(run(version, ["--generate", "--out", tmp_path]),
                          "cannot load", "into this", "train again")
    assert (tmp_path / "ckpt.pt").read_bytes() == b"not a checkpoint at all"


def test_generate_from_another_versions_checkpoint(run, tiny_corpus, tmp_path):
    assert run("v4_multihead", tiny_args(tiny_corpus, tmp_path))[0] == 0
    for version in ("v1_bigram", "v5_ffn", "v6_block"):
        result = run(version, ["--generate", "--out", tmp_path])
        assert_one_line_error(result, "was written by v4_multihead", f"not {version}")


def test_generate_from_a_checkpoint_that_does_not_fit(run, tiny_corpus, tmp_path):
    assert run("v6_block", tiny_args(tiny_corpus, tmp_path))[0] == 0
    ckpt = torch.load(tmp_path / "ckpt.pt", weights_only=True)
    ckpt["model_args"]["n_layer"] = 4  # claims a 4th block whose weights are not there
    torch.save(ckpt, tmp_path / "ckpt.pt")
    assert_one_line_error(run("v6_block", ["--generate", "--out", tmp_path]),
                          "into this v6_block (RuntimeError)")


@pytest.mark.parametrize("version", VERSIONS)
def test_prompt_outside_the_vocabulary(version, run, tiny_corpus, tmp_path):
    assert run(version, tiny_args(tiny_corpus, tmp_path / "ok"))[0] == 0
    before = {p.name: p.read_bytes() for p in (tmp_path / "ok").iterdir()}
    # refused before training, and when generating from a checkpoint; the error names the strange
    # characters
    assert_one_line_error(
        run(version, tiny_args(tiny_corpus, tmp_path / "ok", "--prompt", "Hi \u00e9\u4e2d")),
        "'\u00e9\u4e2d'")
    assert_one_line_error(
        run(version, ["--generate", "--out", tmp_path / "ok", "--prompt", "~\u00e9"]), "\u00e9")
    assert {p.name: p.read_bytes() for p in (tmp_path / "ok").iterdir()} == before, (
        "earlier results were touched")


def test_the_command_line_prints_one_line_and_exits_non_zero(tmp_path):
    """The same through a real process: no traceback reaches the terminal."""
    for version in ("v1_bigram", "v6_block"):
        proc = subprocess.run([sys.executable, str(ROOT / version / "train.py"),
                               "--data", str(tmp_path / "none.txt"),
                               "--out", str(tmp_path / "out")],
                              capture_output=True, text=True, timeout=120)
        assert proc.returncode == 2
        assert proc.stderr.count("\n") == 1 and proc.stderr.startswith("error: --data ")
        assert proc.stdout == ""


def test_importing_a_train_script_does_no_work(tmp_path):
    """Importing only defines things: no run folder, no output."""
    paths = [str(ROOT / v / "train.py") for v in VERSIONS]
    code = ("import importlib.util\n"
            f"for i, path in enumerate({paths!r}):\n"
            "    spec = importlib.util.spec_from_file_location(f'm{i}', path)\n"
            "    spec.loader.exec_module(importlib.util.module_from_spec(spec))\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=tmp_path, timeout=120)
    assert proc.returncode == 0 and proc.stdout == "" and proc.stderr == ""
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("version", VERSIONS)
def test_data_that_is_not_a_regular_file(version, run, tmp_path):
    """A folder or a device: refused by name, before anything reads it (/dev/zero never ends)."""
    for path in (tmp_path, Path("/dev/zero"), Path("/dev/null")):
        assert_one_line_error(run(version, tiny_args(path, tmp_path / "out")),
                              f"--data {path} is not a regular file", "--data PATH")
    assert not (tmp_path / "out").exists()


def test_data_that_is_a_fifo_does_not_hang(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)  # nothing ever writes to it: reading it would wait forever
    proc = subprocess.run([sys.executable, str(ROOT / "v4_multihead" / "train.py"),
                           *tiny_args(fifo, tmp_path / "out")],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and proc.stderr == (
        f"error: --data {fifo} is not a regular file: pass --data PATH to a text file\n")


@pytest.mark.parametrize("version", ["v1_bigram", "v7_bert_layer", "v8_bert_mlm"])
def test_sizes_that_cannot_fit_in_memory(version, run, tiny_corpus, tmp_path):
    """Sizes within the LIMITS whose first batch asks for one tensor far larger than any machine's
    memory, so that the allocation fails at once: v1's logits (B, T, vocab) over a 6,000-character
    vocabulary, 100 GB; v7's and v8's attention scores (B, nh, T, T), 550 GB. (v4 to v6 compute
    one head at a time, 8 GB, which a machine could hold; their plumbing is the same.)"""
    corpus, flags = tiny_corpus, ["--n-embd", 64, "--n-head", 64, "--block-size", 1024]
    if version == "v1_bigram":
        wide = "".join(map(chr, range(0x4E00, 0x4E00 + 6000)))  # 6,000 CJK characters
        corpus = data_file(tmp_path, "wide.txt", wide * 4)
        flags = ["--block-size", 2048]
    out = tmp_path / "out"
    assert run(version, tiny_args(corpus, out))[0] == 0
    before = folder_bytes(out)
    assert_one_line_error(run(version, tiny_args(corpus, out, "--batch-size", 2048, *flags)),
                          "do not fit in memory", "--batch-size")
    assert folder_bytes(out) == before


def test_a_terminal_that_cannot_show_a_character_gets_it_escaped(tmp_path):
    """PYTHONIOENCODING=ascii: the sample is printed with \\xe9 for é, not a UnicodeEncodeError."""
    corpus = data_file(tmp_path, "cafe.txt", "caf\u00e9 au lait, encore un caf\u00e9. " * 500)
    script = str(ROOT / "v1_bigram" / "train.py")
    env = {**os.environ, "PYTHONIOENCODING": "ascii"}
    proc = subprocess.run([sys.executable, script, *tiny_args(corpus, tmp_path / "out"),
                           "--prompt", "caf\u00e9"], capture_output=True, text=True, env=env,
                          timeout=120)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    assert "caf\\xe9" in proc.stdout
