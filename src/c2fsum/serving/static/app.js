// c2fsum page: submit an article, show the summary, an overview of the whole document with the
// chunks the model read, and shade the chunks each summary word read.
// Plain JS, no build step. Data from the API is inserted with textContent only. What the page
// says (the captions, the chunks shown) comes from facts.js, loaded before this file.
"use strict";

const $ = (id) => document.getElementById(id);
let health = null;   // the /health response: the model, its decoding defaults, the server's limits
let result = null;   // the last /summarize response
let pinned = null;   // index of the pinned summary word, or null

function shade(w) { return `rgba(220, 38, 38, ${Math.min(1, w).toFixed(3)})`; }

async function loadHealth() {
  try {
    const r = await fetch("/health");
    health = await r.json();
  } catch (e) {
    $("model-info").textContent = "server unreachable";
    return;
  }
  const h = health, d = h.defaults;
  const name = h.model.split("/").filter((p) => p && p !== "best" && p !== "last").pop() || h.model;
  $("model-info").textContent = `${name} · ${h.family} · ${modelReads(h)}`;
  $("model-info").title = h.model;
  // the form starts at the model's own decoding defaults, within the server's limits
  $("beam").value = d.beam;
  $("beam").max = h.limits.max_beam;
  $("max-length").value = d.max_len;
  $("max-length").max = h.limits.max_length;
  $("min-length").value = d.min_len;
  $("min-length").max = h.limits.max_length;
  $("block-trigrams").checked = d.block_trigrams;
  $("read-chunks-label").hidden = !h.hard;
  if (h.hard) $("read-chunks").value = d.read_chunks;
  $("defaults").textContent = `the model's defaults: beam ${d.beam}, ${d.min_len}-${d.max_len} tokens` +
    (h.hard ? `, ${plural(d.read_chunks, "chunk")} read per step` : "") +
    ` · this server accepts up to ${h.limits.max_chars.toLocaleString("en")} characters`;
}

function setStatus(text, isError) {
  $("status").textContent = text;
  $("status").className = isError ? "error" : "";
}

function intField(id) {
  const v = parseInt($(id).value, 10);
  return Number.isNaN(v) ? undefined : v;
}

async function summarize() {
  const text = $("article").value;
  if (!text.trim()) { setStatus("Paste or upload an article first.", true); return; }
  if (health && text.length > health.limits.max_chars) {
    setStatus(`The article has ${text.length.toLocaleString("en")} characters; this server accepts at most ` +
      `${health.limits.max_chars.toLocaleString("en")} (start it with a larger \`c2fsum serve --max-chars\`)`, true);
    return;
  }
  const body = {
    text,
    beam: intField("beam"),
    max_len: intField("max-length"),
    min_len: intField("min-length"),
    block_trigrams: $("block-trigrams").checked,
  };
  if (health && health.hard) body.read_chunks = intField("read-chunks");
  $("submit").disabled = true;
  setStatus("summarizing…", false);
  const t0 = performance.now();
  try {
    const r = await fetch("/summarize", {
      method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body),
    });
    const data = await r.json().catch(() => ({detail: `HTTP ${r.status}`}));
    if (!r.ok) { setStatus(`Error ${r.status}: ${data.detail}`, true); return; }
    result = data;
    pinned = null;
    render();
    $("result").scrollIntoView({block: "start"});  // the first screen: the summary and where it read
    setStatus(`${data.tokens.length} tokens in ${((performance.now() - t0) / 1000).toFixed(2)} s`, false);
  } catch (e) {
    setStatus(`Request failed: ${e}`, true);
  } finally {
    $("submit").disabled = false;
  }
}

function render() {
  const {tokens, chunks, attention, grid, fine_chunks: fine} = result;
  const m = chunks.length;
  const fineSet = new Set(fine);
  const total = chunkTotals(result);
  const ranked = mostRead(total, 8);  // never a chunk the summary did not read
  $("result").hidden = false;
  $("doc-info").textContent = docInfo(result);
  $("summary-text").textContent = result.summary || "(the model produced an empty summary)";

  const summary = $("summary");
  summary.replaceChildren();
  const label = document.createElement("span");
  label.className = "muted label";
  label.textContent = "the model's tokens (hover one to see where it read; click to pin it):";
  summary.append(label, " ");
  tokens.forEach((tok, t) => {
    const span = document.createElement("span");
    span.className = "word";
    span.dataset.t = String(t);
    span.textContent = tok;
    span.addEventListener("mouseenter", () => select(t));
    span.addEventListener("mouseleave", () => select(pinned));
    span.addEventListener("click", () => { pinned = pinned === t ? null : t; select(pinned === null ? t : pinned); });
    summary.append(span, " ");
  });

  // the overview: every chunk of the document, shaded by the summary's attention, read ones marked
  const top = Math.max(...total, 1e-9);
  const overview = $("overview");
  overview.replaceChildren();
  overview.style.gridTemplateColumns = `repeat(${m}, minmax(0, 1fr))`;
  total.forEach((w, i) => {
    const cell = document.createElement("div");
    cell.className = "cell" + (fineSet.has(i) && fine.length < m ? " fine" : "");
    cell.dataset.i = String(i);
    cell.style.backgroundColor = shade(0.05 + 0.95 * w / top);
    cell.title = `chunk ${i}: ${pct(w)} of the summary's attention` + (fineSet.has(i) ? ", read at the word level" : "");
    cell.addEventListener("click", () => goTo(i));
    overview.append(cell);
  });
  const most = $("most-read");
  if (result.picked) {  // a sentence selector: the sentences it picked, in the summary's order
    most.replaceChildren("picked sentences (the coarse level): ");
    result.picked.forEach((p, k) => {
      const a = document.createElement("a");
      a.href = `#chunk-${p.chunk}`;
      a.className = "picked";
      a.title = p.text;
      a.textContent = `${k + 1}. sentence ${p.sentence} (chunk ${p.chunk})`;
      a.addEventListener("click", (ev) => { ev.preventDefault(); goTo(p.chunk); });
      most.append(a, " ");
    });
  } else {
    most.replaceChildren("most read: ");
    ranked.forEach((i) => {
      const a = document.createElement("a");
      a.href = `#chunk-${i}`;
      a.textContent = `chunk ${i} (${pct(total[i])})`;
      a.addEventListener("click", (ev) => { ev.preventDefault(); goTo(i); });
      most.append(a, " ");
    });
  }
  const pickedChunks = new Set((result.picked || []).map((p) => p.chunk));

  const list = $("chunks");
  list.replaceChildren();
  // each chunk's number written in its box, as wide as the largest one (an <ol>'s markers hang
  // outside the scroll box: 100 showed as ".00.")
  list.style.setProperty("--num-width", `${String(Math.max(m - 1, 0)).length + 1}ch`);
  chunks.forEach((text, i) => {
    const li = document.createElement("li");
    li.className = "chunk" + (fineSet.has(i) ? "" : " coarse-only") + (pickedChunks.has(i) ? " picked" : "");
    li.id = `chunk-${i}`;
    li.dataset.i = String(i);
    li.dataset.weight = "0";
    const w = document.createElement("span");
    w.className = "weight";
    const num = document.createElement("span");
    num.className = "num";
    num.textContent = `${i}.`;
    const body = document.createElement("span");
    body.textContent = text;
    li.append(w, num, body);
    list.append(li);
  });
  $("chunk-caption").textContent = `${plural(m, "chunk")} of ${grid[1]} words, as the model reads them` +
    (fine.length < m ? "; grey: not read at the word level" : "");

  // the heatmap: every chunk of a short document; of a long one, the chunks read
  const {columns, caption} = heatmap(result, total);
  $("heatmap-caption").textContent = caption;
  const table = $("heatmap");
  table.replaceChildren();
  const head = document.createElement("tr");
  head.append(document.createElement("th"));
  columns.forEach((i) => {
    const th = document.createElement("th");
    th.textContent = String(i);
    th.className = "col";
    th.addEventListener("click", () => goTo(i));
    head.append(th);
  });
  table.append(head);
  attention.forEach((row, t) => {
    const tr = document.createElement("tr");
    tr.dataset.t = String(t);
    const th = document.createElement("th");
    th.className = "row";
    th.textContent = tokens[t];
    th.addEventListener("mouseenter", () => select(t));
    th.addEventListener("click", () => { pinned = pinned === t ? null : t; select(pinned === null ? t : pinned); });
    tr.append(th);
    columns.forEach((i) => {
      const td = document.createElement("td");
      td.style.backgroundColor = shade(row[i]);
      td.title = `${tokens[t]} → chunk ${i}: ${(100 * row[i]).toFixed(1)}%`;
      tr.append(td);
    });
    table.append(tr);
  });
  select(tokens.length ? 0 : null);
  if (!tokens.length && ranked.length) goTo(ranked[0]);
}

// Scroll the chunk list (not the page) so chunk i shows, and flash it.
function goTo(i, flash = true) {
  const wrap = $("chunks-wrap");
  const li = $(`chunk-${i}`);
  if (!li) return;
  // by the boxes as drawn: the list's offset parent need not be #chunks-wrap (a long summary above it)
  wrap.scrollTop += li.getBoundingClientRect().top - wrap.getBoundingClientRect().top - 8;
  if (flash) {  // asked for (a click): the window too, when a long summary pushed the list below it
    li.scrollIntoView({block: "nearest"});
    li.classList.remove("flash");
    void li.offsetWidth;  // restart the animation
    li.classList.add("flash");
  }
}

// Shade each chunk by the attention word t put on it (relative to the largest, so faint reads
// show), mark its most-read chunk in the overview, and bring that chunk into the list's view.
function select(t) {
  document.querySelectorAll("#summary .word").forEach((el) => {
    el.classList.toggle("active", Number(el.dataset.t) === t);
    el.classList.toggle("pinned", Number(el.dataset.t) === pinned);
  });
  document.querySelectorAll("#heatmap tr").forEach((el) => el.classList.toggle("active", Number(el.dataset.t) === t));
  const row = t === null || !result ? null : result.attention[t];
  const top = row ? Math.max(...row, 1e-9) : 1;
  const best = row ? row.indexOf(Math.max(...row)) : -1;
  document.querySelectorAll("#chunks li").forEach((li, i) => {
    const w = row ? row[i] : 0;
    li.dataset.weight = w.toFixed(5);
    li.style.backgroundColor = row ? shade(0.6 * w / top) : "";
    li.classList.toggle("top", i === best);
    li.querySelector(".weight").textContent = row ? `${(100 * w).toFixed(1)}%` : "";
  });
  document.querySelectorAll("#overview .cell").forEach((el, i) => el.classList.toggle("current", i === best));
  if (best >= 0) goTo(best, false);
}

$("upload").addEventListener("change", async (ev) => {
  const file = ev.target.files[0];
  if (!file) return;
  $("article").value = await file.text();
  setStatus(`loaded ${file.name}`, false);
});
$("submit").addEventListener("click", summarize);
$("article").addEventListener("keydown", (ev) => { if (ev.key === "Enter" && (ev.ctrlKey || ev.metaKey)) summarize(); });
loadHealth();
