"""The models themselves: shapes at small odd sizes, causality, and the parameter counts the notes
quote."""
import pytest
import torch

from conftest import ATTENTION_VERSIONS, CAUSAL_VERSIONS, VERSIONS, load, n_params

# Small, odd, all different: a swapped dimension cannot go unnoticed.
B, T, V, C, NH = 2, 5, 11, 12, 3


def small_model(version, **extra):
    mod = load(version)
    torch.manual_seed(0)
    if version == "v1_bigram":
        return mod.LanguageModel(V)
    return mod.LanguageModel(V, block_size=T, n_embd=C, n_head=NH, **extra)


@pytest.mark.parametrize("version", VERSIONS)
def test_forward_shapes_and_loss(version):
    model = small_model(version)
    idx = torch.randint(V, (B, T))
    logits, loss = model(idx)
    assert logits.shape == (B, T, V) and loss is None
    logits, loss = model(idx, torch.randint(V, (B, T)))
    assert loss.shape == () and torch.isfinite(loss)
    # an untrained model is close to uniform over the vocabulary: loss near ln(V)
    assert abs(loss.item() - torch.log(torch.tensor(float(V))).item()) < 1.5


@pytest.mark.parametrize("version", CAUSAL_VERSIONS)
def test_generate_grows_past_the_context(version):
    model = small_model(version)
    # longer than block_size
    out = model.generate(torch.zeros((B, 1), dtype=torch.long), max_new_tokens=2 * T)
    assert out.shape == (B, 1 + 2 * T) and out.dtype == torch.long
    assert int(out.min()) >= 0 and int(out.max()) < V


@pytest.mark.parametrize("version", CAUSAL_VERSIONS)
def test_changing_a_future_token_never_changes_earlier_logits(version):
    model = small_model(version).eval()
    idx = torch.randint(V, (B, T))
    base, _ = model(idx)
    for t in range(T):
        changed = idx.clone()
        changed[:, t] = (changed[:, t] + 1) % V
        logits, _ = model(changed)
        torch.testing.assert_close(logits[:, :t], base[:, :t], rtol=0, atol=1e-6)
        assert not torch.allclose(logits[:, t], base[:, t]), (
            "the changed position itself must see its token")


@pytest.mark.parametrize("version", ATTENTION_VERSIONS)
def test_attention_reads_the_past(version):
    """The converse of causality: with attention, earlier tokens do change later logits (a bigram's
    would not)."""
    model = small_model(version).eval()
    idx = torch.randint(V, (B, T))
    changed = idx.clone()
    changed[:, 0] = (changed[:, 0] + 1) % V
    assert not torch.allclose(model(idx)[0][:, -1], model(changed)[0][:, -1])


def test_default_models_build_from_vocab_size_alone():
    # 65 characters, as in tiny shakespeare: the sizes the lecture reports.
    expected = {
        "v1_bigram": 65 * 65,
        "v4_multihead": 65 * 32 + 8 * 32 + 3 * 32 * 32 + (32 * 65 + 65),
        "v5_ffn": 65 * 32 + 8 * 32 + 3 * 32 * 32 + (32 * 32 + 32) + (32 * 65 + 65),
        # per block: q, k, v, proj (+bias); FFN 32 -> 128 -> 32; two LayerNorms. Then ln_f.
        "v6_block": 65 * 32 + 8 * 32 + 3 * (4 * 32 * 32 + 32 + 8 * 32 * 32 + 5 * 32 + 4 * 32)
                    + 2 * 32 + (32 * 65 + 65),
        # embeddings and their LayerNorm; per layer: q, k, v, dense (+bias) and a LayerNorm, FFN
        # 32 -> 128 -> 32 (+bias) and a LayerNorm. No final LayerNorm: post-norm layers end with
        # one.
        "v7_bert_layer": 65 * 32 + 8 * 32 + 2 * 32
                         + 3 * (4 * (32 * 32 + 32) + 2 * 32 + (32 * 128 + 128)
                                + (128 * 32 + 32) + 2 * 32)
                         + (32 * 65 + 65),
    }
    for version, count in expected.items():
        assert n_params(load(version).LanguageModel(vocab_size=65)) == count, version


def test_seed_002_parameter_counts():
    """Seed 002's table: multi-head attention 3,072 parameters (4 heads of 8, no bias), the v5 FFN
    1,056."""
    v4 = load("v4_multihead").LanguageModel(vocab_size=65)
    v5 = load("v5_ffn").LanguageModel(vocab_size=65)
    assert n_params(v4.sa_heads) == 3072
    assert n_params(v5.sa_heads) == 3072
    assert n_params(v5.ffwd) == 1056
    assert n_params(v5) - n_params(v4) == 1056  # v5 adds exactly the FFN


def test_v6_block_is_pre_norm_with_a_residual_path_around_each_sublayer():
    mod = load("v6_block")
    torch.manual_seed(0)
    x = torch.randn(B, T, 32)
    block = mod.Block(32, 4, 8, 0.0)
    a = block.sa(block.ln1(x))  # attention reads LayerNorm(x); its output is added to x
    assert torch.allclose(block(x), x + a + block.ffwd(block.ln2(x + a)), atol=1e-6)
    assert n_params(block.ffwd) == 32 * 128 + 128 + 128 * 32 + 32  # 4x wider inside


def test_attention_scale_is_head_size():
    """Scores are scaled by hs ** -0.5 (hs = C // nh), not C ** -0.5: checked against a per-head
    reference."""
    mod = load("v4_multihead")
    torch.manual_seed(0)
    attn = mod.MultiHeadAttention(C, NH, T)
    x = torch.randn(B, T, C)
    hs = C // NH
    heads = []
    for h in range(NH):
        cols = slice(h * hs, (h + 1) * hs)
        # (B, T, hs)
        q, k, v = (x @ lin.weight[cols].T for lin in (attn.query, attn.key, attn.value))
        wei = (q @ k.transpose(-2, -1)) / hs**0.5
        wei = wei.masked_fill(torch.ones(T, T).tril() == 0, float("-inf")).softmax(-1)
        heads.append(wei @ v)
    torch.testing.assert_close(attn(x), torch.cat(heads, dim=-1), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("version", ATTENTION_VERSIONS)
def test_n_embd_must_divide_by_n_head(version):
    with pytest.raises(ValueError, match="multiple of n_head"):
        load(version).LanguageModel(vocab_size=V, n_embd=10, n_head=4)
