"""The one way the tools and the tests import a version's train.py: by path, since the repository
has no packages. Importing a train.py runs nothing; its main() waits under __name__ == "__main__".

    from versions import load_train        # tools/ is on sys.path when a tool runs as a script
    v7 = load_train("v7_bert_layer")
"""
import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def import_path(path, name):
    """The Python file at path, imported as a new module called name."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def load_train(version):
    """The module <version>/train.py, e.g. load_train("v8_bert_mlm")."""
    return import_path(ROOT / version / "train.py", f"{version}_train")
