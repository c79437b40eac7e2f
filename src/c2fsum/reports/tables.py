"""Result tables in the layout of the thesis's Table 6.1."""

from __future__ import annotations

MODEL_COLUMN = ("Model", "model", "{}")
"""A column: its title, the metrics key it shows, the format of the value."""

COLUMNS = (
    MODEL_COLUMN,
    ("PPL", "ppl", "{:.2f}"),
    ("ROUGE-1", "rouge1", "{:.2f}"),
    ("ROUGE-2", "rouge2", "{:.2f}"),
    ("ROUGE-L", "rougeL", "{:.2f}"),
)


def _cell(fmt: str, value) -> str:
    if value is None:
        return "-"
    try:
        return fmt.format(value)
    except (ValueError, TypeError):
        return str(value)


def table_cells(rows: list[dict], columns=COLUMNS) -> tuple[list[str], list[list[str]]]:
    """``(header, body)``: the formatted cells of a table, for each renderer (text, Markdown, HTML)."""
    return [c[0] for c in columns], [[_cell(fmt, r.get(key)) for _, key, fmt in columns] for r in rows]


def format_table(rows: list[dict], columns=COLUMNS) -> str:
    """A plain-text table with one row per metrics dict (missing values shown as ``-``)."""
    header, body = table_cells(rows, columns)
    widths = [max(len(x) for x in col) for col in zip(header, *body, strict=True)]

    def line(cells):
        return "  ".join(
            c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        )

    sep = "  ".join("-" * w for w in widths)
    return "\n".join([line(header), sep, *(line(b) for b in body)])


CONCAT_COLUMNS = (
    ("R-1 concat", "rouge1_concat", "{:.2f}"),
    ("R-2 concat", "rouge2_concat", "{:.2f}"),
    ("R-L concat", "rougeL_concat", "{:.2f}"),
)
"""ROUGE against all highlights joined into one reference (the concat protocol)."""

ENTROPY = (("Entropy", "entropy", "{:.2f}"), ("ln M", "entropy_uniform", "{:.2f}"))
"""The thesis's Table 6.2: mean entropy of the coarse (chunk) attention per generated word, and
ln M, the entropy of the uniform distribution over the document's chunks."""

ENTROPY_COLUMNS = (MODEL_COLUMN, *ENTROPY)


def results_table(rows: list[dict]) -> str:
    """Table 6.1 layout plus the concatenated-highlights variant and Table 6.2 as extra columns."""
    return format_table(rows, (*COLUMNS, *CONCAT_COLUMNS, *ENTROPY))


def markdown_table(rows: list[dict], columns=COLUMNS) -> str:
    """The same cells as :func:`format_table` as a GitHub-flavoured Markdown table (numbers right-aligned)."""
    header, body = table_cells(rows, columns)
    align = ["---"] + ["---:"] * (len(header) - 1)
    return "\n".join("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |" for cells in (header, align, *body))
