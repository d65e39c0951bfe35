"""The tools keep what they promise where it is easiest to break: data/make_tinyplays.py refuses a
bad --out before it generates and never leaves half a corpus; make_figures.py never makes a folder
named like a file; fill_accuracy.py scores only the very text the runs trained on. (load_bert.py's
are in test_load_bert.py, with transformers.)"""
import errno
import hashlib
import io
import subprocess
import sys

import pytest
import torch

from conftest import ROOT, import_path
from test_bad_input import assert_one_line_error
# fixtures: v7_and_v8, two runs trained on tmp_path/text.txt; call(tool, *argv)
from test_tools_bad_input import TEXT, a_fifo, call, v7_and_v8  # noqa: F401

TINYPLAYS = (ROOT / "data" / "tinyplays.txt").read_bytes()


# ---------------------------------------------------------------- data/make_tinyplays.py
@pytest.fixture
def make_tinyplays(capsys):
    """(the module, call(*argv) -> (exit code, stdout, stderr) of its main())."""
    module = import_path(ROOT / "data" / "make_tinyplays.py", "make_tinyplays")

    def _call(*argv):
        try:
            code = module.main([str(a) for a in argv])
        except KeyboardInterrupt:  # as pytest's own Ctrl-C it would end the whole session
            pytest.fail("Ctrl-C escaped main() as a traceback")
        captured = capsys.readouterr()
        return code, captured.out, captured.err

    return module, _call


def no_work(*args, **kwargs):
    raise AssertionError("work began before the bad input was refused")


def under_a_file(tmp_path):
    (tmp_path / "notes.txt").write_text("x")
    return tmp_path / "notes.txt" / "tinyplays.txt"


@pytest.mark.parametrize("make_out,fragment", [
    (lambda tmp_path: tmp_path, "exists and is not a regular file"),
    (under_a_file, "is under"),
    # /proc takes no new files, not even root's: a read-only folder
    (lambda tmp_path: "/proc/tinyplays.txt", "cannot be written"),
])
def test_make_tinyplays_refuses_a_bad_out_before_generating(make_out, fragment, tmp_path,
                                                            make_tinyplays, monkeypatch):
    module, call = make_tinyplays
    monkeypatch.setattr(module, "generate", no_work)
    result = call("--out", make_out(tmp_path))
    assert result[0] == 2 and result[1] == ""
    assert_one_line_error(result, "--out ", fragment)


def test_make_tinyplays_makes_a_missing_folder_and_writes_the_same_bytes(tmp_path,
                                                                        make_tinyplays):
    out = tmp_path / "new" / "folder" / "tinyplays.txt"
    code, stdout, err = make_tinyplays[1]("--out", out)
    assert (code, err) == (0, "") and stdout.startswith(f"wrote {out}: 511280 bytes")
    assert out.read_bytes() == TINYPLAYS and [p.name for p in out.parent.iterdir()] == [out.name]


def stopped_while_writing(raised):
    """open() for the module: a file opened for writing takes half its bytes, then `raised`."""
    class Half(io.FileIO):
        def write(self, data):
            super().write(bytes(data)[:len(data) // 2])
            raise raised

    def fake_open(path, mode="r", *args, **kwargs):
        return Half(path, "wb") if "w" in mode else open(path, mode, *args, **kwargs)
    return fake_open


@pytest.mark.parametrize("raised,code,fragments", [
    (OSError(errno.ENOSPC, "No space left on device"), 2,
     ["cannot write", "No space left on device", "it is as it was"]),
    (KeyboardInterrupt(), 130, []),
])
def test_make_tinyplays_stopped_while_writing_leaves_the_old_file(raised, code, fragments,
                                                                  tmp_path, make_tinyplays,
                                                                  monkeypatch):
    """A full disk is one error line, Ctrl-C one `interrupted` line; the old corpus stays whole
    and no partial file is left beside it."""
    module, call = make_tinyplays
    out = tmp_path / "tinyplays.txt"
    out.write_bytes(b"the old corpus\n")
    monkeypatch.setattr(module, "open", stopped_while_writing(raised), raising=False)
    result = call("--out", out)
    assert result[0] == code and result[1] == ""
    if fragments:
        assert_one_line_error(result, str(out), *fragments)
    else:
        assert result[2] == f"interrupted: {out} was not changed\n"
    assert out.read_bytes() == b"the old corpus\n"
    assert [p.name for p in tmp_path.iterdir()] == ["tinyplays.txt"]


def test_make_tinyplays_check_says_identical_or_different_and_refuses_a_folder(tmp_path,
                                                                              make_tinyplays):
    call = make_tinyplays[1]
    same, other = tmp_path / "same.txt", tmp_path / "other.txt"
    same.write_bytes(TINYPLAYS)
    other.write_bytes(TINYPLAYS[:-1])
    assert call("--check", "--out", same) == (0, f"{same}: identical\n", "")
    assert call("--check", "--out", other) == (1, f"{other}: DIFFERENT\n", "")
    missing = tmp_path / "missing.txt"
    assert call("--check", "--out", missing) == (1, f"{missing}: DIFFERENT\n", "")
    result = call("--check", "--out", tmp_path)
    assert result[0] == 2 and result[1] == ""
    assert_one_line_error(result, f"--out {tmp_path} exists and is not a regular file")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["other.txt", "same.txt"]


def test_make_tinyplays_check_refuses_a_fifo_instead_of_waiting_on_it(tmp_path):
    """In a process of its own: reading a FIFO would wait for a writer forever."""
    proc = subprocess.run([sys.executable, str(ROOT / "data" / "make_tinyplays.py"), "--check",
                           "--out", str(a_fifo(tmp_path))], capture_output=True, text=True,
                          timeout=30)
    result = proc.returncode, proc.stdout, proc.stderr
    assert result[0] == 2 and result[1] == ""
    assert_one_line_error(result, "exists and is not a regular file")


# ---------------------------------------------------------------- make_figures.py
@pytest.fixture
def make_figures(capsys, monkeypatch):
    """call(*argv) -> (exit code, stdout, stderr) of make_figures' main(), whose figures other than
    relu_vs_gelu fail the test if they are drawn (the memory one takes a minute)."""
    module = import_path(ROOT / "tools" / "maintainers" / "make_figures.py", "make_figures")
    for slow in ("attention_v7", "ffn_memory_vs_chunk", "v7_run"):
        monkeypatch.setattr(module, slow, no_work)

    def _call(*argv):
        code = module.main([str(a) for a in argv])
        captured = capsys.readouterr()
        return code, captured.out, captured.err

    return _call


@pytest.mark.parametrize("argv", [
    ["--only", "gelu", "-o", "f.jpg"],
    ["--only", "gelu", "-o", "figures/f.pdf"],
    ["--only", "gelu", "-o", "f.JPEG"],
    ["-o", "f.jpg"],
])
def test_make_figures_refuses_an_out_named_like_a_file(argv, tmp_path, make_figures):
    argv = argv[:-1] + [tmp_path / argv[-1]]
    result = make_figures(*argv)
    assert result[0] == 2 and result[1] == ""
    assert_one_line_error(result, f"-o {argv[-1]} looks like a file name ({argv[-1].suffix})",
                          "pass a folder without a suffix")
    assert list(tmp_path.iterdir()) == []


def test_make_figures_draws_into_an_existing_folder_with_a_dot(tmp_path, make_figures):
    (tmp_path / "figures.v2").mkdir()
    code, out, err = make_figures("--only", "gelu", "-o", tmp_path / "figures.v2")
    assert (code, err) == (0, "")
    assert (tmp_path / "figures.v2" / "relu_vs_gelu.png").read_bytes()[:4] == b"\x89PNG"


def test_make_figures_refuses_an_existing_file_without_a_suffix(tmp_path, make_figures):
    (tmp_path / "figures").write_text("notes")
    result = make_figures("--only", "gelu", "-o", tmp_path / "figures")
    assert_one_line_error(result, "is a file, not a folder")
    assert (tmp_path / "figures").read_text() == "notes"


# ---------------------------------------------------------------- fill_accuracy.py
def fill_accuracy(call, runs, data):
    return call("fill_accuracy", "--v7", runs[0], "--v8", runs[1], "--data", data)


def test_fill_accuracy_refuses_another_text_with_the_same_characters(v7_and_v8, tmp_path, call):
    code, out, err = fill_accuracy(call, v7_and_v8, tmp_path / "text.txt")
    assert (code, err) == (0, "") and "v8, both sides" in out
    other = tmp_path / "other.txt"
    other.write_text("".join(reversed(TEXT.splitlines(keepends=True))), encoding="utf-8")
    assert set(other.read_text()) == set(TEXT)
    result = fill_accuracy(call, v7_and_v8, other)
    assert result[0] == 2 and result[1] == ""
    assert_one_line_error(result, f"{other} is not the text the runs were trained on",
                          "pass --data")


def forget(key):
    """The run's ckpt.pt without key, as a hand-made one may be."""
    def damage(folder):
        ckpt = torch.load(folder / "ckpt.pt", weights_only=True)
        del ckpt[key]
        torch.save(ckpt, folder / "ckpt.pt")
    return damage


def trained_on_another_text(folder):
    ckpt = torch.load(folder / "ckpt.pt", weights_only=True)
    torch.save({**ckpt, "data_sha256": hashlib.sha256(b"another text").hexdigest()},
               folder / "ckpt.pt")


@pytest.mark.parametrize("which", [0, 1])
@pytest.mark.parametrize("damage,fragments", [
    (forget("data_sha256"), ["does not record the sha256 of its text", "pass a run folder"]),
    (trained_on_another_text, ["the two checkpoints were trained on different texts",
                               "pass runs of the same --data"]),
])
def test_fill_accuracy_refuses_runs_that_do_not_say_they_trained_on_it(which, damage, fragments,
                                                                       v7_and_v8, tmp_path, call):
    damage(v7_and_v8[which])
    result = fill_accuracy(call, v7_and_v8, tmp_path / "text.txt")
    assert result[0] == 2 and result[1] == ""
    assert_one_line_error(result, *fragments)
