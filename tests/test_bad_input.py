"""Bad input: one line on stderr that says what is wrong and what to do, a non-zero exit, no
traceback, before any work, and nothing already written is touched. The plumbing is the same in
every version, so most classes are tried on one version and the flag types on all of them."""
import io
import os
import runpy
import sys

import pytest
import torch

from conftest import (ATTENTION_VERSIONS, ROOT, VERSIONS, call_main, folder_bytes, import_path,
                      load, tiny_args)


def assert_one_line_error(result, *fragments):
    """result: (exit code, stdout, stderr): a non-zero exit and one `error:` line that names each
    fragment, no traceback."""
    code, out, err = result
    assert code not in (0, None), (code, err)
    assert err.startswith("error: ") and err.count("\n") == 1, f"not one line: {err!r}"
    assert "Traceback" not in err + out
    for fragment in fragments:
        assert fragment in err, f"{fragment!r} missing from {err!r}"


@pytest.mark.parametrize("version", VERSIONS)
def test_every_number_flag_refuses_a_value_outside_its_range(version, run, tmp_path,
                                                             monkeypatch):
    """Each hyperparameter's flag type has a range (any other int: 1 to 10**6): the values just
    outside it, nan and a word are refused by argparse, before any work."""
    module = load(version)
    monkeypatch.setattr(module, "train", lambda *args: pytest.fail("it trained"))
    for name in module.HYPERPARAMETERS:
        value = getattr(module, name)
        if type(value) is str:
            continue
        low, high = module.RANGES.get(name, (1, 10**6))
        assert low <= value <= high, name
        flag = "--" + name.replace("_", "-")
        for bad in [f"{flag}={low - 1}", f"{flag}={high * 2}", f"{flag}=nan", f"{flag}=x"]:
            if bad.endswith("=nan") and type(value) is int:
                continue
            assert_one_line_error(run(version, ["--out", tmp_path / "run", bad]), flag)
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize("argv,fragments", [
    (["--no-such-flag"], ["--no-such-flag"]),  # argparse words the rest
    (["--batch"], ["--batch"]),  # no abbreviations
    (["--lr"], ["--lr"]),
    (["--device", "tpu"], ["--device", "tpu"]),
    (["--sample-chars", "100001"], ["--sample-chars", "not from 0 to 100000"]),
])
def test_flags_argparse_refuses(argv, fragments, run, tmp_path):
    assert_one_line_error(run("v4_multihead", argv + ["--out", tmp_path / "r"]), *fragments)


@pytest.mark.parametrize("device", ["cuda", "mps"])
def test_a_device_that_is_not_there(device, run, tiny_corpus, tmp_path, monkeypatch):
    """The choices are the devices torch can use here: the error lists them."""
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(torch.mps, "is_available", lambda: False)
    result = run("v1_bigram", tiny_args(tiny_corpus, tmp_path / "r", "--device", device))
    assert_one_line_error(result, "--device", device, "'auto', 'cpu'")
    assert not (tmp_path / "r").exists()


def weights_only_on_meta(monkeypatch, module):
    """module.LanguageModel may be built on the meta device (shapes, no memory), never for real."""
    real = module.LanguageModel

    def built(*args, **kwargs):
        if torch.get_default_device().type != "meta":
            pytest.fail("a model was built with its weights")
        return real(*args, **kwargs)

    monkeypatch.setattr(module, "LanguageModel", built)


def test_sizes_that_do_not_fit_in_memory_are_refused_before_any_work(run, tiny_corpus, tmp_path,
                                                                     monkeypatch):
    """Each size is inside its range; together they need more memory than a machine has. The
    count is made on the meta device, before any weight exists, and names no rung's settings."""
    for version, flags in [("v1_bigram", ["--batch-size", 10**6, "--block-size", 1000]),
                           ("v6_block", ["--n-embd", 100_000, "--n-head", 1]),
                           ("v8_bert_mlm", ["--batch-size", 10**6])]:
        weights_only_on_meta(monkeypatch, load(version))
        assert_one_line_error(run(version, tiny_args(tiny_corpus, tmp_path / "r", *flags)),
                              "these sizes need about", "GiB", "lower the batch's or the model's")
    assert not (tmp_path / "r").exists()


def test_the_count_holds_the_vocabulary_on_a_small_machine(run, tmp_path, monkeypatch):
    """On a machine of 4 GiB: v1's defaults on a text of 20,000 characters (Chinese has thousands)
    need a 20,000 x 20,000 table, its gradients and AdamW's two averages: 6.4 GB, refused. On
    tinyplays (72 characters) the same flags train."""
    pages = {"SC_PAGE_SIZE": 4096, "SC_PHYS_PAGES": 2**30 // 4096 * 4}
    monkeypatch.setattr(os, "sysconf", lambda name: pages[name])
    text = tmp_path / "many.txt"
    text.write_text("".join(chr(0x4E00 + i) for i in range(20_000)) * 3, encoding="utf-8")
    weights_only_on_meta(monkeypatch, load("v1_bigram"))
    assert_one_line_error(run("v1_bigram", ["--data", text, "--out", tmp_path / "r"]),
                          "GiB of cpu")
    monkeypatch.undo()
    monkeypatch.setattr(os, "sysconf", lambda name: pages[name])
    monkeypatch.setattr(load("v1_bigram"), "train", lambda *args: pytest.fail("it trains"))
    with pytest.raises(pytest.fail.Exception, match="it trains"):
        run("v1_bigram", ["--data", ROOT / "data" / "tinyplays.txt", "--out", tmp_path / "r"])


def test_bad_data(run, tmp_path):
    bad = {"missing.txt": None, "folder": "dir", "latin1.txt": "caf\xe9".encode("latin-1"),
           "short.txt": "abc", "loop.txt": "loop"}
    for name, content in bad.items():
        path = tmp_path / name
        if content == "dir":
            path.mkdir()
        elif content == "loop":  # a symlink to itself: resolving it fails
            path.symlink_to(path)
        elif content is not None:
            path.write_bytes(content.encode() if isinstance(content, str) else content)
        assert_one_line_error(run("v4_multihead", ["--data", path, "--out", tmp_path / "r"]),
                              f"--data {path}")
    assert not (tmp_path / "r").exists()


def test_a_fifo_as_data_does_not_hang(run, tmp_path):
    os.mkfifo(tmp_path / "fifo")
    assert_one_line_error(run("v1_bigram", ["--data", tmp_path / "fifo", "--out", tmp_path / "r"]),
                          "is not a file")


@pytest.mark.parametrize("version", ATTENTION_VERSIONS)
def test_a_lesson_rule_prints_as_the_lesson_words_it(version, run, tiny_corpus, tmp_path):
    result = run(version, tiny_args(tiny_corpus, tmp_path / "r", "--n-embd", 30, "--n-head", 4))
    assert_one_line_error(result, "n_embd (30) must be a multiple of n_head (4)")
    assert not (tmp_path / "r").exists()


@pytest.mark.parametrize("version", VERSIONS)
def test_a_prompt_character_the_model_never_saw(version, run, tiny_corpus, tmp_path, trained):
    result = run(version, tiny_args(tiny_corpus, tmp_path / "r", "--prompt", "A\u00e9_"))
    assert_one_line_error(result, "the prompt has characters the model never saw", "\u00e9")
    assert not (tmp_path / "r").exists(), "refused before any work"
    before = folder_bytes(trained[version])
    result = run(version, ["--generate", "--out", trained[version], "--prompt", "\u00e9"])
    assert_one_line_error(result, "never saw")
    assert folder_bytes(trained[version]) == before


def crafted(ckpt):
    """Checkpoints made by hand: each changes one field of a real one."""
    hp = ckpt["hyperparameters"]
    return {"not a dict": [1, 2],
            "no chars": {k: v for k, v in ckpt.items() if k != "chars"},
            "chars not a string": {**ckpt, "chars": 7},
            "one character too many": {**ckpt, "chars": ckpt["chars"] + "\u00e9"},
            "a size past its range": {**ckpt, "hyperparameters": {**hp, "block_size": 10**9}},
            "an unknown hyperparameter": {**ckpt, "hyperparameters": {**hp, "depth": 3}},
            "another model's weights": {**ckpt, "state_dict": {"w": torch.zeros(2)}},
            "no characters": {**ckpt, "chars": ""},
            "weights that are not numbers": {**ckpt, "state_dict": {
                k: torch.full_like(v, float("nan")) for k, v in ckpt["state_dict"].items()}}}


@pytest.mark.parametrize("version", ["v1_bigram", "v8_bert_mlm"])
def test_a_missing_corrupt_or_crafted_checkpoint_gets_one_line(version, run, trained, tmp_path):
    assert_one_line_error(run(version, ["--generate", "--out", tmp_path / "none"]),
                          "cannot load", "FileNotFoundError", "or train")
    (tmp_path / "zero").mkdir()
    (tmp_path / "zero" / "ckpt.pt").write_bytes(b"")
    assert_one_line_error(run(version, ["--generate", "--out", tmp_path / "zero"]), "cannot load")
    ckpt = torch.load(trained[version] / "ckpt.pt", weights_only=True)
    for name, bad in crafted(ckpt).items():
        folder = tmp_path / name.replace(" ", "_")
        folder.mkdir()
        torch.save(bad, folder / "ckpt.pt")
        assert_one_line_error(run(version, ["--generate", "--out", folder]), "cannot load")
    (tmp_path / "fifo").mkdir()
    os.mkfifo(tmp_path / "fifo" / "ckpt.pt")  # torch.load would wait on it forever
    assert_one_line_error(run(version, ["--generate", "--out", tmp_path / "fifo"]), "cannot load")
    other = "v4_multihead" if version == "v1_bigram" else "v7_bert_layer"
    assert_one_line_error(run(version, ["--generate", "--out", trained[other]]), "cannot load")


def test_the_script_exits_with_one_line(tmp_path, monkeypatch):
    """The script as a learner runs it (`python v4_multihead/train.py --lr 0`, here through runpy,
    without a new process): it ends in SystemExit with one line, which Python prints to stderr
    with exit status 1."""
    monkeypatch.setattr(sys, "argv", ["train.py", "--lr", "0", "--out", str(tmp_path / "r")])
    with pytest.raises(SystemExit) as stopped:
        runpy.run_path(str(ROOT / "v4_multihead" / "train.py"), run_name="__main__")
    assert stopped.value.code == "error: argument --lr: 0.0 is not from 1e-06 to 10.0: see --help"
    assert list(tmp_path.iterdir()) == []


def test_importing_a_train_script_does_no_work(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    module = import_path(ROOT / "v8_bert_mlm" / "train.py", "v8_imported")
    assert "mask_prob" in module.HYPERPARAMETERS and list(tmp_path.iterdir()) == []


def test_a_run_folder_that_cannot_be_made(run, tiny_corpus, tmp_path):
    (tmp_path / "file").write_text("mine")
    result = run("v1_bigram", tiny_args(tiny_corpus, tmp_path / "file" / "run"))
    assert_one_line_error(result, "is not a folder, or is in a file")
    assert (tmp_path / "file").read_text() == "mine"


def test_an_out_that_is_a_file_is_refused_before_the_training(run, tiny_corpus, tmp_path,
                                                               monkeypatch):
    (tmp_path / "notes").write_text("mine")
    monkeypatch.setattr(load("v1_bigram"), "train", lambda *args: pytest.fail("it trained"))
    assert_one_line_error(run("v1_bigram", tiny_args(tiny_corpus, tmp_path / "notes")),
                          "--out", "is not a folder", "pass a folder")
    assert (tmp_path / "notes").read_text() == "mine"


def test_v8_refuses_a_text_with_its_blank_character(run, tmp_path):
    (tmp_path / "t.txt").write_text("To be, or not.\n" * 500 + "_", encoding="utf-8")
    result = run("v8_bert_mlm", ["--data", tmp_path / "t.txt", "--out", tmp_path / "r"])
    assert_one_line_error(result, "contains '_'")


def test_a_terminal_that_cannot_show_a_character_still_gets_the_run(tmp_path, monkeypatch):
    """PYTHONIOENCODING=ascii: the sample is printed with escapes, and the run is saved."""
    text = tmp_path / "text.txt"
    text.write_text("Caf\u00e9 na\u00efve \u65e5\u672c.\n" * 400, encoding="utf-8")
    stdout = io.TextIOWrapper(io.BytesIO(), encoding="ascii")
    monkeypatch.setattr(sys, "stdout", stdout)
    assert call_main(load("v1_bigram"), tiny_args(text, tmp_path / "run")) == 0
    stdout.flush()
    assert "\\u" in stdout.buffer.getvalue().decode("ascii") or "\\x" in (
        stdout.buffer.getvalue().decode("ascii"))
    assert sorted(p.name for p in (tmp_path / "run").iterdir()) == ["ckpt.pt", "metrics.csv",
                                                                   "sample.txt"]
