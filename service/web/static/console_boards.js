// The console's boards of every round: each table x board of the movement with its round, pairs, state and
// result. The director picks one and adjusts it (Law 12C1 artificial, 12C2 assigned, or cancels), marks a
// board the table never started "not played" (an artificial score), or allows it to be played late
// (service/api/boards.py). The director's token is this tab's (sessionStorage), as in console.js.
const BOARDS = {rows: [], picked: null, table: "", round: "", formFor: null};   // formFor: the row the form shows
const STATE_TEXT = () => ({
  not_started: t("console_boards.notStarted", "not started"), in_play: t("console_boards.inPlay", "in play"),
  complete: t("console_boards.complete", "played"), not_played: t("console_boards.notPlayed", "not played"),
  late: t("console_boards.late", "late play allowed")});

function boardsToken() { return sessionStorage.getItem("bt-token") || ""; }
function boardKey(e) { return `${e.table}|${e.board}`; }

function adjustmentText(a) {
  if (!a) return "";
  if (a.kind === "artificial") return t("console_boards.artificial", "artificial NS {ns}% EW {ew}%", {ns: a.ns, ew: a.ew});
  return t("console_boards.assigned", "assigned {contract} {declarer} {tricks}: NS {score}",
    {contract: a.contract, declarer: a.declarer || "", tricks: a.tricks ?? "", score: a.score_ns});
}

function resultText(r) {
  if (!r) return "";
  return r.contract === "PASS" ? t("console_boards.passed", "passed out") :
    `${r.contract || "-"} ${r.declarer || ""} ${r.tricks ?? ""} NS ${r.score_ns ?? "-"}`;
}

function renderBoardList() {
  const el = document.getElementById("boards-list");
  const states = STATE_TEXT();
  const rows = BOARDS.rows.filter(e => (!BOARDS.table || e.table === BOARDS.table) && (!BOARDS.round || String(e.round) === BOARDS.round));
  el.innerHTML = rows.map(e => `<li class="board-row${e.round < e.current_round && e.state === "not_started" ? " missing" : ""}${BOARDS.picked === boardKey(e) ? " sel" : ""}">
      <span>${esc(t("console_boards.row", "Round {round} · table {table} · board {board}", e))}</span>
      <span class="muted">${esc(t("console_boards.pairs", "NS {ns} – EW {ew}", {ns: pairNo(e.ns_label, "NS", e.ns), ew: pairNo(e.ew_label, "EW", e.ew)}))}</span>
      <span class="state state-${esc(e.state)}">${esc(states[e.state] || e.state)}</span>
      <span>${esc(resultText(e.result))}${e.adjustment ? ` <b>${esc(adjustmentText(e.adjustment))}</b>` : ""}</span>
      <button type="button" class="pick" data-key="${esc(boardKey(e))}">${esc(t("console_boards.pick", "Adjust"))}</button></li>`).join("") ||
    `<li class="muted">${esc(t("console_boards.none", "No boards."))}</li>`;
  el.querySelectorAll("button.pick").forEach(b => b.addEventListener("click", () => { BOARDS.picked = b.dataset.key; renderBoardList(); renderBoardForm(); }));
}

function renderBoardForm() {
  const el = document.getElementById("board-form");
  const e = BOARDS.rows.find(x => boardKey(x) === BOARDS.picked);
  BOARDS.formFor = e ? JSON.stringify(e) : null;
  if (!e) { el.hidden = true; return; }
  el.hidden = false;
  const never = e.state === "not_started" || e.state === "late" || e.state === "not_played";
  const aw = ["A+", "A", "A-"].map(x => `<option${x === "A" ? " selected" : ""}>${x}</option>`).join("");
  el.innerHTML = `<h3>${esc(t("console_boards.row", "Round {round} · table {table} · board {board}", e))}</h3>
    <fieldset><legend>${esc(never ? t("console_boards.notPlayedLegend", "Not played: artificial score (Law 12C1)")
                                 : t("console_boards.artificialLegend", "Artificial adjusted score (Law 12C1)"))}</legend>
      <label>NS <select name="ns">${aw}</select></label> <label>EW <select name="ew">${aw}</select></label>
      <button type="button" name="artificial">${esc(never ? t("console_boards.setNotPlayed", "Mark not played")
                                                       : t("console_boards.setArtificial", "Set artificial"))}</button></fieldset>
    ${never ? "" : `<fieldset><legend>${esc(t("console_boards.assignedLegend", "Assigned adjusted score (Law 12C2)"))}</legend>
      <label>${esc(t("console_boards.contract", "Contract"))} <input name="contract" size="5" placeholder="4SX"></label>
      <label>${esc(t("console_boards.declarer", "Declarer"))} <select name="declarer">${SEATS.map(x => `<option>${x}</option>`).join("")}</select></label>
      <label>${esc(t("console_boards.tricks", "Tricks"))} <input name="tricks" type="number" min="0" max="13" size="3"></label>
      <button type="button" name="assigned">${esc(t("console_boards.setAssigned", "Set assigned"))}</button></fieldset>`}
    <div class="board-actions">${e.adjustment ? `<button type="button" name="cancel">${esc(t("console_boards.cancel", "Cancel the adjustment"))}</button>` : ""}
    ${e.state === "not_started" || e.state === "late" ? `<button type="button" name="late">${esc(e.late ? t("console_boards.lateOff", "Withdraw late play")
                                                                                         : t("console_boards.lateOn", "Allow late play"))}</button>` : ""}</div>
    <p class="muted" id="board-form-status" role="status"></p>`;
  const f = name => el.querySelector(`[name="${name}"]`);
  const say = text => { document.getElementById("board-form-status").textContent = text; };
  const post = async (path, body, done) => {
    try {
      await api(path, {method: "POST", body: JSON.stringify(body)}, boardsToken());
      await loadBoards(); say(done);
    } catch (err) { say(refusalWords(err)); }
  };
  const adjPath = `/api/tables/${encodeURIComponent(e.table)}/boards/${e.board}/adjustment`;
  const saved = t("console_boards.saved", "Saved.");
  f("artificial").addEventListener("click", () => post(adjPath, {kind: "artificial", ns: f("ns").value, ew: f("ew").value}, saved));
  if (f("assigned")) f("assigned").addEventListener("click", () => post(adjPath, {kind: "assigned", contract: f("contract").value.trim(),
    declarer: f("declarer").value, tricks: parseInt(f("tricks").value, 10)}, saved));
  if (f("cancel")) f("cancel").addEventListener("click", () => post(adjPath, {kind: "cancel"}, saved));
  if (f("late")) f("late").addEventListener("click", () => post(`/api/tables/${encodeURIComponent(e.table)}/late-play`,
    {board: e.board, on: !e.late}, saved));
}

// A pair as the results name it: a Mitchell's East-West pair 5 of 4 tables is "EW 1".
function pairNo(label, dir, number) {
  const l = String(label ?? number ?? "-");
  return l.startsWith(dir + " ") ? l.slice(dir.length + 1) : l;
}
function fillFilter(id, values, label) {
  const sel = document.getElementById(id);
  const keep = sel.value;
  sel.innerHTML = `<option value="">${esc(label)}</option>` + values.map(v => `<option value="${esc(v)}">${esc(v)}</option>`).join("");
  sel.value = values.map(String).includes(keep) ? keep : "";
}

async function loadBoards() {
  const list = document.getElementById("boards-list");
  try {
    // /api/event answers {"event": null} before an event exists: no request that can only fail (404) every 10 s
    const ev = await api("/api/event", {}, boardsToken());
    if (!ev.event) {
      BOARDS.rows = [];
      list.innerHTML = `<li class="muted">${esc(t("console_boards.noEvent", "No event yet: set one up in the evening section."))}</li>`;
      return;
    }
    BOARDS.rows = await api("/api/event/boards", {}, boardsToken());
  } catch (e) {
    list.innerHTML = `<li class="muted">${esc(refusalWords(e))}</li>`;
    return;
  }
  fillFilter("boards-table", [...new Set(BOARDS.rows.map(e => e.table))], t("console_boards.allTables", "all tables"));
  fillFilter("boards-round", [...new Set(BOARDS.rows.map(e => e.round))].sort((a, b) => a - b), t("console_boards.allRounds", "all rounds"));
  renderBoardList();
  // the form is rebuilt only when its board changed: a refresh keeps what the director typed and the last status
  const e = BOARDS.rows.find(x => boardKey(x) === BOARDS.picked);
  if ((e ? JSON.stringify(e) : null) !== BOARDS.formFor) renderBoardForm();
}

async function startBoards() {
  const el = document.getElementById("boards");
  if (!el) return;
  await loadStrings("console_boards");
  document.querySelector("#boards-section h2").textContent = t("console_boards.title", "Boards of every round");
  el.innerHTML = `<div class="board-filters"><label>${esc(t("console_boards.table", "Table"))} <select id="boards-table"></select></label>
    <label>${esc(t("console_boards.round", "Round"))} <select id="boards-round"></select></label>
    <button type="button" id="boards-refresh">${esc(t("console_boards.refresh", "Refresh"))}</button></div>
    <ul id="boards-list" class="board-list"></ul><div id="board-form" class="board-form" hidden></div>`;
  document.getElementById("boards-table").addEventListener("change", ev => { BOARDS.table = ev.target.value; renderBoardList(); });
  document.getElementById("boards-round").addEventListener("change", ev => { BOARDS.round = ev.target.value; renderBoardList(); });
  document.getElementById("boards-refresh").addEventListener("click", loadBoards);
  document.addEventListener("bt-event-changed", loadBoards);     // set up or moved on in the evening section
  await loadBoards();
  setInterval(() => { if (!document.hidden && !document.getElementById("board-form").contains(document.activeElement)) loadBoards(); }, 10000);
}
startBoards();
