// Spectators: every table, delayed as the regulation says; hands only when the regulation shows them; a board
// other tables still have to play only as "board 7 in play" (withheld), unless the director made it a vugraph table.
// The released boards (with their hands and double-dummy par) are pushed over /ws/results, as on /results.
const states = {};
let selected = new URLSearchParams(location.search).get("table");

function phaseText(p) { return t("spectate.phase." + p, String(p || "").replace(/_/g, " ")); }
// A table's card; once its board is over the result's tricks (after a claim the cards played say less).
function tableCardHtml(id) {
  const s = states[id];
  const head = `<b>${esc(t("common.table_n", "Table {n}", {n: id}))}</b><br>`;
  const body = s.withheld ? esc(t("spectate.in_play", "board {n} in play", {n: s.board.number}))
    : `${esc(t("spectate.board", "board {n}", {n: s.board ? s.board.number : "-"}))} <span class="phase ${esc(s.phase)}">${esc(phaseText(s.phase))}</span><br>
      ${esc(t("spectate.contract", "contract"))} ${contractHtml(s.contract)} ${s.declarer && s.contract !== "PASS" ? esc(seatName(s.declarer)) : ""}
      ${s.result && s.result.tricks != null ? `&middot; ${esc(t("spectate.result_tricks", "{n} tricks", {n: s.result.tricks}))}`
        : s.tricks_won ? `&middot; ${esc(t("common.ns", "NS"))} ${s.tricks_won.NS} ${esc(t("common.ew", "EW"))} ${s.tricks_won.EW}` : ""}`;
  return `<button type="button" class="tcard${id === selected ? " sel" : ""}" data-table="${esc(id)}" aria-pressed="${id === selected}">${head}${body}</button>`;
}
// The cards are written again only when they changed, and once for the messages of 200 ms (every call and card at
// every table sends one).
let drawnTables = null, tablesTimer = null;
function renderTables() {
  const ids = Object.keys(states).sort((a, b) => a.length - b.length || a.localeCompare(b));
  const html = ids.map(tableCardHtml).join("");
  if (html === drawnTables) return;
  drawnTables = html;
  document.getElementById("tables").innerHTML = html;
  document.querySelectorAll("#tables .tcard").forEach(c => c.onclick = () => { selected = c.dataset.table; renderTables(); renderDetail(); });
}
function renderTablesSoon() {
  if (!tablesTimer) tablesTimer = setTimeout(() => { tablesTimer = null; renderTables(); }, 200);
}
function renderDetail() {
  const el = document.getElementById("detail");
  const s = states[selected];
  if (!s) { el.hidden = true; return; }
  el.hidden = false;
  if (s.withheld) {
    el.innerHTML = `<h2>${esc(t("common.table_n", "Table {n}", {n: selected}))} &mdash; ${esc(t("spectate.in_play", "board {n} in play", {n: s.board.number}))}</h2>
      <p class="muted">${esc(t("spectate.withheld", "Other tables still have to play this board: it is shown once they have (Law 16B)."))}</p>`;
    return;
  }
  el.innerHTML = `<h2>${esc(t("common.table_n", "Table {n}", {n: selected}))} &mdash; ${esc(t("spectate.board", "board {n}", {n: s.board ? s.board.number : "-"}))}</h2>
    <div class="row"><div><div class="hands">${SEATS.map(seat => `<div class="hand ${seat}"><b>${esc(seatName(seat))}</b>
      ${s.hands[seat] ? handHtml(s.hands[seat].cards) : `<span class="muted">${esc(t("spectate.hidden", "hidden"))}</span>`}</div>`).join("")}
      <div class="center">${contractHtml(s.contract)}</div></div></div>
    <div class="scroll" tabindex="0" role="region" aria-label="${esc(t("spectate.auction", "Auction"))}">${s.auction ? auctionHtml(s.auction) : ""}</div></div>
    <div class="log" tabindex="0" role="region" aria-label="${esc(t("spectate.tricks", "Tricks"))}">${(s.tricks || []).map(trickHtml).join("")}</div>
    ${s.result ? `<p>${esc(t("spectate.result", "Result"))}: ${contractHtml(s.result.contract)} ${esc(s.result.declarer ? seatName(s.result.declarer) : "")} ${s.result.tricks ?? ""} ${esc(t("common.ns", "NS"))} ${s.result.score_ns ?? "-"}</p>` : ""}`;
}
function releasedHtml(b) {
  const rows = b.travellers.flatMap(tr => tr.rows).map(r =>
    `${esc(t("common.table_n", "Table {n}", {n: r.table}))} ${r.contract === "PASS" ? esc(t("common.pass", "Pass")) : contractHtml(r.contract)} ` +
    `${esc(r.declarer ? seatName(r.declarer) : "")} ${esc(t("common.ns", "NS"))} ${r.score_ns ?? "-"}` +
    (r.ns_percent != null ? ` (${r.ns_percent}%)` : "")).join(" | ");
  return `<article class="board shown" data-board="${b.board}"><h3><a href="/results#board-${b.board}">${esc(t("common.board_n", "Board {n}", {n: b.board}))}</a></h3>` +
    boardRecordHtml(b.board, b.deal) + `<p>${rows}</p></article>`;
}
function renderReleased(data) {
  const el = document.getElementById("results");
  const shown = data.boards.filter(b => b.visible);
  el.classList.toggle("muted", !shown.length);
  el.innerHTML = shown.map(releasedHtml).join("") || esc(t("spectate.none_yet", "none yet"));
}
function statusText(st) {
  return {live: t("common.live", "live"), reconnecting: t("common.reconnecting", "reconnecting")}[st] || st;
}
async function start() {
  await loadLanguage("spectate");
  document.title = t("spectate.title", "Live tables") + " - bridgetable";
  const status = document.getElementById("status");
  stream("/ws/club", m => {
    if (m.type === "state") { states[m.table] = m.state; renderTablesSoon(); if (m.table === selected) renderDetail(); }
  }, st => status.textContent = statusText(st));
  viewStream("/ws/results", "results", renderReleased, null);
}
start();
