// Spectators: every table, delayed as the regulation says; hands only when the regulation shows them; a board
// other tables still have to play only as "board 7 in play" (withheld), unless the director made it a vugraph table.
const states = {};
let selected = new URLSearchParams(location.search).get("table");

function renderTables() {
  const ids = Object.keys(states).sort((a, b) => a.length - b.length || a.localeCompare(b));
  document.getElementById("tables").innerHTML = ids.map(id => {
    const s = states[id];
    if (s.withheld) return `<div class="tcard${id === selected ? " sel" : ""}" data-table="${esc(id)}"><b>Table ${esc(id)}</b><br>
      board ${s.board.number} in play</div>`;
    return `<div class="tcard${id === selected ? " sel" : ""}" data-table="${esc(id)}"><b>Table ${esc(id)}</b><br>
      board ${s.board ? s.board.number : "-"} <span class="phase ${s.phase}">${esc(s.phase)}</span><br>
      contract ${contractHtml(s.contract)} ${s.declarer && s.contract !== "PASS" ? s.declarer || "" : ""}
      ${s.tricks_won ? `&middot; NS ${s.tricks_won.NS} EW ${s.tricks_won.EW}` : ""}</div>`;
  }).join("");
  document.querySelectorAll("#tables .tcard").forEach(c => c.onclick = () => { selected = c.dataset.table; renderTables(); renderDetail(); });
}
function renderDetail() {
  const el = document.getElementById("detail");
  const s = states[selected];
  if (!s) { el.style.display = "none"; return; }
  el.style.display = "";
  if (s.withheld) {
    el.innerHTML = `<h2>Table ${esc(selected)} &mdash; board ${s.board.number} in play</h2>
      <p class="muted">Other tables still have to play this board: it is shown once they have (Law 16B).</p>`;
    return;
  }
  el.innerHTML = `<h2>Table ${esc(selected)} &mdash; board ${s.board ? s.board.number : "-"}</h2>
    <div class="row"><div><div class="hands">${SEATS.map(seat => `<div class="hand ${seat}"><b>${seat}</b>
      ${s.hands[seat] ? handHtml(s.hands[seat].cards) : '<span class="muted">hidden</span>'}</div>`).join("")}
      <div class="center">${contractHtml(s.contract)}</div></div></div>
    <div>${s.auction ? auctionHtml(s.auction) : ""}</div></div>
    <div class="log">${(s.tricks || []).map(trickHtml).join("")}</div>
    ${s.result ? `<p>Result: ${esc(s.result.contract)} ${esc(s.result.declarer || "")} ${s.result.tricks ?? ""} NS ${s.result.score_ns ?? "-"}</p>` : ""}`;
}
async function loadResults() {
  try {
    const res = await api("/api/results");
    document.getElementById("results").innerHTML = res.map(b => `<div><b>Board ${b.board}</b>: ` +
      b.results.map(e => `T${esc(e.table)} ${contractHtml(e.contract)} ${esc(e.declarer || "")} NS ${e.score_ns ?? "-"}` +
        (e.ns_percent != null ? ` (${e.ns_percent}%)` : "")).join(" | ") + "</div>").join("") || "none yet";
  } catch (e) { document.getElementById("results").textContent = e.message; }
}
stream("/ws/club", m => {
  if (m.type === "state") { states[m.table] = m.state; renderTables(); if (m.table === selected) renderDetail(); }
}, st => document.getElementById("status").textContent = st);
loadResults(); setInterval(loadResults, 20000);
