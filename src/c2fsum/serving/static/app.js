// c2fsum page: submit an article, show the summary, and shade the chunks each summary word read.
// Plain JS, no build step. Data from the API is inserted with textContent only.
"use strict";

const $ = (id) => document.getElementById(id);
let result = null;   // the last /summarize response
let pinned = null;   // index of the pinned summary word, or null

function shade(w) { return `rgba(220, 38, 38, ${Math.min(1, w).toFixed(3)})`; }

async function loadHealth() {
  try {
    const r = await fetch("/health");
    const h = await r.json();
    $("model-info").textContent = `model ${h.family} · grid ${h.grid[0]} chunks × ${h.grid[1]} words · ${h.model}`;
  } catch (e) {
    $("model-info").textContent = "server unreachable";
  }
}

function setStatus(text, isError) {
  $("status").textContent = text;
  $("status").className = isError ? "error" : "";
}

async function summarize() {
  const text = $("article").value;
  if (!text.trim()) { setStatus("Paste or upload an article first.", true); return; }
  const body = {
    text,
    beam: parseInt($("beam").value, 10) || 1,
    max_length: parseInt($("max-length").value, 10) || 60,
    block_trigrams: $("block-trigrams").checked,
  };
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
    setStatus(`${data.tokens.length} words in ${((performance.now() - t0) / 1000).toFixed(2)} s`, false);
  } catch (e) {
    setStatus(`Request failed: ${e}`, true);
  } finally {
    $("submit").disabled = false;
  }
}

function render() {
  const {tokens, chunks, attention} = result;
  $("result").hidden = false;
  const summary = $("summary");
  summary.replaceChildren();
  tokens.forEach((tok, t) => {
    const span = document.createElement("span");
    span.className = "word";
    span.dataset.t = String(t);
    span.textContent = tok;
    span.addEventListener("mouseenter", () => select(t));
    span.addEventListener("mouseleave", () => select(pinned));
    span.addEventListener("click", () => { pinned = pinned === t ? null : t; select(pinned === null ? t : pinned); });
    summary.append(span, " ");
    if (tok === "." || tok === "!" || tok === "?") summary.append(document.createElement("br"));
  });
  if (!tokens.length) summary.textContent = "(the model produced an empty summary)";

  const list = $("chunks");
  list.replaceChildren();
  chunks.forEach((text, i) => {
    const li = document.createElement("li");
    li.className = "chunk";
    li.dataset.i = String(i);
    li.dataset.weight = "0";
    const w = document.createElement("span");
    w.className = "weight";
    const body = document.createElement("span");
    body.textContent = text;
    li.append(w, body);
    list.append(li);
  });
  $("chunk-caption").textContent = `${chunks.length} chunks of ${result.grid[1]} words, as the model reads them`;

  const table = $("heatmap");
  table.replaceChildren();
  const head = document.createElement("tr");
  head.append(document.createElement("th"));
  chunks.forEach((_, i) => { const th = document.createElement("th"); th.textContent = String(i); head.append(th); });
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
    row.forEach((w, i) => {
      const td = document.createElement("td");
      td.style.backgroundColor = shade(w);
      td.title = `${tokens[t]} → chunk ${i}: ${(100 * w).toFixed(1)}%`;
      tr.append(td);
    });
    table.append(tr);
  });
  select(tokens.length ? 0 : null);
}

// Shade each chunk by the attention word t put on it (relative to the largest, so faint reads show).
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
