"""Trained models shipped inside the package, one checkpoint folder per name.

``src/c2fsum/pretrained/<name>/`` holds what ``c2fsum export`` writes: ``model.safetensors``,
``config.json``, ``vocab.txt``, ``export.json``, the model card ``README.md`` and
``manifest.json`` (size and SHA-256 of every other file). The folders are package data, so they
install with the package; :mod:`c2fsum.pretrained.registry` resolves the names.
"""
