"""BERKELEY: the thesis's compressive ILP baseline (Durrett, Berg-Kirkpatrick & Klein 2016).

:mod:`.units` (deletable parts from TextBlob's shallow parse), :mod:`.coref` (rule-based
cross-sentence pronouns), :mod:`.model` (features, the ILP with length and anaphoricity
constraints, solved by HiGHS), :mod:`.learn` (the unit weights, fitted against ROUGE).
"""

from c2fsum.baselines.berkeley.learn import SHIPPED, fit, load_weights, save_weights
from c2fsum.baselines.berkeley.model import analyze, berkeley_summary, compression, render, solve, unit_scores

__all__ = [
    "SHIPPED",
    "analyze",
    "berkeley_summary",
    "compression",
    "fit",
    "load_weights",
    "render",
    "save_weights",
    "solve",
    "unit_scores",
]
