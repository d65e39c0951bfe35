"""data/tinyplays.txt is what its generator writes, fits the size the ladder was designed for, and
its card (data/README.md) quotes its real figures."""
import hashlib
import re
import subprocess
import sys

from conftest import ROOT

TEXT = (ROOT / "data" / "tinyplays.txt").read_text(encoding="utf-8")
CARD = (ROOT / "data" / "README.md").read_text(encoding="utf-8")


def number(pattern):
    m = re.search(pattern, CARD)
    assert m, f"data/README.md no longer says {pattern!r}"
    return int(m.group(1).replace(",", ""))


def test_the_generator_writes_the_committed_file():
    proc = subprocess.run([sys.executable, str(ROOT / "data" / "make_tinyplays.py"), "--check"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_a_small_plain_text_with_a_small_alphabet():
    size = len(TEXT.encode("utf-8"))
    assert 200_000 <= size <= 1_200_000
    assert 60 <= len(set(TEXT)) <= 90


def test_the_card_quotes_the_real_figures():
    data = (ROOT / "data" / "tinyplays.txt").read_bytes()
    assert number(r"\| size \| ([\d,]+) bytes") == len(data)
    assert number(r"\| lines \| ([\d,]+) ") == TEXT.count("\n")
    assert number(r"Character set: (\d+) distinct characters") == len(set(TEXT))
    shown = re.search(r"In code-point order.*?```\n(.*?)\n```", CARD, re.S).group(1)
    assert shown == "".join(sorted(set(TEXT))).replace("\n", "\\n")
    n = int(0.9 * len(TEXT))  # the split every train.py makes
    assert number(r"= ([\d,]+)\) are for training") == n
    assert number(r"the last 10% \(([\d,]+)\)") == len(TEXT) - n
    assert hashlib.sha256(data).hexdigest() in CARD
