"""Experiments: train several presets under one budget, evaluate them and the baselines, write a report."""
