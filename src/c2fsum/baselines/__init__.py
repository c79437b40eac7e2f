"""Baselines: summarizers that need no trained model (FIRST, LEAD-3, LEAD, ORACLE in
:mod:`c2fsum.baselines.extractive`; the concept-coverage ILP in :mod:`c2fsum.baselines.ilp`; the
thesis's BERKELEY in :mod:`c2fsum.baselines.berkeley`). They read data and metrics only; evaluation
scores them (:func:`c2fsum.evaluation.baselines.run_baseline`)."""
