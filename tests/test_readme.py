"""The README's ladder table quotes the committed reference results (its links:
tests/test_docs.py)."""
import csv
import re

from conftest import ROOT
from conftest import reference_results as bench

README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_ladder_table_matches_the_reference_results():
    plays, shakespeare = bench("tinyplays"), bench("tinyshakespeare")
    # the version may link its doc: [`v1_bigram`](v1_bigram/README.md)
    rows = re.findall(r"^\| (?:\[`(v\d_\w+)`\]\(\1/README\.md\)|`(v\d_\w+)`) \|[^|]*"
                      r"\| ([\d,]+) \| ([\d.]+) \| ([\d.]+) \| [^|]* \| ([\d.]+) s \|$",
                      README, re.M)
    rows = [(linked or plain, *rest) for linked, plain, *rest in rows]
    assert [r[0] for r in rows] == list(plays), "one row per benchmarked version, in order"
    for version, params, val_plays, val_shakespeare, seconds in rows:
        assert int(params.replace(",", "")) == int(plays[version]["params"]), version
        assert val_plays == f"{float(plays[version]['val_loss']):.4f}", version
        assert val_shakespeare == f"{float(shakespeare[version]['val_loss']):.4f}", version
        assert seconds == f"{float(plays[version]['loop_s']):.1f}", version


def test_reference_curves_end_where_the_table_says():
    for dataset in ("tinyplays", "tinyshakespeare"):
        for version, row in bench(dataset).items():
            with open(ROOT / "reference" / dataset / f"{version}.csv", newline="") as f:
                last = list(csv.DictReader(f))[-1]
            assert ((last["step"], float(last["val_loss"]))
                    == (row["steps"], float(row["val_loss"]))), (dataset, version)
