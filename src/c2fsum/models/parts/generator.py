"""The generator: features f_t -> log-probabilities of the next word, and the training loss.

p(y_t) = softmax(W_out dropout(f_t) + b)                (B, V)
         [shared: W_out = tanh(W_emb W_proj), Paulus eq. 13; linear: W_emb W_proj]
         [pointer: p(u_t=1) copying alpha over V' = V + document words, Paulus eq. 12]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

import torch
from torch import Tensor, nn

from c2fsum.config import ModelConfig
from c2fsum.models.base import Memory
from c2fsum.models.parts.decoder import DecoderOutput, features_dim
from c2fsum.modules.generators import (
    VocabGenerator,
    pointer_mixture,
    pointer_mixture_sparse,
    pointer_target_logprob,
)
from c2fsum.modules.kernels import Kernels, pack_linear_weight


@dataclass
class OutputWeights:
    """``Memory.shared`` of MODEL 0-3: the generator's output matrix, once per batch for decoding."""

    weight: Tensor | None
    """W_out = tanh(W_emb W_proj) ``(V, D)`` of a shared-weight generator, else None (the generator's own)."""
    packed: Tensor | None
    """W_out packed for oneDNN (:func:`c2fsum.modules.kernels.pack_linear_weight`), or None."""


class Generator(nn.Module):
    """Features f_t -> log p(y_t): owns the vocabulary layer W_out (``vocab``), the dropout before
    it, and, for a pointer model, the switch W_u (``switch``, Paulus eq. 10) that mixes in copying.

    A shared-weight generator (Paulus eq. 13) reads the target embedding W_emb, which the model
    owns: it comes as an argument (``emb`` ``(V, E)``) to the methods that need it."""

    def __init__(self, cfg: ModelConfig, vocab_size: int):
        super().__init__()
        self.dropout = nn.Dropout(cfg.dropout)
        self.vocab = VocabGenerator(
            in_dim=features_dim(cfg),
            vocab_size=vocab_size,
            shared_dim=cfg.emb_dim if cfg.share_embeddings else 0,
            shared_output=cfg.shared_output,
        )
        self.switch = nn.Linear(3 * cfg.hidden if cfg.intra_decoder else 2 * cfg.hidden, 1) if cfg.pointer else None
        self.copies = cfg.pointer
        self.vocab_size = vocab_size  # V

    def prepare(self, memory: Memory, kernels: Kernels, emb: Tensor) -> Memory:
        """Once per batch for step-by-step decoding: ``memory.shared`` = :class:`OutputWeights`
        (packed for oneDNN with ``Kernels.packed_generator``, where that applies)."""
        if memory.shared is None:
            weight = self.vocab.output_matrix(emb) if self.vocab.shared else None
            packed = None
            if kernels.packed_generator:
                packed = pack_linear_weight(weight if weight is not None else self.vocab.output_matrix())
            memory.shared = OutputWeights(weight=weight, packed=packed)
        return memory

    def logits(self, features: Tensor, emb: Tensor, memory: Memory | None = None) -> Tensor:
        """Features ``(..., D)`` -> vocabulary logits ``(..., V)`` (dropout on the features)."""
        shared = cast(OutputWeights, memory.shared) if memory is not None and memory.shared else None
        weight, packed = (shared.weight, shared.packed) if shared is not None else (None, None)
        return self.vocab(self.dropout(features), self._shared(emb), weight, packed)

    def _shared(self, emb: Tensor) -> Tensor | None:
        """W_emb ``(V, E)`` for a shared-weight generator, else None."""
        return emb if self.vocab.shared else None

    def p_copy(self, copy_in: Tensor | None) -> Tensor | None:
        """p(u_t = 1) ``(B, [T,] 1)`` = sigmoid(W_u [h_t; c~; c^d_t]) (Paulus eq. 10) of a copying
        model from ``copy_in`` (:attr:`DecoderOutput.copy_in`), else None."""
        if self.switch is None or copy_in is None:
            return None
        return torch.sigmoid(self.switch(copy_in))

    def logprobs(
        self, features: Tensor, emb: Tensor, out: DecoderOutput | None = None, memory: Memory | None = None
    ) -> Tensor:
        """Features ``(B, D)`` or ``(B, T, D)`` -> log-probabilities over V (or V' when copying).

        A pointer model needs the decoder's ``out`` (attention ``(B[, T], M, N)``, ``copy_in``) and ``memory``.
        """
        logp = torch.log_softmax(self.logits(features, emb, memory), dim=-1)
        if not self.copies:
            return logp
        assert out is not None and memory is not None and memory.src_ext is not None
        attn, p_copy = out.attn, self.p_copy(out.copy_in)
        assert p_copy is not None  # a copying model's decoder gives copy_in
        B = logp.size(0)
        if attn.is_sparse:  # lazy MODEL 3 decoding: (B, M, N) holding the chosen chunks only
            return pointer_mixture_sparse(logp, p_copy, attn, memory.src_ext, memory.n_ext)
        if logp.dim() == 2:
            return pointer_mixture(logp, p_copy, attn.reshape(B, -1), memory.src_ext.reshape(B, -1), memory.n_ext)
        T = logp.size(1)
        src_ext = memory.src_ext.reshape(B, 1, -1).expand(B, T, -1).reshape(B * T, -1)
        mixed = pointer_mixture(
            logp.reshape(B * T, -1), p_copy.reshape(B * T, 1), attn.reshape(B * T, -1), src_ext, memory.n_ext
        )
        return mixed.view(B, T, -1)

    def score(
        self, tf: DecoderOutput, emb: Tensor, memory: Memory, target: Tensor | None, *, fused: bool
    ) -> tuple[Tensor | None, Tensor | None]:
        """The generator over every teacher-forced step at once: ``(logprobs (B, T, V'), target_lp
        (B, T))``. Given ``target`` ``(B, T)``, a model that does not copy returns only ``target_lp``
        (logprobs None): :meth:`VocabGenerator.log_prob`, with ``fused`` (``Kernels.fused_loss``) no
        vocabulary-sized tensor besides the logits, which never leave it; so does a pointer model
        with ``fused``, adding the target's copy term (:func:`pointer_target_logprob`)."""
        if target is not None and not self.copies:
            return None, self.vocab.log_prob(self.dropout(tf.features), target, self._shared(emb), fused=fused)
        if target is not None and fused:  # a pointer model's loss, its target alone
            V = self.vocab_size
            p_copy = self.p_copy(tf.copy_in)  # (B, T, 1)
            assert p_copy is not None and memory.src_ext is not None  # a copying model has both
            vocab_lp = self.vocab.log_prob(self.dropout(tf.features), target.clamp(max=V - 1), self._shared(emb))
            B, T = target.shape
            copied_lp = pointer_target_logprob(
                vocab_lp, p_copy.squeeze(-1), tf.attn.reshape(B, T, -1), memory.src_ext.reshape(B, 1, -1), target, V
            )  # (B, T)
            return None, copied_lp
        logprobs = self.logprobs(tf.features, emb, tf, memory)
        target_lp = None if target is None else logprobs.gather(-1, target.unsqueeze(-1)).squeeze(-1)
        return logprobs, target_lp
