// The director console: every table at a glance, irregularity alerts with their rectifications, the record.
// Every text goes through t() (static/locales/<lang>/console.json); the engine's own texts (codes, option texts,
// law paraphrases) stay as the service sends them, an irregularity code gets a short label where one is known.
let TOKEN = "";
const states = {};          // table id -> director view
let selected = null;
let eventTables = null;     // the current event's tables (GET /api/event), null: no event

function showLogin(msg) {
  document.getElementById("login").style.display = "";
  document.getElementById("login-error").textContent = msg || "";
}
document.getElementById("login-form").addEventListener("submit", ev => {
  ev.preventDefault();
  TOKEN = document.getElementById("token-input").value.trim();
  sessionStorage.setItem("bt-token", TOKEN);            // this tab only; never in the address
  document.getElementById("login").style.display = "none";
  start();
});

function toast(text) {
  const el = document.getElementById("toast");
  el.textContent = text; el.style.display = "block";
  clearTimeout(toast.timer); toast.timer = setTimeout(() => el.style.display = "none", 5000);
}

function tableName(id) { return t("console.table_n", "Table {table}", {table: id}); }
function seatName(seat) { return seat ? t(`common.seat.${seat}`, seat) : "-"; }
const SEAT_WORDS = {N: "North", E: "East", S: "South", W: "West"};     // a sentence names the seat in full

function deviceDots(devs) {
  if (!devs || !devs.length) return `<span class="muted">${esc(t("console.no_devices", "no devices"))}</span>`;
  return devs.map(d => `<span class="dot ${d.connected ? "ok" : "bad"}" title="${esc(d.serial || d.url)} ${d.connected ?
    esc(t("console.connected", "connected")) : esc(d.last_error || t("console.down", "down"))}"></span>`).join("");
}

// A table's card is written again only when it changed (console_event.js marks late cards after each write).
const drawnCards = new Map();           // table id -> the card's markup as last written
function renderTables() {
  const el = document.getElementById("tables");
  const ids = Object.keys(states).sort((a, b) => a.length - b.length || a.localeCompare(b));
  const cards = ids.map(id => {
    const s = states[id];
    const open = s.choices.length;
    const outside = eventTables && !eventTables.has(id);       // a table of an earlier event
    return `<div class="tcard${id === selected ? " sel" : ""}${open ? " alerting" : ""}${outside ? " not-in-event" : ""}" data-table="${esc(id)}" id="table-${esc(id)}">
      <b>${esc(tableName(id))}</b> <span class="muted">#${s.seq}</span>${outside ? ` <span class="out-badge">${esc(t("console.not_in_event", "not in the event"))}</span>` : ""}<br>
      ${esc(s.board ? t("console.board_short", "board {n}", {n: s.board.number}) : t("console.no_board", "no board yet"))} <span class="phase ${esc(s.phase)}">${esc(phaseText(s.phase))}</span><br>
      ${esc(t("console.turn", "turn"))}: <b>${s.turn ? esc(seatName(s.turn)) : "-"}</b> &middot; ${esc(t("console.contract", "contract"))} ${contractHtml(s.contract)}${s.declarer && s.contract && s.contract !== "PASS" ? " " + esc(seatName(s.declarer)) : ""}<br>
      ${s.held ? `<span class="waiting held" title="${esc(engineText(s.held, s.held_parts))}">${esc(t("console.held", "held: no call yet (the hands picked up)"))}</span><br>` : ""}
      ${open ? `<span class="waiting">${esc(t("console.waiting", "{n} waiting", {n: open}))}</span> &middot; ` : ""}${deviceDots(s.devices)}
      <span class="seq" data-seq="${s.seq}" hidden></span></div>`;
  });
  const select = c => { c.onclick = () => { selected = c.dataset.table; renderTables(); renderDetail(); }; };
  const same = ids.length === el.children.length && ids.every((id, i) => el.children[i].dataset.table === id);
  if (!same) {
    el.innerHTML = cards.join("");
    drawnCards.clear();
    ids.forEach((id, i) => drawnCards.set(id, cards[i]));
    el.querySelectorAll(".tcard").forEach(select);
    return;
  }
  ids.forEach((id, i) => {
    if (drawnCards.get(id) === cards[i]) return;
    el.children[i].outerHTML = cards[i];
    drawnCards.set(id, cards[i]);
    select(el.children[i]);
  });
}
// Every call and card at every table sends the console a state message (hundreds a second at a congress): the
// table cards and the alerts are drawn once for the messages of 200 ms, not once for each.
let overviewTimer = null;
function renderOverviewSoon() {
  if (overviewTimer) return;
  overviewTimer = setTimeout(() => { overviewTimer = null; renderTables(); renderAlerts(); }, 200);
}

// The tables of the current event (GET /api/event's progress); a table left over from an earlier event is greyed.
async function loadEventTables() {
  try {
    const ev = await api("/api/event", {}, TOKEN);
    const next = ev && ev.event ? new Set((ev.progress || []).map(p => p.table)) : null;
    const key = s => (s ? [...s].sort().join(",") : "");
    if (key(next) !== key(eventTables)) { eventTables = next; renderTables(); }
  } catch (e) { /* no event service: every table is shown alike */ }
}

let drawnAlerts = null;                  // the alerts' markup as last written
function renderAlerts() {
  const items = [];
  for (const id of Object.keys(states).sort()) {
    const s = states[id];
    for (const irr of s.choices) items.push([id, s, irr]);
  }
  document.getElementById("alert-count").textContent = items.length ? `(${items.length})` : "";
  const el = document.getElementById("alerts");
  if (!items.length) { drawnAlerts = null; el.innerHTML = `<p class="muted">${esc(t("console.none", "None."))}</p>`; updateNav(); return; }
  const focus = document.activeElement && document.activeElement.closest && document.activeElement.closest("form.claim-ruling")
    ? [document.activeElement.closest("form.claim-ruling").dataset.key, document.activeElement.name] : null;
  const html = items.map(([id, s, irr]) => `<div class="alert" data-table="${esc(id)}" data-code="${esc(irr.code)}">
    <div><b>${esc(tableName(id))}</b>${esc(t("console.comma", ", "))}${esc(t("console.board_short", "board {n}", {n: s.board ? s.board.number : "-"}))}${esc(t("console.colon", ": "))}<span class="code">${codeLabel(irr.code)}</span>
    ${esc(t("console.by", "by {seat}", {seat: seatName(irr.seat)}))} &mdash; <span class="law">${esc(t("common.law_n", "Law {law}", {law: irr.law}))}</span></div>
    <div class="irr-detail">${esc(detailText(irr))}</div>
    ${lawTextSlot(id, s.board ? s.board.number : null, irr.law, irr.law_text)}
    ${CLAIM_CODES.includes(irr.code) ? claimForm(id, s, irr) : `<div>${(irr.options || []).map(o => `<button class="option" data-table="${esc(id)}" data-code="${esc(irr.code)}" data-option="${esc(o.code)}"
       title="${esc(optionExplained(o))}">${esc(optionText(o.code))} <span class="muted">(${esc(chooserText(o.chooser))})</span></button>`).join("")}</div>`}
    <div class="muted">${(irr.options || []).map(o => `<div><b>${esc(optionText(o.code))}</b>: ${esc(optionExplained(o))}</div>`).join("")}</div></div>`).join("");
  if (html === drawnAlerts) { updateNav(); return; }       // unchanged: what the director is typing stays as it is
  drawnAlerts = html;
  el.innerHTML = html;
  el.querySelectorAll("button.option").forEach(b => b.onclick = () => rule(b.dataset.table, b.dataset.code, b.dataset.option, b));
  el.querySelectorAll("form.claim-ruling").forEach(claimFormWire);
  if (focus) {                                        // a redraw while the director types keeps his place
    const f = [...el.querySelectorAll("form.claim-ruling")].find(x => x.dataset.key === focus[0]);
    if (f && focus[1] && f.elements[focus[1]]) f.elements[focus[1]].focus();
  }
  lawTexts(el);
  updateNav();
}

// A disputed claim (Law 70): the director's ruling is a form in the alert: the tricks he awards declarer's side
// in all, a note for the record, and the ruling's option. What he types survives the list's redrawing.
const CLAIM_CODES = ["CLAIM_DISPUTED", "CLAIM"];
const DRAFTS = {};            // "table|code" -> {tricks, note}
function claimForm(id, s, irr) {
  const key = `${id}|${irr.code}`, d = DRAFTS[key] || {};
  const won = s.tricks_won && s.declarer ? s.tricks_won[["N", "S"].includes(s.declarer) ? "NS" : "EW"] : 0;
  const claimed = s.claim ? s.claim.tricks : "";
  const opts = irr.options || [];
  return `<form class="claim-ruling" data-table="${esc(id)}" data-code="${esc(irr.code)}" data-key="${esc(key)}">
    ${s.claim ? `<p>${esc(t("console.claim_was", "{seat} claimed {n} tricks in all for declarer's side.", {seat: t(`common.seat.${s.claim.seat}`, SEAT_WORDS[s.claim.seat] || s.claim.seat), n: claimed}))}</p>` : ""}
    <label>${esc(t("console.claim_awarded", "Tricks awarded to declarer's side in all (Law 70)"))}
      <input name="tricks" type="number" inputmode="numeric" min="${won}" max="13" required value="${esc(d.tricks ?? claimed)}"></label>
    <label>${esc(t("console.claim_note", "Note for the record"))}
      <textarea name="note" rows="2" maxlength="500">${esc(d.note ?? "")}</textarea></label>
    <div>${opts.map(o => `<button type="submit" class="claim-rule" value="${esc(o.code)}" title="${esc(optionExplained(o))}">${esc(o.code === "rule" ? t("console.claim_rule_plain", "Rule the claim")
      : t("console.claim_rule", "Rule: {option}", {option: optionText(o.code)}))}</button>`).join("")}</div></form>`;
}
function claimFormWire(f) {
  const key = f.dataset.key;
  const keep = () => { DRAFTS[key] = {tricks: f.tricks.value, note: f.note.value}; };
  f.tricks.oninput = keep; f.note.oninput = keep;
  f.onsubmit = async ev => {
    ev.preventDefault();
    const tricks = parseInt(f.tricks.value, 10);
    if (!(tricks >= +f.tricks.min && tricks <= 13)) { toast(t("console.claim_tricks_bad", "Give the tricks awarded: {min} to 13.", {min: f.tricks.min})); return; }
    const option = (ev.submitter && ev.submitter.value) || f.querySelector("button.claim-rule").value;
    const note = f.note.value.trim();
    if (await rule(f.dataset.table, f.dataset.code, option, ev.submitter, {tricks, ...(note ? {note} : {})})) delete DRAFTS[key];
  };
}

async function rule(table, code, option, button, extra) {
  const body = {code, option, ...(extra || {})};
  if (button) button.disabled = true;
  try {
    await api(`/api/tables/${encodeURIComponent(table)}/rulings`, {method: "POST", body: JSON.stringify(body)}, TOKEN);
    feed(t("console.ruled", "Table {table}: ruled {code} -> {option}", {table, code: irrText(code), option: optionText(option)}) +
      (body.tricks != null ? " " + t("console.ruled_tricks", "({n} tricks to declarer's side)", {n: body.tricks}) : ""));
    return true;
  } catch (e) {
    toast(t("console.ruling_refused", "Ruling refused: {error}", {error: refusalWords(e)}));
    if (button) button.disabled = false;
    return false;
  }
}

function feed(text) {
  const el = document.getElementById("feed");
  const d = document.createElement("div");
  d.textContent = clockTime() + "  " + text;
  el.prepend(d);
  while (el.children.length > 200) el.lastChild.remove();
}

function seatLabel(seat, s) {
  const role = seat === s.declarer ? t("console.declarer", "declarer") : seat === s.dummy ? t("console.dummy", "dummy") : "";
  return esc(seatName(seat)) + (role ? ` (${esc(role)})` : "");
}
async function renderDetail() {
  const el = document.getElementById("detail");
  if (!selected || !states[selected]) { el.style.display = "none"; return; }
  const s = states[selected];
  el.style.display = "";
  const hands = SEATS.map(seat => `<div class="hand ${seat}"><b>${seatLabel(seat, s)}</b>
     ${handHtml(s.hands[seat] ? s.hands[seat].cards : null)}</div>`).join("");
  const tricks = (s.tricks || []).map(trickHtml).join("");
  const irrs = s.irregularities.map(i => `<div>${codeLabel(i.code)} (${esc(t("common.law_n", "Law {law}", {law: i.law}))}) ${esc(i.seat ? seatName(i.seat) : "")}: ${esc(detailText(i))}
     &mdash; <b class="irr-state">${esc(dispositionText(i))}</b></div>`).join("") || `<span class="muted">${esc(t("console.none_lower", "none"))}</span>`;
  const boardText = s.board ? t("console.board_detail", "board {n} (dealer {dealer}, {vul} vulnerable)",
    {n: s.board.number, dealer: seatName(s.board.dealer), vul: I18N.lang === "en" ? s.board.vulnerable : t("common.vul." + s.board.vulnerable, s.board.vulnerable)}) : t("console.board_short", "board {n}", {n: "-"});
  const r = s.result;
  const resultText = r ? t("console.result_line", "{contract} {declarer}, {tricks} tricks, NS {score} ({status})",
    {contract: r.contract || "-", declarer: r.declarer ? seatName(r.declarer) : "", tricks: r.tricks ?? "-", score: r.score_ns ?? "-",
     status: t("console.status." + r.status, codeWords(r.status))})
    : t("console.not_complete", "not complete");
  el.innerHTML = `<h2>${esc(tableName(selected))} &mdash; ${esc(boardText)}</h2>
    <div class="row"><div><div class="hands">${hands}<div class="center">${contractHtml(s.contract)} ${esc(s.declarer ? seatName(s.declarer) : "")}<br>
      ${s.tricks_won ? `${esc(t("common.ns", "NS"))} ${s.tricks_won.NS} &middot; ${esc(t("common.ew", "EW"))} ${s.tricks_won.EW}` : ""}</div></div></div>
    <div>${s.auction ? auctionHtml(s.auction) : ""}<div class="log">${tricks}</div></div></div>
    <h3>${esc(t("console.irregularities", "Irregularities"))}</h3><div>${irrs}</div>
    <h3>${esc(t("console.result", "Result"))}</h3><div>${esc(resultText)}
      ${s.adjustment ? `<br>${esc(t("console.adjusted", "Adjusted (Law {law})", {law: s.adjustment.law}))}: ${esc(JSON.stringify(s.adjustment))}` : ""}</div>
    <h3>${esc(t("console.adjust_title", "Adjusted score (Law 12)"))}</h3>
    <form id="adjust-form">${esc(t("console.artificial", "Artificial"))}: <label>${esc(t("common.ns", "NS"))} <select name="ns"><option>A+</option><option selected>A</option><option>A-</option></select></label>
      <label>${esc(t("common.ew", "EW"))} <select name="ew"><option>A+</option><option selected>A</option><option>A-</option></select></label>
      <button name="artificial" type="button">${esc(t("console.set_artificial", "Set artificial (12C1)"))}</button><br>
      ${esc(t("console.assigned", "Assigned"))}: <label>${esc(t("console.contract", "contract"))} <input name="contract" size="5" placeholder="4SX"></label>
      <label>${esc(t("console.by_label", "by"))} <select name="declarer">${SEATS.map(x => `<option value="${x}">${esc(seatName(x))}</option>`).join("")}</select></label>
      <label>${esc(t("console.tricks", "tricks"))} <input name="tricks" size="2" type="number" min="0" max="13"></label>
      <button name="assigned" type="button">${esc(t("console.set_assigned", "Set assigned (12C2)"))}</button>
      <button name="cancel" type="button">${esc(t("console.cancel_adjustment", "Cancel adjustment"))}</button></form>
    <h3>${esc(t("console.seat_links", "Seat links"))}</h3><div id="seat-links" class="muted">-</div>
    <h3>${esc(t("console.journal", "Journal (this board)"))}</h3><div id="journal" class="log" data-verbatim>${esc(t("console.loading", "loading"))}</div>`;
  const f = document.getElementById("adjust-form");
  const board = s.board ? s.board.number : null;
  const post = body => api(`/api/tables/${selected}/boards/${board}/adjustment`, {method: "POST", body: JSON.stringify(body)}, TOKEN)
    .then(() => feed(t("console.adjustment_done", "Table {table} board {board}: adjustment {kind}", {table: selected, board, kind: body.kind})))
    .catch(e => toast(refusalWords(e)));
  f.artificial.onclick = () => post({kind: "artificial", ns: f.ns.value, ew: f.ew.value});
  f.assigned.onclick = () => post({kind: "assigned", contract: f.contract.value, declarer: f.declarer.value, tricks: parseInt(f.tricks.value, 10)});
  f.cancel.onclick = () => post({kind: "cancel"});
  try {
    showSeatLinks(selected, await api(`/api/tables/${selected}/tokens`, {}, TOKEN));
    if (board) {
      const rows = await api(`/api/tables/${selected}/events?board=${board}`, {}, TOKEN);
      document.getElementById("journal").innerHTML = rows.map(r => `<div>#${r.seq} ${esc(r.at.slice(11, 19))} ${esc(r.actor)}: ${esc(JSON.stringify(r.body))}</div>`).join("");
    }
  } catch (e) { /* the table may have moved on */ }
}

// Each seat's one-time sign-in link for the table's current round (the code rides in the #fragment, which no
// server log nor Referer carries); "revoke" ends the table's sign-ins at once and shows new links.
function showSeatLinks(table, toks) {
  const el = document.getElementById("seat-links");
  el.innerHTML = `${esc(t("console.round_n", "round {n}", {n: toks.N.round}))}: ` + SEATS.map(x => toks[x].used ?
    `${esc(seatName(x))} <span class="muted">(${esc(t("console.signed_in", "signed in"))})</span>` :
    `<a href="${esc(toks[x].link)}" target="_blank" rel="noreferrer">${esc(seatName(x))}</a>${toks[x].pair ?
      ` <span class="muted">(${esc(t("console.pair_n", "pair {n}", {n: toks[x].pair_label ?? toks[x].pair}))})</span>` : ""}`).join(" ") +
    ` <button id="revoke-seats">${esc(t("console.revoke", "revoke and renew"))}</button>`;
  document.getElementById("revoke-seats").onclick = async () => {
    if (!confirm(t("console.revoke_confirm", "End every sign-in at table {table}?", {table}))) return;
    try {
      const r = await api(`/api/tables/${encodeURIComponent(table)}/revoke`, {method: "POST"}, TOKEN);
      feed(t("console.revoked", "Table {table}: seat sign-ins revoked", {table}));
      showSeatLinks(table, r.seats);
    } catch (e) { toast(refusalWords(e)); }
  };
}

async function loadResults() {
  try {
    const res = await api("/api/results", {}, TOKEN);
    document.getElementById("results").innerHTML = res.map(b => `<div><b>${esc(t("console.board_title", "Board {n}", {n: b.board}))}</b>${b.released ? "" :
      ` (${esc(t("console.not_released", "not released"))}) <button type="button" class="release" data-board="${b.board}">${esc(t("console.release", "Release"))}</button>`}: ` +
      b.results.map(e => `${esc(t("console.table_short", "T{table}", {table: e.table}))} ${contractHtml(e.contract)} ${esc(e.declarer ? seatName(e.declarer) : "")} ${e.tricks ?? ""} ${esc(t("common.ns", "NS"))} ${e.score_ns ?? "-"}` +
        (e.ns_percent != null ? ` (${e.ns_percent}%)` : "") + (e.adjustment ? ` ${esc(t("console.adj", "adj"))}` : "")).join(" | ") + "</div>").join("") ||
      esc(t("console.no_boards", "no boards yet"));
    // Releasing makes a board's results and hands public. The service refuses (409) a board some table still
    // has to play and says which; the director then confirms, and even a forced release never reaches a pair
    // that still has the board to play (Law 16B).
    document.querySelectorAll("#results button.release").forEach(btn => btn.onclick = async () => {
      const path = `/api/boards/${btn.dataset.board}/release`;
      try { await api(path, {method: "POST"}, TOKEN); loadResults(); }
      catch (e) {
        if (e.status !== 409) { toast(refusalWords(e)); return; }
        if (!confirm(refusalWords(e) + "\n\n" + t("console.release_force", "Release it to the public anyway? The pairs that still have to play it will not see it."))) return;
        try { await api(path + "?force=true", {method: "POST"}, TOKEN); loadResults(); }
        catch (e2) { toast(refusalWords(e2)); }
      }
    });
  } catch (e) { document.getElementById("results").textContent = refusalWords(e); }
}
document.getElementById("refresh-results").onclick = loadResults;

// Live upload (docs/upload.md): per target what is queued, delivered, failed, and the last error.
function ago(at) {
  return at ? t("console.seconds_ago", "{n} s ago", {n: Math.max(0, Math.round(Date.now() / 1000 - at))}) : t("console.never", "never");
}
async function loadUploads() {
  const el = document.getElementById("uploads");
  try {
    const res = await api("/api/uploads", {}, TOKEN);
    if (!res.targets.length) { el.textContent = t("console.no_upload", "No upload target configured."); return; }
    const failing = res.targets.filter(x => x.failed).length;
    document.getElementById("uploads-summary").textContent = failing ? t("console.with_failures", "({n} with failures)", {n: failing}) : "";
    el.classList.remove("muted");
    const head = [["target", "target"], ["pending", "pending"], ["held", "held"], ["sending", "sending"], ["delivered", "delivered"],
      ["failed", "failed"], ["oldest", "oldest pending"], ["last_success", "last success"], ["last_error", "last error"]];
    el.innerHTML = `<div class="scroll" tabindex="0"><table class="uploads"><tr>${head.map(([k, en]) => `<th>${esc(t("console.upl." + k, en))}</th>`).join("")}<th></th></tr>` +
      res.targets.map(x => `<tr class="${x.failed ? "upl-failed" : x.pending ? "upl-pending" : ""}" data-target="${esc(x.name)}">
        <td><b>${esc(x.name)}</b> <span class="muted">${esc(x.kind)} ${esc(x.destination || "")}${x.only_released ? ` (${esc(t("console.released_only", "released boards"))})` : ""}</span></td>
        <td>${x.pending}</td><td title="${esc(t("console.held_title", "waiting for the board's release"))}">${x.held}</td><td>${x.in_flight}</td>
        <td>${x.delivered}</td><td>${x.failed}</td>
        <td>${x.oldest_pending_age_s == null ? "-" : x.oldest_pending_age_s + " s"}</td><td>${esc(ago(x.last_success_at))}</td>
        <td class="muted">${x.last_error ? esc(x.last_error) + " (" + esc(ago(x.last_error_at)) + ")" : "-"}</td>
        <td>${x.failed ? `<button class="upl-retry" data-target="${esc(x.name)}">${esc(t("console.retry", "retry failed"))}</button>` : ""}</td></tr>`).join("") + "</table></div>";
    el.querySelectorAll("button.upl-retry").forEach(b => b.onclick = async () => {
      b.disabled = true;
      try {
        const r = await api(`/api/uploads/${encodeURIComponent(b.dataset.target)}/retry`, {method: "POST"}, TOKEN);
        feed(t("console.requeued", "Uploads {target}: {n} failed message(s) queued again", {target: r.target, n: r.requeued}));
        loadUploads();
      } catch (e) { toast(t("console.retry_refused", "Retry refused: {error}", {error: refusalWords(e)})); b.disabled = false; }
    });
  } catch (e) { el.textContent = refusalWords(e); }
}

// The sticky section navigation: the open director calls (console_calls.js draws them) and the irregularities
// waiting for a ruling show as badges on their links.
function updateNav() {
  const calls = document.querySelectorAll("#calls .call").length;
  const rulings = document.querySelectorAll("#alerts .alert").length;
  for (const [id, n] of [["nav-calls-badge", calls], ["nav-alerts-badge", rulings]]) {
    const b = document.getElementById(id);
    b.textContent = n ? String(n) : "";
    b.hidden = !n;
  }
}
new MutationObserver(updateNav).observe(document.getElementById("calls"), {childList: true, subtree: true});

// The stream says it once; a console opened later learns it from /api/health.
let journalStopped = false;
function journalFailed(detail) {
  if (journalStopped) return;
  journalStopped = true;
  toast(t("console.journal_failed", "The journal has stopped: nothing is stored. Restart the service."));
  feed(detail);
}
async function checkJournal() {
  try {
    const h = await api("/api/health", {}, TOKEN);   // the failure is the director's to see
    if (h.journal_failure) journalFailed(h.journal_failure);
  } catch (e) { /* unreachable now: the stream's status says so, the next look tries again */ }
}

let detailTimer = null;
function onMessage(m) {
  if (m.type === "state") {
    states[m.table] = m.state;
    renderOverviewSoon();
    if (m.table === selected && !detailTimer) detailTimer = setTimeout(() => { detailTimer = null; renderDetail(); }, 300);
  } else if (m.type === "flagged") {
    const i = m.irregularity;
    const label = irrText(i.code);
    toast(t("console.flagged_toast", "Table {table}: {code} (Law {law})", {table: m.table, code: label, law: i.law}));
    feed(t("console.flagged_feed", "Table {table} board {board}: {code} (Law {law}) by {seat}: {detail}",
      {table: m.table, board: m.board, code: label, law: i.law, seat: seatName(i.seat), detail: detailText(i)}));
  } else if (m.type === "journal_failed") {
    journalFailed(m.detail);
  } else if (m.type === "device") {
    feed(t("console.device_feed", "Table {table} device {device}: {code} {detail}",
      {table: m.table, device: m.device || "", code: m.code, detail: m.detail || ""}));
  } else if (m.type === "alert" && m.kind === "card_redemptions") {
    const text = t("console.card_alert", "Table {table}, seat {seat}: its table card signed in {count} times in {minutes} min; further sign-ins are refused for now",
      {table: m.table, seat: seatName(m.seat), count: m.count, minutes: Math.round(m.window_s / 60)});
    toast(text); feed(text);
  }
}

function statusText(st) {
  return {live: t("common.live", "live"), reconnecting: t("common.reconnecting", "reconnecting"),
          "signed out": t("common.signed_out", "signed out")}[st] || st;
}
async function start() {
  if (!TOKEN) TOKEN = await firstCredential;
  if (!TOKEN) { showLogin(); document.getElementById("status").textContent = t("console.no_token", "no token"); return; }
  try {
    const me = await api("/api/whoami", {}, TOKEN);
    if (me.role !== "director") { showLogin(t("console.not_director", "That is not the director's token.")); return; }
  } catch (e) { showLogin(refusalWords(e)); return; }
  stream("/ws/club", onMessage, st => document.getElementById("status").textContent = statusText(st), TOKEN);
  loadResults(); setInterval(loadResults, 15000);
  loadUploads(); setInterval(loadUploads, 3000);
  checkJournal(); setInterval(checkJournal, 10000);
  loadEventTables(); setInterval(loadEventTables, 5000);
  setInterval(() => document.getElementById("clock").textContent = clockTime(), 1000);
}
// The address's credential is taken at once (the console's other parts read it from this tab's storage), the
// page's strings before the first render.
const firstCredential = credential().catch(() => "");
loadLanguage("console").then(() => { renderAlerts(); start(); });
