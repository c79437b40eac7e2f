"""MODEL 0 (thesis section 3.2: the standard sequence-to-sequence model with attention) and
MODEL 1 (the same, its encoder reset at every chunk), with the components of Paulus et al.
(2017) as options.

    src grid (B, M, N) --emb--> (B, M, N, E) --flat LSTM (MODEL 1: per chunk)--> h_i (B, M, N, H)
    step t:  h_t = LSTM-stack([emb(y_{t-1}); c_{t-1}])                     (B, H)
             alpha = softmax_i(h_i^T W h_t) over real words                (B, M*N)  [temporal: Paulus eq. 3-4]
                     [coverage: + c_ti (h_t^T W w_c), c_t = sum_{j<t} alpha_j, See et al. 2017 eq. 10-11]
             c~ = sum_i alpha_i h_i                                        (B, H)
             f_t, p(y_t): :mod:`c2fsum.models.parts.decoder`, :mod:`c2fsum.models.parts.generator`
             [share_src_tgt_emb: one W_emb for the source and the target words, Paulus 2.4]
"""

from __future__ import annotations

import torch
from torch import Tensor, nn

from c2fsum.config import ModelConfig
from c2fsum.models.base import Capabilities, DecoderState, ForwardOutput, Memory, StepOutput, Summarizer
from c2fsum.models.parts import init_uniform
from c2fsum.models.parts.attention import FlatAttention
from c2fsum.models.parts.decoder import Decoder, decoder_lstm, output_layers
from c2fsum.models.parts.generator import Generator, generator_layers
from c2fsum.models.parts.source import WordSource, source_layers
from c2fsum.modules.attention import BilinearAttention
from c2fsum.modules.kernels import FAST, Kernels


class Flat(Summarizer):
    """Flat (``model0``) or per-chunk (``model1``) LSTM encoder, bilinear attention over every word.

    ``kernels``: which speed paths to take (:mod:`c2fsum.modules.kernels`; ``PLAIN``: the plain
    twins, same results); set it on the model to change them.
    """

    def __init__(self, cfg: ModelConfig, vocab_size: int, max_chunks: int = 10):
        """``max_chunks`` is unused here (one signature for every family: :func:`c2fsum.models.build_model`)."""
        super().__init__()
        self.vocab_size = vocab_size
        self.hidden = cfg.hidden
        self.input_feed = cfg.input_feed
        self.output = cfg.output
        self.kernels: Kernels = FAST
        self.capabilities = Capabilities(copies=cfg.pointer, memory_per_document=not cfg.pointer)
        self.shares_src_tgt_emb = cfg.share_src_tgt_emb
        # the modules, in the parameter order of saved checkpoints and optimizer states
        per_chunk = cfg.family == "model1"
        self.src_emb, self.tgt_emb, self.encoder = source_layers(cfg, vocab_size, self.pad_id, per_chunk=per_chunk)
        self.decoder = decoder_lstm(cfg)
        self.attention = BilinearAttention(
            query_dim=cfg.hidden, key_dim=cfg.hidden, temporal=cfg.temporal, coverage=cfg.coverage
        )
        self.combine, self.intra = output_layers(cfg)
        self.dropout = nn.Dropout(cfg.dropout)
        self.generator, self.switch = generator_layers(cfg, vocab_size)
        init_uniform(self, cfg.init_range)
        # the parts that run them
        self.source = WordSource(self.src_emb, self.encoder)
        self.source_attention = FlatAttention(self.attention)
        bridge = cfg.enc_layers == cfg.dec_layers
        self.dec = Decoder(
            self.decoder, self.combine, self.intra, self.switch, input_feed=self.input_feed, bridge=bridge
        )
        self.gen = Generator(self.generator, self.tgt_emb, self.dropout, copies=self.copies)

    @property
    def copies(self) -> bool:
        """Whether the model copies source words (pointer): ``capabilities.copies``."""
        return self.capabilities.copies

    def parallel_teacher_forcing(self) -> bool:
        """Whether teacher forcing runs every decoder step at once (:meth:`Decoder.attend_steps`):
        the ``Kernels.parallel_steps`` speed path, for a decoder without input feeding or coverage
        (whose step t reads the attention of the steps before)."""
        return self.kernels.parallel_steps and not self.input_feed and self.attention.coverage_w is None

    def encode(self, src: Tensor, src_mask: Tensor, src_ext: Tensor | None = None, n_ext: int = 0) -> Memory:
        """``src``, ``src_mask`` ``(B, M, N)`` -> :class:`Memory` with words ``(B, M, N, H)``."""
        src_ext = src if self.copies and src_ext is None else src_ext
        memory = self.source.read(src, src_mask, src_ext, n_ext, skip_packing=self.kernels.skip_packing)
        # with gradients, step by step: the same values and keys, their gradients formed once per batch
        deferred = self.kernels.deferred_grads and torch.is_grad_enabled() and not self.parallel_teacher_forcing()
        memory.cache = self.source_attention.prepare(memory, deferred=deferred)
        return memory

    def init_state(self, memory: Memory) -> DecoderState:
        return self.dec.init_state(memory)

    def step(self, memory: Memory, state: DecoderState, prev: Tensor) -> StepOutput:
        self.gen.prepare(memory, self.kernels)
        o = self.dec.attend(self.source_attention, memory, state, self.tgt_emb(self.input_ids(prev)))  # (B, D)
        logprobs = self.gen.logprobs(o.features, o.attn, o.p_copy, memory)  # (B, V')
        return StepOutput(logprobs=logprobs, state=o.state, attn=o.attn)

    def forward(
        self,
        src: Tensor,
        src_mask: Tensor,
        tgt_in: Tensor,
        src_ext: Tensor | None = None,
        n_ext: int = 0,
        target: Tensor | None = None,
    ) -> ForwardOutput:
        """Teacher forcing (see :meth:`Summarizer.forward`): the decoder and attention every step at
        once where the model allows it (:meth:`parallel_teacher_forcing`), else step by step; then
        the generator once over all steps (:meth:`Generator.score`: given ``target``, only its
        log-probability ``target_lp`` with the fused loss)."""
        memory = self.encode(src, src_mask, src_ext, n_ext)
        state = self.dec.init_state(memory)
        emb = self.tgt_emb(self.input_ids(tgt_in))  # (B, T, E): one look-up, one gradient
        if self.parallel_teacher_forcing():
            tf = self.dec.attend_steps(self.source_attention, memory, state, emb)
        else:
            deferred = self.kernels.deferred_grads and torch.is_grad_enabled()
            tf = self.dec.attend_loop(self.source_attention, memory, state, emb, deferred=deferred)
        logprobs, target_lp = self.gen.score(tf, memory, target, fused=self.kernels.fused_loss)
        return ForwardOutput(logprobs=logprobs, target_lp=target_lp, attn=tf.attn)
