// Live results: rankings and travellers, polled every 2 s (`since` makes an unchanged poll cheap).
// No token: the public view. ?token=<seat token>: that table's view, which never shows a board the table
// still has to play. The director's token: everything. The token is read from this page's URL only.
const TOKEN = takeFromUrl().token || "";     // taken off the address bar at once (docs/security.md)
let revision = null;

function num(v, digits = 2) { return v == null ? "" : (+v).toFixed(digits).replace(/\.?0+$/, "") || "0"; }
function pairCell(label, names) {
  return `<b>${esc(label)}</b>${names ? ` <span class="muted">${esc(names)}</span>` : ""}`;
}
function scoreCells(r) {
  if (r.score_ns == null) return "<td></td><td></td>";
  return r.score_ns >= 0 ? `<td class="num">${r.score_ns}</td><td></td>` : `<td></td><td class="num">${-r.score_ns}</td>`;
}
function valueCell(r, side, unit) {
  const v = r[side + "_value"], p = r[side + "_percent"];
  if (v == null) return "<td></td>";
  return `<td class="num">${num(v)}${unit === "%" && p != null ? ` <span class="muted">(${num(p, 1)}%)</span>` : ""}</td>`;
}
function contractCell(r) {
  if (r.adjusted && r.law === "12C1") return `<td colspan="3"><span class="adj">${esc(r.adjusted)}</span> <span class="muted">Law 12C1</span></td>`;
  const c = r.contract === "PASS" ? "Pass" : contractHtml(r.contract);
  const adj = r.adjusted ? ` <span class="adj" title="Law 12C2">${esc(r.adjusted)}</span>` : "";
  return `<td>${c}${adj}</td><td>${esc(r.declarer || "")}</td><td>${esc(r.result || "")}</td>`;
}
function travellerHtml(board, data) {
  const unit = data.event ? data.event.unit : "%";
  const valueHead = unit === "%" ? "MP" : esc(unit);
  const parts = [];
  for (const t of board.travellers) {
    if (!t.rows.length) continue;
    const head = data.event && data.event.sections.length > 1 ? `<div class="muted">Section ${esc(t.section)}</div>` : "";
    const rows = t.rows.map(r => `<tr class="result" data-table="${esc(r.table)}">
      <td>${esc(r.table)}${r.round ? `<span class="muted">/${r.round}</span>` : ""}</td>
      <td>${r.ns_label ? pairCell(r.ns_label, r.ns_names) : ""}</td><td>${r.ew_label ? pairCell(r.ew_label, r.ew_names) : ""}</td>
      ${contractCell(r)}${scoreCells(r)}${valueCell(r, "ns", unit)}${valueCell(r, "ew", unit)}</tr>`).join("");
    parts.push(`${head}<table class="traveller"><tr><th>Table/round</th><th>NS</th><th>EW</th><th>Contract</th><th>By</th>
      <th>Result</th><th>Score NS</th><th>Score EW</th><th>${valueHead} NS</th><th>${valueHead} EW</th></tr>${rows}</table>`);
  }
  return parts.join("") || '<p class="muted">No results.</p>';
}
function placeholderHtml(b) {
  const why = b.reason === "your_table"
    ? "your table still has to play this board; its results appear when every table has played it"
    : "results appear when every table has played it";
  return `<p class="placeholder">Board ${b.board}: ${why}` +
    (b.tables ? ` <span class="muted">(${b.played} of ${b.tables} tables have)</span>` : "") + "</p>";
}
function renderBoards(data) {
  const el = document.getElementById("boards");
  if (!data.boards.length) { el.innerHTML = '<p class="muted">No boards yet.</p>'; return; }
  el.classList.remove("muted");
  el.innerHTML = data.boards.map(b => `<div class="board ${b.visible ? "shown" : "hidden"}" data-board="${b.board}">
    <h3>Board ${b.board}</h3>${b.visible ? travellerHtml(b, data) : placeholderHtml(b)}</div>`).join("");
}
function renderRanking(data) {
  const el = document.getElementById("ranking");
  const unit = data.event ? data.event.unit : "";
  const shown = data.boards.filter(b => b.visible).length;
  document.getElementById("ranking-note").textContent = data.event ? `from the ${shown} board${shown === 1 ? "" : "s"} shown` : "";
  if (!data.rankings.length) { el.innerHTML = data.event ? "-" : "No event is configured: released boards only, no ranking."; return; }
  el.classList.remove("muted");
  el.innerHTML = data.rankings.map(sec => {
    const fields = [...new Set(sec.rows.map(r => r.field))].sort((a, b) => (a === "NS" ? -1 : b === "NS" ? 1 : a.localeCompare(b)));
    const title = data.event.sections.length > 1 ? `<h3>Section ${esc(sec.section)}</h3>` : "";
    return title + fields.map(f => `${fields.length > 1 ? `<div class="muted">${esc(f)}</div>` : ""}
      <table class="ranking"><tr><th>Place</th><th>Pair</th><th>Names</th><th>Score (${esc(unit)})</th><th>Boards</th></tr>` +
      sec.rows.filter(r => r.field === f).map(r => `<tr class="rank" data-entrant="${r.entrant}"><td>${esc(r.place)}</td>
        <td><b>${esc(r.label)}</b></td><td>${esc(r.names)}</td><td class="num">${num(r.score)}</td><td class="num">${r.boards}</td></tr>`).join("") +
      "</table>").join("");
  }).join("");
}
function renderProgress(data) {
  const el = document.getElementById("progress");
  el.innerHTML = (data.progress || []).map(p => `<div class="tcard" data-table="${esc(p.table)}"><b>Table ${esc(p.table)}</b>
    ${p.finished ? '<span class="phase">finished</span>' : `round ${p.round} of ${p.rounds}`}<br>
    <span class="muted">boards ${p.boards.join(", ") || "- (sit-out)"} &middot; played ${p.done.length}/${p.boards.length}
    ${p.board ? `&middot; at board ${p.board}` : ""}</span></div>`).join("") || '<span class="muted">-</span>';
}
function renderAlerts(data) {          // the director's view only: boards flagged as not this round's
  const sec = document.getElementById("alerts-section");
  sec.style.display = data.alerts && data.alerts.length ? "" : "none";
  if (!data.alerts) return;
  document.getElementById("alerts").innerHTML = data.alerts.slice().reverse().map(a =>
    `<div class="alert" data-table="${esc(a.table)}"><b>Table ${esc(a.table)}</b>, board ${a.board}: ${esc(a.irregularity.detail)}
     <div class="muted">${esc(a.irregularity.law_text)}</div></div>`).join("");
}
function render(data) {
  revision = data.revision;
  document.body.dataset.revision = data.revision;
  const ev = data.event;
  document.getElementById("title").textContent = ev ? ev.name : "Live results";
  document.title = (ev ? ev.name : "Live results") + " - bridgetable";
  document.getElementById("view").textContent = data.view === "table" ? `table ${data.table}'s view` :
    data.view === "director" ? "director's view (everything)" : "public view";
  renderRanking(data); renderProgress(data); renderBoards(data); renderAlerts(data);
}
async function poll() {
  try {
    const q = revision == null ? "" : `?since=${revision}`;
    const data = await api("/api/public/results" + q, {}, TOKEN);
    if (!data.unchanged) render(data);
    document.getElementById("status").textContent = "live, " + new Date().toLocaleTimeString();
  } catch (e) {
    document.getElementById("status").textContent = e.message;
  }
  setTimeout(poll, 2000);
}
poll();
