"""v7_bert_layer against the real thing: transformers' BertLayer (eager attention) with the same
weights, at small odd sizes; seed 000's parameter counts at BERT-base size; GELU, chunking, the KV
cache, and v7's bad input."""
import sys

import pytest
import torch
import torch.nn as nn
from torch.nn import functional as F

from conftest import ROOT, hf, import_path, load, n_params, oracle, randomize, tiny_args
from test_bad_input import assert_one_line_error

pytestmark = pytest.mark.oracle

v7 = load("v7_bert_layer")
# batch, positions, encoder positions, width, heads, FFN width: all different
B, T, S, C, NH, I = 2, 5, 7, 12, 3, 37
NEG = torch.finfo(torch.float32).min  # HF's "masked" value in an extended attention mask
ATOL = 1e-5


def configs(**kw):
    """(ours, theirs): the same small BERT configuration for both implementations."""
    kw = {"hidden_size": C, "num_attention_heads": NH, "intermediate_size": I, **kw}
    return v7.BertConfig(**kw), oracle().BertConfig(**kw, attn_implementation="eager")


def layer_pair(**kw):
    """Our BertLayer and transformers', with the same random weights (biases and LayerNorms too), in
    eval mode."""
    ours_cfg, hf_cfg = configs(**kw)
    torch.manual_seed(0)
    theirs = randomize(hf().BertLayer(hf_cfg, layer_idx=0).eval())
    ours = v7.BertLayer(ours_cfg).eval()
    ours.load_state_dict(theirs.state_dict(), strict=True)
    return ours, theirs


def record_probs(theirs):
    """Transformers 5 no longer returns attention probabilities from a layer: catch them on the
    way."""
    probs = {}
    theirs.attention.self.register_forward_hook(lambda m, i, out: probs.__setitem__("self", out[1]))
    if hasattr(theirs, "crossattention"):
        theirs.crossattention.self.register_forward_hook(
            lambda m, i, out: probs.__setitem__("cross", out[1]))
    return probs


def padding_mask(n_keys, pad):
    """HF's extended mask (B, 1, 1, keys): the second sequence's last `pad` keys are padding."""
    mask = torch.zeros(B, 1, 1, n_keys)
    mask[1, ..., n_keys - pad:] = NEG
    return mask


def causal_mask(n):
    return torch.full((n, n), NEG).triu(1)[None, None]  # (1, 1, n, n)


def assert_close(a, b):
    assert a.shape == b.shape
    assert (a - b).abs().max().item() <= ATOL, (a - b).abs().max().item()


# ---------------------------------------------------------------- the same layer as transformers'
@pytest.mark.parametrize("kw", [{}, {"is_decoder": True},
                                {"is_decoder": True, "add_cross_attention": True}])
def test_state_dict_keys_are_hfs_and_load_both_ways(kw):
    ours, theirs = layer_pair(**kw)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert ("attention.self.query.weight" in ours.state_dict()
            and "output.LayerNorm.bias" in ours.state_dict())
    assert (any(k.startswith("crossattention.") for k in ours.state_dict())
            == ("add_cross_attention" in kw))
    back = hf().BertLayer(configs(**kw)[1]).eval()
    back.load_state_dict(ours.state_dict(), strict=True)  # and back again
    x = torch.randn(B, T, C)
    with torch.no_grad():
        assert_close(back(x), theirs(x))


@torch.no_grad()
def test_encoder_with_padding_mask_and_attention_probs():
    ours, theirs = layer_pair()
    probs = record_probs(theirs)
    x, mask = torch.randn(B, T, C), padding_mask(T, pad=2)
    outputs = ours(x, attention_mask=mask, output_attentions=True)
    # (layer_output, self_attn_probs) / (layer_output,)
    assert len(outputs) == 2 and len(ours(x, mask)) == 1
    assert_close(outputs[0], theirs(x, attention_mask=mask))
    assert_close(outputs[1], probs["self"])
    assert outputs[1][1, :, :, -2:].abs().max() == 0  # padding gets no attention


@torch.no_grad()
def test_chunked_feed_forward_matches_hf_and_unchunked():
    ours, theirs = layer_pair(chunk_size_feed_forward=1)  # T = 5 positions: five chunks
    x, mask = torch.randn(B, T, C), padding_mask(T, pad=1)
    assert ours.chunk_size_feed_forward == 1 and ours.seq_len_dim == 1
    chunked = ours(x, mask)[0]
    assert_close(chunked, theirs(x, attention_mask=mask))
    ours.chunk_size_feed_forward = 0
    assert_close(chunked, ours(x, mask)[0])


def test_chunking_saves_nothing_for_the_backward_pass():
    """The v7 doc's claim: in training, autograd keeps every chunk's intermediates, so chunked and
    unchunked save the same bytes (v7_bert_layer/README.md, 'Chunked feed-forward')."""
    x = torch.randn(B, 2 * T, C, requires_grad=True)
    whole, chunked = (v7.BertLayer(configs(chunk_size_feed_forward=n)[0]) for n in (0, 2))
    bench = import_path(ROOT / "tools" / "maintainers" / "bert_time_and_memory.py", "bert_bench")
    saved_bytes = bench.saved_for_backward_bytes  # what the doc's figure uses
    full = saved_bytes(v7, whole, x)
    assert full > B * 2 * T * I * 4, "the FFN saves at least its (B, T, I) intermediate"
    assert saved_bytes(v7, chunked, x) == full


@torch.no_grad()
def test_decoder_with_causal_mask_and_cross_attention():
    ours, theirs = layer_pair(is_decoder=True, add_cross_attention=True)
    probs = record_probs(theirs)
    x, enc, enc_mask = torch.randn(B, T, C), torch.randn(B, S, C), padding_mask(S, pad=3)
    kw = {"attention_mask": causal_mask(T), "encoder_hidden_states": enc,
          "encoder_attention_mask": enc_mask}
    expected = theirs(x, **kw)
    layer_output, self_probs, cross_probs, present = ours(x, **kw, output_attentions=True)
    assert_close(layer_output, expected)
    assert_close(self_probs, probs["self"])
    assert_close(cross_probs, probs["cross"])
    assert self_probs.shape == (B, NH, T, T) and cross_probs.shape == (B, NH, T, S)
    assert ([tuple(t.shape) for t in present]
            == [(B, NH, T, C // NH)] * 2 + [(B, NH, S, C // NH)] * 2)
    out, present2 = ours(x, **kw)  # without probabilities: (layer_output, present_key_value)
    assert_close(out, expected)
    assert len(present2) == 4


def test_dropout_sits_where_hfs_does():
    """In training mode the same seed drops the same units: same places, same order, same
    probabilities."""
    ours, theirs = layer_pair(is_decoder=True, add_cross_attention=True, hidden_dropout_prob=0.3,
                              attention_probs_dropout_prob=0.2)
    ours.train(), theirs.train()
    x, enc = torch.randn(B, T, C), torch.randn(B, S, C)
    torch.manual_seed(1)
    expected = theirs(x, attention_mask=causal_mask(T), encoder_hidden_states=enc)
    torch.manual_seed(1)
    got = ours(x, attention_mask=causal_mask(T), encoder_hidden_states=enc)[0]
    assert_close(got, expected)
    assert not torch.allclose(got, ours.eval()(x, causal_mask(T), encoder_hidden_states=enc)[0])


@torch.no_grad()
def test_kv_cache_one_token_at_a_time_equals_one_causal_pass():
    ours, theirs = layer_pair(is_decoder=True, add_cross_attention=True)
    x, enc, enc_mask = torch.randn(B, T, C), torch.randn(B, S, C), padding_mask(S, pad=3)
    full = ours(x, causal_mask(T), encoder_hidden_states=enc, encoder_attention_mask=enc_mask)[0]
    from transformers.cache_utils import DynamicCache, EncoderDecoderCache

    past = None
    steps = []
    hf_steps = []
    hf_cache = EncoderDecoderCache(DynamicCache(), DynamicCache())
    for t in range(T):
        # one new position: it may see every cached key, so its mask is all zeros (B, 1, 1, t + 1)
        out, past = ours(x[:, t:t + 1], torch.zeros(1, 1, 1, t + 1), encoder_hidden_states=enc,
                         encoder_attention_mask=enc_mask, past_key_value=past)
        steps.append(out)
        hf_steps.append(theirs(x[:, t:t + 1], attention_mask=torch.zeros(1, 1, 1, t + 1),
                               encoder_hidden_states=enc, encoder_attention_mask=enc_mask,
                               past_key_values=hf_cache))
        assert past[0].shape == (B, NH, t + 1, C // NH) and past[2].shape == (B, NH, S, C // NH)
    assert_close(torch.cat(steps, dim=1), full)
    assert_close(torch.cat(hf_steps, dim=1), full)  # transformers' own cache agrees


@torch.no_grad()
def test_head_mask_scales_each_heads_probabilities_and_context():
    """head_mask multiplies each head's attention probabilities after the softmax (HF 4.x): a 0
    silences the head's hs channels of the context, a 0.5 halves them, a 1 leaves them as they
    were. The reference is attention computed here from the query, key and value weights."""
    ours, _ = layer_pair()
    attn, hs = ours.attention.self, C // NH
    x, mask = torch.randn(B, T, C), padding_mask(T, pad=2)
    scale = torch.tensor([1.0, 0.0, 0.5])  # head 0 untouched, head 1 silenced, head 2 halved
    head_mask = scale.view(1, NH, 1, 1)

    def heads(linear):  # x W^T + b, cut into heads: (B, nh, T, hs)
        return (x @ linear.weight.T + linear.bias).view(B, T, NH, hs).transpose(1, 2)

    q, k, v = heads(attn.query), heads(attn.key), heads(attn.value)
    ref_probs = torch.softmax(q @ k.transpose(-1, -2) / hs**0.5 + mask, dim=-1)  # (B, nh, T, T)
    ref_context = ref_probs @ v  # (B, nh, T, hs)

    plain_context, plain_probs = attn(x, mask, output_attentions=True)
    context, probs = attn(x, mask, head_mask=head_mask, output_attentions=True)
    assert context.shape == (B, T, C) and probs.shape == (B, NH, T, T)
    assert_close(plain_probs, ref_probs)
    assert_close(plain_context, ref_context.transpose(1, 2).reshape(B, T, C))
    # (a) the probabilities it returns are the masked ones
    assert plain_probs[:, 1].min() >= 0 and plain_probs[:, 1].sum(-1).allclose(torch.ones(B, T))
    assert torch.equal(probs[:, 1], torch.zeros(B, T, T))
    assert_close(probs[:, 2], 0.5 * ref_probs[:, 2])
    assert_close(probs[:, 0], ref_probs[:, 0])
    # (b) the context: head h owns channels h*hs to (h+1)*hs, before BertSelfOutput mixes them
    for h in range(NH):
        channels = context[..., h * hs:(h + 1) * hs]  # (B, T, hs)
        assert plain_context[..., h * hs:(h + 1) * hs].abs().max() > 1e-3  # nothing to hide
        assert_close(channels, scale[h] * ref_context[:, h])
        assert_close(channels, scale[h] * plain_context[..., h * hs:(h + 1) * hs])
    assert torch.equal(context[..., hs:2 * hs], torch.zeros(B, T, hs))  # exactly, not nearly
    # BertAttention and BertLayer hand the mask down to it unchanged
    layer_probs = ours(x, mask, head_mask=head_mask, output_attentions=True)[1]
    assert torch.equal(layer_probs, probs)
    assert not torch.allclose(ours(x, mask, head_mask=head_mask)[0], ours(x, mask)[0])


# ------------------------------------------------------------ seed 000's figures, at BERT-base size
def test_bert_base_parameter_counts():
    config = v7.BertConfig()
    assert ((config.hidden_size, config.num_attention_heads, config.intermediate_size)
            == (768, 12, 3072))
    assert ((config.hidden_act, config.layer_norm_eps, config.chunk_size_feed_forward)
            == ("gelu", 1e-12, 0))
    assert config.hidden_dropout_prob == config.attention_probs_dropout_prob == 0.1
    assert not config.is_decoder and not config.add_cross_attention
    intermediate, output = n_params(v7.BertIntermediate(config)), n_params(v7.BertOutput(config))
    assert intermediate == 768 * 3072 + 3072 == 2_362_368
    assert output == 3072 * 768 + 768 + 2 * 768 == 2_361_600
    assert intermediate + output == 4_723_968
    assert 12 * (intermediate + output) == 56_687_616
    assert n_params(v7.BertAttention(config)) == 4 * (768 * 768 + 768) + 2 * 768 == 2_363_904
    assert n_params(v7.BertLayer(config)) == n_params(hf().BertLayer(oracle().BertConfig()))


# ---------------------------------------------------------------- GELU and the activations
def test_gelu_is_x_times_the_normal_cdf():
    x = torch.linspace(-6, 6, 1001, dtype=torch.float64)
    phi = 0.5 * (1 + torch.erf(x / 2**0.5))  # the standard normal CDF
    torch.testing.assert_close(v7.ACT2FN["gelu"](x), x * phi, rtol=0, atol=1e-12)
    tanh_form = 0.5 * x * (1 + torch.tanh((2 / torch.pi) ** 0.5 * (x + 0.044715 * x**3)))
    torch.testing.assert_close(v7.ACT2FN["gelu_new"](x), tanh_form, rtol=0, atol=1e-12)
    # an approximation, not the same function
    assert (v7.ACT2FN["gelu_new"](x) - x * phi).abs().max() > 1e-4
    from transformers.activations import ACT2FN as HF_ACT2FN
    for name, fn in v7.ACT2FN.items():
        torch.testing.assert_close(fn(x), HF_ACT2FN[name](x), rtol=0, atol=1e-12, msg=name)


@pytest.mark.parametrize("name,fn", [("gelu", F.gelu), ("gelu", nn.GELU()), ("relu", torch.relu),
                                     ("tanh", torch.tanh)])
def test_a_name_and_a_callable_give_the_same_layer(name, fn):
    by_name = v7.BertIntermediate(
        v7.BertConfig(hidden_size=C, intermediate_size=I, hidden_act=name))
    by_callable = v7.BertIntermediate(
        v7.BertConfig(hidden_size=C, intermediate_size=I, hidden_act=fn))
    by_callable.load_state_dict(by_name.state_dict(), strict=True)
    x = torch.randn(B, T, C)
    assert torch.equal(by_name(x), by_callable(x))


def test_an_unknown_activation_lists_the_valid_ones():
    with pytest.raises(ValueError, match="'swish'.*gelu, gelu_new, relu, silu, tanh"):
        v7.BertIntermediate(v7.BertConfig(hidden_act="swish"))


# ---------------------------------------------------------------- chunking and the ValueErrors
def test_apply_chunking_to_forward_behaves_like_hfs():
    from transformers.pytorch_utils import apply_chunking_to_forward as hf_chunking
    x, y = torch.randn(B, 6, C), torch.randn(B, 6, C)
    fn = lambda a, b: (a * b).cumsum(-1)  # noqa: E731 - independent across dimension 1
    for chunk in (0, 1, 2, 3, 6):
        assert torch.equal(v7.apply_chunking_to_forward(fn, chunk, 1, x, y),
                           hf_chunking(fn, chunk, 1, x, y))
    for chunking in (v7.apply_chunking_to_forward, hf_chunking):
        with pytest.raises(ValueError, match="has to be a multiple of the chunk size 4"):
            chunking(fn, 4, 1, x, y)


def test_the_value_errors():
    with pytest.raises(ValueError,
                       match="should be used as a decoder model if cross attention is added"):
        v7.BertLayer(configs(add_cross_attention=True)[0])
    x, enc = torch.randn(B, T, C), torch.randn(B, S, C)
    for kw in ({}, {"is_decoder": True}):  # a layer without cross-attention refuses encoder states
        layer = v7.BertLayer(configs(**kw)[0])
        with pytest.raises(ValueError, match="add_cross_attention=True"):
            layer(x, encoder_hidden_states=enc)
    with pytest.raises(ValueError, match=r"hidden size \(12\) is not a multiple "
                                         r"of the number of attention heads \(5\)"):
        v7.BertSelfAttention(configs(num_attention_heads=5)[0])
    with pytest.raises(ValueError, match="multiple of the chunk size 2"):
        v7.BertLayer(configs(chunk_size_feed_forward=2)[0])(x)  # T = 5: HF refuses, and so do we
    # the model speaks of its own arguments; the command line turns that into flag advice
    with pytest.raises(ValueError,
                       match=r"^chunk_size_ff \(3\) must be 0 or divide block_size \(8\)"):
        v7.LanguageModel(vocab_size=11, chunk_size_ff=3)
    with pytest.raises(ValueError, match="multiple of n_head"):
        v7.LanguageModel(vocab_size=11, n_embd=10, n_head=4)
    with pytest.raises(ValueError,
                       match="^unknown hidden_act 'swish', not one of gelu, gelu_new, relu"):
        v7.LanguageModel(vocab_size=11, hidden_act="swish")


# ---------------------------------------------------------------- the model that trains
def small_lm(**kw):
    torch.manual_seed(0)
    return v7.LanguageModel(11, **{"block_size": 6, "n_embd": C, "n_head": NH, "n_layer": 2,
                                   "intermediate_size": I, **kw}).eval()


def test_language_model_is_bert_as_a_decoder():
    model = small_lm(dropout=0.2, hidden_act="relu", chunk_size_ff=3)
    cfg = model.config
    assert cfg.is_decoder and not cfg.add_cross_attention and cfg.hidden_act == "relu"
    assert cfg.hidden_dropout_prob == cfg.attention_probs_dropout_prob == 0.2  # --dropout sets both
    assert cfg.max_position_embeddings == 6 and cfg.chunk_size_feed_forward == 3
    keys = model.state_dict()
    for key in ("embeddings.word_embeddings.weight", "embeddings.position_embeddings.weight",
                "embeddings.LayerNorm.weight", "encoder.layer.1.attention.self.query.weight",
                "encoder.layer.1.output.LayerNorm.bias"):
        assert key in keys
    layer_keys = {k.split(".", 3)[3] for k in keys if k.startswith("encoder.layer.0.")}
    assert layer_keys == set(hf().BertLayer(configs(is_decoder=True)[1]).state_dict())


@torch.no_grad()
def test_language_model_equals_hfs_bert_decoder_plus_its_head():
    """Our embeddings, causal mask and layer stack are transformers' BertModel in decoder mode
    (token types zeroed)."""
    model = small_lm()
    hf_cfg = oracle().BertConfig(vocab_size=11, hidden_size=C, num_hidden_layers=2,
                                     num_attention_heads=NH, intermediate_size=I,
                                     max_position_embeddings=6, type_vocab_size=1,
                                     is_decoder=True, attn_implementation="eager")
    bert = hf().BertModel(hf_cfg, add_pooling_layer=False).eval()
    state = {k: v for k, v in model.state_dict().items() if not k.startswith("lm_head.")}
    bert.load_state_dict({**state, "embeddings.token_type_embeddings.weight": torch.zeros(1, C)},
                         strict=True)
    idx = torch.randint(11, (B, 6))
    assert_close(model(idx)[0], model.lm_head(bert(idx).last_hidden_state))


def test_chunked_model_equals_unchunked():
    idx = torch.randint(11, (B, 6))
    for chunk in (1, 2, 3):
        assert_close(small_lm(chunk_size_ff=chunk)(idx)[0], small_lm()(idx)[0])


@torch.no_grad()
def test_model_kv_cache_equals_a_full_pass():
    model = small_lm()
    idx = torch.randint(11, (B, 6))
    full, _ = model(idx)
    cache = []
    # a prompt of 2, then one position at a time
    first, _ = model(idx[:, :2], past_key_values=cache)
    steps = [first] + [model(idx[:, t:t + 1], past_key_values=cache)[0] for t in range(2, 6)]
    assert len(cache) == 2 and cache[0][0].shape == (B, NH, 6, C // NH)
    assert_close(torch.cat(steps, dim=1), full)


@pytest.mark.parametrize("chunk", [0, 3])
def test_cached_greedy_generation_equals_recomputed(chunk, monkeypatch):
    model = small_lm(chunk_size_ff=chunk)
    prompt = torch.randint(11, (B, 2))
    fed, embed = [], model.embeddings.forward
    monkeypatch.setattr(model.embeddings, "forward",
                        lambda idx, **kw: fed.append(idx.shape[1]) or embed(idx, **kw))
    # 2 + 15 > block_size 6: past the cache's reach too
    cached = model.generate(prompt, 15, greedy=True)
    # the prompt, then one new character while positions last
    assert fed == [2, 1, 1, 1, 1] + [6] * 10
    recomputed = model.generate(prompt, 15, greedy=True, use_cache=False)
    assert cached.shape == (B, 17) and torch.equal(cached, recomputed)
    # chunked again afterwards
    assert all(layer.chunk_size_feed_forward == chunk for layer in model.encoder.layer)
    torch.manual_seed(3)
    sampled = model.generate(prompt, 15)
    torch.manual_seed(3)
    assert torch.equal(sampled, model.generate(prompt, 15, use_cache=False))


def test_a_trained_model_is_causal(run, tiny_corpus, tmp_path):
    argv = tiny_args(tiny_corpus, tmp_path, "--chunk-size-ff", 4, "--hidden-act", "gelu_new")
    assert run("v7_bert_layer", argv)[0] == 0
    ckpt = torch.load(tmp_path / "ckpt.pt", weights_only=True)
    model_args = {k: ckpt["hyperparameters"][k] for k in v7.MODEL_ARGS}
    assert model_args == {"block_size": 8, "n_embd": 32, "n_head": 4, "n_layer": 3,
                          "dropout": 0.0, "hidden_act": "gelu_new", "intermediate_size": 128,
                          "chunk_size_ff": 4}
    model = v7.LanguageModel(len(ckpt["chars"]), **model_args)
    model.load_state_dict(ckpt["state_dict"])
    model.eval().requires_grad_(False)
    idx = torch.randint(len(ckpt["chars"]), (B, 8))
    base, _ = model(idx)
    for t in range(8):
        changed = idx.clone()
        changed[:, t] = (changed[:, t] + 1) % len(ckpt["chars"])
        logits, _ = model(changed)
        assert torch.equal(logits[:, :t], base[:, :t])
        assert not torch.allclose(logits[:, t], base[:, t])


# ---------------------------------------------------------------- the command line
V7_BAD_FLAGS = [  # the lesson's own rules print as it words them; ranges come from flag types
    (("--hidden-act", "swish"), ("unknown hidden_act 'swish'", "gelu, gelu_new, relu, silu, tanh")),
    (("--n-embd", "30", "--n-head", "4"), ("n_embd (30) must be a multiple of n_head (4)",)),
    (("--chunk-size-ff", "-2"), ("argument --chunk-size-ff: -2 is not from 0 to 1000000",)),
    (("--chunk-size-ff", "3"), ("chunk_size_ff (3) must be 0 or divide block_size (8)",)),
    (("--intermediate-size", "0"), ("argument --intermediate-size: 0 is not from 1 to",)),
    (("--n-layer", "100000"), ("argument --n-layer: 100000 is not from 1 to 1000",)),
    (("--n-embd", "100000", "--n-head", "1"), ("these sizes need about",)),
    (("--dropout", "-0.1"), ("argument --dropout: -0.1 is not from 0.0 to 0.9",)),
]


@pytest.mark.parametrize("flags,fragments", V7_BAD_FLAGS)
def test_v7_bad_flags(flags, fragments, run, tiny_corpus, tmp_path):
    assert_one_line_error(run("v7_bert_layer", tiny_args(tiny_corpus, tmp_path / "out", *flags)),
                          *fragments)
    assert not (tmp_path / "out").exists()


def test_v7_flags_in_help(capsys):
    with pytest.raises(SystemExit):
        v7.main(["--help"])
    text = capsys.readouterr().out
    for flag in ("--hidden-act", "--intermediate-size", "--chunk-size-ff", "--n-layer",
                 "--dropout"):
        assert flag in text


# ------------------------------------------------------- what transformers 5 users run into
@torch.no_grad()
def test_a_boolean_mask_means_what_sdpa_means():
    """transformers' sdpa path builds boolean masks, True where a key may be seen: the same result
    as HF's additive mask, not True/False added as 1/0."""
    ours, theirs = layer_pair()
    x, additive = torch.randn(B, T, C), padding_mask(T, pad=2)
    boolean = additive == 0  # (B, 1, 1, T): True keeps a key
    expected = theirs(x, attention_mask=additive)
    assert_close(ours(x, attention_mask=boolean)[0], expected)
    assert_close(ours(x, attention_mask=additive)[0], expected)
    # the old trap: the same 0/1 values added as floats would not hide the padding
    assert (ours(x, attention_mask=boolean.float())[0] - expected).abs().max() > 1e-2


@torch.no_grad()
def test_a_cache_that_does_not_fit_the_call_is_refused():
    ours, _ = layer_pair(is_decoder=True, add_cross_attention=True)
    x, enc = torch.randn(B, 1, C), torch.randn(B, S, C)
    kv = torch.randn(B, NH, 3, C // NH)
    # a 4-tuple cache holds cross-attention's k and v: without encoder states they would be ignored
    with pytest.raises(ValueError, match="past_key_value holds 4 tensors; this call needs 2"):
        ours(x, past_key_value=(kv, kv, kv, kv))
    # a 2-tuple cache on a cross-attending call has no cross-attention k and v
    with pytest.raises(ValueError, match="past_key_value holds 2 tensors; this call needs 4"):
        ours(x, encoder_hidden_states=enc, past_key_value=(kv, kv))


@torch.no_grad()
def test_the_model_refuses_more_positions_than_it_has():
    model = small_lm()  # block_size 6
    cache = []
    model(torch.randint(11, (B, 4)), past_key_values=cache)
    with pytest.raises(ValueError, match=r"4 cached and 3 new positions are more than block_size"):
        model(torch.randint(11, (B, 3)), past_key_values=cache)
    with pytest.raises(ValueError, match=r"0 cached and 7 new positions"):
        model(torch.randint(11, (B, 7)))


def test_generate_runs_unchunked_and_leaves_the_chunk_size_as_it_found_it():
    """One-position steps cannot fill a chunk: generate runs every layer unchunked, then puts the
    chunk size back. (An interrupted generate leaves it at 0, which changes no result: the chunked
    step keeps the cached loop as step 10 wrote it, without a try block around it.)"""
    model = small_lm(chunk_size_ff=3)
    seen, forward = [], model.forward

    def watched(*args, **kwargs):
        seen.append([layer.chunk_size_feed_forward for layer in model.encoder.layer])
        return forward(*args, **kwargs)

    model.forward = watched
    model.generate(torch.randint(11, (B, 2)), 10)
    assert seen and all(sizes == [0, 0] for sizes in seen)
    assert [layer.chunk_size_feed_forward for layer in model.encoder.layer] == [3, 3]


def test_the_key_bias_changes_no_output_and_gets_no_gradient():
    """q . (k_j + b_k) = q . k_j + q . b_k: the same q . b_k in every score of a row, which the
    softmax cancels. So the key bias cannot change the output, and its gradient is zero up to
    float rounding, while the query's and value's are not."""
    torch.manual_seed(0)
    model = v7.LanguageModel(11, block_size=T, n_embd=C, n_head=NH, n_layer=2, intermediate_size=I)
    idx, targets = torch.randint(0, 11, (B, T)), torch.randint(0, 11, (B, T))
    logits, loss = model(idx, targets)
    loss.backward()
    attn = model.encoder.layer[0].attention.self
    for b in (attn.query.bias, attn.key.bias, attn.value.bias):
        assert b.grad is not None
    assert attn.key.bias.grad.abs().max() < 1e-6 * attn.query.bias.grad.abs().max()
    assert attn.value.bias.grad.abs().max() > 1e-3 * attn.query.bias.grad.abs().max()
    with torch.no_grad():
        for layer in model.encoder.layer:
            layer.attention.self.key.bias.add_(torch.randn(C))
        moved = model(idx)[0]
    assert torch.allclose(moved, logits, atol=1e-5)
    with torch.no_grad():
        attn.query.bias.add_(torch.randn(C))  # a query bias does change the scores
    assert not torch.allclose(model(idx)[0], logits, atol=1e-5)


def test_the_key_bias_gradient_at_v7s_defaults_is_rounding():
    """The figure v7's doc quotes: at the defaults, on one batch of tinyplays, the largest key-bias
    gradient of each layer is about 1e-10, the query bias's about 1e-3."""
    import argparse
    import math

    chars, splits = v7.read_data(ROOT / "data" / "tinyplays.txt")
    torch.manual_seed(1337)
    model = v7.LanguageModel(len(chars))
    args = argparse.Namespace(block_size=v7.block_size, batch_size=v7.batch_size, device="cpu")
    x, y = v7.get_batch(splits["train"], args, torch.Generator().manual_seed(0))
    model(x, y)[1].backward()
    for layer in model.encoder.layer:
        attn = layer.attention.self
        assert round(math.log10(attn.key.bias.grad.abs().max().item())) == -10
        assert round(math.log10(attn.query.bias.grad.abs().max().item())) == -3



def test_v6_s_names_as_v7_renames_them_are_transformers_own():
    """test_steps maps v6's weights into v7's names (V6_TO_HF) and gets the same logits; these are
    BertModel's names, but for v6's tril, final LayerNorm and head, which v7 drops."""
    import re

    from test_steps import V6_TO_HF

    ours = set()
    for key in load("v6_block").LanguageModel(11, n_embd=12, n_head=3, n_layer=3).state_dict():
        for pattern, name in V6_TO_HF:
            key = re.sub(pattern, name, key)
        if not re.search(r"tril|^ln_f\.|^lm_head\.", key):
            ours.add(key)
    theirs = hf().BertModel(oracle().BertConfig(vocab_size=11, hidden_size=12,
                                                  num_hidden_layers=3, num_attention_heads=3,
                                                  intermediate_size=48)).state_dict()
    assert ours <= set(theirs), sorted(ours - set(theirs))
