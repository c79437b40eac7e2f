"""``c2fsum batch``: summarize a corpus, sharded, resumable, on a process pool or a Ray cluster.

One summary per article of the input shards (JSON Lines, CSV or Parquet tables with an
``article`` and an optional ``id``), each the text ``c2fsum summarize`` prints for that article
(the same :class:`c2fsum.pipeline.Pipeline`), written into one output file per input shard::

    shards.py   inputs -> shards -> rows (every record numbered; bad ones as error rows)
    worker.py   Summarizer: one per worker, the model loaded once; rows in, rows out
    engines.py  local (a process pool) or ray (Ray Data map_batches with Summarizer)
    store.py    the output folder: pieces of finished batches, shard files, errors.jsonl
    run.py      the driver: what is left, the engine, the progress bar, the writing

docs/corpus.md shows a run on two machines; bench/corpus.py measures the engines.
"""

from c2fsum.batch.run import Report, run_batch

__all__ = ["Report", "run_batch"]
