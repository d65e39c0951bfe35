"""v6's ablation table quotes the committed runs: every val loss equals the last row of its
reference csv.

The table follows `<!-- ablation -->` in v6_block/README.md and README.zh-CN.md. The first cell of a
row names the configuration by its flags in backticks (`--no-residual` `--ffn-mult 1`) or says
(defaults); the second cell is the parameter count at V = 72; the first two cells that are a
4-decimal number are the final val loss on tinyplays and on tiny shakespeare. The flags map to
reference/ablation/<dataset>/<flags without dashes, joined by _>.csv; (defaults) to
reference/<dataset>/v6_block.csv.
"""
import csv
import re

import pytest

from conftest import ROOT, load, n_params

DATASETS = ("tinyplays", "tinyshakespeare")
CONFIGS = {"defaults", "no_residual", "no_layernorm", "ffn_mult_1",
           "no_residual_no_layernorm_ffn_mult_1"}


def ablation_rows(text):
    """{config name: (parameters, [val loss per dataset]), as quoted} from the table after
    <!-- ablation -->."""
    m = re.search(r"<!-- ablation -->\n+((?:\|.*\|\n?)+)", text)
    assert m, "no table after <!-- ablation -->"
    rows = {}
    for row in m.group(1).strip().splitlines()[2:]:  # past the header and the |---| line
        cells = [c.strip() for c in row.strip().strip("|").split("|")]
        flags = re.findall(r"`(--[^`]+)`", cells[0])
        name = "_".join(f.lstrip("-").replace("-", "_").replace(" ", "_") for f in flags) or (
            "defaults" if "defaults" in cells[0] else None)
        losses = [m.group(1) for c in cells[1:] if (m := re.fullmatch(r"\**(\d+\.\d{4})\**", c))]
        if name:
            rows[name] = (int(cells[1].replace(",", "")), losses[:2])
    return rows


def final_val_loss(dataset, name):
    path = ROOT / "reference" / (f"{dataset}/v6_block.csv" if name == "defaults"
                                 else f"ablation/{dataset}/{name}.csv")
    with open(path, newline="") as f:
        return f"{float(list(csv.DictReader(f))[-1]['val_loss']):.4f}"


@pytest.mark.parametrize("doc", ["README.md", "README.zh-CN.md"])
def test_ablation_table_quotes_the_reference_runs(doc):
    rows = ablation_rows((ROOT / "v6_block" / doc).read_text(encoding="utf-8"))
    assert set(rows) == CONFIGS, f"v6_block/{doc}: the ablation table has {sorted(rows)}"
    v6 = load("v6_block")
    switches = {"no_residual": {"residual": False}, "no_layernorm": {"layernorm": False},
                "ffn_mult_1": {"ffn_mult": 1}}
    for name, (params, losses) in rows.items():
        assert losses == [final_val_loss(d, name) for d in DATASETS], f"v6_block/{doc}: row {name}"
        kwargs = {k: v for switch, kw in switches.items() if switch in name for k, v in kw.items()}
        assert params == n_params(v6.LanguageModel(vocab_size=72, **kwargs)), (
            f"v6_block/{doc}: parameters of {name}")
