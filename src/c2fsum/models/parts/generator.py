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


def generator_layers(cfg: ModelConfig, vocab_size: int) -> tuple[VocabGenerator, nn.Linear | None]:
    """The vocabulary output layer and the pointer switch W_u (None: the model does not copy)."""
    generator = VocabGenerator(
        in_dim=features_dim(cfg),
        vocab_size=vocab_size,
        shared_dim=cfg.emb_dim if cfg.share_embeddings else 0,
        shared_output=cfg.shared_output,
    )
    switch = nn.Linear(3 * cfg.hidden if cfg.intra_decoder else 2 * cfg.hidden, 1) if cfg.pointer else None
    return generator, switch


class Generator:
    """Runs the family's ``generator`` (and, shared, its target embedding ``tgt_emb``) after its
    ``dropout``; mixes in copying for a pointer model. Holds no parameters."""

    def __init__(self, generator: VocabGenerator, tgt_emb: nn.Embedding, dropout: nn.Dropout, *, copies: bool):
        self.generator, self.tgt_emb, self.dropout = generator, tgt_emb, dropout
        self.copies = copies
        self.vocab_size = generator.bias.numel()  # V

    def emb_weight(self) -> Tensor | None:
        """W_emb ``(V, E)`` for a shared-weight generator, else None."""
        return self.tgt_emb.weight if self.generator.shared else None

    def prepare(self, memory: Memory, kernels: Kernels) -> Memory:
        """Once per batch for step-by-step decoding: ``memory.shared`` = :class:`OutputWeights`
        (packed for oneDNN with ``Kernels.packed_generator``, where that applies)."""
        if memory.shared is None:
            weight = self.generator.output_matrix(self.tgt_emb.weight) if self.generator.shared else None
            packed = None
            if kernels.packed_generator:
                packed = pack_linear_weight(weight if weight is not None else self.generator.output_matrix())
            memory.shared = OutputWeights(weight=weight, packed=packed)
        return memory

    def logits(self, features: Tensor, memory: Memory | None = None) -> Tensor:
        """Features ``(..., D)`` -> vocabulary logits ``(..., V)`` (dropout on the features)."""
        shared = cast(OutputWeights, memory.shared) if memory is not None and memory.shared else None
        weight, packed = (shared.weight, shared.packed) if shared is not None else (None, None)
        return self.generator(self.dropout(features), self.emb_weight(), weight, packed)

    def logprobs(
        self, features: Tensor, attn: Tensor | None = None, p_copy: Tensor | None = None, memory: Memory | None = None
    ) -> Tensor:
        """Features ``(B, D)`` or ``(B, T, D)`` -> log-probabilities over V (or V' when copying).

        ``attn`` ``(B[, T], M, N)`` and ``p_copy`` ``(B[, T], 1)`` are needed by pointer models.
        """
        logp = torch.log_softmax(self.logits(features, memory), dim=-1)
        if not self.copies:
            return logp
        assert attn is not None and p_copy is not None and memory is not None and memory.src_ext is not None
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
        self, tf: DecoderOutput, memory: Memory, target: Tensor | None, *, fused: bool
    ) -> tuple[Tensor | None, Tensor | None]:
        """The generator over every teacher-forced step at once: ``(logprobs (B, T, V'), target_lp
        (B, T))``. Given ``target`` ``(B, T)``, a model that does not copy returns only ``target_lp``
        (logprobs None): :meth:`VocabGenerator.log_prob`, with ``fused`` (``Kernels.fused_loss``) no
        vocabulary-sized tensor besides the logits, which never leave it; so does a pointer model
        with ``fused``, adding the target's copy term (:func:`pointer_target_logprob`)."""
        if target is not None and not self.copies:
            return None, self.generator.log_prob(self.dropout(tf.features), target, self.emb_weight(), fused=fused)
        if target is not None and fused:  # a pointer model's loss, its target alone
            V = self.vocab_size
            assert tf.p_copy is not None and memory.src_ext is not None  # a copying model has both
            vocab_lp = self.generator.log_prob(self.dropout(tf.features), target.clamp(max=V - 1), self.emb_weight())
            B, T = target.shape
            copied_lp = pointer_target_logprob(
                vocab_lp, tf.p_copy.squeeze(-1), tf.attn.reshape(B, T, -1), memory.src_ext.reshape(B, 1, -1), target, V
            )  # (B, T)
            return None, copied_lp
        logprobs = self.logprobs(tf.features, tf.attn, tf.p_copy, memory)
        target_lp = None if target is None else logprobs.gather(-1, target.unsqueeze(-1)).squeeze(-1)
        return logprobs, target_lp
