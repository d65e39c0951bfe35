"""The exercises' data, read by tools/exercise.py: what to build in each exercise, the mistakes
a learner is likely to make there with the hint that names each, the rung's other calls a check
compares, and every line the checker says, in English and Chinese.

To add a mistake, append a dict to MISTAKES:

    exercise  the exercise it belongs to (a rung also gets its steps' mistakes, where they apply)
    edits     [(old, new)]: the target program with each old text (found exactly once) made new
    hint      (English, Chinese): the idea that went wrong, in words, never the fix's code
    doc       (rung, English section, Chinese section): where the docs explain it

tests/test_exercise.py checks that each mistake, applied to its target, fails with its own hint.
"""

# ------------------------------------------------------------------ what to build
TASKS = {  # exercise: (English, Chinese), in words: the learner writes the code
    "v4_multihead": (
        "Give each character a position too (token plus position embeddings), then let every "
        "position gather from the ones before it with multi-head causal self-attention "
        "(4 heads of 8, scores scaled by hs ** -0.5), computed at once: one query, one key and "
        "one value Linear (C to C) in MultiHeadAttention, used as sa_heads; then the linear "
        "head to logits.",
        "给每个字符加上位置（词元嵌入加位置嵌入），再用多头因果自注意力（4 个头，每头 8 维，"
        "分数乘 hs ** -0.5）让每个位置从它之前的位置收集信息；所有头一次算完："
        "MultiHeadAttention 里各用一个 C 到 C 的 query、key、value 线性层，模型里叫 sa_heads；"
        "最后接线性层输出 logits。"),
    "v4_multihead/01-embeddings": (
        "Replace the bigram table by token and position embeddings of width n_embd, added "
        "together, and a linear head from n_embd to the vocabulary.",
        "把二元语法表换成宽 n_embd 的词元嵌入和位置嵌入（两者相加），再接一个从 n_embd 到词表的"
        "线性层。"),
    "v4_multihead/02-averaging-the-past": (
        "Before the head, replace each position's vector by the mean of its own and the earlier "
        "positions' vectors (a lower-triangular weight matrix, softmax over each row).",
        "在线性层之前，把每个位置的向量换成它自己和之前所有位置向量的平均（下三角权重矩阵，"
        "每行做 softmax）。"),
    "v4_multihead/03-one-head": (
        "Replace the plain average by one causal self-attention head (class Head: query, key "
        "and value, each n_embd wide without bias; scores scaled by C ** -0.5; the future "
        "masked), used as sa_head.",
        "把简单平均换成一个因果自注意力头（类 Head：query、key、value 各 n_embd 维、无偏置；"
        "分数乘 C ** -0.5；加因果掩码，不看未来位置），作为 sa_head 使用。"),
    "v4_multihead/04-lecture-schedule": (
        "Train as the lecture trains attention: learning rate 1e-3 for 5000 steps, a loss "
        "estimate every 500.",
        "按课程训练注意力的方式训练：学习率 1e-3，训练 5000 步，每 500 步估计一次损失。"),
    "v4_multihead/05-heads-list": (
        "Split attention into n_head = 4 heads, each hs = C // n_head wide and scaled by "
        "hs ** -0.5, kept in a list (MultiHeadAttention.heads) and concatenated; the model calls "
        "it sa_heads.",
        "把注意力拆成 n_head = 4 个头，每头 hs = C // n_head 维、分数乘 hs ** -0.5，放在列表 "
        "MultiHeadAttention.heads 里，输出拼接起来；模型里叫 sa_heads。"),
    "v4_multihead/06-heads-batched": (
        "Compute the same heads at once: one query, one key and one value Linear (C to C) in "
        "MultiHeadAttention, split into heads as (B, nh, T, hs), joined back to (B, T, C).",
        "把这些头一次算完：MultiHeadAttention 里各用一个 C 到 C 的 query、key、value 线性层，"
        "拆成 (B, nh, T, hs) 的头，再合回 (B, T, C)。"),
    "v5_ffn": (
        "After attention, add a feed-forward layer (class FeedForward, used as ffwd): a Linear "
        "from C to C, then a ReLU, applied at every position.",
        "在注意力之后加一个前馈网络（类 FeedForward，模型里叫 ffwd）：一个 C 到 C 的线性层，"
        "再接 ReLU，对每个位置分别计算。"),
    "v6_block": (
        "Wrap attention and the FFN in a Block: residual paths around both, an output "
        "projection in each, the FFN 4x wider inside, LayerNorm before each sublayer and before "
        "the head, dropout; stack n_layer = 3 Blocks.",
        "把注意力和前馈网络包进一个块（Block）：两者外面都有残差连接，各带一个输出投影，"
        "前馈网络内部扩宽 4 倍，每个子层之前和输出层之前做层规范化，再加 dropout；"
        "叠 n_layer = 3 个块。"),
    "v6_block/01-blocks": (
        "Put attention and the FFN into a class Block (attention, then FFN) and stack n_layer "
        "= 3 of them in an nn.Sequential called blocks.",
        "把注意力和前馈网络放进类 Block（先注意力，后前馈网络），用名为 blocks 的 "
        "nn.Sequential 叠 n_layer = 3 个。"),
    "v6_block/02-residual": (
        "Give each Block residual paths: attention and the FFN each add their output to x "
        "instead of replacing it.",
        "给每个块加上残差连接：注意力和前馈网络的输出都加到 x 上，而不是取代 x。"),
    "v6_block/03-projections": (
        "End attention with an output projection (proj, C to C) and end the FFN with a second "
        "Linear (C to C).",
        "注意力最后加一个输出投影（proj，C 到 C），前馈网络最后加第二个线性层（C 到 C）。"),
    "v6_block/04-ffn-4x": (
        "Make the FFN 4x wider inside: C to 4C, ReLU, 4C back to C.",
        "把前馈网络内部扩宽 4 倍：C 到 4C，ReLU，再从 4C 回到 C。"),
    "v6_block/05-layernorm": (
        "Add LayerNorm before each sublayer (ln1 before attention, ln2 before the FFN: "
        "pre-norm) and a final ln_f before the head.",
        "在每个子层之前加层规范化（注意力前 ln1，前馈网络前 ln2：前置规范化），"
        "输出层之前再加 ln_f。"),
    "v6_block/06-dropout": (
        "Add dropout (a new hyperparameter, 0.0 by default): on the attention weights, after "
        "attention's projection and at the end of the FFN.",
        "加上 dropout（新的超参数，默认 0.0）：作用在注意力权重上、注意力的输出投影之后，"
        "以及前馈网络的末尾。"),
    # ---- v7_bert_layer
    "v7_bert_layer": (
        "Rebuild v6's Block as HuggingFace's BertLayer, in HF's names (BertConfig, "
        "BertEmbeddings, BertSelfAttention, BertSelfOutput, BertAttention, BertIntermediate, "
        "BertOutput, encoder.layer): biases on query, key and value, post-norm LayerNorm(x + "
        "f(x)) with eps 1e-12, a LayerNorm on the embeddings and none before the head, the "
        "activation by name (hidden_act: GELU). Then HF's additive causal mask, a key/value "
        "cache for generate, the FFN in chunks, cross-attention, head_mask and "
        "output_attentions.",
        "把 v6 的块重写成 HuggingFace 的 BertLayer，全用 HF 的名字（BertConfig、BertEmbeddings、"
        "BertSelfAttention、BertSelfOutput、BertAttention、BertIntermediate、BertOutput、"
        "encoder.layer）：query、key、value 带偏置，后置规范化 LayerNorm(x + f(x))（eps 为 "
        "1e-12），嵌入之后有层规范化、输出层之前没有，激活函数按名字取（hidden_act：GELU）。"
        "再加上 HF 的加性因果掩码、generate 用的键值缓存、分段计算的前馈网络、交叉注意力，"
        "以及 head_mask 和 output_attentions。"),
    "v7_bert_layer/01-config": (
        "Put the sizes into a dataclass BertConfig with HF's field names (vocab_size, "
        "hidden_size, num_hidden_layers, num_attention_heads, hidden_dropout_prob, "
        "attention_probs_dropout_prob, max_position_embeddings), filled in from the flags as "
        "model.config; each Block takes the config and reads its sizes from it.",
        "把各项尺寸放进数据类 BertConfig，用 HF 的字段名（vocab_size、hidden_size、"
        "num_hidden_layers、num_attention_heads、hidden_dropout_prob、"
        "attention_probs_dropout_prob、max_position_embeddings），由命令行参数填好，存为 "
        "model.config；每个块只接收这个 config，尺寸都从中读取。"),
    "v7_bert_layer/02-rename-attention": (
        "Split attention into HF's three classes: BertSelfAttention (query, key, value, "
        "transpose_for_scores, the causal mask), BertSelfOutput (dense, dropout, then "
        "input_tensor added back) and BertAttention, holding them as self and output; v6's ln1 "
        "becomes output.LayerNorm, still applied first (pre-norm).",
        "把注意力拆成 HF 的三个类：BertSelfAttention（query、key、value、transpose_for_scores、"
        "因果掩码）、BertSelfOutput（dense、dropout，再把 input_tensor 加回来），以及把两者分别"
        "存为 self 和 output 的 BertAttention；v6 的 ln1 改叫 output.LayerNorm，仍然最先作用"
        "（前置规范化）。"),
    "v7_bert_layer/03-hf-ffn": (
        "Split the FFN into BertIntermediate (dense from C to intermediate_size, a new flag and "
        "config field, then ReLU) and BertOutput (dense back to C, dropout, then input_tensor "
        "added back), called from the Block's feed_forward_chunk; v6's ln2 becomes "
        "output.LayerNorm, still applied first.",
        "把前馈网络拆成 BertIntermediate（dense 从 C 到 intermediate_size——新的超参数，也是 "
        "config 的新字段——再接 ReLU）和 BertOutput（dense 回到 C、dropout，再把 input_tensor "
        "加回来），由块的 feed_forward_chunk 调用；v6 的 ln2 改叫 output.LayerNorm，仍然最先作用。"),
    "v7_bert_layer/04-hf-layer": (
        "Rename the Block BertLayer and stack the layers as encoder.layer (a ModuleList in a "
        "ModuleDict); the word and position embeddings move into BertEmbeddings "
        "(word_embeddings, position_embeddings), used as embeddings.",
        "把块改名为 BertLayer，各层放在 encoder.layer 里（ModuleDict 中的一个 ModuleList）；"
        "词元嵌入和位置嵌入挪进 BertEmbeddings（word_embeddings、position_embeddings），"
        "模型里叫 embeddings。"),
    "v7_bert_layer/05-qkv-bias": (
        "Give the query, key and value Linears a bias each, as in BERT.",
        "给 query、key、value 三个线性层各加一个偏置，和 BERT 一样。"),
    "v7_bert_layer/06-post-norm": (
        "Switch to post-norm: BertSelfOutput and BertOutput return LayerNorm(their dense output + "
        "input_tensor), and the sublayers read x itself, not a normalised copy.",
        "改成后置规范化：BertSelfOutput 和 BertOutput 返回 LayerNorm(dense 的输出 + "
        "input_tensor)，子层直接读 x，而不是归一化后的副本。"),
    "v7_bert_layer/07-embedding-layernorm": (
        "End BertEmbeddings with a LayerNorm and dropout (its LayerNorm and dropout), and remove "
        "the final LayerNorm ln_f.",
        "BertEmbeddings 最后加上层规范化和 dropout（LayerNorm、dropout），并去掉最后的层规范化 "
        "ln_f。"),
    "v7_bert_layer/08-layer-norm-eps": (
        "Add layer_norm_eps = 1e-12 to BertConfig, BERT's, and let every LayerNorm take its eps "
        "from there.",
        "给 BertConfig 加上 layer_norm_eps = 1e-12（BERT 的取值），所有层规范化的 eps 都从这里取。"),
    "v7_bert_layer/09-gelu": (
        "Let BertIntermediate take its activation by name from hidden_act (a new flag and config "
        "field, default gelu: the exact GELU) through HF's table ACT2FN (gelu, gelu_new, relu, "
        "silu, tanh), or use a callable given instead of a name; an unknown name is a ValueError "
        "(the plumbing words it as one line); hidden_act goes into MODEL_ARGS.",
        "让 BertIntermediate 按名字取激活函数：名字来自 hidden_act（新的超参数，也是 config 的"
        "新字段，默认 gelu，即精确的 GELU），在 HF 的表 ACT2FN（gelu、gelu_new、relu、silu、"
        "tanh）里查；给的若不是名字而是可调用对象，就直接用它；不认识的名字抛出 ValueError"
        "（管道代码会把它变成一行报错）；hidden_act 要加进 MODEL_ARGS。"),
    "v7_bert_layer/10-additive-mask": (
        "Replace tril by HF's additive mask: the model builds it once per forward pass (0 where a "
        "key is seen, the lowest finite float where it is hidden) and hands it to every layer as "
        "attention_mask (None: nothing hidden), which BertSelfAttention adds to the scores; a "
        "boolean mask (True: seen) is first turned into that form.",
        "用 HF 的加性掩码取代 tril：模型每次前向传播只构造一次掩码（看得见的键处为 0，看不见的"
        "键处为最小的有限浮点数），作为 attention_mask 交给每一层（None 表示什么都不遮），"
        "由 BertSelfAttention 加到分数上；布尔掩码（True 表示看得见）先换成这种形式。"),
    "v7_bert_layer/11-kv-layers": (
        "Make the layers decoders (is_decoder in the config, True in the model): "
        "BertSelfAttention takes past_key_value, puts the cached keys and values before the new "
        "ones, and returns its (k, v) after its output; BertAttention and BertLayer hand them on, "
        "and a layer returns (layer_output, (k, v)).",
        "把各层变成解码器（config 的 is_decoder，模型里设为 True）：BertSelfAttention 接收 "
        "past_key_value，把缓存的 key 和 value 放在新的前面，并在输出之后返回自己的 (k, v)；"
        "BertAttention 和 BertLayer 把它们往外传，每层返回 (layer_output, (k, v))。"),
    "v7_bert_layer/12-kv-cache": (
        "Let LanguageModel.forward take past_key_values (a list, one (k, v) per layer, [] at "
        "first, filled in place): the new characters take positions from P on "
        "(past_key_values_length) and a T by P + T mask. generate(greedy=False, use_cache=True) "
        "then feeds only the new characters while the text fits in block_size; greedy takes the "
        "most likely character.",
        "让 LanguageModel.forward 接收 past_key_values（一个列表，每层一个 (k, v)，开始时为 "
        "[]，原地填写）：新字符的位置从 P 开始（past_key_values_length），掩码为 T 行 P + T 列。"
        "generate(greedy=False, use_cache=True) 在文本不超过 block_size 时只送入新字符；"
        "greedy 时取最可能的字符。"),
    "v7_bert_layer/13-chunked-ffn": (
        "Run the FFN on chunk_size_ff positions at a time (a new flag; chunk_size_feed_forward in "
        "the config; 0: all at once) with HF's apply_chunking_to_forward, cut along T "
        "(seq_len_dim); the model refuses a chunk size that does not divide block_size, and "
        "generate runs unchunked.",
        "用 HF 的 apply_chunking_to_forward 让前馈网络每次只算 chunk_size_ff 个位置（新的超参数；"
        "config 里叫 chunk_size_feed_forward；0 表示一次算完），沿 T 分段（seq_len_dim）；"
        "分段长度不能整除 block_size 时模型报错，generate 时不分段。"),
    "v7_bert_layer/14-cross-attention": (
        "Add cross-attention (add_cross_attention in the config, for a decoder only): a BertLayer "
        "gets a second BertAttention, crossattention, with queries from the layer and keys and "
        "values from encoder_hidden_states, masked by encoder_attention_mask; past_key_value then "
        "holds four tensors, self k, v, then cross k, v.",
        "加上交叉注意力（config 的 add_cross_attention，只用于解码器）：BertLayer 多一个 "
        "BertAttention，叫 crossattention，它的 query 来自本层，key 和 value 来自 "
        "encoder_hidden_states，用 encoder_attention_mask 做掩码；这时 past_key_value 有四个"
        "张量：先是自注意力的 k、v，再是交叉注意力的 k、v。"),
    "v7_bert_layer/15-hf-interface": (
        "Complete HF's interface: head_mask multiplies each head's attention weights (after the "
        "softmax and dropout), and output_attentions=True returns them after the output, "
        "(layer_output, probs, (k, v)), in self- and cross-attention alike; BertSelfAttention "
        "refuses a hidden size its heads do not divide.",
        "补全 HF 的接口：head_mask 乘在每个头的注意力权重上（在 softmax 和 dropout 之后），"
        "output_attentions=True 时把注意力权重放在输出之后返回，即 (layer_output, probs, "
        "(k, v))，自注意力和交叉注意力都是如此；hidden_size 不能被头数整除时，"
        "BertSelfAttention 报错。"),
    # ---- v8_bert_mlm
    "v8_bert_mlm": (
        "Make v7's model BERT: get_batch hides the positions choose_positions picks (mask_prob, "
        "80/10/10, the mask token _ at id 0; the random draws as steps 1 and 3 say) and targets "
        "those only; the layers attend both "
        "ways, without cache or cross-attention; fill_in and sample fill blanks in; then BERT's "
        "init (_init_weights), the masked-LM head cls = BertOnlyMLMHead tied to the word "
        "embeddings, token types and a padding mask.",
        "把 v7 的模型改成 BERT：get_batch 把 choose_positions 选中的位置（比例 mask_prob，"
        "按 80/10/10 处理，掩蔽词元 _ 的 id 为 0；随机数按步骤 1 和 3 说的抽）藏起来，损失只算这些位置；各层改用双向注意力，"
        "不要缓存，也不要交叉注意力；用 fill_in 和 sample 填空；再加上 BERT 的初始化"
        "（_init_weights）、与词元嵌入绑定的掩蔽语言模型头 cls = BertOnlyMLMHead，"
        "以及片段嵌入和填充掩码。"),
    "v8_bert_mlm/01-mlm-target": (
        "Hide characters and ask for them back: a new hyperparameter mask_prob = 0.15, "
        "block_size 32; read_data gives the mask token _ id 0; choose_positions picks "
        "round(mask_prob * T) positions of each window (Python's round: 2.5 gives 2; at least "
        "one): after get_batch's ix, one "
        "torch.rand((B, T)) from the generator, and each row's k largest (topk); there the target "
        "is the character at the same position and the input the mask token, elsewhere the "
        "target is -100.",
        "把字符藏起来，让模型猜回去：新增超参数 mask_prob = 0.15，block_size 改为 32；"
        "read_data 让掩蔽词元 _ 占 id 0；choose_positions 在每个窗口里选 round(mask_prob * T) "
        "个位置（Python 的 round：2.5 得 2；至少一个）：在 get_batch 抽完 ix 之后，用生成器抽一个 torch.rand((B, T))，"
        "每行取最大的 k 个（topk）；get_batch 在选中的位置上，目标是同一位置的原字符，输入换成掩蔽词元，"
        "其余位置的目标为 -100。"),
    "v8_bert_mlm/02-fill-in": (
        "Drop LanguageModel.generate and write fill_in(model, ids): at each mask token the most "
        "likely character, never the mask token itself, and the 3 most likely with their "
        "probabilities; sample blanks a val passage with choose_positions, fills it in and "
        "counts the blanks it got right.",
        "去掉 LanguageModel.generate，写 fill_in(model, ids)：在每个掩蔽词元处填上最可能的字符"
        "（绝不能是掩蔽词元本身），并给出最可能的 3 个字符及其概率；sample 用 choose_positions "
        "把验证集的一段文字挖空，填回去，再数一数填对了几个空。"),
    "v8_bert_mlm/03-80-10-10": (
        "In get_batch, of the chosen positions 80% show the mask token, 10% a random character "
        "drawn from the text and 10% stay as they are: one uniform draw per position (roll), "
        "then the random characters, from the same generator.",
        "在 get_batch 里，选中的位置中 80% 换成掩蔽词元，10% 换成从文本里随机抽的字符，10% "
        "保持原样：先为每个位置抽一个均匀随机数（roll），再抽随机字符，都用同一个随机数生成器。"),
    "v8_bert_mlm/04-both-ways": (
        "Let attention see both ways: no causal mask (mask None), the layers built with "
        "is_decoder=False, and LanguageModel.forward without past_key_values.",
        "改成双向注意力：去掉因果掩码（mask 为 None），各层用 is_decoder=False 构建，"
        "LanguageModel.forward 不再接受 past_key_values。"),
    "v8_bert_mlm/05-fill-in-prompt": (
        "Let sample fill in the blanks of args.prompt (each blank written _, at most block_size "
        "characters, else a ValueError): the filled text, then a line per blank with fill_in's "
        "3 best guesses and their probabilities.",
        "让 sample 填 args.prompt 里的空（每个空写成 _，最多 block_size 个字符，否则抛出 "
        "ValueError）：先输出填好的文本，再为每个空输出一行，列出 fill_in 给出的 3 个最可能的"
        "字符及其概率。"),
    "v8_bert_mlm/06-no-cross-attention": (
        "Delete cross-attention: add_cross_attention in BertConfig, BertLayer.crossattention, "
        "and the encoder_hidden_states and encoder_attention_mask arguments of BertLayer, "
        "BertAttention and BertSelfAttention.",
        "删掉交叉注意力：BertConfig 的 add_cross_attention、BertLayer.crossattention，以及 "
        "BertLayer、BertAttention、BertSelfAttention 的 encoder_hidden_states 和 "
        "encoder_attention_mask 参数。"),
    "v8_bert_mlm/07-no-cache": (
        "Delete the key/value cache: is_decoder in BertConfig and the layers, the past_key_value "
        "arguments and the (k, v) the layers hand on, and BertEmbeddings' "
        "past_key_values_length.",
        "删掉键值缓存：BertConfig 和各层里的 is_decoder、past_key_value 参数和各层传出的 "
        "(k, v)，以及 BertEmbeddings 的 past_key_values_length。"),
    "v8_bert_mlm/08-bert-init": (
        "Start from BERT's weights: initializer_range = 0.02 in BertConfig, and "
        "LanguageModel._init_weights applied to every module: each Linear's and Embedding's "
        "weight from N(0, initializer_range), each Linear's bias 0.",
        "改用 BERT 的初始权重：BertConfig 加上 initializer_range = 0.02，"
        "LanguageModel._init_weights 作用于每个模块：线性层和嵌入层的权重取自 "
        "N(0, initializer_range)，线性层的偏置置 0。"),
    "v8_bert_mlm/09-mlm-transform": (
        "Replace lm_head by HF's masked-LM head, cls = BertOnlyMLMHead: predictions.transform "
        "(dense, the activation, LayerNorm), then predictions.decoder, a Linear from C to the "
        "vocabulary without a bias of its own, whose bias is predictions.bias.",
        "把 lm_head 换成 HF 的掩蔽语言模型头 cls = BertOnlyMLMHead：先经过 "
        "predictions.transform（dense、激活函数、层规范化），再经过 predictions.decoder：一个从 C "
        "到词表、自身不带偏置的线性层，它的偏置是 predictions.bias。"),
    "v8_bert_mlm/10-tied-decoder": (
        "Tie the decoder to the word embeddings: its weight is the word embeddings' (V, C) matrix "
        "itself, one tensor that both reads characters in and scores them.",
        "把 decoder 和词元嵌入绑定：它的权重就是词元嵌入的 (V, C) 矩阵本身，同一个张量既把字符"
        "读进来，又给字符打分。"),
    "v8_bert_mlm/11-token-types": (
        "Add token types (type_vocab_size = 2; BertEmbeddings.token_type_embeddings, added to "
        "the word embeddings; all type 0 unless token_type_ids is given) and forward's "
        "attention_mask (1 for a token, 0 for padding), which hides the padding's keys from "
        "every query.",
        "加上片段嵌入（type_vocab_size = 2；BertEmbeddings.token_type_embeddings，与词元嵌入相加；"
        "不传 token_type_ids 时全是片段 0），以及 forward 的 attention_mask 参数（词元为 1，"
        "填充为 0）：每个 query 都看不到填充位置的 key。"),
}

# ------------------------------------------------------------------ the mistakes
V4, V5, V6 = ("v4_multihead", "What changed, step by step", "逐步看改了什么"), \
    ("v5_ffn", "What changed", "改了什么"), ("v6_block", "The steps", "逐步来看")
SCALE = ("v4_multihead", "Why `hs ** -0.5`", "为什么乘 `hs ** -0.5`")
POSITIONS = ("v4_multihead", "Why position embeddings", "为什么要位置嵌入")
RELU = ("v5_ffn", "Why the ReLU matters", "为什么少不了 ReLU")

MISTAKES = [
    {"exercise": "v4_multihead/01-embeddings",
     "edits": [("x = tok_emb + pos_emb  # (B, T, C)", "x = tok_emb  # (B, T, C)")],
     "hint": ("The position embeddings are never added: every position of a character then "
              "gets the same vector, and attention could not tell places apart.",
              "位置嵌入没有加进去：同一个字符在哪个位置都是同一个向量，注意力就分不清位置。"),
     "doc": POSITIONS},
    {"exercise": "v4_multihead/01-embeddings",
     "edits": [("self.position_embedding_table = nn.Embedding(block_size, n_embd)",
                "self.position_embedding_table = nn.Embedding(vocab_size, n_embd)")],
     "hint": ("The position table needs one row per position (block_size rows), not one per "
              "character.",
              "位置嵌入表每个位置一行（共 block_size 行），不是每个字符一行。"),
     "doc": POSITIONS},
    {"exercise": "v4_multihead/02-averaging-the-past",
     "edits": [('        wei = wei.masked_fill(tril == 0, float("-inf"))  # (T, T): no position '
                'sees the future\n', "")],
     "hint": ("Each position averages the whole window, later characters included: the mask "
              "must hide the future, so that position t averages positions 0 to t only.",
              "每个位置平均了整个窗口，包括后面的字符：掩码要掩蔽未来，位置 t 只平均 0 到 t。"),
     "doc": V4},
    {"exercise": "v4_multihead/02-averaging-the-past",
     "edits": [("tril = torch.tril(torch.ones(T, T", "tril = torch.triu(torch.ones(T, T")],
     "hint": ("The triangle is upside down: position t averages itself and the positions after "
              "it. Keep the lower triangle, 1 where the key's position is at most t.",
              "三角方向反了：位置 t 平均的是它自己和后面的位置。要用下三角：键的位置不超过 t "
              "处为 1。"),
     "doc": V4},
    {"exercise": "v4_multihead/02-averaging-the-past",
     "edits": [("wei = F.softmax(wei, dim=-1)  # (T, T)", "wei = F.softmax(wei, dim=0)  # (T, T)")],
     "hint": ("The softmax runs down the columns: each row t (the weights position t gives the "
              "others) must sum to 1, so normalise over the last dimension.",
              "softmax 沿列做了：每一行 t（位置 t 分给其他位置的权重）之和应为 1，"
              "所以要在最后一维上归一化。"),
     "doc": V4},
    {"exercise": "v4_multihead/03-one-head",
     "edits": [("wei = q @ k.transpose(-2, -1) * C**-0.5", "wei = q @ k.transpose(-2, -1)")],
     "hint": ("The scores are not scaled: q · k grows with the head's width, the softmax then "
              "turns nearly one-hot. Scale the scores as the step says.",
              "分数没有缩放：q · k 随头的维度变大，softmax 会接近 one-hot。按这一步说的缩放分数。"),
     "doc": SCALE},
    {"exercise": "v4_multihead/03-one-head",
     "edits": [('        wei = wei.masked_fill(self.tril[:T, :T] == 0, float("-inf"))'
                '  # (B, T, T): '
                'causal\n', "")],
     "hint": ("The causal mask is missing: a position reads the characters after it, the very "
              "ones it has to predict.",
              "缺了因果掩码：位置读到了它后面的字符，而那正是它要预测的。"),
     "doc": V4},
    {"exercise": "v4_multihead/03-one-head",
     "edits": [("out = wei @ v  # (B, T, C)", "out = wei @ x  # (B, T, C)")],
     "hint": ("The weights sum the input x itself, not the values: each position should give "
              "its value, v = value(x).",
              "权重加权的是输入 x 本身，而不是 value：每个位置给出的应是它的 value，"
              "即 v = value(x)。"),
     "doc": V4},
    {"exercise": "v4_multihead/03-one-head",
     "edits": [("wei = q @ k.transpose(-2, -1) * C**-0.5",
                "wei = k @ q.transpose(-2, -1) * C**-0.5")],
     "hint": ("Queries and keys are swapped: row t of the scores is position t's query against "
              "every key, q @ kᵀ.",
              "query 和 key 用反了：分数的第 t 行是位置 t 的 query 与每个 key 的点积，即 q @ kᵀ。"),
     "doc": V4},
    {"exercise": "v4_multihead/04-lecture-schedule",
     "edits": [("lr = 1e-3  # AdamW", "lr = 1e-2  # AdamW")],
     "hint": ("The learning rate is still the bigram's 1e-2: attention trains at the lecture's "
              "1e-3.",
              "学习率还是二元模型的 1e-2：注意力按课程用 1e-3 训练。"),
     "doc": V4},
    {"exercise": "v4_multihead/04-lecture-schedule",
     "edits": [("max_iters = 5000  #", "max_iters = 3000  #"),
               ("eval_interval = 500  #", "eval_interval = 300  #")],
     "hint": ("Still the bigram's 3000 steps: a smaller learning rate needs the lecture's 5000 "
              "(an estimate every 500).",
              "还是二元模型的 3000 步：学习率变小了，要按课程训练 5000 步（每 500 步估计一次）。"),
     "doc": V4},
    {"exercise": "v4_multihead/05-heads-list",
     "edits": [("wei = q @ k.transpose(-2, -1) * hs**-0.5",
                "wei = q @ k.transpose(-2, -1) * C**-0.5")],
     "hint": ("Each head scales by C ** -0.5: its scores are sums over its own hs channels, so "
              "scale by hs ** -0.5.",
              "每个头乘的是 C ** -0.5：它的分数只是自己 hs 个通道上的和，应乘 hs ** -0.5。"),
     "doc": SCALE},
    {"exercise": "v4_multihead/05-heads-list",
     "edits": [("Head(n_embd, n_embd // n_head, block_size)", "Head(n_embd, n_embd, block_size)")],
     "hint": ("Each head is as wide as the model: nh heads of C // nh channels, concatenated, "
              "give back C.",
              "每个头都和模型一样宽：应是 nh 个头、每个 C // nh 维，拼起来正好是 C。"),
     "doc": V4},
    {"exercise": "v4_multihead/06-heads-batched",
     "edits": [("out = out.transpose(1, 2).reshape(B, T, C)", "out = out.reshape(B, T, C)")],
     "hint": ("The heads are joined without moving T back in front of nh: (B, nh, T, hs) must "
              "become (B, T, nh, hs) before it is read as (B, T, C), or positions mix.",
              "合并头之前没有把 T 换回 nh 前面：(B, nh, T, hs) 要先变成 (B, T, nh, hs)，"
              "再看作 (B, T, C)，否则不同位置会混在一起。"),
     "doc": V4},
    {"exercise": "v4_multihead/06-heads-batched",
     "edits": [("wei = q @ k.transpose(-2, -1) * hs**-0.5",
                "wei = q @ k.transpose(-2, -1) * C**-0.5")],
     "hint": ("The scores are scaled by C ** -0.5: each head's are sums over hs channels, so "
              "scale by hs ** -0.5.",
              "分数乘的是 C ** -0.5：每个头的分数是 hs 个通道上的和，应乘 hs ** -0.5。"),
     "doc": SCALE},
    {"exercise": "v5_ffn",
     "edits": [("            nn.ReLU(),\n", "")],
     "hint": ("The ReLU is missing: a Linear after attention's weighted sum is still linear in "
              "the values; without the ReLU the FFN adds no new kind of function.",
              "缺了 ReLU：注意力的加权和之后只接线性层，仍是 value 的线性函数；"
              "没有 ReLU，前馈网络不增加新的函数形式。"),
     "doc": RELU},
    {"exercise": "v5_ffn",
     "edits": [("        x = self.sa_heads(x)  # (B, T, C): each position gathers from the ones "
                "before it\n        x = self.ffwd(x)  # (B, T, C): each position computes on what "
                "it gathered\n",
                "        x = self.ffwd(x)  # (B, T, C): each position computes on what it "
                "gathered\n        x = self.sa_heads(x)  # (B, T, C): each position gathers from "
                "the ones before it\n")],
     "hint": ("The FFN runs before attention: attention gathers first, then the FFN computes on "
              "what each position gathered.",
              "前馈网络放在了注意力之前：应先由注意力收集信息，再由前馈网络对收集到的内容计算。"),
     "doc": V5},
    {"exercise": "v5_ffn",
     "edits": [("x = self.ffwd(x)  # (B, T, C)", "x = x + self.ffwd(x)  # (B, T, C)")],
     "hint": ("The FFN's output is added to x: that residual path is v6's idea. In v5 the FFN's "
              "output replaces x.",
              "前馈网络的输出加到了 x 上：残差连接是 v6 的内容。v5 里前馈网络的输出直接取代 x。"),
     "doc": V5},
    {"exercise": "v5_ffn",
     "edits": [("        x = self.ffwd(x)  # (B, T, C): each position computes on what it "
                "gathered\n", "")],
     "hint": ("The FFN is built but never called: each position's gathered vector must go "
              "through it before the head.",
              "前馈网络建了却没有调用：每个位置收集到的向量要先经过它，再进输出层。"),
     "doc": V5},
    {"exercise": "v6_block/01-blocks",
     "edits": [("        x = self.sa(x)  # (B, T, C): each position gathers from the ones before "
                "it\n        x = self.ffwd(x)  # (B, T, C): each position computes on what it "
                "gathered\n",
                "        x = self.ffwd(x)  # (B, T, C): each position computes on what it "
                "gathered\n        x = self.sa(x)  # (B, T, C): each position gathers from the "
                "ones before it\n")],
     "hint": ("Inside the Block the FFN comes first: communication (attention) comes before "
              "computation (the FFN).",
              "块里先做了前馈网络：应先交流（注意力），再计算（前馈网络）。"),
     "doc": V6},
    {"exercise": "v6_block/02-residual",
     "edits": [("x = x + self.ffwd(x)  # (B, T, C): and past the FFN",
                "x = self.ffwd(x)  # (B, T, C): and past the FFN")],
     "hint": ("The FFN has no residual path: its output replaces x; it should be added to x, "
              "as attention's is.",
              "前馈网络没有残差连接：它的输出取代了 x；应像注意力那样加到 x 上。"),
     "doc": V6},
    {"exercise": "v6_block/02-residual",
     "edits": [("x = x + self.sa(x)  # (B, T, C): x rides the residual path past attention",
                "x = self.sa(x)  # (B, T, C): x rides the residual path past attention")],
     "hint": ("Attention has no residual path: its output replaces x; it should be added to x.",
              "注意力没有残差连接：它的输出取代了 x；应加到 x 上。"),
     "doc": V6},
    {"exercise": "v6_block/03-projections",
     "edits": [("return self.proj(out)  # (B, T, C)", "return out  # (B, T, C)")],
     "hint": ("Attention's projection is made but never applied: the heads' joined output goes "
              "through proj before it is added to x.",
              "注意力的输出投影建了却没用：各头拼接后的输出要先经过 proj，再加到 x 上。"),
     "doc": V6},
    {"exercise": "v6_block/03-projections",
     "edits": [("            nn.ReLU(),\n            nn.Linear(n_embd, n_embd),\n",
                "            nn.ReLU(),\n")],
     "hint": ("The FFN has no second Linear: it ends at the ReLU, so what it adds to x is never "
              "negative. A Linear after the ReLU projects back to C.",
              "前馈网络少了第二个线性层：它停在 ReLU，加到 x 上的东西就永远不会是负的。ReLU 之后"
              "还要一个线性层投影回 C。"),
     "doc": V6},
    {"exercise": "v6_block/04-ffn-4x",
     "edits": [("nn.Linear(n_embd, 4 * n_embd),", "nn.Linear(n_embd, 2 * n_embd),"),
               ("nn.Linear(4 * n_embd, n_embd),", "nn.Linear(2 * n_embd, n_embd),")],
     "hint": ("The FFN's inside is not 4 x C wide: Attention Is All You Need widens it four "
              "times (2048 for 512), and so does this step.",
              "前馈网络内部不是 4 × C 宽：《Attention Is All You Need》把它扩宽 4 倍"
              "（512 到 2048），这一步也一样。"),
     "doc": V6},
    {"exercise": "v6_block/04-ffn-4x",
     "edits": [("nn.Linear(4 * n_embd, n_embd),", "nn.Linear(4 * n_embd, n_embd),\n"
                "            nn.ReLU(),")],
     "hint": ("The FFN ends with a ReLU: the second Linear projects back to C, and its output, "
              "negative parts too, goes onto the residual path.",
              "前馈网络最后多了一个 ReLU：第二个线性层投影回 C，它的输出（包括负值）"
              "直接加到残差连接上。"),
     "doc": V6},
    {"exercise": "v6_block/05-layernorm",
     "edits": [("x = x + self.sa(self.ln1(x))", "x = self.ln1(x + self.sa(x))"),
               ("x = x + self.ffwd(self.ln2(x))", "x = self.ln2(x + self.ffwd(x))")],
     "hint": ("LayerNorm comes after each sublayer (post-norm, as in the 2017 paper and BERT): "
              "this step is pre-norm, LayerNorm on the sublayer's input, the residual path left "
              "untouched.",
              "层规范化放在了子层之后（后置规范化，2017 年论文和 BERT 的做法）：这一步是"
              "前置规范化，对子层的输入做层规范化，残差连接保持不动。"),
     "doc": V6},
    {"exercise": "v6_block/05-layernorm",
     "edits": [("        x = self.ln_f(x)  # (B, T, C)\n", "")],
     "hint": ("The final LayerNorm is made but never applied: the stream is normalised once "
              "more, by ln_f, before the head.",
              "最后的层规范化建了却没用：输出层之前还要用 ln_f 再做一次层规范化。"),
     "doc": V6},
    {"exercise": "v6_block/05-layernorm",
     "edits": [("x = x + self.ffwd(self.ln2(x))", "x = x + self.ffwd(self.ln1(x))")],
     "hint": ("The FFN reads ln1's output: each sublayer has a LayerNorm of its own (ln2 for the "
              "FFN), with its own scale and shift.",
              "前馈网络读的是 ln1 的输出：每个子层有自己的层规范化（前馈网络用 ln2），"
              "各有自己的拉伸参数和偏移参数。"),
     "doc": V6},
    {"exercise": "v6_block/06-dropout",
     "edits": [("        wei = self.attn_dropout(wei)\n", "")],
     "hint": ("The attention weights get no dropout: it drops some of the weights after the "
              "softmax, before they sum the values.",
              "注意力权重没有做 dropout：softmax 之后、加权求和 value 之前，要随机丢掉一部分权重。"),
     "doc": V6},
    {"exercise": "v6_block/06-dropout",
     "edits": [("return self.resid_dropout(self.proj(out))", "return self.proj(self.resid_dropout("
                "out))")],
     "hint": ("Dropout comes before the projection: it belongs on the projection's output, just "
              "before it joins the residual path.",
              "dropout 放在了投影之前：它应作用在投影的输出上，也就是加回残差连接之前。"),
     "doc": V6},
    # ---- v7_bert_layer
    {"exercise": "v7_bert_layer/01-config",
     "edits": [("vocab_size=vocab_size, hidden_size=n_embd, num_hidden_layers=n_layer,",
                "vocab_size=vocab_size, num_hidden_layers=n_layer,")],
     "hint": ("The config keeps BERT-base's hidden_size, 768, whatever --n-embd says: every size "
              "the Blocks read from the config must reach it from the flags.",
              "config 保留了 BERT-base 的 hidden_size，即 768，不管 --n-embd 是多少：块从 config "
              "读的每个尺寸，都得从命令行参数传进去。"),
     "doc": ("v7_bert_layer", "Stage 1: v6 in HF's names (steps 1 to 4)",
             "阶段一：给 v6 换上 HF 的名字（步骤 1 到 4）")},
    {"exercise": "v7_bert_layer/01-config",
     "edits": [(",\n            max_position_embeddings=block_size)", ")")],
     "hint": ("The config keeps BERT-base's 512 positions: max_position_embeddings is this "
              "model's block_size, the number of positions it has embeddings for (from step 4 on, "
              "the position table is sized from it).",
              "config 保留了 BERT-base 的 512 个位置：max_position_embeddings 应是这个模型的 "
              "block_size，即它有嵌入的位置数（从第 4 步起，位置嵌入表按它来定大小）。"),
     "doc": ("v7_bert_layer", "Stage 1: v6 in HF's names (steps 1 to 4)",
             "阶段一：给 v6 换上 HF 的名字（步骤 1 到 4）")},
    {"exercise": "v7_bert_layer/02-rename-attention",
     "edits": [("attention_output = self.output(self_outputs, hidden_states)",
                "attention_output = self.output(self_outputs, "
                "self.output.LayerNorm(hidden_states))")],
     "hint": ("The residual path carries LayerNorm(x): BertSelfOutput adds attention's output to "
              "the block's input x itself (input_tensor), untouched; only attention's input is "
              "normalised (pre-norm, until step 6).",
              "残差连接上传的是 LayerNorm(x)：BertSelfOutput 应把注意力的输出加到块的输入 x 本身"
              "（input_tensor）上，不做改动；只有注意力的输入要归一化（前置规范化，直到第 6 步）。"),
     "doc": ("v7_bert_layer", "Stage 1: v6 in HF's names (steps 1 to 4)",
             "阶段一：给 v6 换上 HF 的名字（步骤 1 到 4）")},
    {"exercise": "v7_bert_layer/02-rename-attention",
     "edits": [("self_outputs = self.self(self.output.LayerNorm(hidden_states))",
                "self_outputs = self.self(hidden_states)")],
     "hint": ("Attention reads x itself: until step 6 the LayerNorm (v6's ln1, now "
              "BertSelfOutput's LayerNorm) still comes first, on attention's input, as in v6.",
              "注意力直接读了 x：直到第 6 步，层规范化（v6 的 ln1，现在是 BertSelfOutput 的 "
              "LayerNorm）仍然最先作用在注意力的输入上，和 v6 一样。"),
     "doc": ("v7_bert_layer", "Stage 1: v6 in HF's names (steps 1 to 4)",
             "阶段一：给 v6 换上 HF 的名字（步骤 1 到 4）")},
    {"exercise": "v7_bert_layer/02-rename-attention",
     "edits": [("hidden_states = self.dropout(self.dense(hidden_states))",
                "hidden_states = self.dense(self.dropout(hidden_states))")],
     "hint": ("Dropout comes before dense: BertSelfOutput drops part of dense's output (v6's "
              "resid_dropout after proj), just before it joins the residual path.",
              "dropout 放在了 dense 之前：BertSelfOutput 要丢掉的是 dense 输出的一部分（v6 里 proj "
              "之后的 resid_dropout），也就是加回残差连接之前。"),
     "doc": ("v7_bert_layer", "Stage 1: v6 in HF's names (steps 1 to 4)",
             "阶段一：给 v6 换上 HF 的名字（步骤 1 到 4）")},
    {"exercise": "v7_bert_layer/03-hf-ffn",
     "edits": [("self.intermediate(self.output.LayerNorm(attention_output))",
                "self.intermediate(attention_output)")],
     "hint": ("The FFN reads x itself: until step 6 BertOutput's LayerNorm (v6's ln2) still comes "
              "first, on the FFN's input.",
              "前馈网络直接读了 x：直到第 6 步，BertOutput 的 LayerNorm（v6 的 ln2）仍然最先作用在"
              "前馈网络的输入上。"),
     "doc": ("v7_bert_layer", "Stage 1: v6 in HF's names (steps 1 to 4)",
             "阶段一：给 v6 换上 HF 的名字（步骤 1 到 4）")},
    {"exercise": "v7_bert_layer/03-hf-ffn",
     "edits": [("return self.output(intermediate_output, attention_output)",
                "return self.output(intermediate_output, "
                "self.output.LayerNorm(attention_output))")],
     "hint": ("The residual path carries LayerNorm(x): BertOutput adds the FFN's output to its "
              "input x itself (input_tensor), untouched; only the FFN's input is normalised.",
              "残差连接上传的是 LayerNorm(x)：BertOutput 应把前馈网络的输出加到它的输入 x 本身"
              "（input_tensor）上，不做改动；只有前馈网络的输入要归一化。"),
     "doc": ("v7_bert_layer", "Stage 1: v6 in HF's names (steps 1 to 4)",
             "阶段一：给 v6 换上 HF 的名字（步骤 1 到 4）")},
    {"exercise": "v7_bert_layer/03-hf-ffn",
     "edits": [("num_attention_heads=n_head, intermediate_size=intermediate_size,",
                "num_attention_heads=n_head,")],
     "hint": ("The FFN is 3072 wide, BertConfig's BERT-base default: the intermediate_size flag "
              "must reach the config, which BertIntermediate and BertOutput read.",
              "前馈网络宽 3072，这是 BertConfig 里 BERT-base 的默认值：intermediate_size 这个参数"
              "必须传进 config，BertIntermediate 和 BertOutput 都从 config 读它。"),
     "doc": ("v7_bert_layer", "Stage 1: v6 in HF's names (steps 1 to 4)",
             "阶段一：给 v6 换上 HF 的名字（步骤 1 到 4）")},
    {"exercise": "v7_bert_layer/04-hf-layer",
     "edits": [("layer_output = self.feed_forward_chunk(attention_output)",
                "layer_output = self.feed_forward_chunk(hidden_states)")],
     "hint": ("The FFN reads the layer's input, so attention's output is thrown away: the FFN "
              "computes on what attention gathered, attention_output.",
              "前馈网络读的是层的输入，注意力的输出就被丢掉了：前馈网络要在注意力收集到的内容，"
              "即 attention_output 上计算。"),
     "doc": ("v7_bert_layer", "Stage 1: v6 in HF's names (steps 1 to 4)",
             "阶段一：给 v6 换上 HF 的名字（步骤 1 到 4）")},
    {"exercise": "v7_bert_layer/04-hf-layer",
     "edits": [("x = self.word_embeddings(input_ids) + self.position_embeddings(positions)",
                "x = self.word_embeddings(input_ids)")],
     "hint": ("BertEmbeddings returns the word embeddings alone: the position embeddings must be "
              "added, or a character gets the same vector wherever it stands.",
              "BertEmbeddings 只返回了词元嵌入：还要加上位置嵌入，否则同一个字符在哪个位置都是"
              "同一个向量。"),
     "doc": ("v7_bert_layer", "Stage 1: v6 in HF's names (steps 1 to 4)",
             "阶段一：给 v6 换上 HF 的名字（步骤 1 到 4）")},
    {"exercise": "v7_bert_layer/05-qkv-bias",
     "edits": [("self.key = nn.Linear(config.hidden_size, self.all_head_size)",
                "self.key = nn.Linear(config.hidden_size, self.all_head_size, bias=False)")],
     "hint": ("The key has no bias. Alone of the three it changes no output (the softmax cancels "
              "the constant a key bias adds to each row of scores), but BERT has one, and HF's "
              "checkpoints carry it: give query, key and value a bias each.",
              "key 没有偏置。三者中只有它不改变任何输出（key 的偏置给每一行分数加上同一个常数，"
              "softmax 会把它消掉），但 BERT 有这个偏置，HF 的检查点里也有：query、key、value "
              "都要带偏置。"),
     "doc": ("v7_bert_layer", "Stage 2: BERT's computation (steps 5 to 9)",
             "阶段二：BERT 的计算（步骤 5 到 9）")},
    {"exercise": "v7_bert_layer/05-qkv-bias",
     "edits": [("self.value = nn.Linear(config.hidden_size, self.all_head_size)",
                "self.value = nn.Linear(config.hidden_size, self.all_head_size, bias=False)")],
     "hint": ("The value has no bias: in BERT query, key and value each have one, and the "
              "value's, unlike the key's, shifts what attention returns.",
              "value 没有偏置：BERT 的 query、key、value 各有一个偏置，而且 value 的偏置和 key "
              "的不同，会改变注意力的输出。"),
     "doc": ("v7_bert_layer", "Stage 2: BERT's computation (steps 5 to 9)",
             "阶段二：BERT 的计算（步骤 5 到 9）")},
    {"exercise": "v7_bert_layer/06-post-norm",
     "edits": [("self_outputs = self.self(hidden_states)\n",
                "self_outputs = self.self(self.output.LayerNorm(hidden_states))\n"),
               ("intermediate_output = self.intermediate(attention_output)",
                "intermediate_output = "
                "self.intermediate(self.output.LayerNorm(attention_output))"),
               ("return self.LayerNorm(hidden_states + input_tensor)  # (B, T, C)\n\n"
                "class BertAttention",
                "return hidden_states + input_tensor  # (B, T, C)\n\nclass BertAttention"),
               ("return self.LayerNorm(hidden_states + input_tensor)  # (B, T, C)\n\n"
                "class BertLayer",
                "return hidden_states + input_tensor  # (B, T, C)\n\nclass BertLayer")],
     "hint": ("The LayerNorms still come first, on each sublayer's input (pre-norm, v6's "
              "x + f(LN(x))): BERT normalises after the addition, LN(x + f(x)), so the residual "
              "stream itself is normalised after every sublayer.",
              "层规范化仍然放在最前面，作用在每个子层的输入上（前置规范化，即 v6 的 "
              "x + f(LN(x))）：BERT 在相加之后才归一化，即 LN(x + f(x))，所以每个子层之后"
              "残差流本身都被归一化一次。"),
     "doc": ("v7_bert_layer", "Stage 2: BERT's computation (steps 5 to 9)",
             "阶段二：BERT 的计算（步骤 5 到 9）")},
    {"exercise": "v7_bert_layer/07-embedding-layernorm",
     "edits": [("return self.dropout(self.LayerNorm(x))  # (B, T, C)",
                "return self.dropout(x)  # (B, T, C)")],
     "hint": ("The embeddings reach the first layer without their LayerNorm: under post-norm "
              "nothing else normalises the stream before layer 0's attention, so BertEmbeddings "
              "ends with a LayerNorm, then dropout.",
              "嵌入没有经过它的层规范化就进了第一层：后置规范化时，第 0 层的注意力之前再没有别的"
              "地方归一化残差流，所以 BertEmbeddings 最后要做层规范化，再做 dropout。"),
     "doc": ("v7_bert_layer", "Stage 2: BERT's computation (steps 5 to 9)",
             "阶段二：BERT 的计算（步骤 5 到 9）")},
    {"exercise": "v7_bert_layer/07-embedding-layernorm",
     "edits": [("        self.lm_head = nn.Linear(n_embd, vocab_size)\n",
                "        self.ln_f = nn.LayerNorm(n_embd)\n"
                "        self.lm_head = nn.Linear(n_embd, vocab_size)\n"),
               ("        logits = self.lm_head(x)  # (B, T, vocab_size)\n",
                "        x = self.ln_f(x)  # (B, T, C)\n"
                "        logits = self.lm_head(x)  # (B, T, vocab_size)\n")],
     "hint": ("The final LayerNorm ln_f is still there: under post-norm every layer already ends "
              "in a LayerNorm, so BERT has none before the head.",
              "最后的层规范化 ln_f 还在：后置规范化时每一层都以层规范化结束，所以 BERT 在输出层"
              "之前没有层规范化。"),
     "doc": ("v7_bert_layer", "Stage 2: BERT's computation (steps 5 to 9)",
             "阶段二：BERT 的计算（步骤 5 到 9）")},
    {"exercise": "v7_bert_layer/08-layer-norm-eps",
     "edits": [("layer_norm_eps: float = 1e-12", "layer_norm_eps: float = 1e-05")],
     "hint": ("The LayerNorms use eps 1e-5, PyTorch's default: BERT's is 1e-12, the config's "
              "layer_norm_eps, and every LayerNorm takes it from there.",
              "层规范化用的 eps 是 PyTorch 默认的 1e-5：BERT 用的是 1e-12，即 config 里的 "
              "layer_norm_eps，每个层规范化都从那里取。"),
     "doc": ("v7_bert_layer", "Stage 2: BERT's computation (steps 5 to 9)",
             "阶段二：BERT 的计算（步骤 5 到 9）")},
    {"exercise": "v7_bert_layer/09-gelu",
     "edits": [('"gelu": nn.GELU(),', '"gelu": nn.GELU(approximate="tanh"),')],
     "hint": ("gelu is GELU's tanh approximation here (HF's gelu_new, GPT-2's): BERT's gelu is "
              "the exact x · Φ(x), Φ the normal CDF. The two differ slightly, and a BERT "
              "checkpoint was trained with the exact one.",
              "这里的 gelu 用了 GELU 的 tanh 近似（HF 的 gelu_new，GPT-2 用的）：BERT 的 gelu 是"
              "精确的 x · Φ(x)，Φ 是标准正态分布的累积分布函数。两者差别很小，但 BERT 的检查点"
              "是用精确形式训练的。"),
     "doc": ("v7_bert_layer", "Stage 2: BERT's computation (steps 5 to 9)",
             "阶段二：BERT 的计算（步骤 5 到 9）")},
    {"exercise": "v7_bert_layer/09-gelu",
     "edits": [("            self.intermediate_act_fn = ACT2FN[config.hidden_act]\n",
                "            self.intermediate_act_fn = nn.ReLU()\n")],
     "hint": ("The FFN still applies ReLU: its activation is the one hidden_act names, looked up "
              "in ACT2FN; BERT's is GELU, a smooth ReLU.",
              "前馈网络用的还是 ReLU：激活函数应是 hidden_act 指定的那个，在 ACT2FN 里查；"
              "BERT 用的是 GELU，一个平滑的 ReLU。"),
     "doc": ("v7_bert_layer", "Stage 2: BERT's computation (steps 5 to 9)",
             "阶段二：BERT 的计算（步骤 5 到 9）")},
    {"exercise": "v7_bert_layer/10-additive-mask",
     "edits": [(".triu(1)", ".tril(-1)")],
     "hint": ("The mask hides the wrong triangle: position t sees keys 0 to t, so the lowest "
              "float goes above the diagonal (the keys after t), and 0 on and below it.",
              "掩码遮错了三角：位置 t 看得见键 0 到 t，所以最小的浮点数要放在对角线之上（t 之后的"
              "键），对角线及其下方为 0。"),
     "doc": ("v7_bert_layer", "Stage 3 (optional): decoding (steps 10 to 12)",
             "阶段三（选读）：解码（步骤 10 到 12）")},
    {"exercise": "v7_bert_layer/10-additive-mask",
     "edits": [(".triu(1)", ".triu(0)")],
     "hint": ("The mask hides the diagonal too: a position sees its own key as well as the "
              "earlier ones; only the keys after it get the lowest float (position 0, seeing "
              "nothing, would spread its attention over the future).",
              "掩码把对角线也掩蔽了：每个位置既看得见前面的键，也看得见它自己的键；只有它之后的"
              "键才是最小的浮点数（位置 0 什么都看不见，注意力就会平均分到未来的位置上）。"),
     "doc": ("v7_bert_layer", "Stage 3 (optional): decoding (steps 10 to 12)",
             "阶段三（选读）：解码（步骤 10 到 12）")},
    {"exercise": "v7_bert_layer/10-additive-mask",
     "edits": [("attention_mask = (~attention_mask).to(scores.dtype)",
                "attention_mask = attention_mask.to(scores.dtype)")],
     "hint": ("A boolean mask is read the wrong way round: True marks a key that is seen (as in "
              "PyTorch's scaled_dot_product_attention), so the lowest float goes where the mask "
              "is False.",
              "布尔掩码读反了：True 表示看得见这个键（和 PyTorch 的 "
              "scaled_dot_product_attention 一样），所以最小的浮点数要放在掩码为 False 的地方。"),
     "doc": ("v7_bert_layer", "Stage 3 (optional): decoding (steps 10 to 12)",
             "阶段三（选读）：解码（步骤 10 到 12）")},
    {"exercise": "v7_bert_layer/11-kv-layers",
     "edits": [("k = torch.cat([past_key_value[0], k], dim=2)",
                "k = torch.cat([k, past_key_value[0]], dim=2)"),
               ("v = torch.cat([past_key_value[1], v], dim=2)",
                "v = torch.cat([v, past_key_value[1]], dim=2)")],
     "hint": ("The new keys and values go in front of the cached ones: the cache holds positions "
              "0 to P - 1, so the new ones follow them along the time axis, where the mask "
              "expects them.",
              "新的 key 和 value 放到了缓存的前面：缓存里是位置 0 到 P - 1，新的应沿时间维接在"
              "它们后面，掩码也是这样假定的。"),
     "doc": ("v7_bert_layer", "Stage 3 (optional): decoding (steps 10 to 12)",
             "阶段三（选读）：解码（步骤 10 到 12）")},
    {"exercise": "v7_bert_layer/11-kv-layers",
     "edits": [("max_position_embeddings=block_size,\n            is_decoder=True)",
                "max_position_embeddings=block_size)")],
     "hint": ("The model's layers are not decoders (is_decoder stays False): a layer then hands "
              "back no keys and values, and a cache would have nothing to keep.",
              "模型的各层不是解码器（is_decoder 仍为 False）：层就不返回 key 和 value，"
              "缓存也就无从保存。"),
     "doc": ("v7_bert_layer", "Stage 3 (optional): decoding (steps 10 to 12)",
             "阶段三（选读）：解码（步骤 10 到 12）")},
    {"exercise": "v7_bert_layer/12-kv-cache",
     "edits": [("positions = torch.arange(P, P + T, device=input_ids.device)",
                "positions = torch.arange(T, device=input_ids.device)")],
     "hint": ("The new characters get positions 0, 1, ... again: after P cached ones they stand "
              "at positions P to P + T - 1 (past_key_values_length), and their position "
              "embeddings must say so.",
              "新字符的位置又从 0 开始编号了：前面已缓存 P 个，它们的位置是 P 到 P + T - 1"
              "（past_key_values_length），位置嵌入要按这个取。"),
     "doc": ("v7_bert_layer", "Stage 3 (optional): decoding (steps 10 to 12)",
             "阶段三（选读）：解码（步骤 10 到 12）")},
    {"exercise": "v7_bert_layer/12-kv-cache",
     "edits": [(".triu(P + 1)", ".triu(1)")],
     "hint": ("The mask ignores the cache: with P keys cached, row t (position P + t) sees keys "
              "0 to P + t, so the T by P + T mask has its diagonal moved P places to the right.",
              "掩码没有考虑缓存：缓存了 P 个键时，第 t 行（位置 P + t）看得见键 0 到 P + t，"
              "所以 T 行 P + T 列的掩码，对角线要向右移 P 格。"),
     "doc": ("v7_bert_layer", "Stage 3 (optional): decoding (steps 10 to 12)",
             "阶段三（选读）：解码（步骤 10 到 12）")},
    {"exercise": "v7_bert_layer/12-kv-cache",
     "edits": [("        if past_key_values is not None:\n"
                "            past_key_values[:] = presents", "")],
     "hint": ("The cache is never filled: forward puts each layer's (k, v) back into "
              "past_key_values, in place, or the next call starts from nothing and the new "
              "character sees no context.",
              "缓存从来没有填进去：forward 要把每层的 (k, v) 原地放回 past_key_values，否则下一次"
              "调用又从零开始，新字符看不到任何上文。"),
     "doc": ("v7_bert_layer", "Stage 3 (optional): decoding (steps 10 to 12)",
             "阶段三（选读）：解码（步骤 10 到 12）")},
    {"exercise": "v7_bert_layer/13-chunked-ffn",
     "edits": [("max_position_embeddings=block_size, chunk_size_feed_forward=chunk_size_ff,",
                "max_position_embeddings=block_size,")],
     "hint": ("The chunk size never reaches the config: the layers keep BertConfig's 0 and run "
              "the FFN on every position at once. The numbers agree either way; the memory "
              "saving never comes.",
              "分段长度没有传进 config：各层保留 BertConfig 的 0，前馈网络一次算完所有位置。"
              "数值两种都一样，只是省不了内存。"),
     "doc": ("v7_bert_layer", "Appendix (optional): HF's machinery (steps 13 to 15)",
             "附录（选读）：HF 的配套机制（步骤 13 到 15）")},
    {"exercise": "v7_bert_layer/14-cross-attention",
     "edits": [("k = self.transpose_for_scores(self.key(encoder_hidden_states))",
                "k = self.transpose_for_scores(self.key(hidden_states))"),
               ("v = self.transpose_for_scores(self.value(encoder_hidden_states))",
                "v = self.transpose_for_scores(self.value(hidden_states))")],
     "hint": ("Cross-attention takes its keys and values from the decoder's own states: only the "
              "queries come from the decoder; keys and values come from the encoder's output, "
              "encoder_hidden_states.",
              "交叉注意力的 key 和 value 取自解码器自己的状态：只有 query 来自解码器，key 和 "
              "value 要来自编码器的输出，即 encoder_hidden_states。"),
     "doc": ("v7_bert_layer", "Appendix (optional): HF's machinery (steps 13 to 15)",
             "附录（选读）：HF 的配套机制（步骤 13 到 15）")},
    {"exercise": "v7_bert_layer/14-cross-attention",
     "edits": [("            attention_mask = encoder_attention_mask\n", "")],
     "hint": ("Cross-attention uses the decoder's mask: its keys are the encoder's S positions, "
              "so it is masked by encoder_attention_mask, not by the causal mask.",
              "交叉注意力用了解码器的掩码：它的键是编码器的 S 个位置，所以要用 "
              "encoder_attention_mask 做掩码，而不是因果掩码。"),
     "doc": ("v7_bert_layer", "Appendix (optional): HF's machinery (steps 13 to 15)",
             "附录（选读）：HF 的配套机制（步骤 13 到 15）")},
    {"exercise": "v7_bert_layer/14-cross-attention",
     "edits": [("attention_output = cross_attention_outputs[0]  # (B, T, C)",
                "cross_output = cross_attention_outputs[0]  # (B, T, C)")],
     "hint": ("The FFN reads self-attention's output, so cross-attention's is computed and "
              "thrown away: the FFN reads what cross-attention returns (its own residual and "
              "LayerNorm included).",
              "前馈网络读的是自注意力的输出，交叉注意力算完就被丢掉了：前馈网络要读交叉注意力的"
              "输出（其中已含它自己的残差连接和层规范化）。"),
     "doc": ("v7_bert_layer", "Appendix (optional): HF's machinery (steps 13 to 15)",
             "附录（选读）：HF 的配套机制（步骤 13 到 15）")},
    {"exercise": "v7_bert_layer/15-hf-interface",
     "edits": [("        probs = self.dropout(F.softmax(scores, dim=-1))  # (B, nh, T, S)\n"
                "        if head_mask is not None:\n"
                "            probs = probs * head_mask  # (B, nh, T, S): a 0 silences a head\n",
                "        if head_mask is not None:\n"
                "            scores = scores * head_mask  # (B, nh, T, S)\n"
                "        probs = self.dropout(F.softmax(scores, dim=-1))  # (B, nh, T, S)\n")],
     "hint": ("The head mask scales the scores, before the softmax: a head scaled by 0 then "
              "attends evenly to every key instead of falling silent. It multiplies the "
              "attention weights, after the softmax and dropout.",
              "head_mask 乘在了 softmax 之前的分数上：乘 0 的头于是平均关注所有键，而不是沉默。"
              "它应乘在注意力权重上，在 softmax 和 dropout 之后。"),
     "doc": ("v7_bert_layer", "Appendix (optional): HF's machinery (steps 13 to 15)",
             "附录（选读）：HF 的配套机制（步骤 13 到 15）")},
    {"exercise": "v7_bert_layer/15-hf-interface",
     "edits": [("outputs = (context, probs) if output_attentions",
                "outputs = (context, scores) if output_attentions")],
     "hint": ("output_attentions hands back the scores from before the softmax: what it returns "
              "are the attention weights, each row summing to 1 (after dropout and the head "
              "mask).",
              "output_attentions 返回的是 softmax 之前的分数：应返回注意力权重，每一行之和为 1"
              "（经过 dropout 和 head_mask 之后）。"),
     "doc": ("v7_bert_layer", "Appendix (optional): HF's machinery (steps 13 to 15)",
             "附录（选读）：HF 的配套机制（步骤 13 到 15）")},
    {"exercise": "v7_bert_layer/15-hf-interface",
     "edits": [("attention_output, attention_mask, head_mask, encoder_hidden_states,",
                "attention_output, attention_mask, None, encoder_hidden_states,")],
     "hint": ("Cross-attention never gets the head mask: a layer hands the same head_mask to "
              "both its attentions, self and cross.",
              "交叉注意力没有拿到 head_mask：一层的两个注意力，自注意力和交叉注意力，"
              "用的是同一个 head_mask。"),
     "doc": ("v7_bert_layer", "Appendix (optional): HF's machinery (steps 13 to 15)",
             "附录（选读）：HF 的配套机制（步骤 13 到 15）")},
    # ---- v8_bert_mlm
    {"exercise": "v8_bert_mlm/01-mlm-target",
     "edits": [("block_size = 32  # T:", "block_size = 8  # T:")],
     "hint": ("The window is still v7's 8 characters: 15% of 8 rounds to a single target per "
              "window. This step widens it to 32, so that each window has 5 chosen positions.",
              "窗口还是 v7 的 8 个字符：8 的 15% 四舍五入后，每个窗口只有一个目标。这一步把窗口"
              "放宽到 32，每个窗口就有 5 个选中的位置。"),
     "doc": ("v8_bert_mlm", "The steps", "逐步看改了什么")},
    {"exercise": "v8_bert_mlm/01-mlm-target",
     "edits": [('chars = "_" + "".join(sorted(set(text)))', 'chars = "".join(sorted(set(text)))')],
     "hint": ("The vocabulary has no mask token: id 0 is then the text's first character (the "
              "newline), and a hidden character reads as a real newline. The mask token _ comes "
              "first, at id 0, before the text's own characters.",
              "词表里没有掩蔽词元：id 0 就成了文本里的第一个字符（换行符），藏起来的字符看上去"
              "就是一个真的换行。掩蔽词元 _ 要排在最前面，占 id 0，后面才是文本自己的字符。"),
     "doc": ("v8_bert_mlm", "The steps", "逐步看改了什么")},
    {"exercise": "v8_bert_mlm/01-mlm-target",
     "edits": [("k = max(1, round(args.mask_prob * shape[1]))",
                "k = max(1, int(args.mask_prob * shape[1]))")],
     "hint": ("The number of chosen positions is rounded down: 15% of 32 is 4.8, which BERT's "
              "data script rounds to 5; rounding down chooses 4.",
              "选中位置的个数被向下取整了：32 的 15% 是 4.8，BERT 的数据脚本四舍五入成 5；"
              "向下取整只选 4 个。"),
     "doc": ("v8_bert_mlm", "The steps", "逐步看改了什么")},
    {"exercise": "v8_bert_mlm/01-mlm-target",
     "edits": [("y = torch.where(chosen, x, -100)", "y = x")],
     "hint": ("Every position is a target: the loss also scores the characters the model can "
              "see, where copying its input is enough. Only the chosen positions get a target; "
              "the others hold -100, which cross-entropy skips.",
              "每个位置都成了目标：损失也去考那些模型看得见的字符，照抄输入就能答对。只有选中的"
              "位置才有目标；其余位置填 -100，交叉熵会跳过它们。"),
     "doc": ("v8_bert_mlm", "The steps", "逐步看改了什么")},
    {"exercise": "v8_bert_mlm/01-mlm-target",
     "edits": [("y = torch.where(chosen, x, -100)", "y = torch.where(chosen, -100, x)")],
     "hint": ("The targets are the wrong way round: the loss scores the characters left in "
              "view and skips the hidden ones, the very ones the model has to guess.",
              "目标正好反了：损失考的是留在输入里的字符，跳过的却是藏起来的字符，而那正是模型"
              "要猜的。"),
     "doc": ("v8_bert_mlm", "The steps", "逐步看改了什么")},
    {"exercise": "v8_bert_mlm/01-mlm-target",
     "edits": [("    x = torch.where(chosen, 0, x)  # (B, T): every chosen character hidden by "
                "the mask token\n", "")],
     "hint": ("The chosen characters are never hidden: the input still shows each character the "
              "loss asks for. At the chosen positions the input is the mask token.",
              "选中的字符没有藏起来：损失要考的字符仍然摆在输入里。选中位置的输入应是掩蔽词元。"),
     "doc": ("v8_bert_mlm", "The steps", "逐步看改了什么")},
    {"exercise": "v8_bert_mlm/02-fill-in",
     "edits": [("filled = torch.where(ids == 0, top_i[..., 0] + 1, ids)",
                "filled = torch.where(ids == 0, top_i[..., 0], ids)"),
               ("return filled, top_p, top_i + 1", "return filled, top_p, top_i")],
     "hint": ("Each guess is one character off: the probabilities leave out the mask token, "
              "column 0, so index i among them is the character with id i + 1.",
              "每个猜测都错开了一个字符：概率里去掉了掩蔽词元（第 0 列），所以其中的第 i 个是 "
              "id 为 i + 1 的字符。"),
     "doc": ("v8_bert_mlm", "The steps", "逐步看改了什么")},
    {"exercise": "v8_bert_mlm/02-fill-in",
     "edits": [("probs = F.softmax(logits[..., 1:], dim=-1)", "probs = F.softmax(logits, dim=-1)"),
               ("filled = torch.where(ids == 0, top_i[..., 0] + 1, ids)",
                "filled = torch.where(ids == 0, top_i[..., 0], ids)"),
               ("return filled, top_p, top_i + 1", "return filled, top_p, top_i")],
     "hint": ("The mask token is among the guesses: a blank could be filled with another blank, "
              "and its probability takes a share from the characters. Leave it out of the "
              "softmax: the model never sees it in real text.",
              "掩蔽词元也在候选之列：空可能被填成另一个空，它的概率还分走了真实字符的一部分。"
              "做 softmax 时把它去掉：真实文本里从不出现掩蔽词元。"),
     "doc": ("v8_bert_mlm", "The steps", "逐步看改了什么")},
    {"exercise": "v8_bert_mlm/02-fill-in",
     "edits": [("filled = torch.where(ids == 0, top_i[..., 0] + 1, ids)",
                "filled = top_i[..., 0] + 1")],
     "hint": ("Every position is overwritten by the model's guess: only the blanks (the mask "
              "token) are to be filled; the characters given stay as they are.",
              "每个位置都被换成了模型的猜测：只有空（掩蔽词元）才要填，给出的字符保持原样。"),
     "doc": ("v8_bert_mlm", "The steps", "逐步看改了什么")},
    {"exercise": "v8_bert_mlm/02-fill-in",
     "edits": [("right = (filled == text)[chosen.to(args.device)].sum().item()",
                "right = (filled == text).sum().item()")],
     "hint": ("The count of right answers takes in every position: the characters never hidden "
              "are always right. Count the chosen positions only.",
              "数填对的个数时算上了所有位置：没被藏起来的字符总是对的。只数选中的位置。"),
     "doc": ("v8_bert_mlm", "The steps", "逐步看改了什么")},
    {"exercise": "v8_bert_mlm/03-80-10-10",
     "edits": [("x = torch.where(chosen & (roll < 0.8), 0, x)",
                "x = torch.where(chosen & (roll < 0.1), 0, x)"),
               ("x = torch.where(chosen & (roll >= 0.9), noise, x)",
                "x = torch.where(chosen & (roll >= 0.2), noise, x)")],
     "hint": ("The shares are swapped: 10% of the chosen show the mask token and 80% a random "
              "character. BERT hides 80%, replaces 10% and leaves 10%.",
              "比例弄反了：选中的位置只有 10% 换成掩蔽词元，80% 换成随机字符。BERT 是 80% 藏起来、"
              "10% 换掉、10% 不动。"),
     "doc": ("v8_bert_mlm", "The steps", "逐步看改了什么")},
    {"exercise": "v8_bert_mlm/03-80-10-10",
     "edits": [("x = torch.where(chosen & (roll >= 0.9), noise, x)",
                "x = torch.where(roll >= 0.9, noise, x)")],
     "hint": ("A tenth of all positions get a random character, chosen or not: the unchosen are "
              "never scored, and damaging them only spoils the context. Replace chosen positions "
              "only.",
              "所有位置都有十分之一换成了随机字符，不管选没选中：没选中的位置不计损失，弄坏它们"
              "只会破坏上下文。只替换选中的位置。"),
     "doc": ("v8_bert_mlm", "The steps", "逐步看改了什么")},
    {"exercise": "v8_bert_mlm/03-80-10-10",
     "edits": [("noise = data[torch.randint(len(data), x.shape, generator=generator)]",
                "noise = torch.randint(len(data), x.shape, generator=generator)")],
     "hint": ("The random replacements are positions in the text, not characters: most are far "
              "beyond the vocabulary. Draw a position, then take the character that stands "
              "there, so characters come by their frequency.",
              "随机替换用的是文本里的位置，而不是字符：大多远远超出词表。先抽一个位置，再取那里"
              "的字符，这样字符就按它们的频率出现。"),
     "doc": ("v8_bert_mlm", "The steps", "逐步看改了什么")},
    {"exercise": "v8_bert_mlm/04-both-ways",
     "edits": [("mask = None  # without one, every position sees every position",
                "mask = torch.full((T, T), torch.finfo(x.dtype).min).triu(1)  # causal")],
     "hint": ("The causal mask is still there: a blank sees only its left side, though the "
              "characters on its right tell as much. With the targets hidden, attention may "
              "look both ways.",
              "因果掩码还在：空位只看得见左边，可右边的字符同样有用。要猜的字符已经藏起来了，"
              "注意力可以双向地看。"),
     "doc": ("v8_bert_mlm", "Attention both ways", "双向注意力")},
    {"exercise": "v8_bert_mlm/04-both-ways",
     "edits": [("is_decoder=False)  # a cache would go stale", "is_decoder=True)  # a cache would "
                "go stale")],
     "hint": ("The layers are still built as a decoder: they hand on their keys and values as "
              "a cache. Seeing both ways, a later character changes earlier keys and values, so "
              "a cache would go stale: build them as an encoder.",
              "各层仍按解码器构建：它们把键和值当作缓存传出去。双向注意力下，后面的字符会改变"
              "前面位置的键和值，缓存会过时：应按编码器构建。"),
     "doc": ("v8_bert_mlm", "The steps", "逐步看改了什么")},
    {"exercise": "v8_bert_mlm/05-fill-in-prompt",
     "edits": [("for t in (ids[0] == 0).nonzero()[:, 0].tolist():",
                "for t in range(ids.shape[1]):")],
     "hint": ("A line of guesses comes for every position of the prompt: only the blanks, the "
              "positions holding the mask token, get one.",
              "提示词的每个位置都输出了一行猜测：只有空，也就是放着掩蔽词元的位置，才输出。"),
     "doc": ("v8_bert_mlm", "Fill in", "填空")},
    {"exercise": "v8_bert_mlm/06-no-cross-attention",
     "edits": [("    def forward(self, hidden_states, attention_mask=None, head_mask=None, "
                "past_key_value=None,\n                output_attentions=False):\n"
                "        self_attn_past_key_value",
                "    def forward(self, hidden_states, attention_mask=None, head_mask=None,\n"
                "                encoder_hidden_states=None, encoder_attention_mask=None, "
                "past_key_value=None,\n                output_attentions=False):\n"
                "        self_attn_past_key_value")],
     "hint": ("BertLayer still takes encoder_hidden_states and now ignores them: a caller who "
              "passes an encoder's output gets self-attention alone, without a word. With "
              "cross-attention gone, no layer should accept them.",
              "BertLayer 仍然接受 encoder_hidden_states，却不再用它：调用者传进编码器的输出，"
              "得到的只是自注意力的结果，而且毫无提示。交叉注意力删掉之后，哪一层都不该再接受"
              "这个参数。"),
     "doc": ("v8_bert_mlm", "The steps", "逐步看改了什么")},
    {"exercise": "v8_bert_mlm/07-no-cache",
     "edits": [("    def forward(self, hidden_states, attention_mask=None, head_mask=None,\n"
                "                output_attentions=False):\n"
                "        self_attention_outputs",
                "    def forward(self, hidden_states, attention_mask=None, head_mask=None, "
                "past_key_value=None,\n                output_attentions=False):\n"
                "        self_attention_outputs")],
     "hint": ("BertLayer still takes past_key_value and now ignores it: a caller who hands it "
              "a cache gets attention over the new positions alone, without a word. An encoder "
              "keeps no cache, so no layer should accept one.",
              "BertLayer 仍然接受 past_key_value，却不再用它：调用者传进缓存，注意力却只看新的"
              "位置，而且毫无提示。编码器没有缓存，哪一层都不该再接受它。"),
     "doc": ("v8_bert_mlm", "The steps", "逐步看改了什么")},
    {"exercise": "v8_bert_mlm/08-bert-init",
     "edits": [("if isinstance(module, (nn.Linear, nn.Embedding)):",
                "if isinstance(module, nn.Linear):")],
     "hint": ("The embeddings keep PyTorch's N(0, 1) start, fifty times BERT's 0.02: BERT draws "
              "the embeddings' weights from N(0, 0.02) too, as it does every Linear's.",
              "嵌入还是 PyTorch 的 N(0, 1) 初始值，是 BERT 的 0.02 的五十倍：BERT 的嵌入权重和"
              "每个线性层的权重一样，都取自均值 0、标准差 0.02 的正态分布。"),
     "doc": ("v8_bert_mlm", "The steps", "逐步看改了什么")},
    {"exercise": "v8_bert_mlm/08-bert-init",
     "edits": [("        if isinstance(module, nn.Linear) and module.bias is not None:\n"
                "            module.bias.data.zero_()\n", "")],
     "hint": ("The biases keep PyTorch's uniform start: BERT starts every Linear's bias at 0.",
              "偏置还是 PyTorch 的均匀分布初始值：BERT 把每个线性层的偏置都初始化为 0。"),
     "doc": ("v8_bert_mlm", "The steps", "逐步看改了什么")},
    {"exercise": "v8_bert_mlm/08-bert-init",
     "edits": [("if isinstance(module, (nn.Linear, nn.Embedding)):",
                "if isinstance(module, (nn.Linear, nn.Embedding, nn.LayerNorm)):")],
     "hint": ("The LayerNorms are drawn from N(0, 0.02) too: their scale then starts near 0 and "
              "all but silences each output. BERT leaves LayerNorm at its scale 1 and shift 0.",
              "层规范化也取自均值 0、标准差 0.02 的正态分布：它的拉伸参数一开始就接近 0，"
              "几乎把每个输出都压没了。BERT 让层规范化保持拉伸参数 1、偏移参数 0。"),
     "doc": ("v8_bert_mlm", "The steps", "逐步看改了什么")},
    {"exercise": "v8_bert_mlm/08-bert-init",
     "edits": [("        self.lm_head = nn.Linear(n_embd, vocab_size)\n"
                "        self.apply(self._init_weights)\n",
                "        self.apply(self._init_weights)\n"
                "        self.lm_head = nn.Linear(n_embd, vocab_size)\n")],
     "hint": ("The init runs before the head exists: lm_head keeps PyTorch's start. Apply it "
              "once every module is built.",
              "初始化在输出层建好之前就做了：lm_head 仍是 PyTorch 的初始值。要等所有模块都建好"
              "之后再做。"),
     "doc": ("v8_bert_mlm", "The steps", "逐步看改了什么")},
    {"exercise": "v8_bert_mlm/09-mlm-transform",
     "edits": [("        self.decoder.bias = self.bias  # one tensor, two names, as in HF: "
                "both keys are saved\n", "")],
     "hint": ("The bias is made but the decoder never adds it: no character's score gets a bias "
              "of its own, and the bias never learns. The decoder's bias is the head's bias.",
              "偏置建了，decoder 却从没加上它：每个字符的分数都没有自己的偏置，这个偏置也学不到"
              "东西。decoder 的偏置就是掩蔽语言模型头的 bias。"),
     "doc": ("v8_bert_mlm", "The steps", "逐步看改了什么")},
    {"exercise": "v8_bert_mlm/09-mlm-transform",
     "edits": [("return self.decoder(self.transform(hidden_states))",
                "return self.decoder(hidden_states)")],
     "hint": ("The transform is made but never applied: the last layer's output goes through "
              "dense, the activation and LayerNorm before the decoder scores it.",
              "transform 建了却没用：最后一层的输出要先经过 dense、激活函数和层规范化，再由 "
              "decoder 打分。"),
     "doc": ("v8_bert_mlm", "The steps", "逐步看改了什么")},
    {"exercise": "v8_bert_mlm/09-mlm-transform",
     "edits": [("hidden_states = self.transform_act_fn(self.dense(hidden_states))",
                "hidden_states = self.dense(hidden_states)")],
     "hint": ("The transform has no activation: dense then LayerNorm, with nothing between them "
              "that is not linear. HF's transform applies the activation (GELU) after dense.",
              "transform 缺了激活函数：dense 之后直接层规范化，中间没有任何非线性。HF 的 "
              "transform 在 dense 之后接激活函数（GELU）。"),
     "doc": ("v8_bert_mlm", "The steps", "逐步看改了什么")},
    {"exercise": "v8_bert_mlm/09-mlm-transform",
     "edits": [("return self.LayerNorm(hidden_states)  # (B, T, C)", "return hidden_states")],
     "hint": ("The transform's LayerNorm is made but never applied: the activation's output is "
              "normalised before the decoder scores it.",
              "transform 的层规范化建了却没用：激活函数的输出要先做层规范化，再由 decoder 打分。"),
     "doc": ("v8_bert_mlm", "The steps", "逐步看改了什么")},
    {"exercise": "v8_bert_mlm/10-tied-decoder",
     "edits": [("        self.cls.predictions.decoder.weight = "
                "self.embeddings.word_embeddings.weight\n", "")],
     "hint": ("The decoder has a weight of its own: it should be the word embeddings' matrix "
              "itself (tied), one (V, C) tensor that both reads characters in and scores them.",
              "decoder 有了自己的权重：它应该就是词元嵌入矩阵本身（权重绑定），同一个 (V, C) "
              "张量既把字符读进来，又给字符打分。"),
     "doc": ("v8_bert_mlm", "The steps", "逐步看改了什么")},
    {"exercise": "v8_bert_mlm/11-token-types",
     "edits": [("x = self.word_embeddings(input_ids) + self.token_type_embeddings(token_type_ids)",
                "x = self.word_embeddings(input_ids)")],
     "hint": ("The token type embeddings are made but never added: each position adds its "
              "type's row (type 0 here) to its word embedding, or a real checkpoint's "
              "embeddings come out wrong.",
              "片段嵌入建了却没加：每个位置都要把它所属片段的那一行（这里是片段 0）加到词元嵌入上，"
              "否则装进真正的检查点后，嵌入就算错了。"),
     "doc": ("v8_bert_mlm", "The steps", "逐步看改了什么")},
    {"exercise": "v8_bert_mlm/11-token-types",
     "edits": [("        if token_type_ids is None:\n"
                "            token_type_ids = torch.zeros_like(input_ids)",
                "        token_type_ids = torch.zeros_like(input_ids)")],
     "hint": ("The token_type_ids passed in are ignored: every position gets type 0 even where "
              "the caller says sentence B. All 0 is only the default.",
              "传进来的 token_type_ids 被忽略了：即使调用者标明是句子 B，每个位置也都成了片段 0。"
              "全为 0 只是默认值。"),
     "doc": ("v8_bert_mlm", "The steps", "逐步看改了什么")},
    {"exercise": "v8_bert_mlm/11-token-types",
     "edits": [("hide = 1.0 - attention_mask[:, None, None, :].to(x.dtype)",
                "hide = attention_mask[:, None, None, :].to(x.dtype)")],
     "hint": ("The padding mask is the wrong way round: attention_mask is 1 for a token and 0 "
              "for padding, so it is the padding's keys that are hidden, not the tokens'.",
              "填充掩码反了：attention_mask 在词元处为 1、填充处为 0，要藏起来的是填充位置的 "
              "key，而不是词元的。"),
     "doc": ("v8_bert_mlm", "The steps", "逐步看改了什么")},
    {"exercise": "v8_bert_mlm/11-token-types",
     "edits": [("hide = 1.0 - attention_mask[:, None, None, :].to(x.dtype)",
                "hide = 1.0 - attention_mask[:, None, :, None].to(x.dtype)")],
     "hint": ("The padding mask lies along the queries: the padding positions then see nothing "
              "while every token still reads the padding. It hides the padding's keys, the last "
              "dimension of the scores, from every query.",
              "填充掩码加在了 query 那一维：填充位置什么都看不到，每个词元却仍在读填充位置。"
              "它应该让每个 query 都看不到填充位置的 key，也就是分数的最后一维。"),
     "doc": ("v8_bert_mlm", "The steps", "逐步看改了什么")},
]


# ------------------------------------------------------------------ the rungs' other calls
GENERATE = [  # a causal rung's generation, with and without a prompt; a window shorter than T
    "m.sample(model, chars, args)",
    "m.sample(model, chars, type(args)(**{**vars(args), 'prompt': chars[20:23]}))",
    "model(x[:, :3])[0]"]
CALLS = {  # rung: expressions a check evaluates on the target and on the learner's file alike
    # (model: the target's weights, in training mode, as main() hands it to sample(); m: the
    # module; x, y: a batch; fill(model): weights set from each parameter's name)
    "v4_multihead": GENERATE,
    "v5_ffn": GENERATE,
    "v6_block": GENERATE,
    # ---- v7_bert_layer
    "v7_bert_layer": [  # h: a (2, 5, 12) tensor. A call valid from step k on raises before it
        *GENERATE,
        # step 8: a layer takes an additive mask (zeros: nothing hidden), or a boolean one
        "model.encoder.layer[0](h, torch.zeros(5, 5))",
        "model.encoder.layer[0](h, torch.ones(5, 5, dtype=torch.bool).tril())",
        # step 9: a decoder layer returns its (k, v) and takes them back as past_key_value
        "(lambda L: L(h[:, 3:], torch.full((2, 5), -1e9).triu(4), "
        "past_key_value=L(h[:, :3])[-1]))(model.encoder.layer[0])",
        # step 10: the model's cache (2 positions, then 3 more), and generating with it or not
        "(lambda c: (model(x[:, :2], past_key_values=c)[0], "
        "model(x[:, 2:], past_key_values=c)[0], c))([])",
        "model.generate(x[:, :2], 6, greedy=True)",
        "model.generate(x[:, :2], 6, greedy=True, use_cache=False)",
        # step 12: a cross-attention layer, with an encoder mask, then decoding with its cache
        "fill(m.BertLayer(m.BertConfig(hidden_size=12, num_attention_heads=3, "
        "intermediate_size=20, is_decoder=True, add_cross_attention=True))).eval()("
        "h[:, :2], encoder_hidden_states=h[:, 2:], "
        "encoder_attention_mask=torch.tensor([0.0, -1e9, 0.0]))",
        "(lambda L: L(h[:, 1:2], encoder_hidden_states=h[:, 2:], "
        "past_key_value=L(h[:, :1], encoder_hidden_states=h[:, 2:])[-1]))("
        "fill(m.BertLayer(m.BertConfig(hidden_size=12, num_attention_heads=3, "
        "intermediate_size=20, is_decoder=True, add_cross_attention=True))).eval())",
        # step 13: head_mask and output_attentions, in self- and in cross-attention
        "model.encoder.layer[0](h, torch.full((5, 5), -1e9).triu(1), "
        "head_mask=torch.tensor([1.0, 0.0, 0.5])[:, None, None], output_attentions=True)",
        "fill(m.BertLayer(m.BertConfig(hidden_size=12, num_attention_heads=3, "
        "intermediate_size=20, is_decoder=True, add_cross_attention=True))).eval()("
        "h[:, :2], head_mask=torch.tensor([1.0, 0.0, 0.5])[:, None, None], "
        "encoder_hidden_states=h[:, 2:], output_attentions=True)",
        # the config (fields from steps 1, 3, 6, 7, 9, 11, 12), and each LayerNorm's eps
        "vars(model.config)",
        "[n.eps for n in model.modules() if isinstance(n, torch.nn.LayerNorm)]",
        # step 7: an unknown activation is a ValueError; a callable is used as it is
        "m.BertIntermediate(m.BertConfig(hidden_size=12, intermediate_size=20, "
        "hidden_act='no-such-act'))",
        "fill(m.BertIntermediate(m.BertConfig(hidden_size=12, intermediate_size=20, "
        "hidden_act=torch.tanh)))(h)",
    ],
    # ---- v8_bert_mlm
    "v8_bert_mlm": [
        "m.read_data(args.data)[0]",  # the vocabulary: the mask token _ at id 0
        "m.decode(m.fill_in(model, x.masked_fill(torch.arange(5) % 2 == 0, 0))[0].flatten()"
        ".tolist(), chars)",  # blanks at 0, 2 and 4 filled in, as text
        "m.fill_in(model, x.masked_fill(torch.arange(5) % 2 == 0, 0))",
        "m.sample(model, chars, args)",
        "m.sample(model, chars, type(args)(**{**vars(args), 'prompt': 'TH_ _'}))",
        "m.sample(model, chars, type(args)(**{**vars(args), 'prompt': 'T_E'}))",  # short
        "model(x[:, :3])[0]",  # a window shorter than block_size
        "vars(model.config)",  # its fields, as v7's calls read them
        "[n.eps for n in model.modules() if isinstance(n, torch.nn.LayerNorm)]",
        # round(mask_prob * T), at least 1: 8 characters give 1, 4 at 0.1 give 1 too, and
        "[m.choose_positions((2, T), type(args)(**{**vars(args), 'mask_prob': p}), "
        "torch.Generator().manual_seed(0)) for T, p in ((8, 0.15), (4, 0.1), (32, 0.15), "
        "(10, 0.25))]",  # 2.5: Python's round() gives 2 (half to even), not 3
        # logits that rank the mask token first: a blank is never filled with it
        "m.fill_in(lambda ids, *a, **k: (torch.arange(len(chars), 0, -1.0).expand("
        "*ids.shape, -1), None), x.masked_fill(torch.arange(5) % 2 == 0, 0))",
        "model.encoder.layer[0](h, encoder_hidden_states=h)",  # no cross-attention left
        "model.encoder.layer[0](h, past_key_value=(h.view(2, 5, 3, 4).transpose(1, 2),) * 2)",
        "model(x, token_type_ids=torch.tensor([[0, 0, 1, 1, 1], [0, 1, 1, 1, 1]]))[0]",
        "model(x, attention_mask=torch.tensor([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1]]))[0]",
    ],
}


# ------------------------------------------------------------------ the checker's words
def word(name, zh=False):
    """A parameter's place in the doc's words: blocks.1.ffwd.net.0.weight -> layer 1, the FFN."""
    parts, said = name.split("."), []
    for i, part in enumerate(parts):
        if part in WORDS:
            said.append(WORDS[part][zh])
        if part.isdigit() and parts[i - 1] in ("blocks", "layer"):
            said.append(f"第 {part} 层" if zh else f"layer {part}")
    return ("，" if zh else ", ").join(said) or ("模型" if zh else "the model")


WORDS = {  # a module's name in the code: (English, Chinese), as the docs call it
    "token_embedding_table": ("the token embeddings", "词元嵌入"),
    "position_embedding_table": ("the position embeddings", "位置嵌入"),
    "lm_head": ("the head to logits", "输出层"), "sa_head": ("the attention head", "注意力头"),
    "sa_heads": ("multi-head attention", "多头注意力"), "sa": ("attention", "注意力"),
    "heads": ("a head", "一个头"), "query": ("the query", "查询"), "key": ("the key", "键"),
    "value": ("the value", "值"), "proj": ("attention's output projection", "注意力的输出投影"),
    "ffwd": ("the FFN", "前馈网络"), "ln1": ("the LayerNorm before attention", "注意力前的层规范化"),
    "ln2": ("the LayerNorm before the FFN", "前馈网络前的层规范化"),
    "ln_f": ("the final LayerNorm", "最后的层规范化"), "embeddings": ("the embeddings", "嵌入"),
    "attention": ("attention", "注意力"), "intermediate": ("the FFN's first half", "前馈网络的前半"),
    "output": ("the output", "输出"), "LayerNorm": ("a LayerNorm", "层规范化"),
    "cls": ("the masked-LM head", "掩蔽语言模型头"), "crossattention": ("cross-attention", "交叉注意力"),
    "self": ("self-attention (BertSelfAttention)", "自注意力（BertSelfAttention）"),
    "dense": ("its Linear (dense)", "它的全连接层（dense）"),
    "word_embeddings": ("the word embeddings", "词元嵌入"),
    "position_embeddings": ("the position embeddings", "位置嵌入"),
    "token_type_embeddings": ("the token type embeddings", "片段嵌入"),
    "transform": ("the transform before the decoder", "输出投影前的变换"),
    "decoder": ("the decoder (its weight: the word embeddings)", "输出投影（权重就是词元嵌入）"),
}

TEXT = {  # key: (English, Chinese); {names} are filled in by the checker
    "stage:imports": ("it imports without training", "导入时不训练"),
    "stage:hyperparameters": ("hyperparameters and MODEL_ARGS", "超参数和 MODEL_ARGS"),
    "stage:parameters": ("parameters: names and shapes", "参数：名字和形状"),
    "stage:initial weights": ("initial weights: the scale of each tensor",
                              "初始权重：每个张量的尺度"),
    "stage:layers": ("layers: each one's settings (eps, p, bias, form)",
                     "各层的设置（eps、p、bias、形式）"),
    "stage:outputs": ("outputs from the same weights: every module, logits, loss, gradients",
                      "相同权重下的输出：每个模块、logits、损失、梯度"),
    "stage:data": ("data: read_data's vocabulary and splits", "数据：read_data 的词表和切分"),
    "drawn_otherwise": ("  ok     batches: drawn another way than the target's, and they keep what "
                        "masking promises (each chosen position a target, the rest -100, the same "
                        "shares hidden, kept and replaced); the training below uses the target's "
                        "batches",
                        "  通过   批量：抽取方式和目标程序不同，但做到了掩蔽应做到的（每个选中的位置都是"
                        "目标，其余是 -100，掩蔽、保留、替换的比例相同）；下面的训练用目标程序的批量"),
    "stage:batches": ("batches: get_batch under the same generator",
                      "批量：同一个随机数生成器下的 get_batch"),
    "stage:causality": ("causality: what a later character may change",
                        "因果性：后面的字符能改变什么"),
    "stage:calls": ("the rung's other calls", "这一级的其他调用"),
    "stage:training": ("a short training from the same weights and batches",
                       "相同权重和批量下的一段短训练"),
    "stage:runs": ("run as a script: the file itself trains for 2 steps",
                   "当作脚本运行：文件自己训练 2 步"),
    "size:small": ("small", "小"),
    "size:default": ("default", "默认"),
    "ok": ("  ok     {stage}", "  通过   {stage}"),
    "differs": ("  differs  {stage}:\n    {why}", "  不同   {stage}：\n    {why}"),
    "hint": ("hint: {hint}\n      See {doc}.", "提示：{hint}\n      参见 {doc}。"),
    "no_hint": ("read: {path}, where this exercise's idea is explained",
                "参见 {path}，其中讲解了这道练习的想法。"),
    "raised_after": ("  differs  before the error: {module} ({kind}) gives a tensor of shape "
                     "{yours} in yours, {theirs} in the target's, from an input of the same shape",
                     "  不同   出错之前：{module}（{kind}）给出的张量形状，你的是 {yours}，目标程序的"
                     "是 {theirs}，而输入的形状相同"),
    "raised_given": ("  differs  before the error: {module} ({kind}) is given a tensor of shape "
                     "{yours} in yours, {theirs} in the target's. {place}, yours gives it that "
                     "shape",
                     "  不同   出错之前：{module}（{kind}）收到的张量形状，你的是 {yours}，目标程序的"
                     "是 {theirs}。{place}，你的代码给出了这个形状"),
    "raised": ("  your code raised an error (the frames in your file, then the error):\n{error}",
               "  你的代码抛出了错误（先是你文件里的调用帧，然后是错误）：\n{error}"),
    "ended": ("your code ended its process at the stage \"{stage}\" (os._exit(), or a crash in "
              "a library), so nothing could be compared: a lesson's code returns, it does not end "
              "Python",
              "你的代码在“{stage}”这一步结束了自己的进程（os._exit()，或某个库崩溃了），所以没法比较："
              "课程代码应当返回，而不是结束 Python"),
    "too_slow": ("your code was still running after {limit} s, at the stage \"{stage}\": a "
                 "loop that never ends? (a whole check takes a few seconds)",
                 "你的代码在“{stage}”这一步运行超过了 {limit} 秒：是不是有个永不结束的循环？"
                 "（整个检查只需几秒）"),
    "passed": ("passed: your code computes what the target computes.\n"
               "Train it in full:  {run}\n{expect}",
               "通过：你的代码和目标程序算的一样。\n完整训练：  {run}\n{expect}"),
    "expect_rung": ("expect a val loss near {val:.4f} at step {step} (the reference run, seed "
                    "1337; the last decimals vary a little between CPUs); over {seeds} seeds it "
                    "ends from {low:.4f} to {high:.4f}",
                    "预期训练第 {step} 步时验证损失约为 {val:.4f}（参考运行，种子 1337；"
                    "不同 CPU 的最后几位小数会略有不同）；{seeds} 个种子的结果在 {low:.4f} 到 "
                    "{high:.4f} 之间"),
    "expect_step": ("expect a val loss near {mean:.3f} (the reference: {seeds} seeds, "
                    "{low:.3f} to {high:.3f})",
                    "预期验证损失约为 {mean:.3f}（参考：{seeds} 个种子，{low:.3f} 到 {high:.3f}）"),
    "expect_one_seed": ("expect a val loss near {mean:.3f} (the reference ran one seed: no range "
                        "to compare with)",
                        "预期验证损失约为 {mean:.3f}（参考只跑了一个种子，没有范围可比）"),
    "main_on_import": ("line {line} trains when the file is imported: keep main() under "
                       "if __name__ == \"__main__\":, so that importing trains nothing",
                       "第 {line} 行在导入文件时就会训练：把 main() 留在 "
                       "if __name__ == \"__main__\": 之下，导入时就不会训练"),
    "torch_defaults": ("importing your file changes torch's defaults (the default dtype, or "
                       "whether gradients are kept): train.py's lessons leave them as they are",
                       "导入你的文件会改掉 torch 的默认设置（默认数据类型，或是否记录梯度）："
                       "train.py 的课程部分不动它们"),
    "hp_missing": ("the target has a hyperparameter {name} = {value!r}; yours has none",
                   "目标程序有超参数 {name} = {value!r}；你的没有"),
    "hp_type": ("{name} is {yours!r} in yours, {value!r} in the target: the same number, but "
                "a flag's type is its default's ({kind} here)",
                "{name} 在你的程序里是 {yours!r}，目标程序里是 {value!r}：数值一样，但命令行参数的类型"
                "取自默认值（这里是 {kind}）"),
    "hp_value": ("{name} is {yours!r} in yours, {value!r} in the target",
                 "{name} 在你的程序里是 {yours!r}，目标程序里是 {value!r}"),
    "hp_extra": ("yours has a hyperparameter {name} that the target has not",
                 "你的程序有目标程序没有的超参数 {name}"),
    "model_args": ("MODEL_ARGS is {yours} in yours, {value} in the target",
                   "MODEL_ARGS 在你的程序里是 {yours}，目标程序里是 {value}"),
    "param_missing": ("your model has no {name} {shape} ({what})",
                      "你的模型没有 {name} {shape}（{what}）"),
    "param_shape": ("{name} ({what}) is {yours} in yours, {shape} in the target",
                    "{name}（{what}）在你的模型里是 {yours}，目标里是 {shape}"),
    "param_extra": ("your model has {name}, which the target's has not",
                    "你的模型有 {name}，目标模型没有"),
    "param_renamed": ("your model has {extra} where the target has {name} {shape} ({what}): "
                      "the same shape under another name (from v7 on the names are HF's: a "
                      "checkpoint's keys need them)",
                      "你的模型有 {extra}，目标对应的是 {name} {shape}（{what}）：形状相同，名字不同"
                      "（从 v7 起名字跟 HF 一致：检查点的键要用这些名字）"),
    "param_shared": ("your model's {name} is the same tensor as its {first}: one module placed in "
                     "two places shares its weights, where the target has a layer of its own there "
                     "({what}). [layer] * n repeats one object; a loop or a list comprehension "
                     "makes n",
                     "你的模型的 {name} 和它的 {first} 是同一个张量：同一个模块放在两处，权重共用；"
                     "目标在这里是单独的一层（{what}）。[layer] * n 重复的是同一个对象；"
                     "用循环或列表推导式才会建出 n 个"),
    "module_unregistered": ("your model has none of the target's {n} parameters under {module} "
                            "({what}): layers kept in a plain Python list or dict are not "
                            "registered, so parameters() and the state dict miss them; "
                            "nn.ModuleList or nn.Sequential registers them",
                            "你的模型没有目标在 {module} 下的 {n} 个参数（{what}）：放在普通 Python "
                            "列表或字典里的层不会被注册，parameters() 和 state dict 都看不到它们；"
                            "用 nn.ModuleList 或 nn.Sequential 才会注册"),
    "param_instead": ("your model has {extra}, which the target's has not, and no {name} {shape} "
                      "({what}): in the target, {module} is a {kind}. Are the layers in the "
                      "target's order?",
                      "你的模型有目标模型没有的 {extra}，却没有 {name} {shape}（{what}）：目标里的 "
                      "{module} 是 {kind}。层的顺序和目标一致吗？"),
    "nothing": ("module it does not have", "它没有的模块"),
    "init": ("{name} starts with mean, spread and share within one spread {yours}; the "
             "target's {value} (a normal draw has 68% within one spread, a uniform one 58%){more}",
             "{name} 的初始均值、标准差和落在一个标准差内的比例是 {yours}；目标的是 {value}"
             "（正态分布约 68% 落在一个标准差内，均匀分布约 58%）{more}"),
    "init_more": (". In all, {n} of the model's {of} tensors start otherwise than the target's: "
                  "does the init reach each of them?",
                  "。模型的 {of} 个张量里共有 {n} 个和目标的起点不同：初始化作用到它们每一个了吗？"),
    "layers": ("your {name} is {yours}, the target's {value}",
               "你的 {name} 是 {yours}，目标的是 {value}"),
    "data_chars": ("read_data gives a vocabulary of {yours} characters, the target's {value}",
                   "read_data 给出 {yours} 个字符的词表，目标的是 {value} 个"),
    "data_order": ("read_data gives the same characters in another order: {char!r} is id "
                   "{yours} in yours, id {value} in the target's",
                   "read_data 给出的字符相同，顺序不同：{char!r} 在你的词表里是 id {yours}，目标的是 "
                   "id {value}"),
    "data_splits": ("read_data splits the text as {yours} characters, the target as {value}",
                    "read_data 把文本切成 {yours} 个字符，目标切成 {value}"),
    "stage:piece": ("one class, from the target's weights and input", "单个类：用目标的权重和输入"),
    "piece_missing": ("your file has no class {cls} (the target's pieces: {pieces})",
                      "你的文件里没有类 {cls}（目标程序的部件：{pieces}）"),
    "piece_unused": ("the target's model never builds a {cls}, so it has no weights or input to "
                     "check yours with",
                     "目标模型从不构建 {cls}，所以没有权重和输入可用来检查你的"),
    "piece_args": ("your {cls} cannot be built as the target's model builds it, {call}: "
                   "{error}",
                   "你的 {cls} 没法像目标模型那样构建（{call}）：{error}"),
    "piece_params": ("your {cls} holds {yours}, the target's {value}: other parameters, or in "
                     "another order",
                     "你的 {cls} 里是 {yours}，目标的是 {value}：参数不同，或顺序不同"),
    "piece_output": ("your {cls} gives another output from the target's weights and input: {how}",
                     "用目标的权重和输入，你的 {cls} 给出的输出不同：{how}"),
    "piece_passed": ("passed: your {cls} computes what the target's does, from its weights and "
                     "input. Wire it into the model, then check the whole file:  python "
                     "tools/exercise.py {name} --check{lang}",
                     "通过：用目标的权重和输入，你的 {cls} 和目标的算的一样。把它接进模型，再检查整个"
                     "文件：  python tools/exercise.py {name} --check{lang}"),
    "runs": ("run as a script for 2 steps, your file exits with {status} and records {steps} "
             "steps in metrics.csv, the target's {value}: is main() still called under "
             "if __name__ == \"__main__\":?",
             "当作脚本运行 2 步，你的文件退出码为 {status}，metrics.csv 里记了 {steps} 步，目标的是 "
             "{value} 步：main() 还在 if __name__ == \"__main__\": 之下被调用吗？"),
    "peeks": ("a later character changes an earlier position's logits: a position sees the "
              "future (this rung is causal)",
              "后面的字符改变了前面位置的 logits：有位置看到了未来（这一级是因果的）"),
    "random_in_eval": ("in eval mode your model gives other logits each time it runs: dropout "
                       "must be off there (model.eval() turns nn.Dropout off)",
                       "评估模式下你的模型每次给出的 logits 都不一样：那时 dropout 应该关掉"
                       "（model.eval() 会关掉 nn.Dropout）"),
    "blind_self": ("the last position's logits do not change with its own character: a position "
                   "sees itself and the ones before it, so the mask keeps the diagonal",
                   "最后一个位置的 logits 不随它自己的字符变化：每个位置能看到它自己和之前的位置，"
                   "所以掩码要保留对角线"),
    "blind": ("no position's logits change when a later character does: this rung attends both "
              "ways, so nothing should be masked",
              "后面的字符变了，前面位置的 logits 却不变：这一级是双向注意力，不应掩蔽任何位置"),
    "never_called": ("the target calls {name} ({what}); yours never does",
                     "目标程序调用了 {name}（{what}）；你的从没调用"),
    "first_module": ("{why} {evidence}", "{why}{evidence}"),
    "and_causal": ("And {causal}.", "另外，{causal}。"),
    "input_from": ("; yours gives it what the target's {source} gives",
                   "，你的代码喂给它的是目标程序里 {source} 的输出"),
    "traced_from": ("Traced from {name} ({what}), the first module whose output differs{size}: "
                    "its input differs already{source}.",
                    "往回追查：第一个输出不同的模块是 {name}（{what}）{size}，而它的输入就已经"
                    "不同了{source}。"),
    "size_note": (" (at the default sizes only)", "（只在默认尺寸下不同）"),
    "place_in": ("In {name} ({what})", "在 {name}（{what}）里"),
    "place_caller": ("In the forward of {caller} ({what})", "在 {caller}（{what}）的 forward 里"),
    "place_model": ("In the model's forward ({what})", "在模型（{what}）的 forward 里"),
    "traced_here": ("It is the first module whose output differs{size}, from the same input.",
                    "往回追查：它是第一个输出不同的模块{size}，而它的输入和目标的一致。"),
    "at_the_end": ("{place}, yours computes every tensor the target computes there, but not its "
                   "output: {how}.",
                   "{place}，目标程序算出的每个张量你的也都算出了，只有输出不同：{how}。"),
    "rel:none": ("", ""),
    "rel:joined_order": ("yours joins the same pieces in another order (which comes first?)",
                         "你的代码把同样的几块按另一种顺序拼在一起（哪一块该在前？）"),
    "never_computes": ("{place}, the target's {op} gives a tensor of shape {shape} that yours "
                       "never computes.",
                       "{place}，目标程序的 {op} 给出一个形状为 {shape} 的张量，你的代码从没算出过它。"),
    "same_input": ("{place}, the target's {op} (shape {shape}) gives other numbers in yours from "
                   "the same input: {how}.",
                   "{place}，目标程序的 {op}（形状 {shape}）在你的代码里拿到同样的输入，却给出不同的"
                   "数：{how}。"),
    "rel:dropped": ("yours sets {share} of the numbers to 0 and scales the rest by {scale}: a "
                    "dropout (p = {p}) the target does not apply here",
                    "你的把 {share} 的数置为 0，其余乘以 {scale}：目标在这里没有这个 dropout"
                    "（p = {p}）"),
    "rel:not_dropped": ("the target's sets {share} of the numbers to 0 and scales the rest by "
                        "{scale} (a dropout, p = {p}); yours does not",
                        "目标的把 {share} 的数置为 0，其余乘以 {scale}（一个 dropout，p = {p}）；"
                        "你的没有"),
    "order": ("{place}, yours calls {yours} where the target calls {theirs}: the same layers in "
              "another order.",
              "{place}，你的代码先调用 {yours}，目标程序先调用 {theirs}：同样的层，顺序不同。"),
    "fed_at": ("{place}, the target's {op} (shape {shape}) is given another input in yours: "
               "{how}.",
               "{place}，目标程序的 {op}（形状 {shape}）在你的代码里拿到的输入不同：{how}。"),
    "parts_at": ("{place}, at the target's {op} (shape {shape}), {how}.",
                 "{place}，在目标程序的 {op}（形状 {shape}）处，{how}。"),
    "run_count": ("Yours runs {name} {yours} times in a forward pass, the target {theirs} (a "
                  "layer used twice, or one left unused?).",
                  "一次前向里你的代码调用了 {name} {yours} 次，目标程序 {theirs} 次（某一层用了两次，"
                  "或有一层没用上？）。"),
    "rel:missing_term": ("the target's adds what {op} gave before it, yours does not (a "
                         "residual path)",
                         "目标程序在这里加上了它前面 {op} 的结果，你的没有（残差连接）"),
    "rel:missing_input": ("the target's adds the module's own input, yours does not (the "
                          "residual path)",
                          "目标程序在这里加上了模块自己的输入，你的没有（残差连接）"),
    "rel:extra_term": ("yours adds what {op} gave before it, the target's does not",
                       "你的代码加上了目标程序前面 {op} 的结果，目标程序没有"),
    "rel:extra_input": ("yours adds the module's own input, the target's does not",
                        "你的代码加上了模块自己的输入，目标程序没有"),
    "rel:inverted": ("yours is True exactly where the target's is False: the mask is read the "
                     "other way round",
                     "你的结果恰好在目标为 False 的地方为 True：掩码的含义反了"),
    "rel:offset": ("yours is the target's {c} in every entry: counted from another start",
                   "你的结果每个元素都是目标的值再加 {c}：起点不同"),
    "rel:sign": ("yours is the target's with the sign flipped", "你的结果是目标的相反数（符号反了）"),
    "rel:scale": ("yours is {k} times the target's: another scale (which number do you "
                  "multiply or divide by?)",
                  "你的结果是目标的 {k} 倍：缩放不同（你乘或除的是哪个数？）"),
    "rel:transposed": ("yours is the target's transposed (its last two axes swapped)",
                       "你的结果是目标的转置（最后两个轴对调了）"),
    "rel:shift_later": ("yours at each position is the target's at the position before: "
                        "shifted by one",
                        "你在每个位置上的值是目标在前一个位置上的值：错开了一位"),
    "rel:shift_earlier": ("yours at each position is the target's at the position after: "
                          "shifted by one",
                          "你在每个位置上的值是目标在后一个位置上的值：错开了一位"),
    "rel:axis": ("the target's numbers sum to 1 along axis {theirs}, yours along axis {yours}: "
                 "the softmax runs over the other axis",
                 "目标的数沿轴 {theirs} 加起来是 1，你的沿轴 {yours}：softmax 用错了轴"),
    "rel:extra_fn": ("yours is {fn} of the target's: a {fn} the target does not apply here",
                     "你的结果是对目标的值再做一次 {fn}：目标在这里没有这个 {fn}"),
    "rel:missing_fn": ("the target's is {fn} of yours: a {fn} is missing",
                       "目标的是对你的值做 {fn}：少了一个 {fn}"),
    "small_only": (" (at the default sizes they agree: the small sizes give every flag another "
                   "value, so is one read from a global and not from args?)",
                   "（默认尺寸下一致：小尺寸给每个参数都换了值，是不是有一个读的是全局变量，而不是 "
                   "args？）"),
    "summary_raises": ("an error ({name})", "一个错误（{name}）"),
    "rel:fn_elsewhere": ("the target applies {fn} at this step, yours at another: the same "
                         "steps in another order",
                         "目标程序在这一步做 {fn}，你的在另一步做：同样的几步，顺序不同"),
    "rel:moved": ("yours holds the same numbers in other places: a view or reshape without the "
                  "transpose it needs",
                  "你的结果和目标的数一样，只是位置不同：view 或 reshape 之前少了该有的 transpose"),
    "rel:apart": ("{n} of its {of} numbers differ, the most at {at}: {yours_at} in yours, "
                  "{theirs_at} in the target's",
                  "{of} 个数里有 {n} 个不同，差得最多的在 {at}：你的是 {yours_at}，目标的是 "
                  "{theirs_at}"),
    "rel:axes": ("yours holds the same numbers with the axes in another order: shape {yours}, "
                 "the target's {theirs}",
                 "你的数一样，但轴的顺序不同：形状 {yours}，目标的是 {theirs}"),
    "rel:reshaped": ("yours holds the same numbers in another shape: {yours}, the target's "
                     "{theirs}",
                     "你的数一样，但形状不同：{yours}，目标的是 {theirs}"),
    "rel:shape": ("yours has shape {yours}, the target's {theirs}",
                  "你的形状是 {yours}，目标的是 {theirs}"),
    "rel:chosen_values": ("the same positions are scored, but {n} of the {of} characters to "
                          "predict there are others",
                          "计分的位置相同，但那里要预测的 {of} 个字符中有 {n} 个不同"),
    "rel:chosen": ("yours scores {yours} positions, the target's {theirs} ({both} of them the "
                   "same)",
                   "你的对 {yours} 个位置计分，目标对 {theirs} 个（其中 {both} 个相同）"),
    "rel:chosen_zeros": ("where the target skips a position (-100), yours has 0 at {zeros} of "
                         "them: the loss then scores them as the character with id 0",
                         "目标跳过（-100）的位置里，你的有 {zeros} 个是 0：损失会把它们当成 id 为 0 "
                         "的字符来计分"),
    "rel:entries": ("{n} of its {of} entries differ, the first at {at}",
                    "{of} 个元素里有 {n} 个不同，第一个在 {at}"),
    "logits": ("every module agrees, but the logits or the loss differ ({size} sizes)",
               "每个模块都一致，但 logits 或损失不同（{size}尺寸）"),
    "grads": ("the outputs agree but the gradient of {name} differs ({size} sizes): is "
              "something detached or computed outside autograd?",
              "输出一致，但 {name} 的梯度不同（{size}尺寸）：是否有东西被 detach 了，"
              "或在 autograd 之外计算？"),
    "batches": ("get_batch's {which} ({which_words}) is not the target's, at the {size} sizes: "
                "{how}",
                "get_batch 的 {which}（{which_words}）和目标程序的不同（{size}尺寸）：{how}"),
    "hidden": ("the windows and the chosen positions agree, but {n} of the {of} chosen "
               "positions are hidden otherwise (80% the mask token, 10% a random character, 10% "
               "kept, drawn as the task says)",
               "窗口和选中的位置都一致，但 {of} 个选中位置里有 {n} 个藏法不同（80% 换成掩蔽词元，"
               "10% 换成随机字符，10% 不变，按任务说的方式抽取）"),
    "draws": ("the windows or the choices differ. The check gives both one generator, so yours "
              "must draw the same random numbers in the same order (the same calls, with the "
              "same shapes) as the task says",
              "窗口或选择不同。检查给两边同一个随机数生成器，所以你的代码要按任务说的顺序抽同样的"
              "随机数（同样的调用、同样的形状）"),
    "promise:shape": ("get_batch gives x and y of shapes {yours} over many windows, the target "
                      "{value}",
                      "多次抽取时 get_batch 给出的 x 和 y 形状是 {yours}，目标程序是 {value}"),
    "promise:counts": ("each window of {T} characters has {yours} chosen position(s) in yours, "
                       "{value} in the target's (how many: round(mask_prob * T), at least one)",
                       "每个 {T} 个字符的窗口里，你的选中 {yours} 个位置，目标程序选中 {value} 个"
                       "（个数是 round(mask_prob * T)，至少一个）"),
    "promise:whole": ("in {share} of the windows, yours changes a position that is not chosen, "
                      "or targets another character than the one there: only the chosen are "
                      "hidden, and each targets its own character",
                      "有 {share} 的窗口里，你的改动了没选中的位置，或者目标不是那个位置上的字符："
                      "只有选中的位置被隐藏，而它的目标就是原来的字符"),
    "promise:shares": ("of the chosen positions, yours shows {yours} as the mask token / as "
                       "themselves / as another character; the target {value}",
                       "选中的位置中，你的换成掩蔽词元、保持原样、换成别的字符的比例是 {yours}；"
                       "目标程序是 {value}"),
    "promise:again": ("the same generator gives yours another batch each time: draw every random "
                      "number from the generator get_batch is given, not from torch's own",
                      "同一个随机数生成器每次给你的 get_batch 不同的批量：每个随机数都要从传进来的"
                      "生成器里抽，不要用 torch 自己的"),
    "promise:starts": ("yours starts its windows in each tenth of the text {yours} of the time, "
                       "the target {value}: every window of the text should be as likely",
                       "你的窗口落在文本每个十分之一段的比例是 {yours}，目标程序是 {value}：文本里"
                       "每个窗口被抽到的机会应该一样"),
    "promise:per_row": ("yours hides a row's chosen positions together more or less often than "
                        "the target's: each chosen position draws its own 80/10/10",
                        "你的代码把一行里选中的位置放在一起决定藏法，和目标程序不同：每个选中的位置"
                        "都该各自抽 80/10/10"),
    "promise:next": ("in yours, the position after a chosen one is chosen too {yours} of the time, "
                     "in the target's {value}: the chosen positions should be drawn apart",
                     "你的代码里，选中位置的下一个位置也被选中的比例是 {yours}，目标程序是 "
                     "{value}：选中的位置应该各自独立地抽"),
    "promise:where": ("yours chooses position {i} in {yours} of the windows, the target in "
                      "{value}: every position should be as likely",
                      "你的代码在 {yours} 的窗口里选中第 {i} 个位置，目标程序是 {value}：每个位置被选中"
                      "的机会应该一样"),
    "promise:noise": ("the characters that replace chosen ones are drawn otherwise than the "
                      "target's, which draws them from the text (so by their frequency)",
                      "替换选中位置的字符抽法和目标程序不同：目标程序从文本里抽（所以按字符的频率）"),
    "which:x": ("the inputs", "输入"),
    "which:y": ("the targets", "目标"),
    "calls_mode": ("after {call}, your model is in {yours}, the target's in {value}: a function "
                   "that needs eval mode (dropout off) sets it with model.eval(), and training "
                   "sets model.train() again",
                   "调用 {call} 之后，你的模型处于{yours}，目标的处于{value}：需要评估模式"
                   "（关掉 dropout）的函数要用 model.eval() 设置，训练时再用 model.train() 改回来"),
    "mode:True": ("training mode", "训练模式"),
    "mode:False": ("eval mode", "评估模式"),
    "calls_module": ("{why} {evidence}", "{why}{evidence}"),
    "calls_between": ("In it the model runs alike, input and output, {runs} time(s); then it "
                      "is given another input ({how}): the code around the model differs (how it "
                      "picks the next character, or the window it feeds)",
                      "其中模型的前 {runs} 次运行，输入和输出都一致；下一次拿到的输入不同（{how}）："
                      "不同的是模型外面的代码（怎样挑下一个字符，或喂给它的窗口）"),
    "summary_tensor": ("a tensor of shape {shape}{far}", "形状为 {shape} 的张量{far}"),
    "summary_far": (", up to {far} from the target's", "，与目标的最多相差 {far}"),
    "summary_items": (", {n} of its {of} items not the target's", "，{of} 个元素里有 {n} 个和目标不同"),
    "summary_many": ("a {kind} of {n}", "{n} 项的 {kind}"),
    "not_utf8": ("your file is not UTF-8 ({error}): save it as UTF-8 (an editor's \"Save with "
                 "encoding\"), as train.py is",
                 "你的文件不是 UTF-8 编码（{error}）：请像 train.py 一样存成 UTF-8（编辑器里的“以某种"
                 "编码保存”）"),
    "calls": ("{call} gives {yours}; the target's gives {value}{more}",
              "{call} 给出 {yours}；目标程序给出 {value}{more}"),
    "sentence_end": (". ", "。"),
    "training": ("the model and the batches agree, yet the losses part: {yours} where the target "
                 "has {value} (the training loop differs)",
                 "模型和批量都一致，损失却分开了：你的是 {yours}，目标是 {value}（训练循环不同）"),
    "doc": ('{path}, "{section}"', "{path} 的“{section}”"),
    "checking": ("checking {path} against {name}", "检查 {path}，对照 {name}"),
    "named_otherwise": ("  named otherwise: {pairs} (matched layer by layer, by kind and shape, "
                        "in the order they run; layers of one kind side by side, as q, k and v, "
                        "in the order under which your outputs agree)",
                        "  名字不同：{pairs}（按层的种类和形状、依运行的先后逐层对应；同一模块里"
                        "同种的几层，如 q、k、v，按使输出一致的顺序对应）"),
    "named_pair": ("your {mine} is the target's {theirs}", "你的 {mine} 就是目标程序的 {theirs}"),
    "and_more": (", and {n} more", "，另外还有 {n} 处"),
    "written": ("wrote {path}: {task}\nWhen you think it is done:  python tools/exercise.py "
                "{name} --check",
                "已写入 {path}：{task}\n写好后检查：  python tools/exercise.py {name} --check --lang zh"),
    "err:renamed": ("exercise {name} is now {new} (the steps were renumbered when one was "
                    "split): move exercises/{name}/ to exercises/{new}/ if you started it, then "
                    "run python tools/exercise.py {new}{lang}",
                    "练习 {name} 现在叫 {new}（拆分一个步骤时，后面的步骤重新编号了）："
                    "如果你已经开始做，把 exercises/{name}/ 移到 exercises/{new}/，"
                    "再运行 python tools/exercise.py "
                    "{new}{lang}"),
    "err:first_rung": ("{name} is the first rung: the exercises start at {first}",
                       "{name} 是第一级：练习从 {first} 开始"),
    "err:no_exercise": ("no exercise {name!r}: run python tools/exercise.py{lang} for the list",
                        "没有练习 {name!r}：运行 python tools/exercise.py{lang} 查看列表"),
    "err:not_folder": ("{path} is a file, not a folder: move it away, then run {again} again",
                       "{path} 是文件，不是文件夹：把它移走，再运行 {again}"),
    "err:not_file": ("{path} is not a file (a folder, or a link to nothing): move it away, then "
                     "run {again} again",
                     "{path} 不是文件（是文件夹，或指向不存在之处的链接）：把它移走，再运行 {again}"),
    "err:need_exercise": ("--check and --file need an exercise: e.g. python tools/exercise.py "
                          "v5_ffn --check{lang}",
                          "--check 和 --file 需要指定练习：例如 python tools/exercise.py v5_ffn "
                          "--check{lang}"),
    "err:piece_check": ("--piece needs --check: python tools/exercise.py {name} --check --piece "
                        "{cls}{lang}",
                        "--piece 要和 --check 一起用：python tools/exercise.py {name} --check "
                        "--piece {cls}{lang}"),
    "err:file_check": ("--file needs --check: python tools/exercise.py {name} --check --file "
                       "{file}{lang}",
                       "--file 要和 --check 一起用：python tools/exercise.py {name} --check --file "
                       "{file}{lang}"),
    "err:exists": ("{path} exists and is never overwritten: check it with --check, or delete it "
                   "to start over",
                   "{path} 已经存在，不会被覆盖：用 --check 检查它，或删掉它重新开始"),
    "err:no_file": ("no file at {path}: run python tools/exercise.py {name}{lang} first",
                    "{path} 处没有文件：先运行 python tools/exercise.py {name}{lang}"),
    "err:file_not_file": ("--file {path} is not a file: pass your train.py",
                          "--file {path} 不是文件：请给出你的 train.py"),
    "err:no_piece": ("{name} has no class {cls}: its pieces are {pieces}",
                     "{name} 没有类 {cls}：它的部件是 {pieces}"),
    "started": ("started", "已开始"),
    "edited": ("edited", "改过了"),
    "passed_status": ("passed", "已通过"),
    "list_footer": ("\nStart one:  python tools/exercise.py v5_ffn   (a rung in one go, or its "
                    "steps one idea at a time)\nedited: changed since it passed its check",
                    "\n开始一个：  python tools/exercise.py v5_ffn --lang zh   （一次做完一级，或逐个步骤来）"
                    "\n改过了：通过检查之后又改过"),
    "docstring": ("Exercise {name}: {what}.\n\nWhat to build: {task}\n\nEdit the lesson part above "
                  "the fence; leave the plumbing below it as it is.\n"
                  "Check one class alone, before you wire it in:\n"
                  "    python tools/exercise.py {name} --check --piece CLASS\n"
                  "Check it:\n    python tools/exercise.py {name} --check\n"
                  "Then train it:\n    {run}\n"
                  "Start over: delete this file, then python tools/exercise.py {name}\n",
                  "练习 {name}\n\n要写的：{task}\n\n只改分隔线上面的课程部分；"
                  "下面的管道代码保持原样。\n"
                  "接进模型之前，可以单独检查一个类：\n"
                  "    python tools/exercise.py {name} --check --piece 类名 --lang zh\n"
                  "检查：\n    python tools/exercise.py {name} --check --lang zh\n"
                  "通过后训练：\n    {run}\n"
                  "重新开始：删掉这个文件，再运行 python tools/exercise.py {name} --lang zh\n"),
}


def code_only(line):
    """A line of code without its comment and the spaces before it: what a mistake is matched
    on, so that rewording a comment never loses a mistake. A # inside a string is rare in these
    programs and, where it is, only makes a match fail, loudly (regen names the mistake)."""
    at = line.find("#")
    if at >= 0:
        line = line[:at]
    return line.rstrip()


def find_code(text, old):
    """[(start, end)] of each place in text whose code, comments aside, is old's code."""
    lines = text.split("\n")
    codes = [code_only(line) for line in lines]
    wanted = [code_only(line) for line in old.split("\n")]
    starts = []
    offset = 0
    for line in lines:
        starts.append(offset)
        offset += len(line) + 1
    found = []
    for i in range(len(lines) - len(wanted) + 1):
        code = codes[i:i + len(wanted)]
        if len(wanted) == 1:
            at = code[0].find(wanted[0])
            while at >= 0:
                found.append((starts[i] + at, starts[i] + at + len(wanted[0])))
                at = code[0].find(wanted[0], at + 1)
            continue
        first = code[0].endswith(wanted[0])
        middle = code[1:-1] == wanted[1:-1]
        last = code[-1].startswith(wanted[-1])
        if first and middle and last:
            start = starts[i] + len(code[0]) - len(wanted[0])
            end = starts[i + len(wanted) - 1] + len(wanted[-1])
            found.append((start, end))
    return found


def apply_edits(text, edits):
    """The program text with each (old, new) edit made, old found by its code alone (comments
    aside) exactly once; None where an old is not there once."""
    for old, new in edits:
        places = find_code(text, old)
        if len(places) != 1:
            return None
        start, end = places[0]
        text = text[:start] + new + text[end:]
    return text


def mistakes_for(name, target):
    """The mistakes of the exercise, each with its program ("text"); a rung also gets those of
    its steps whose edits apply to its own program."""
    found = []
    for m in MISTAKES:
        if m["exercise"] == name or "/" not in name and m["exercise"].startswith(name + "/"):
            text = apply_edits(target, m["edits"])
            if text is not None:
                found.append({**m, "text": text})
    return found
