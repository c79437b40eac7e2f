"""Decoding: greedy, batched beam search (length penalty, trigram blocking), sampling."""

from c2fsum.decoding.beam import beam_search
from c2fsum.decoding.greedy import greedy_decode
from c2fsum.decoding.hypothesis import Hypothesis
from c2fsum.decoding.sampling import Sample, sample

__all__ = ["Hypothesis", "Sample", "beam_search", "greedy_decode", "sample"]
