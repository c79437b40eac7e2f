// What the c2fsum page says about the model and a summary: pure functions of the /health and
// /summarize responses (no DOM), used by app.js and run in node by tests/serving/test_page_facts.py.
"use strict";

const HEATMAP_COLUMNS = 40;  // a longer document's heatmap shows only the chunks read

function pct(x) {
  if (x > 0 && x < 0.0005) return "<0.1%";  // read a little: never written as 0.0%
  return `${(100 * x).toFixed(x < 0.1 ? 1 : 0)}%`;
}
function plural(n, word) { return `${n.toLocaleString("en")} ${word}${n === 1 ? "" : "s"}`; }

// How the model reads a document (the header), from /health.
function modelReads(h) {
  const d = h.defaults;
  const what = d.max_words > 0 ? `reads the first ${plural(d.max_words, "word")} of a document` : "reads whole documents";
  const reads = `${what} in chunks of ${h.chunk_len} words`;
  return h.hard ? `${reads}, ${plural(d.read_chunks, "chunk")} per step at the word level` : reads;
}

// Total attention the summary put on each chunk, (M,): the mean of the summary words' rows.
function chunkTotals(result) {
  const total = new Array(result.chunks.length).fill(0);
  result.attention.forEach((row) => row.forEach((w, i) => { total[i] += w; }));
  const n = Math.max(result.attention.length, 1);
  return total.map((w) => w / n);
}

// The chunks the summary read (attention above 0), most read first: at most k of them.
function mostRead(total, k) {
  return [...total.keys()].filter((i) => total[i] > 0).sort((a, b) => total[b] - total[a]).slice(0, k);
}

// The line above the summary: the grid, what was cut, what was read at the word level.
function docInfo(result) {
  const m = result.chunks.length, fine = result.fine_chunks;
  let info = `the document: ${plural(m, "chunk")} of ${result.grid[1]} words (${plural(result.words, "word")})`;
  if (result.cut) {
    info += ` · cut: the model reads the first ${plural(result.read_limit, "word")} of a text; this one has ` +
      `${result.text_words.toLocaleString("en")}, the rest was not read`;
  }
  return info + ` · read at the word level: ${plural(fine.length, "chunk")} (${pct(result.fine_fraction)} of its words)`;
}

// The heatmap's columns (in document order) and its caption: every chunk of a short document; of
// a long one, the chunks read at the word level when they fit, else the most read (never one unread).
function heatmap(result, total) {
  const m = result.chunks.length, fine = result.fine_chunks;
  if (m <= HEATMAP_COLUMNS) return {columns: [...Array(m).keys()], caption: "summary words × chunks"};
  if (fine.length <= HEATMAP_COLUMNS) {
    return {
      columns: [...fine].sort((a, b) => a - b),
      caption: `summary words × the ${plural(fine.length, "chunk")} read at the word level (of ${m})`,
    };
  }
  const read = mostRead(total, Infinity);
  const columns = read.slice(0, HEATMAP_COLUMNS).sort((a, b) => a - b);
  const which = read.length > HEATMAP_COLUMNS ? `the ${columns.length} chunks most read` : `the ${plural(columns.length, "chunk")} read`;
  return {columns, caption: `summary words × ${which} (of ${m})`};
}

if (typeof module !== "undefined") {
  module.exports = {HEATMAP_COLUMNS, pct, plural, modelReads, chunkTotals, mostRead, docInfo, heatmap};
}
