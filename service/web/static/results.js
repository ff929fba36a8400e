// Live results: rankings and travellers, pushed over /ws/results whenever they change; each public board with
// its four hands and double-dummy par (boards.js). No token: the public view. ?token=<seat token>: that table's
// view, which never shows a board the table still has to play. The director's token: everything. The token is
// read from this page's URL only. ?screen=1: the club's big screen (large type, one released board at a time,
// changing every ?cycle=<seconds>, default 15).
const TOKEN = takeFromUrl().token || "";     // taken off the address bar at once (docs/security.md)
const QUERY = new URLSearchParams(location.search);
const SCREEN = QUERY.get("screen") === "1";
const CYCLE_S = Math.max(3, +(QUERY.get("cycle") || 15));
let current = null, cycleAt = 0;

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
  if (r.adjusted && r.law === "12C1") return `<td colspan="3"><span class="adj">${esc(r.adjusted)}</span> <span class="muted">${esc(t("results.law", "Law {law}", {law: "12C1"}))}</span></td>`;
  const c = r.contract === "PASS" ? esc(t("common.pass", "Pass")) : contractHtml(r.contract);
  const adj = r.adjusted ? ` <span class="adj" title="${esc(t("results.law", "Law {law}", {law: "12C2"}))}">${esc(r.adjusted)}</span>` : "";
  return `<td>${c}${adj}</td><td>${esc(r.declarer ? seatName(r.declarer) : "")}</td><td>${esc(r.result || "")}</td>`;
}
function travellerHtml(board, data) {
  const unit = data.event ? data.event.unit : "%";
  const valueHead = unit === "%" ? t("results.mp", "MP") : unit;
  const parts = [];
  for (const tr of board.travellers) {
    if (!tr.rows.length) continue;
    const head = data.event && data.event.sections.length > 1 ? `<div class="muted">${esc(t("results.section", "Section {s}", {s: tr.section}))}</div>` : "";
    const rows = tr.rows.map(r => `<tr class="result" data-table="${esc(r.table)}">
      <td>${esc(r.table)}${r.round ? `<span class="muted">/${r.round}</span>` : ""}</td>
      <td>${r.ns_label ? pairCell(r.ns_label, r.ns_names) : ""}</td><td>${r.ew_label ? pairCell(r.ew_label, r.ew_names) : ""}</td>
      ${contractCell(r)}${scoreCells(r)}${valueCell(r, "ns", unit)}${valueCell(r, "ew", unit)}</tr>`).join("");
    const cols = [t("results.col.table", "Table/round"), t("common.ns", "NS"), t("common.ew", "EW"), t("results.col.contract", "Contract"),
      t("results.col.by", "By"), t("results.col.result", "Result"), t("results.col.score_ns", "Score NS"), t("results.col.score_ew", "Score EW"),
      `${valueHead} ${t("common.ns", "NS")}`, `${valueHead} ${t("common.ew", "EW")}`];
    parts.push(`${head}<div class="scroll" tabindex="0" role="region" aria-label="${esc(t("results.traveller_of", "Traveller of board {n}", {n: board.board}))}">` +
      `<table class="traveller"><tr class="head">${cols.map(c => `<th scope="col">${esc(c)}</th>`).join("")}</tr>${rows}</table></div>`);
  }
  return parts.join("") || `<p class="muted">${esc(t("results.no_results", "No results."))}</p>`;
}
function placeholderHtml(b) {
  const why = b.reason === "your_table"
    ? t("results.wait_yours", "your table still has to play this board; its results appear when every table has played it")
    : t("results.wait", "results appear when every table has played it");
  return `<p class="placeholder">${esc(t("common.board_n", "Board {n}", {n: b.board}))}: ${esc(why)}` +
    (b.tables ? ` <span class="muted">(${esc(t("results.played_of", "{played} of {tables} tables have", {played: b.played, tables: b.tables}))})</span>` : "") + "</p>";
}
function boardHtml(b, data) {
  const meta = b.deal ? ` <span class="muted">${esc(t("common.dealer", "Dealer"))} ${esc(seatName(b.deal.dealer))} &middot; ` +
    `${esc(t("common.vulnerable", "Vul"))} ${esc(vulText(b.deal.vulnerable))}</span>` : "";
  return `<article class="board ${b.visible ? "shown" : "hidden"}" data-board="${b.board}" id="board-${b.board}">
    <h3>${esc(t("common.board_n", "Board {n}", {n: b.board}))}${meta}</h3>
    ${b.visible ? boardRecordHtml(b.board, b.deal) + travellerHtml(b, data) : placeholderHtml(b)}</article>`;
}
function renderBoards(data) {
  const el = document.getElementById("boards");
  if (!data.boards.length) { el.innerHTML = `<p class="muted">${esc(t("results.no_boards", "No boards yet."))}</p>`; return; }
  el.classList.remove("muted");
  el.innerHTML = data.boards.map(b => boardHtml(b, data)).join("");
  showCurrent();
}
function renderRanking(data) {
  const el = document.getElementById("ranking");
  const unit = data.event ? data.event.unit : "";
  const shown = data.boards.filter(b => b.visible).length;
  document.getElementById("ranking-note").textContent = data.event ? t("results.from_boards", "from the {n} board(s) shown", {n: shown}) : "";
  if (!data.rankings.length) {
    el.textContent = data.event ? "-" : t("results.no_event", "No event is configured: released boards only, no ranking.");
    return;
  }
  el.classList.remove("muted");
  el.innerHTML = data.rankings.map(sec => {
    const fields = [...new Set(sec.rows.map(r => r.field))].sort((a, b) => (a === "NS" ? -1 : b === "NS" ? 1 : a.localeCompare(b)));
    const title = data.event.sections.length > 1 ? `<h3>${esc(t("results.section", "Section {s}", {s: sec.section}))}</h3>` : "";
    const cols = [t("results.col.place", "Place"), t("results.col.pair", "Pair"), t("results.col.names", "Names"),
      t("results.col.score", "Score ({unit})", {unit}), t("results.col.boards", "Boards")];
    return title + fields.map(f => `${fields.length > 1 ? `<div class="muted">${esc(f)}</div>` : ""}
      <div class="scroll" tabindex="0" role="region" aria-label="${esc(t("results.ranking", "Ranking"))} ${esc(f)}">
      <table class="ranking"><tr class="head">${cols.map(c => `<th scope="col">${esc(c)}</th>`).join("")}</tr>` +
      sec.rows.filter(r => r.field === f).map(r => `<tr class="rank" data-entrant="${r.entrant}"><td>${esc(r.place)}</td>
        <td><b>${esc(r.label)}</b></td><td>${esc(r.names)}</td><td class="num">${num(r.score)}</td><td class="num">${r.boards}</td></tr>`).join("") +
      "</table></div>").join("");
  }).join("");
}
function renderProgress(data) {
  const el = document.getElementById("progress");
  el.innerHTML = (data.progress || []).map(p => `<div class="tcard" data-table="${esc(p.table)}"><b>${esc(t("common.table_n", "Table {n}", {n: p.table}))}</b>
    ${p.finished ? `<span class="phase">${esc(t("results.finished", "finished"))}</span>` : esc(t("results.round_of", "round {r} of {n}", {r: p.round, n: p.rounds}))}<br>
    <span class="muted">${esc(t("results.boards_list", "boards {list}", {list: p.boards.join(", ") || t("results.sit_out", "- (sit-out)")}))} &middot;
    ${esc(t("results.played_n", "played {done}/{all}", {done: p.done.length, all: p.boards.length}))}
    ${p.board ? `&middot; ${esc(t("results.at_board", "at board {n}", {n: p.board}))}` : ""}</span></div>`).join("") || '<span class="muted">-</span>';
}
function renderAlerts(data) {          // the director's view only: boards flagged as not this round's
  const sec = document.getElementById("alerts-section");
  sec.hidden = !(data.alerts && data.alerts.length);
  if (!data.alerts) return;
  document.getElementById("alerts").innerHTML = data.alerts.slice().reverse().map(a =>
    `<div class="alert" data-table="${esc(a.table)}"><b>${esc(t("common.table_n", "Table {n}", {n: a.table}))}</b>, ${esc(t("results.board_lower", "board {n}", {n: a.board}))}: ${esc(detailText(a.irregularity))}
     <div class="muted">${esc(a.irregularity.law_text)}</div></div>`).join("");
}
// A traveller or a ranking wider than its box becomes a stack of cards, one a row, each cell with its column's
// name (a phone; the big screen with long names): every score, contract and matchpoint stays in view, nothing
// hides behind sideways scrolling. The cells learn their column's name from the header (colspan counted).
function labelCells(table) {
  const heads = [...table.querySelectorAll("tr.head th")].map(th => th.textContent);
  table.querySelectorAll("tr:not(.head)").forEach(tr => {
    let col = 0;
    [...tr.cells].forEach(td => { if (!td.dataset.label) td.dataset.label = heads[col] || ""; col += td.colSpan || 1; });
  });
}
function fitTables() {
  document.querySelectorAll("table.traveller, table.ranking").forEach(table => {
    const box = table.parentElement;
    if (!box || !table.offsetParent) return;           // not shown now (the big screen's other boards)
    labelCells(table);
    table.classList.remove("stacked");
    if (table.offsetWidth > box.clientWidth + 1) table.classList.add("stacked");
  });
}
window.addEventListener("resize", fitTables);
// The big screen shows one released board at a time, the next every CYCLE_S seconds.
function showCurrent() {
  if (!SCREEN) return;
  const shown = [...document.querySelectorAll("#boards .board.shown")];
  shown.forEach(b => b.classList.remove("current"));
  if (!shown.length) { document.getElementById("cycle-note").textContent = ""; return; }
  let i = shown.findIndex(b => b.dataset.board === current);
  if (i < 0) i = 0;
  if (Date.now() >= cycleAt) { if (current !== null) i = (i + 1) % shown.length; cycleAt = Date.now() + CYCLE_S * 1000; }
  current = shown[i].dataset.board;
  shown[i].classList.add("current");
  document.getElementById("cycle-note").textContent = t("results.cycle", "board {i} of {n} released", {i: i + 1, n: shown.length});
  fitTables();
}
function render(data) {
  document.body.dataset.revision = data.revision;
  const ev = data.event;
  const title = ev ? ev.name : t("results.title", "Live results");
  document.getElementById("title").textContent = title;
  document.title = title + " - bridgetable";
  document.getElementById("view").textContent = data.view === "table" ? t("results.view_table", "table {n}'s view", {n: data.table}) :
    data.view === "director" ? t("results.view_director", "director's view (everything)") : t("results.view_public", "public view");
  renderRanking(data); renderProgress(data); renderBoards(data); renderAlerts(data);
  fitTables();
}
function statusText(st) {
  return {live: t("common.live", "live"), reconnecting: t("common.reconnecting", "reconnecting"),
          "signed out": t("common.signed_out", "signed out")}[st] || st;
}
async function start() {
  await loadLanguage("results");
  if (SCREEN) {
    document.body.classList.add("screen");
    const link = document.getElementById("screen-toggle");
    link.href = location.pathname; link.textContent = t("results.normal_view", "Normal view");
    setInterval(showCurrent, 1000);
  }
  const status = document.getElementById("status");
  viewStream("/ws/results", "results", view => {
    render(view);
    status.textContent = statusText("live") + ", " + clockTime();
  }, st => status.textContent = statusText(st), TOKEN);
}
start();
