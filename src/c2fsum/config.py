"""Typed configuration of a c2fsum run.

A run is described by one :class:`Config` made of four sections (data, model, train,
decode). Presets in ``configs/*.yaml`` (or ``.toml``) are small diffs over these
defaults, and ``--set section.key=value`` overrides any field. The resolved config is
saved as ``config.json`` beside every checkpoint, so a run directory rebuilds its model.

The defaults are the recipe of Ling & Rush (2017), thesis chapter 5: 300-d embeddings,
2-layer 500-unit LSTMs, SGD with learning rate 1, batch 20, 20 epochs, gradient norm 5.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import tomllib
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from c2fsum.errors import InputError, UserError


class ConfigError(UserError, ValueError):
    """A config file or override names an unknown field or has a value of the wrong type."""


MAX_EXPORT_MB = 25.0
"""Largest folder ``c2fsum export`` writes unless ``--max-mb`` says otherwise (here, not in
``reports.export``, so that ``c2fsum --help`` builds its parser without importing torch)."""
PAPER_MAX_WORDS = 400
"""Words of each article the thesis's models read, in training and in its evaluation (the 10x40
grid of Tables 6.1-6.2)."""


@dataclass
class DataConfig:
    """How a prepared document becomes a grid of chunks (see :mod:`c2fsum.data.grid`)."""

    chunks: int = 10
    """M: number of chunks (rows of the grid); the paper's default grid is 10x40. 0: as many
    chunks as each document needs (no truncation; see ``max_words``)."""
    chunk_len: int = 40
    """N: words per chunk (columns of the grid). The first M*N words are kept."""
    chunking: str = "fixed"
    """``fixed`` (rows of N words, the paper) or ``sentences`` (whole sentences packed into
    chunks of up to N words, over-long sentences split; MODEL 1-3 only)."""
    max_words: int = 0
    """Cut each document to its first ``max_words`` words before chunking (0: no cut)."""
    vocab_size: int = 0
    """Keep only the first (most frequent) entries of the prepared vocab.txt (0: all of it)."""
    max_tgt_len: int = 100
    """Target tokens kept in training (without the closing ``</s>``)."""
    target_cut: str = "tokens"
    """How a target longer than ``max_tgt_len`` is cut: ``tokens`` (its first ``max_tgt_len``
    tokens, mid-sentence if need be) or ``sentences`` (its sentences up to the last one that ends
    within ``max_tgt_len`` tokens, so the model learns to end summaries at a sentence end; a first
    sentence longer than that is cut by tokens)."""
    bucket_size: int = 100
    """Batches are drawn from pools of ``batch_size * bucket_size`` examples sorted by length."""
    val_holdout: int = 0
    """If > 0, train on train+val and keep this many val documents back for validation."""


@dataclass
class ModelConfig:
    """Sizes and switches of the network. Every size is configurable."""

    family: str = "model0"
    """model0 (flat LSTM seq2seq), model1 (per-chunk LSTM, attention over all words),
    model2 (coarse-to-fine soft attention), model3 (hard coarse attention, REINFORCE),
    select-rewrite (picks whole sentences; :mod:`c2fsum.models.select_rewrite`)."""
    emb_dim: int = 300
    """Size of the word embeddings (source and target)."""
    hidden: int = 500
    """H: units of the encoder and decoder LSTMs (a bidirectional encoder: hidden//2 each way)."""
    enc_layers: int = 2
    """Layers of the word-level encoder LSTM."""
    dec_layers: int = 2
    """Layers of the decoder LSTM."""
    dropout: float = 0.3
    """Dropout between LSTM layers and before the generator."""
    init_range: float = 0.1
    """Parameters are drawn uniformly from [-init_range, init_range]."""
    input_feed: bool = True
    """Feed the previous attentional context to the decoder input (Luong et al. 2015; the thesis).
    Paulus et al. (2017, section 2) feed the decoder the embedding of the previous word only:
    their presets set it to false."""
    chunk_encoder: str = "cnn"
    """MODEL 2/3 chunk representation: ``cnn`` (Kim 2014) or ``bow`` (fixed embedding sum)."""
    chunk_filters: int = 600
    """CNN chunk encoder: number of filters (the chunk vector's size, before +POS)."""
    chunk_width: int = 6
    """CNN chunk encoder: filter width in words."""
    pos_dim: int = 0
    """+POS: size of the chunk-position embedding concatenated to the chunk vector (paper: 25)."""
    samples: int = 1
    """MODEL 3 +MULTI k: chunks drawn per step, mu ~ Multinomial(k, alpha^s)."""
    bidirectional: bool = False
    """Paulus: bidirectional encoder, h_i = [forward; backward] (hidden//2 units each way)."""
    temporal: bool = False
    """Paulus: intra-temporal attention over the input (flat attention: model0, model1)."""
    intra_decoder: bool = False
    """Paulus: attention over the decoder's previous states."""
    pointer: bool = False
    """Paulus: pointer/generator switch copying source words (extended vocabulary)."""
    coverage: bool = False
    """See et al. (2017): the attention summed over past steps enters the attention scores (flat
    attention: model0, model1); trained with the coverage loss of weight ``train.coverage_weight``."""
    share_embeddings: bool = False
    """Paulus: the output matrix follows the target embeddings, W_out = tanh(W_emb W_proj) (see
    ``shared_output``)."""
    shared_output: str = "tanh"
    """With ``share_embeddings``: ``tanh`` W_out = tanh(W_emb W_proj) (Paulus eq. 13), or ``linear``
    W_out = W_emb W_proj (weight tying with a projection, Press & Wolf 2017): the features are
    projected to the embedding size first, so the vocabulary-sized product is emb_dim wide instead
    of the features' width (6x fewer FLOPs for the PubMed recipes)."""
    share_src_tgt_emb: bool = False
    """Paulus (section 2.4): one embedding matrix W_emb for the encoder's and the decoder's words
    (default off: the thesis's models embed them separately; checkpoints without the key load as off)."""
    output: str = "luong"
    """Generator input: ``luong`` c_t = tanh(W2 [c~; h_t]) or ``paulus`` [h_t; c~; c^d_t]."""
    lazy_fine: bool = False
    """MODEL 3 in training: run the word-level LSTM only over the chunks sampled at each step
    (encoded on demand, once per document). Decoding a hard model is always lazy."""
    pretrained_emb: str = ""
    """Vectors that start the source and target embeddings: a ``c2fsum vectors`` file
    (``.safetensors`` beside its ``.words.txt``), word2vec text or binary, or GloVe text. Words of
    the vocabulary found there get their vector, the others stay random (the count is logged); the
    vectors' size must equal ``emb_dim`` (never projected)."""
    pretrained_binary: bool = False
    """``pretrained_emb`` is a binary word2vec file."""
    rewriter: str = ""
    """``select-rewrite``: a pointer-generator run (or checkpoint) directory that rewrites each picked
    sentence at decoding time; empty: the picked sentences are the summary (learned extraction)."""
    selector_features: str = ""
    """``select-rewrite``: what the pointer sees beyond the sentences' states, comma-separated
    (issue 47): ``sections`` (each sentence's section kind, its place in the paper and in its
    section), ``history`` (the share of each sentence's content words the picks already hold, and
    the picked words for STOP: MemSum's extraction history made explicit). Empty: issue 37's selector."""
    selector_labels: str = "align"
    """``select-rewrite``: what the selector learns to pick. ``align``: for each abstract sentence the
    paper's sentence of highest ROUGE-L recall, in the abstract's order; ``episodes``: one of the 4
    highest-ROUGE selections within ``selector_label_words`` (MemSum's high-ROUGE episodes, by beam
    search, in pick order), drawn anew at each training step (the best one at validation)."""
    selector_label_words: int = 207
    """``selector_labels=episodes``: the episodes' word budget (the pubmed presets' summary length)."""
    selector_reward: str = "gains"
    """``select-rewrite`` with ``train.objective=mixed``: what REINFORCE rewards. ``gains``: each pick
    its gain in ROUGE-1 recall, the stop the selection's ROUGE-1 F1 (Chen & Bansal); ``summary``: only
    the whole selection, once, by the mean of its ROUGE-1 and ROUGE-2 F1 (the measure a summary is
    scored by; issue 47's better-shaped reward)."""
    selector_redundancy: float = 0.0
    """``select-rewrite``: weight of the redundancy loss added to the cross-entropy (issue 47, after
    ExtSum-LG's): at each labelled step, the probability the pointer gives each sentence times the
    share of its content words the labels before it already hold. 0: none."""
    selector_rl_words: int = 250
    """``select-rewrite`` with ``train.objective=mixed``: the word budget of the selections drawn for
    REINFORCE: about a SumPubMed abstract (the budget ``c2fsum extract`` gives ILP and LEAD by default)."""
    selector_rl_min_words: int = 100
    """``select-rewrite`` with ``train.objective=mixed``: no STOP before the selections drawn for
    REINFORCE hold this many words (decoding's ``min_len`` of the presets)."""


@dataclass
class TrainConfig:
    """The training recipe (thesis section 5.2) and where and how long it runs."""

    optimizer: str = "sgd"
    """sgd (the paper), adagrad or adam."""
    lr: float = 1.0
    """Learning rate (the thesis: 1 with SGD); scaled by ``lr_decay`` as validation stalls."""
    lr_chunk_encoder: float = 0.1
    """Learning rate of a sentence/chunk encoder, when the model has one."""
    reinforce_gamma: float = 0.5
    """MODEL 3: discount of later rewards, R_t = sum_s gamma^(s-t) r_s."""
    reinforce_beta: float = 0.1
    """MODEL 3: step of the moving-average baseline b_t."""
    reinforce_scale: float = 0.3
    """MODEL 3: lambda, the weight of the REINFORCE term."""
    coarse_supervision: float = 0.0
    """MODEL 2/3: weight of the auxiliary loss that teaches the chunk attention which chunks hold
    the next (rare) target word (:mod:`c2fsum.losses.coarse`; c2fsum's addition, 0: off, the thesis)."""
    coverage_weight: float = 1.0
    """lambda of the coverage loss sum_t sum_i min(alpha_ti, c_ti) (See et al. 2017 eq. 13), for a
    model with ``model.coverage``."""
    alternate: float = 0.0
    """MODEL 3 +ALTERNATE: probability that a minibatch uses soft attention instead (paper: 0.5)."""
    soft_pretrain_epochs: int = 0
    """MODEL 3 +PRETRAIN: epochs trained with soft attention (as MODEL 2) before going hard."""
    objective: str = "ml"
    """``ml`` (maximum likelihood, teacher forcing) or ``mixed`` (Paulus: gamma L_rl + (1-gamma) L_ml)."""
    rl_weight: float = 0.9984
    """gamma of the mixed objective."""
    init_from: str = ""
    """Start from the weights of this run directory or checkpoint (e.g. an ML-trained model)."""
    lr_decay: float = 0.5
    """Multiply the learning rate by this once validation perplexity stops decreasing."""
    batch_size: int = 20
    """Documents per optimizer step (the global batch, shared out among torchrun processes)."""
    epochs: int = 20
    """Passes over the training data (the thesis: 20)."""
    max_grad_norm: float = 5.0
    """Gradients are rescaled to this norm when larger (0: no clipping)."""
    max_steps: int = 0
    """Stop after this many optimizer steps (0: no limit)."""
    max_minutes: float = 0.0
    """Stop after this much wall time (0: no limit)."""
    eval_every: int = 0
    """Also validate every K steps (0: once per epoch)."""
    log_every: int = 50
    """Write a ``train`` row to ``metrics.jsonl`` every K steps (and at the end of each epoch)."""
    best_metric: str = "ppl"
    """Which validation figure picks the best checkpoint: ``ppl`` or ``rougeL``."""
    rouge_val_docs: int = 50
    """Number of validation documents decoded when ``best_metric`` is ``rougeL`` or ``val_rouge`` is on."""
    val_rouge: bool = False
    """Also score greedy summaries of ``rouge_val_docs`` validation documents at every validation
    (``rouge1``/``rouge2``/``rougeL``, best highlight, and ``*_concat``, all highlights as one
    reference, in metrics.jsonl): a learning curve in ROUGE, whatever ``best_metric`` is."""
    seed: int = 1234
    """Seed of every random generator; with it the batch order of an epoch is a function of (seed, epoch)."""
    device: str = "cpu"
    """Where training runs: ``cpu`` or ``cuda``."""
    threads: int = 0
    """torch intra-op threads (0: leave torch's default)."""
    max_nonfinite_steps: int = 5
    """Skip at most this many consecutive steps whose loss, rewards or gradients hold NaN/Inf
    (each with a warning); one more stops training with an error, the last checkpoint intact."""
    accumulate: int = 1
    """Gradient accumulation: each process runs its share of a batch as this many micro-batches
    (less memory, same update); ``batch_size`` stays the documents per optimizer step."""
    amp: str = "off"
    """Mixed precision: ``off`` or ``bf16`` (torch.autocast to bfloat16; for GPUs that have it)."""
    dist_backend: str = "auto"
    """torchrun training (docs/distributed.md): ``auto`` (NCCL on CUDA, gloo on CPU), ``gloo`` or ``nccl``."""


def option(
    default: Any,
    help: str,
    *,
    ge: float | None = None,
    gt: float | None = None,
    le: float | None = None,
    metavar: str = "N",
    choices: tuple[str, ...] | None = None,
) -> Any:
    """An option of a settings dataclass (the decoding options of :class:`DecodeConfig`, the
    settings of :class:`Word2VecSettings` and :class:`PretextSettings`): its default, the help its
    CLI flag (and HTTP field) show, its bounds (``ge``, ``gt``, ``le``, or the words a text option
    takes, ``choices``: checked once, by :func:`bounds_error`, wherever a value comes in) and the
    flag's metavar."""
    metadata = {"help": help, "ge": ge, "gt": gt, "le": le, "metavar": metavar, "choices": choices}
    return field(default=default, metadata=metadata)


@dataclass(frozen=True)
class DecodeConfig:
    """A model's default decoding settings, saved with it; callers override them per call.

    The one declaration of the decoding options: the config section (``decode.*``), the options
    of a call (:class:`c2fsum.decoding.options.DecodeOptions`, a subclass), the command-line
    flags (:func:`c2fsum.cli.options.add_decode_options`), the HTTP request fields
    (:mod:`c2fsum.serving.schemas`) and the settings ``evaluate`` records in ``metrics.json`` are
    all made from these fields (:func:`decode_fields`). Adding an option is one line here plus
    its use.
    """

    beam: int = option(5, "beam size (1: greedy search)", ge=1, metavar="K")
    min_len: int | None = option(
        None,
        "fewest summary tokens before </s> (the model's own default: the 5th percentile of its training "
        "summaries' lengths, recorded in the checkpoint; 0 allows an empty summary)",
        ge=0,
    )
    max_len: int = option(100, "most summary tokens (without </s>)", ge=1)
    length_norm: float = option(
        0.0, "length penalty exponent: beam scores are divided by len**length_norm (0: raw log-prob)", metavar="A"
    )
    block_trigrams: bool = option(False, "never repeat a trigram in a summary (Paulus et al. 2017)")
    block_repeats: bool = option(
        False,
        "never a word or word pair right after itself ('gene gene', 'to be to be'): c2fsum's addition to "
        "trigram blocking, which lets the first such repeat through",
    )
    replace_unk: bool = option(False, "write the most attended source word in place of <unk>")
    batch_size: int = option(10, "documents decoded together", ge=1)
    read_chunks: int = option(
        1,
        "MODEL 3: chunks read per decoder step, the K of highest coarse weight with their weights "
        "renormalized over them (1: the thesis's argmax; c2fsum's top-k reading, docs/results.md)",
        ge=1,
        metavar="K",
    )
    read_budget: float = option(
        1.0,
        "MODEL 3: once this share of a document's words went through the word-level encoder, steps read "
        "only chunks already read (1: no limit; the share can end above it by the chunks one step reads, "
        "at most beam * read_chunks)",
        gt=0,
        le=1,
        metavar="SHARE",
    )
    max_words: int = option(
        0,
        "read only each document's first W words (default: the model's decode.max_words, what its card says it "
        "was trained and measured with; 0: the whole document; 400 with the 10x40 grid reproduces the paper)",
        ge=0,
        metavar="W",
    )
    rewrite_min_share: float = option(
        0.0,
        "select-rewrite: a sentence's rewrite is used only when it keeps at least this share of the sentence's "
        "tokens; a shorter one is left and the sentence copied (0: every rewrite used)",
        ge=0,
        le=1,
        metavar="SHARE",
    )


@functools.cache
def option_fields(settings: type) -> dict[str, tuple[type, dataclasses.Field]]:
    """Each option of the dataclass ``settings`` (fields made by :func:`option`) by name: its plain
    type (``int``, ``float`` or ``bool``, without None) and its field (default, ``metadata`` help
    and bounds), in declaration order (made once; read it, never change it)."""
    hints = typing.get_type_hints(settings)
    plain = {
        name: next(t for t in typing.get_args(hint) or (hint,) if t is not type(None)) for name, hint in hints.items()
    }
    return {f.name: (plain[f.name], f) for f in dataclasses.fields(settings)}


def decode_fields() -> dict[str, tuple[type, dataclasses.Field]]:
    """Each decoding option by name (:func:`option_fields` of :class:`DecodeConfig`)."""
    return option_fields(DecodeConfig)


def bounds_error(name: str, value: Any, settings: type = DecodeConfig) -> str | None:
    """What a value of the option ``name`` of ``settings`` (by default a decoding option) was
    expected to be, when it breaks the option's declared bounds (e.g. ``expected an integer >= 1``,
    ``expected one of lead, rest, mixed``); None when it keeps them (None, "not given", keeps every
    bound)."""
    kind, f = option_fields(settings)[name]
    ge, gt, le, choices = (f.metadata[k] for k in ("ge", "gt", "le", "choices"))
    if choices is not None:
        return None if value is None or value in choices else f"expected one of {', '.join(choices)}"
    if value is None or (ge is None or value >= ge) and (gt is None or value > gt) and (le is None or value <= le):
        return None
    noun = "an integer" if kind is int else "a number"
    low = f"[{ge}" if ge is not None else f"({gt}" if gt is not None else None
    if low is not None and le is not None:
        return f"expected {noun} in {low}, {le}]"
    if le is not None:
        return f"expected {noun} <= {le}"
    return f"expected {noun} >= {ge}" if ge is not None else f"expected {noun} > {gt}"


@dataclass(frozen=True)
class Word2VecSettings:
    """How :func:`c2fsum.data.vectors.train_vectors` trains word2vec: each setting declared once
    (default, help, bounds), and ``c2fsum vectors`` makes its flags from them
    (:func:`c2fsum.cli.options.add_settings`).

    CBOW (``skip_gram`` off, faster) or skip-gram, negative sampling (5 noise words),
    sub-sampling of frequent words (1e-3), gensim's defaults otherwise. ``workers`` threads
    train in parallel (gensim's inner loop runs without the GIL).
    """

    dim: int = option(128, "vector size; must equal model.emb_dim", ge=1, metavar="E")
    epochs: int = option(5, "passes over the corpus", ge=1)
    min_count: int = option(5, "drop words seen fewer times", ge=1)
    window: int = option(5, "context words on each side", ge=1)
    workers: int = option(2, "training threads", ge=1)
    skip_gram: bool = option(False, "skip-gram instead of CBOW (slower, better for rare words)")
    summaries: bool = option(True, "train on the highlights too, not only the articles")
    seed: int = option(1, "gensim's random seed")

    def __post_init__(self) -> None:
        check_options(self)


def check_options(settings: Any) -> None:
    """Refuse a settings dataclass (fields made by :func:`option`) with a value of the wrong type
    or out of its declared bounds: :class:`~c2fsum.errors.InputError` naming the option, what was
    expected and the value."""
    declared: type = type(settings)
    for name, (kind, _) in option_fields(declared).items():
        value = getattr(settings, name)
        if type(value) is not kind:
            raise InputError(f"{name}: expected {kind.__name__}, got {value!r}")
        expected = bounds_error(name, value, declared)
        if expected:
            raise InputError(f"{name}: {expected}, got {value!r}")


@dataclass(frozen=True)
class PretextSettings:
    """How :func:`c2fsum.data.pretext.write_pretext` makes self-supervised pretraining data (the
    tasks: :mod:`c2fsum.data.pretext`): each setting declared once (default, help, bounds), and
    ``c2fsum pretext`` makes its flags from them (:func:`c2fsum.cli.options.add_settings`)."""

    task: str = option(
        "mixed",
        "lead: copy each window's lead; rest: write it from the sentences after it; mixed: alternate",
        choices=("lead", "rest", "mixed"),
    )
    stride: int = option(2, "a window every S sentences", ge=1, metavar="S")
    val_holdout: int = option(
        100, "the last N val documents make the pretext validation set, the rest train, as in the CPU presets", ge=0
    )
    with_summaries: int = option(
        0,
        "multi-task fine-tuning data: the pretext windows plus K copies of each real training document, "
        "and the real val.jsonl; 0: pretext only",
        ge=0,
        metavar="K",
    )
    skip_short: bool = option(False, "lead task: a window may start with short lines (bylines) that its target skips")
    validate_on: str = option(
        "pretext",
        "val.jsonl: pretext windows of the held-out documents, or those documents with their summaries "
        "(then train with data.val_holdout=0)",
        choices=("pretext", "summaries"),
    )

    def __post_init__(self) -> None:
        check_options(self)


@dataclass
class Config:
    """A whole run: four sections and a name; saved as ``config.json`` beside every checkpoint."""

    data: DataConfig = field(default_factory=DataConfig)
    """How documents become grids."""
    model: ModelConfig = field(default_factory=ModelConfig)
    """The network: family, sizes, switches."""
    train: TrainConfig = field(default_factory=TrainConfig)
    """The training recipe."""
    decode: DecodeConfig = field(default_factory=DecodeConfig)
    """How the model decodes by default (:class:`c2fsum.decoding.options.DecodeOptions` at load)."""
    name: str = ""
    """The preset's name (its file's stem), shown in tables and reports."""

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, sort_keys=True)


def _read_file(path: Path) -> dict[str, Any]:
    if not path.exists():
        raise ConfigError(f"{path}: config file does not exist")
    text = path.read_text(encoding="utf-8")
    from omegaconf import OmegaConf  # here, not at the top: `c2fsum --help` imports this module
    from omegaconf.errors import OmegaConfBaseException

    try:
        if path.suffix == ".toml":
            return tomllib.loads(text)
        if path.suffix in (".yaml", ".yml"):
            loaded = OmegaConf.to_container(OmegaConf.create(text)) if text.strip() else {}
            if not isinstance(loaded, dict):
                raise ConfigError(f"{path}: expected a mapping at top level, got {type(loaded).__name__}")
            return loaded  # type: ignore[return-value]
        if path.suffix == ".json":
            return json.loads(text)
    except (tomllib.TOMLDecodeError, json.JSONDecodeError, OmegaConfBaseException) as e:
        raise ConfigError(f"{path}: cannot parse: {e}") from e
    raise ConfigError(f"{path}: unknown config format {path.suffix!r}, expected .yaml, .toml or .json")


def resolve(base: dict[str, Any] | None = None, overrides: list[str] | None = None, source: str = "config") -> Config:
    """Merge a mapping and ``key=value`` overrides over the defaults, with type checks.

    Raises :class:`ConfigError` naming the offending key and value.
    """
    from omegaconf import OmegaConf  # here, not at the top: `c2fsum --help` imports this module
    from omegaconf.errors import OmegaConfBaseException

    schema = OmegaConf.structured(Config)
    try:
        merged = OmegaConf.merge(schema, _without_retired(base or {}))
    except OmegaConfBaseException as e:
        raise ConfigError(f"{source}: {_short(e)}") from e
    for item in overrides or []:
        if "=" not in item:
            raise ConfigError(f"override {item!r}: expected section.key=value")
        try:
            merged = OmegaConf.merge(merged, OmegaConf.from_dotlist([item]))
        except OmegaConfBaseException as e:
            raise ConfigError(f"override {item!r}: {_short(e)}") from e
    cfg: Config = OmegaConf.to_object(merged)  # type: ignore[assignment]
    _words_read_as_booleans(cfg)
    check(cfg)
    return cfg


def _words_read_as_booleans(cfg: Config) -> None:
    """``train.amp=off`` (or ``amp: off`` in a preset) reaches a text field as ``'False'``: YAML 1.1
    reads off/no/false as a boolean before OmegaConf turns it back into text. A field of
    :data:`CHOICES` that takes ``off`` gets ``off`` back (and ``on`` for ``'True'``), in place."""
    for key, allowed in CHOICES.items():
        section, name = key.split(".")
        got = getattr(getattr(cfg, section), name)
        word = {"False": "off", "True": "on"}.get(str(got))
        if word in allowed:
            setattr(getattr(cfg, section), name, word)


CHOICES = {
    "train.objective": ("ml", "mixed"),
    "train.best_metric": ("ppl", "rougeL"),
    "train.amp": ("off", "bf16"),
    "model.selector_reward": ("gains", "summary"),
}
"""The fields that take one of a few words, and those words."""
AT_LEAST_ONE = ("train.accumulate",)
"""The integer fields that must be positive."""


def check(cfg: Config) -> None:
    """Refuse a config whose values no code path accepts, once, at load (:func:`resolve`):
    :data:`CHOICES`, :data:`AT_LEAST_ONE`, the decoding options' bounds. Raises
    :class:`ConfigError` naming the field, the value and what was expected."""

    def value(key: str) -> Any:
        section, name = key.split(".")
        return getattr(getattr(cfg, section), name)

    for key, allowed in CHOICES.items():
        if value(key) not in allowed:
            raise ConfigError(f"{key}: got {value(key)!r}, expected {' or '.join(allowed)}")
    for key in AT_LEAST_ONE:
        if value(key) < 1:
            raise ConfigError(f"{key}: got {value(key)}, expected a positive integer")
    for name in decode_fields():
        expected = bounds_error(name, getattr(cfg.decode, name))
        if expected:
            raise ConfigError(f"decode.{name}: got {getattr(cfg.decode, name)}, {expected}")
    if cfg.model.coverage and cfg.model.family not in ("model0", "model1"):
        raise ConfigError(
            f"model.coverage: true needs flat attention, model.family model0 or model1, got {cfg.model.family!r}"
        )


RETIRED = {"eval": {"limit"}}
"""Sections that configs saved by older versions hold and nothing reads any more: ``eval.limit``
(``evaluate --limit`` is the option). Accepted and dropped, so old runs still load."""


def _without_retired(base: dict[str, Any]) -> dict[str, Any]:
    """``base`` without the :data:`RETIRED` sections (only when they hold nothing else)."""
    out = dict(base)
    for section, keys in RETIRED.items():
        value = out.get(section)
        if isinstance(value, dict) and set(value) <= keys:
            del out[section]
    return out


def _short(e: Exception) -> str:
    return str(e).strip().splitlines()[0]


def load_config(path: str | Path | None = None, overrides: list[str] | None = None) -> Config:
    """Load a preset file (YAML, TOML or JSON) and apply ``section.key=value`` overrides."""
    base: dict[str, Any] = {}
    source = "defaults"
    if path is not None:
        p = Path(path)
        base = _read_file(p)
        source = str(p)
    cfg = resolve(base, overrides, source)
    if not cfg.name and path is not None:
        cfg.name = Path(path).stem
    return cfg


def config_from_json(text: str) -> Config:
    """Rebuild a :class:`Config` saved by :meth:`Config.to_json` (unknown keys are errors)."""
    return resolve(json.loads(text), source="config.json")
