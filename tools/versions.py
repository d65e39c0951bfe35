"""What the tools and the tests share about the ladder: its versions, the tiny shakespeare
checksum, and the one way to import a version's train.py (by path, since the repository has no
packages) and to load a run. Importing a train.py runs nothing; its main() waits under
__name__ == "__main__".

    from versions import load_train        # tools/ is on sys.path when a tool runs as a script
    v7 = load_train("v7_bert_layer")
"""
import argparse
import importlib.util
from pathlib import Path

from cli import UserError

ROOT = Path(__file__).resolve().parent.parent
# the ladder, in order
VERSIONS = ["v1_bigram", "v4_multihead", "v5_ffn", "v6_block", "v7_bert_layer", "v8_bert_mlm"]
# what each version's loss is the cross-entropy over: v8 guesses the characters its input hides
# (masked-LM), the others guess the next character, so v8's loss does not compare with theirs
OBJECTIVES = {**{version: "next character" for version in VERSIONS},
              "v8_bert_mlm": "masked characters"}
# of the file data/prepare.py downloads: the lecture's text
TINY_SHAKESPEARE_SHA256 = "86c4e6aa9db7c042ec79f339dcb96d42b0075e16b8fc2e86bf0ca57e2dc565ed"


def import_path(path, name):
    """The Python file at path, imported as a new module called name."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def load_train(version):
    """The module <version>/train.py, e.g. load_train("v8_bert_mlm")."""
    return import_path(ROOT / version / "train.py", f"{version}_train")


def load_run(folder, version=None):
    """(the train.py module, its model in eval mode on the CPU, the checkpoint's dict) of the run
    in folder, loaded by the version's own load_checkpoint, so that a missing, corrupt or foreign
    ckpt.pt is its one-line UserError. version: the one expected; None: whichever wrote it."""
    import torch  # here, not on top: data/prepare.py imports this file and needs only the stdlib

    path = Path(folder) / "ckpt.pt"
    if version is None:  # read which version wrote it, then let that version load it
        if not path.is_file():
            raise UserError(f"no checkpoint at {path}: pass a run folder a train.py wrote")
        try:
            version = torch.load(path, map_location="cpu", weights_only=True)["version"]
        except Exception as e:  # zero bytes, truncated, not a checkpoint, a list, no "version"
            raise UserError(f"cannot read {path} ({type(e).__name__}): it is not a checkpoint a "
                            "train.py wrote: train again") from None
        if version not in VERSIONS:
            raise UserError(f"{path} names the version {version!r}, not one of "
                            f"{', '.join(VERSIONS)}: pass a run of this ladder")
    module = load_train(version)
    try:
        model, _ = module.load_checkpoint(argparse.Namespace(out=Path(folder), device="cpu"))
    except module.UserError as e:  # each train.py has its own class: this is the tools' one
        raise UserError(e) from None
    ckpt = torch.load(path, map_location="cpu", weights_only=True)
    return module, model.eval(), ckpt
