#!/usr/bin/env python3
"""Hostile-input campaign: N seeded generated records through prepare, summarize, the API, the server.

Each of ``--n`` records (default 10,000) is generated from a seed: an article (plain text, empty
or invisible-only text, control characters, exotic Unicode incl. lone surrogates, markup and the
vocabulary's own special tokens, sizes from one character to 150,000 words or a 300,000-character
word, line and paragraph separators), highlights (strings, lists, empty, null, NaN, numbers,
objects), an id (missing, null, blank, numbers, booleans, lists, duplicates) and extra fields;
some articles are not strings at all. Every record then goes through four surfaces:

prepare
    The records are written 25 to a file as JSONL, JSONL.gz, JSON arrays, CSV, CSV.gz, Parquet
    or ``.story`` folders, with file-level faults (UTF-8 and UTF-16 byte-order marks, CRLF, blank
    lines, a record's line replaced by a broken one: cut JSON, invalid UTF-8 bytes, NUL bytes, NaN,
    a non-object, 100,000 nested brackets, a 5 MB line; CSV with unbalanced quotes, missing or
    extra fields, no header, another delimiter; Parquet with wrong column types, binary columns
    holding invalid UTF-8, a damaged file; a truncated gzip stream) and prepared one file at a
    time by ``c2fsum.data.prepare.prepare`` (in this process, the skip log captured). A record is
    accounted for when its id is in the output, a skip/drop message names its file and line (row,
    array index), a file-level refusal names its file (from that line on), or prepare refuses the
    whole file with a DataError naming it.
summarize (CLI)
    ``c2fsum summarize --model RUN --lines FILE`` (``c2fsum.cli.main.main``, in this process) on
    files of 10 articles, one per line (``\\n`` and ``\\r`` in an article made spaces), and every
    fifth article as a whole file in a hostile encoding (UTF-8, UTF-16 with BOM, Latin-1, invalid
    bytes, empty). Expected (issue 27): one output line per input line, or exit status 2 and one
    line naming the file and the line; a whole file is summarized or refused naming the file.
Python API
    ``c2fsum.load(RUN).summarize(texts)`` on batches of 50 (non-strings included): each text gets a
    summary, or the call raises ValueError naming ``text i`` (that text is refused, the batch
    retried without it).
server
    ``POST /summarize`` through FastAPI's TestClient on ``c2fsum.serving.app.create_app``: the
    article with random (sometimes invalid) options, and raw bodies (broken JSON, bytes that are
    not UTF-8, a JSON array, a form, 2 MB). Expected: 200 with a summary, or 413/422/503/504 with a
    ``detail`` that names the field or the limit; a 500 or an exception is a traceback.

Every call runs under a per-input alarm (``--timeout`` seconds; a hang is counted and the run goes
on). The model is a tiny MODEL 3 (hard attention, lazy decoding) trained 8 steps on the test
corpus; decoding uses beam 2 and at most 8 tokens. Printed: one line per surface with the counts
(inputs, accepted, refused naming the file/line/field, refused without naming it, lost,
tracebacks, hangs), then every fault found, grouped by what happened, with an example input.
Exit status 1 if any fault was found.

Example (about 10-15 minutes on 2 busy cores for 10,000 records)::

    OMP_NUM_THREADS=1 nice -n 19 .venv/bin/python bench/hostile_campaign.py
    .venv/bin/python bench/hostile_campaign.py --n 500 --surfaces prepare,api   # a quick look
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import gzip
import io
import json
import logging
import math
import random
import re
import shutil
import signal
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PER_FILE = 25
BATCH = 50
LINES = 10
WORDS = (
    "the council met on monday and voted to build a new bridge over the river . police said a man "
    "was arrested after the fire in the city centre . the company reported profits of $ 3 million "
    "for the year , its chief executive said in a statement ."
).split()
SPECIAL = ["<s>", "</s>", "<unk>", "<pad>", "<blank>", "@highlight", "-lrb-", "-RRB-", "``", "''", "--"]
SEPARATORS = ["\r", "\r\n", "\u2028", "\u2029", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\n\n\n"]
INVISIBLE = ["\u200b", "\u200c", "\u200d", "\ufeff", "\u00ad", "\u2060", "\u180e", " ", "\t", "\u3000"]
EXOTIC = [
    "\u202eevil\u202c",
    "👩\u200d👩\u200d👧\u200d👦",
    "中文没有空格的一句很长的话" * 3,
    "ภาษาไทยไม่มีช่องว่าง",
    "مرحبا بالعالم",
    "e\u0301\u0302\u0303\u0304\u0305" * 5,
    "𝐁𝐨𝐥𝐝 𝔣𝔯𝔞𝔨",
    "\ue000\uf8ff",
    "\ufffe\uffff",
    "ＦＵＬＬＷＩＤＴＨ",
    "\U0001f600" * 20,
    "ᄀᄁᄂ",
    "İıſK",
]
MARKUP = [
    "<html><body><script>alert(1)</script><p>text</p></body></html>",
    "<![CDATA[ x ]]> &amp; &lt;b&gt; &#0; &#x110000;",
    "# Title\n\n* item **bold** [link](http://x)",
    '{"article": "nested", "highlights": ["x"]}',
    'a,b,"c""d",\n1,2,3',
    "\\begin{equation} x^2 \\end{equation}",
    "%s %n %x {0} ${HOME} $(rm -rf /) `id`",
    "'; DROP TABLE docs; --",
]
CONTROL = [chr(c) for c in [*range(0, 32), 127, *range(0x80, 0xA0)] if chr(c) not in "\n\r"]


# ---------------------------------------------------------------------------------- generator
def sentence(rnd: random.Random, n: int | None = None) -> str:
    return " ".join(rnd.choice(WORDS) for _ in range(n or rnd.randint(3, 25)))


def gen_text(rnd: random.Random) -> tuple[str, str]:
    """(category, text); the text may hold lone surrogates (category ``surrogate``)."""
    kind = rnd.choices(
        ["plain", "empty", "control", "unicode", "markup", "special", "size", "separators", "surrogate", "mixed"],
        [18, 10, 10, 10, 8, 8, 6, 10, 4, 16],
    )[0]
    if kind == "plain":
        return kind, " ".join(sentence(rnd) for _ in range(rnd.randint(1, 8)))
    if kind == "empty":
        return kind, "".join(rnd.choice(INVISIBLE) for _ in range(rnd.randint(0, 6)))
    if kind == "control":
        words = [sentence(rnd, 2) for _ in range(rnd.randint(1, 6))]
        return kind, "".join(w + "".join(rnd.choice(CONTROL) for _ in range(rnd.randint(1, 4))) for w in words)
    if kind == "unicode":
        return kind, " ".join(rnd.choice(EXOTIC + WORDS) for _ in range(rnd.randint(1, 20)))
    if kind == "markup":
        return kind, rnd.choice(MARKUP) + " " + sentence(rnd)
    if kind == "special":
        return kind, " ".join(rnd.choice(SPECIAL + WORDS) for _ in range(rnd.randint(1, 30)))
    if kind == "size":
        size = rnd.choices(["char", "word", "longword", "words", "lines", "punct", "digits"], [3, 3, 1, 1, 1, 2, 2])[0]
        if size == "char":
            return kind, rnd.choice(["a", ".", "!", "0", "ß", "\u0301", "-"])
        if size == "word":
            return kind, rnd.choice(WORDS + SPECIAL)
        if size == "longword":
            return kind, "x" * rnd.choice([10_000, 300_000])
        if size == "words":
            return kind, " ".join(rnd.choice(WORDS) for _ in range(rnd.choice([20_000, 150_000])))
        if size == "lines":
            return kind, "\n".join(sentence(rnd, 2) for _ in range(rnd.randint(1000, 5000)))
        if size == "punct":
            return kind, "".join(rnd.choice(".,;:!?-()[]'\"`") for _ in range(rnd.randint(1, 2000)))
        return kind, " ".join(str(rnd.randint(0, 10**9)) for _ in range(rnd.randint(1, 200)))
    if kind == "separators":
        return kind, "".join(sentence(rnd) + rnd.choice(SEPARATORS) for _ in range(rnd.randint(1, 6)))
    if kind == "surrogate":
        s = sentence(rnd)
        i = rnd.randint(0, len(s))
        return kind, s[:i] + rnd.choice(["\ud800", "\udfff", "\udc80", "\ud83d"]) + s[i:]
    a, b = gen_text(rnd), gen_text(rnd)
    return "mixed", a[1] + rnd.choice([" ", "\n", ""]) + b[1]


MISSING = object()


@dataclass
class Record:
    n: int
    category: str
    article: Any
    highlights: Any
    id: Any
    extra: dict = field(default_factory=dict)
    mutation: str = ""
    """a line-level fault of the prepare file (the record's line replaced), if any"""
    written: dict | None = None
    """the values as a CSV or Parquet file holds them (strings, or JSON text for mixed columns)"""

    @property
    def key(self) -> str:
        return f"h{self.n:05d}"

    def as_dict(self) -> dict:
        d: dict[str, Any] = dict(self.extra)
        if self.id is not MISSING:
            d["id"] = self.id
        if self.article is not MISSING:
            d["article"] = self.article
        if self.highlights is not MISSING:
            d["highlights"] = self.highlights
        return d

    def accepted_ids(self) -> set[str]:
        """Ids the record may have in the prepared output (its own, or the article's hash)."""
        from c2fsum.data.readers import article_id

        fields = self.written if self.written is not None else {"id": self.id, "article": self.article}
        ident, article = fields.get("id"), fields.get("article")
        if isinstance(article, bytes):
            article = article.decode("utf-8", errors="replace")
        out = set()
        if isinstance(ident, str | int) and not isinstance(ident, bool):
            out.add(str(ident).strip())
        if isinstance(article, str):
            out.add(article_id(article))
        return out


def gen_record(rnd: random.Random, n: int) -> Record:
    category, article = gen_text(rnd)
    if rnd.random() < 0.04:
        category, article = "not_str", rnd.choice([None, 7, 3.5, True, ["a", "b"], {"x": 1}, math.nan, MISSING])
    hl = rnd.choices(["text", "list", "hostile", "empty", "weird"], [50, 15, 15, 10, 10])[0]
    if hl == "text":
        highlights: Any = sentence(rnd)
    elif hl == "list":
        highlights = [sentence(rnd) for _ in range(rnd.randint(1, 4))]
    elif hl == "hostile":
        highlights = gen_text(rnd)[1]
    elif hl == "empty":
        highlights = rnd.choice(["", "   ", "\n\n", [], [""], ["  ", "\t"]])
    else:
        highlights = rnd.choice([None, math.nan, 0, 12, True, {"a": "b"}, [1, 2], ["ok", 3], MISSING])
    ident: Any = f"h{n:05d}"
    if rnd.random() < 0.1:
        ident = rnd.choice([MISSING, None, "", "   ", n + 10**6, 1.5, False, ["x"], {"a": 1}, f" h{n:05d} "])
    extra = {}
    if rnd.random() < 0.1:
        extra = {rnd.choice(["url", "Article", "HIGHLIGHTS", "x" * 50, ""]): rnd.choice([1, "v", None, [1, {"a": []}]])}
    return Record(n, category, article, highlights, ident, extra)


# ------------------------------------------------------------------------------- accounting
@dataclass
class Tally:
    inputs: int = 0
    accepted: int = 0
    refused_named: int = 0
    refused_unnamed: int = 0
    lost: int = 0
    tracebacks: int = 0
    hangs: int = 0
    faults: dict = field(default_factory=lambda: collections.defaultdict(list))

    def fault(self, what: str, example: str) -> None:
        self.faults[what].append(example)


class Hang(Exception):
    pass


@contextlib.contextmanager
def alarm(seconds: float):
    def on_alarm(signum, frame):
        raise Hang(f"no answer within {seconds} s")

    old = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def short(x: Any, n: int = 90) -> str:
    r = repr(x)
    return r if len(r) <= n else r[: n - 20] + f"...<{len(r)} chars>"


class Capture(logging.Handler):
    """Collects every log message of c2fsum (DEBUG included: SkipLog's messages after the 50th)."""

    def __init__(self):
        super().__init__(logging.DEBUG)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


# ---------------------------------------------------------------------------------- prepare
def json_line(d: dict) -> str:
    return json.dumps(d, ensure_ascii=False, allow_nan=True)


def encode_line(line: str) -> bytes:
    # lone surrogates become the bytes they stand for (invalid UTF-8), as a broken file would hold
    return line.encode("utf-8", errors="surrogatepass")


def broken_line(rnd: random.Random, r: Record) -> tuple[str, bytes]:
    good = encode_line(json_line(r.as_dict()))
    kinds = ["cut", "bad_utf8", "nul", "nan", "not_object", "nested", "bigint", "huge", "bom", "quotes", "garbage"]
    kind = rnd.choice(kinds)
    if kind == "cut":
        return kind, good[: rnd.randint(0, max(0, len(good) - 1))]
    if kind == "bad_utf8":
        i = rnd.randint(0, len(good))
        return kind, good[:i] + rnd.choice([b"\xff", b"\xc3\x28", b"\xe2\x82", b"\xed\xa0\x80", b"\xc0\xaf"]) + good[i:]
    if kind == "nul":
        return kind, good.replace(b'"', b'\x00"', 1)
    if kind == "nan":
        return kind, b'{"id": "' + r.key.encode() + b'", "article": NaN, "highlights": Infinity}'
    if kind == "not_object":
        return kind, rnd.choice([b"[1, 2]", b"42", b'"text"', b"null", b"true", b"[]"])
    if kind == "nested":
        depth = rnd.choice([1000, 100_000])
        return kind, b"[" * depth + b"]" * depth
    if kind == "bigint":
        return kind, b'{"id": ' + b"7" * 5000 + b', "article": "a b c .", "highlights": "a"}'
    if kind == "huge":
        return kind, encode_line(json_line({"id": r.key, "article": "word " * 1_000_000, "highlights": "a b"}))
    if kind == "bom":
        return kind, b"\xef\xbb\xbf" + good
    if kind == "quotes":
        return kind, good.replace(b'"', b"'")
    return kind, bytes(rnd.randrange(256) for _ in range(rnd.randint(1, 200))).replace(b"\n", b" ")


def write_jsonl(path: Path, recs: list[Record], rnd: random.Random) -> dict[int, int]:
    """Write JSONL (gzip if the name says so) with faults; record n -> its line."""
    lines: list[bytes] = []
    where: dict[int, int] = {}
    crlf = rnd.random() < 0.1
    for r in recs:
        if rnd.random() < 0.05:
            lines.append(rnd.choice([b"", b"   ", b"\t"]))
        if rnd.random() < 0.15:
            r.mutation, raw = broken_line(rnd, r)
            if r.mutation in ("nan", "huge", "bigint"):  # written with an id and article of their own
                r.written = {"id": r.key if r.mutation != "bigint" else None, "article": None}
        else:
            raw = encode_line(json_line(r.as_dict()))
        where[r.n] = len(lines) + 1
        lines.append(raw)
    data = b"".join(x + (b"\r\n" if crlf else b"\n") for x in lines)
    fault = rnd.random()
    if fault < 0.05:
        data = b"\xef\xbb\xbf" + data
    elif fault < 0.08:
        data = b"\xff\xfe" + data.decode("utf-8", errors="surrogateescape").encode("utf-16-le", errors="surrogatepass")
    if path.name.endswith(".gz"):
        data = gzip.compress(data)
        if rnd.random() < 0.15:
            data = data[: rnd.randint(0, len(data) - 1)]
    path.write_bytes(data)
    return where


def write_json_array(path: Path, recs: list[Record], rnd: random.Random) -> dict[int, int]:
    items = []
    for r in recs:
        items.append(json_line(r.as_dict()))
    text = "[\n" + ",\n".join(items) + "\n]"
    if rnd.random() < 0.1:
        text = text[: rnd.randint(0, len(text))]
    path.write_bytes(encode_line(text))
    return {r.n: i for i, r in enumerate(recs)}


def csv_value(v: Any) -> str:
    if v is MISSING or v is None:
        return ""
    if isinstance(v, list):
        return "\n".join(str(x) for x in v)
    return str(v)


def write_csv(path: Path, recs: list[Record], rnd: random.Random) -> dict[int, int]:
    import csv

    buf = io.StringIO(newline="")
    delim = ";" if rnd.random() < 0.03 else ","
    w = csv.writer(buf, delimiter=delim)
    header = ["id", "article", "highlights"]
    if rnd.random() < 0.05:
        header = rnd.choice([["id", "Article", "highlights"], [" id ", " article", "highlights "], ["article"]])
    if rnd.random() >= 0.03:
        w.writerow(header)
    where: dict[int, int] = {}
    for r in recs:
        # the line of a row is where it starts, counting \r, \n and \r\n as line ends (as csv does)
        where[r.n] = len(re.findall(r"\r\n|\r|\n", buf.getvalue())) + 1
        row = [csv_value(r.id), csv_value(r.article), csv_value(r.highlights)]
        r.written = {"id": row[0], "article": row[1]}
        fault = rnd.random()
        if fault < 0.03:
            row = row[:2]
            r.mutation = "csv_missing_field"
        elif fault < 0.06:
            row = [*row, "extra"]
            r.mutation = "csv_extra_field"
        if fault > 0.97:
            buf.write(f'{row[0]},"{row[1]},{row[2]}\n')  # an unbalanced quote
            r.mutation = "csv_open_quote"
        else:
            w.writerow(row)
    data = encode_line(buf.getvalue())
    if rnd.random() < 0.05:
        data = b"\xef\xbb\xbf" + data
    if path.name.endswith(".gz"):
        data = gzip.compress(data)
    path.write_bytes(data)
    return where


def write_parquet(path: Path, recs: list[Record], rnd: random.Random) -> dict[int, int]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    def col(values: list[Any]):
        for typ in (None, pa.string()):
            try:
                return pa.array(values, type=typ)
            except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError, ValueError, OverflowError):
                continue
        return pa.array([None if v is None else json.dumps(v, default=str) for v in values])

    def val(v):
        if v is MISSING:
            return None
        if isinstance(v, str):
            return v.encode("utf-8", errors="surrogatepass").decode("utf-8", errors="replace")
        return v

    cols = {
        "id": col([val(r.id) for r in recs]),
        "article": col([val(r.article) for r in recs]),
        "highlights": col([val(r.highlights) for r in recs]),
    }
    fault = rnd.random()
    if fault < 0.1:
        cols["article"] = pa.array(
            [encode_line(r.article) if isinstance(r.article, str) else b"\xff\xfe" for r in recs], type=pa.binary()
        )
        for r in recs:
            r.mutation = "binary_article"
    elif fault < 0.13:
        del cols["highlights"]
    for i, r in enumerate(recs):
        r.written = {name: cols[name][i].as_py() for name in cols}
    pq.write_table(pa.table(cols), path, row_group_size=rnd.choice([3, 1000]))
    if rnd.random() < 0.05:
        data = bytearray(path.read_bytes())
        for _ in range(20):
            data[rnd.randrange(4, max(5, len(data) - 8))] = rnd.randrange(256)
        path.write_bytes(bytes(data))
    return {r.n: i + 1 for i, r in enumerate(recs)}


def write_stories(folder: Path, recs: list[Record], rnd: random.Random) -> dict[int, str]:
    folder.mkdir()
    where = {}
    for r in recs:
        hl = r.highlights if isinstance(r.highlights, list) else [r.highlights]
        body = csv_value(r.article) + "".join(f"\n\n@highlight\n\n{csv_value(h)}" for h in hl)
        if rnd.random() < 0.05:
            body = "\ufeff" + body
        name = f"{r.key}.story"
        (folder / name).write_bytes(encode_line(body))
        r.written = {"id": r.key}
        where[r.n] = str(folder / name)
    return where


def covers(named: str, loc: str) -> bool:
    """Whether a location named by a message (``path:7``, ``path:7-9``, ``path:row 3``, ``path``)
    covers a record's location."""
    if named == loc or named.startswith(loc + ":"):  # a file (a .story) named with its line
        return True
    m, r = re.match(r"^(.*):(\d+)-(\d+)$", named), re.match(r"^(.*):(\d+)$", loc)
    return bool(m and r and m.group(1) == r.group(1) and int(m.group(2)) <= int(r.group(2)) <= int(m.group(3)))


SKIP_RE = re.compile(r"^(?:\[\w+\] )?(.+?): (skipped|dropped) \((\w+)\)")


def prepare_surface(recs: list[Record], work: Path, rnd: random.Random, timeout: float, t: Tally) -> None:
    from c2fsum.data.prepare import prepare
    from c2fsum.data.readers import DataError

    cap = Capture()
    lg = logging.getLogger("c2fsum")
    lg.addHandler(cap)
    lg.setLevel(logging.DEBUG)
    lg.propagate = False
    fmt_choices = ["jsonl", "jsonl.gz", "json", "csv", "csv.gz", "parquet", "story"]
    for f, start in enumerate(range(0, len(recs), PER_FILE)):
        group = recs[start : start + PER_FILE]
        fmt = rnd.choices(fmt_choices, [35, 8, 7, 15, 5, 15, 15])[0]
        folder = work / f"in{f:04d}"
        folder.mkdir()
        path = folder / ("train" if fmt == "story" else f"train-{f:04d}.{fmt}")
        writer = {"jsonl": write_jsonl, "jsonl.gz": write_jsonl, "json": write_json_array, "csv": write_csv}
        writer.update({"csv.gz": write_csv, "parquet": write_parquet, "story": write_stories})
        where = writer[fmt](path, group, rnd)
        cap.messages.clear()
        faults_before = sum(map(len, t.faults.values()))
        out = work / f"out{f:04d}"
        t.inputs += len(group)
        refused_file: str | None = None
        try:
            with alarm(timeout):
                prepare(path, out, workers=1, progress=False, vocab_size=100)
        except Hang:
            t.hangs += 1
            t.fault("prepare: hang", f"{path} ({fmt})")
            t.lost += len(group)
            continue
        except DataError as e:
            refused_file = str(e)
        except Exception as e:  # noqa: BLE001 - a traceback is what this campaign looks for
            t.tracebacks += 1
            t.fault(f"prepare: {type(e).__name__}", f"{path} ({fmt}): {short(str(e), 200)}")
            t.lost += len(group)
            continue
        out_ids: collections.Counter = collections.Counter()
        if (out / "train.jsonl").exists():
            for line in (out / "train.jsonl").read_text(encoding="utf-8").splitlines():
                out_ids[json.loads(line)["id"]] += 1
        named: dict[str, set] = collections.defaultdict(set)  # file -> locations named by skip messages
        file_level: list[tuple[str, int]] = []  # (file, from line)
        for m in cap.messages:
            g = SKIP_RE.match(m)
            if not g:
                continue
            loc, _, reason = g.groups()
            if reason.endswith("_files"):
                mm = re.match(r"^(.*?)(?::(\d+))?$", loc)
                file_level.append((mm.group(1), int(mm.group(2) or 1)))
            else:
                named[loc].add(reason)
        for r in group:
            loc = where[r.n]
            if isinstance(loc, str):
                locs = [loc]
            elif fmt == "json":
                locs = [f"{path}[{loc}]"]
            elif fmt == "parquet":
                locs = [f"{path}:row {loc}"]
            else:
                locs = [f"{path}:{loc}"]
            ids = r.accepted_ids()
            hit = next((i for i in ids if out_ids[i] > 0), None)
            if any(covers(k, x) for x in locs for k in named):
                t.refused_named += 1
            elif hit is not None:
                out_ids[hit] -= 1
                t.accepted += 1
            elif any(str(path) == fp and (isinstance(loc, str) or loc >= ln) for fp, ln in file_level):
                t.refused_named += 1
            elif refused_file is not None and str(path) in refused_file:
                t.refused_named += 1
            else:
                t.lost += 1
                t.fault(
                    f"prepare: record neither in the output nor named by a refusal ({fmt})",
                    f"{locs[0]} {r.mutation or r.category}: article {short(r.article, 60)}, highlights "
                    f"{short(r.highlights, 40)}, id {short(r.id, 20)}",
                )
        extra = sum(v for v in out_ids.values() if v > 0)
        if extra:
            t.fault(f"prepare: documents in the output that no record accounts for ({fmt})", f"{path}: {extra}")
        if sum(map(len, t.faults.values())) == faults_before:  # keep the files of a fault to look at
            shutil.rmtree(out, ignore_errors=True)
            shutil.rmtree(folder, ignore_errors=True)
    lg.removeHandler(cap)
    lg.propagate = True


# -------------------------------------------------------------------------------------- API
def api_surface(recs: list[Record], run: Path, timeout: float, t: Tally) -> None:
    import c2fsum

    model = c2fsum.load(run)
    for start in range(0, len(recs), BATCH):
        pending = [(r, None if r.article is MISSING else r.article) for r in recs[start : start + BATCH]]
        t.inputs += len(pending)
        while pending:
            texts = [x for _, x in pending]
            try:
                with alarm(timeout * 3):
                    out = model.summarize(texts, beam=2, max_len=8)
            except Hang:
                t.hangs += 1
                t.fault("api: hang (batch)", short([r.key for r, _ in pending]))
                t.lost += len(pending)
                break
            except ValueError as e:
                m = re.match(r"text (\d+): ", str(e))
                if m is None or int(m.group(1)) >= len(pending):
                    t.refused_unnamed += len(pending)
                    t.fault("api: ValueError naming no text", short(str(e), 200))
                    break
                t.refused_named += 1
                del pending[int(m.group(1))]
                continue
            except Exception as e:  # noqa: BLE001
                # find the text(s) responsible, one at a time
                for r, x in pending:
                    try:
                        with alarm(timeout):
                            model.summarize([x], beam=2, max_len=8)
                        t.accepted += 1
                    except ValueError:
                        t.refused_named += 1
                    except Exception as e2:  # noqa: BLE001
                        t.tracebacks += 1
                        t.fault(f"api: {type(e2).__name__}: {short(str(e2), 100)}", f"{r.category}: {short(x)}")
                del e
                break
            if len(out) != len(pending) or not all(isinstance(s.text, str) for s in out):
                t.lost += len(pending)
                t.fault("api: wrong number of summaries", f"{len(out)} for {len(pending)}")
            else:
                t.accepted += len(pending)
            break


# -------------------------------------------------------------------------------------- CLI
def run_cli(argv: list[str], timeout: float) -> tuple[int | None, str, str, BaseException | None]:
    from c2fsum.cli.main import main

    out, err = io.StringIO(), io.StringIO()
    code: int | None = None
    exc: BaseException | None = None
    try:
        with alarm(timeout), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(argv)
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else 2
    except BaseException as e:  # noqa: BLE001 - Hang or a traceback
        exc = e
    return code, out.getvalue(), err.getvalue(), exc


def cli_surface(recs: list[Record], run: Path, work: Path, rnd: random.Random, timeout: float, t: Tally) -> None:
    base = ["-q", "summarize", "--model", str(run), "--beam", "2", "--max-len", "8"]
    texts = [(r, r.article) for r in recs if isinstance(r.article, str)]
    for start in range(0, len(texts), LINES):
        group = texts[start : start + LINES]
        lines = [re.sub(r"[\r\n]", " ", x) for _, x in group]
        path = work / f"lines{start:05d}.txt"
        path.write_bytes(b"".join(encode_line(x) + b"\n" for x in lines))
        t.inputs += len(group)
        code, out, err, exc = run_cli([*base, "--lines", str(path)], timeout * 3)
        if isinstance(exc, Hang):
            t.hangs += 1
            t.lost += len(group)
            t.fault("cli --lines: hang", str(path))
            continue
        if exc is not None:
            t.tracebacks += 1
            t.lost += len(group)
            t.fault(f"cli --lines: {type(exc).__name__}", short(str(exc), 200))
            continue
        got = out.split("\n")[:-1] if out.endswith("\n") else out.split("\n")
        if code == 0 and len(got) == len(lines):
            t.accepted += len(group)
            continue
        if code == 0:
            t.lost += len(group)
            t.fault(
                f"cli --lines: {'more' if len(got) > len(lines) else 'fewer'} output lines than input lines",
                f"{len(got)} output lines for {len(lines)} input lines; e.g. the file holds "
                + short(next((x for x in lines if not x.strip() or any(s in x for s in SEPARATORS)), lines[0]), 80),
            )
            continue
        msg = err.strip().splitlines()[-1] if err.strip() else ""
        m = re.search(r"(?:line|text) (\d+)", msg)
        kind = re.sub(r"\d+", "N", msg.replace(str(path), "FILE"))[:110]  # the message's form
        if str(path) in msg and m:
            t.refused_named += 1
            t.lost += len(group) - 1
            t.fault(f"cli --lines: one line refuses the file, the others get no output: {kind}", msg[:200])
        else:
            t.refused_unnamed += 1
            t.lost += len(group) - 1
            t.fault(f"cli --lines: refusal names no line (the other lines get no output): {kind}", msg[:200])
    # every fifth article as a whole file, in a hostile encoding
    for i, (_r, x) in enumerate(texts[::5]):
        enc = rnd.choice(["utf-8", "utf-16", "latin-1", "bad", "empty", "bom"])
        if enc == "utf-16":
            data = x.encode("utf-16", errors="surrogatepass")
        elif enc == "latin-1":
            data = x.encode("latin-1", errors="replace")
        elif enc == "bad":
            data = encode_line(x) + b"\xff\xc3"
        elif enc == "empty":
            data = b""
        elif enc == "bom":
            data = b"\xef\xbb\xbf" + encode_line(x)
        else:
            data = encode_line(x)
        path = work / f"doc{i:05d}.txt"
        path.write_bytes(data)
        t.inputs += 1
        code, out, err, exc = run_cli([*base, str(path)], timeout)
        if isinstance(exc, Hang):
            t.hangs += 1
            t.lost += 1
            t.fault("cli file: hang", f"{enc}: {short(x)}")
        elif exc is not None:
            t.tracebacks += 1
            t.lost += 1
            t.fault(f"cli file: {type(exc).__name__}: {short(str(exc), 100)}", f"{enc}: {short(x)}")
        elif code == 0:
            t.accepted += 1
        elif str(path) in err:
            t.refused_named += 1
        else:
            t.refused_unnamed += 1
            t.fault("cli file: refusal does not name the file", f"{enc}: {err.strip()[:160]}")


# ----------------------------------------------------------------------------------- server
FIELD_RE = re.compile(r"^(text|beam|max_length|min_length|block_trigrams|the request body|body|[a-z_]+:)")


def server_requests(r: Record, rnd: random.Random) -> tuple[dict, str]:
    """Keyword arguments of one ``client.post`` and a label."""
    roll = rnd.random()
    if roll < 0.08:
        body = rnd.choice(
            [
                b"{not json",
                b"",
                b"[1,2]",
                b'{"text": "a\xff b"}',
                b'{"text": "' + b"w " * 1_100_000 + b'"}',
                b"null",
                b'{"text": "x", "text": 5}',
                b'{"text": "\\ud800 x"}',
            ]
        )
        ctype = rnd.choice(["application/json", "text/plain", "application/x-www-form-urlencoded"])
        return {"content": body, "headers": {"content-type": ctype}}, f"raw body {short(body, 50)} as {ctype}"
    payload: dict[str, Any] = {}
    if r.article is not MISSING:
        payload["text"] = r.article if not isinstance(r.article, float) or not math.isnan(r.article) else None
    for name, good, bad in (
        ("beam", lambda: rnd.randint(1, 3), lambda: rnd.choice([0, -1, "2", 2.5, 10**9, None, True])),
        ("max_length", lambda: rnd.randint(1, 12), lambda: rnd.choice([0, -5, "x", 10**9, 1.0])),
        ("min_length", lambda: rnd.randint(0, 6), lambda: rnd.choice([-1, 50, "y", 10**12])),
        ("block_trigrams", lambda: rnd.random() < 0.5, lambda: rnd.choice(["yes", 2, [], None])),
    ):
        roll = rnd.random()
        if roll < 0.3:
            payload[name] = good()
        elif roll < 0.36:
            payload[name] = bad()
    payload.setdefault("max_length", 8)
    payload.setdefault("beam", 2)
    if rnd.random() < 0.02:
        payload[rnd.choice(["txt", "read_chunks", "extra"])] = 1
    if isinstance(payload.get("text"), str):
        # lone surrogates cannot go through json.dumps(ensure_ascii=False); send them escaped
        return {"content": json.dumps(payload).encode(), "headers": {"content-type": "application/json"}}, "json"
    return {"json": payload}, "json"


def server_surface(recs: list[Record], run: Path, rnd: random.Random, timeout: float, t: Tally) -> None:
    from fastapi.testclient import TestClient

    from c2fsum.pipeline import Pipeline
    from c2fsum.serving.app import create_app

    app = create_app(Pipeline(run))
    with TestClient(app, raise_server_exceptions=True) as client:
        for r in recs:
            kw, label = server_requests(r, rnd)
            t.inputs += 1
            try:
                with alarm(timeout):
                    resp = client.post("/summarize", **kw)
            except Hang:
                t.hangs += 1
                t.lost += 1
                t.fault("server: hang", f"{label}: {short(r.article)}")
                continue
            except Exception as e:  # noqa: BLE001
                t.tracebacks += 1
                t.lost += 1
                t.fault(f"server: {type(e).__name__}: {short(str(e), 100)}", f"{label}: {short(kw, 120)}")
                continue
            if resp.status_code == 200:
                body = resp.json()
                if isinstance(body.get("summary"), str):
                    t.accepted += 1
                else:
                    t.lost += 1
                    t.fault("server: 200 without a summary", short(body))
            elif resp.status_code in (413, 422, 503, 504):
                detail = resp.json().get("detail", "")
                if isinstance(detail, str) and (FIELD_RE.match(detail) or "at most" in detail):
                    t.refused_named += 1
                else:
                    t.refused_unnamed += 1
                    t.fault(f"server: {resp.status_code} whose detail names no field or limit", short(detail, 160))
            else:
                t.tracebacks += resp.status_code >= 500
                t.lost += 1
                t.fault(f"server: status {resp.status_code}", f"{label}: {short(kw, 120)} -> {resp.text[:120]}")


# ------------------------------------------------------------------------------------- main
sys.path.insert(0, str(ROOT / "tests"))
import tiny  # noqa: E402  (tests/tiny.py: the one definition of the tiny models' sizes)

TINY = [*tiny.CAMPAIGN, "train.max_steps=8"]


def tiny_model(work: Path) -> Path:
    from c2fsum.config import load_config
    from c2fsum.data.prepare import prepare
    from c2fsum.training.trainer import Trainer

    data, run = work / "model-data", work / "model-run"
    if not (run / "best").exists():
        prepare(ROOT / "tests" / "data" / "corpus", data, workers=1, progress=False, vocab_size=500)
        Trainer(load_config(ROOT / "configs" / "model3-cpu.yaml", TINY), data, run, progress=False).fit()
    return run


def report(name: str, t: Tally, seconds: float) -> None:
    print(
        f"{name:9s} inputs {t.inputs:6,}  accepted {t.accepted:6,}  refused naming file/line/field "
        f"{t.refused_named:6,}  refused unnamed {t.refused_unnamed:4,}  lost {t.lost:5,}  "
        f"tracebacks {t.tracebacks:3,}  hangs {t.hangs:2,}  ({seconds:.0f} s)",
        flush=True,
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=10_000, help="generated records (10,000)")
    ap.add_argument("--seed", type=int, default=27)
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds one input may take (60)")
    ap.add_argument("--surfaces", default="prepare,cli,api,server")
    ap.add_argument("--work", help="working folder (default: a temporary one, removed at the end)")
    ap.add_argument("--examples", type=int, default=3, help="example inputs printed per fault (3)")
    a = ap.parse_args()
    surfaces = a.surfaces.split(",")
    work = Path(a.work) if a.work else Path(tempfile.mkdtemp(prefix="hostile_campaign."))
    work.mkdir(parents=True, exist_ok=True)
    logging.getLogger("c2fsum").setLevel(logging.ERROR)
    try:
        rnd = random.Random(a.seed)
        recs = [gen_record(rnd, n) for n in range(a.n)]
        cats = collections.Counter(r.category for r in recs)
        print(f"records: {len(recs):,} (seed {a.seed}): " + ", ".join(f"{k} {v}" for k, v in cats.most_common()))
        run = tiny_model(work) if set(surfaces) - {"prepare"} else None
        tallies: dict[str, Tally] = {}
        for s in surfaces:
            t0 = time.monotonic()
            t = tallies[s] = Tally()
            sub = work / s
            shutil.rmtree(sub, ignore_errors=True)
            sub.mkdir()
            srnd = random.Random(f"{a.seed}-{s}")
            if s == "prepare":
                prepare_surface(recs, sub, srnd, a.timeout, t)
            elif s == "api":
                api_surface(recs, run, a.timeout, t)
            elif s == "cli":
                cli_surface(recs, run, sub, srnd, a.timeout, t)
            elif s == "server":
                server_surface(recs, run, srnd, a.timeout, t)
            else:
                raise SystemExit(f"--surfaces: unknown surface {s!r}, expected prepare, cli, api, server")
            report(s, t, time.monotonic() - t0)
        total = Tally()
        for t in tallies.values():
            for k in ("inputs", "accepted", "refused_named", "refused_unnamed", "lost", "tracebacks", "hangs"):
                setattr(total, k, getattr(total, k) + getattr(t, k))
        report("all", total, 0)
        faults = [(s, what, ex) for s, t in tallies.items() for what, ex in t.faults.items()]
        print(f"\nfaults: {len(faults)} kinds")
        for _, what, ex in sorted(faults, key=lambda x: -len(x[2])):
            print(f"- {what} ({len(ex)} times)")
            for e in ex[: a.examples]:
                print(f"    {e}")
        return 1 if faults else 0
    finally:
        if not a.work:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
