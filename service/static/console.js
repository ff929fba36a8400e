// The director console: every table at a glance, irregularity alerts with their rectifications, the record.
let TOKEN = "";
const states = {};          // table id -> director view
let selected = null;

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
  const t = document.getElementById("toast");
  t.textContent = text; t.style.display = "block";
  clearTimeout(toast.timer); toast.timer = setTimeout(() => t.style.display = "none", 5000);
}

function deviceDots(devs) {
  if (!devs || !devs.length) return '<span class="muted">no devices</span>';
  return devs.map(d => `<span class="dot ${d.connected ? "ok" : "bad"}" title="${esc(d.serial || d.url)} ${d.connected ? "connected" : esc(d.last_error || "down")}"></span>`).join("");
}

function renderTables() {
  const el = document.getElementById("tables");
  const ids = Object.keys(states).sort((a, b) => a.length - b.length || a.localeCompare(b));
  el.innerHTML = ids.map(id => {
    const s = states[id];
    const open = s.choices.length;
    return `<div class="tcard${id === selected ? " sel" : ""}${open ? " alerting" : ""}" data-table="${esc(id)}" id="table-${esc(id)}">
      <b>Table ${esc(id)}</b> <span class="muted">#${s.seq}</span><br>
      board ${s.board ? s.board.number : "-"} <span class="phase ${s.phase}">${esc(s.phase)}</span><br>
      turn: <b>${s.turn || "-"}</b> &middot; contract ${contractHtml(s.contract)}${s.declarer && s.contract && s.contract !== "PASS" ? " " + s.declarer : ""}<br>
      ${open ? `<span style="color:var(--warn)">${open} waiting</span> &middot; ` : ""}${deviceDots(s.devices)}
      <span class="seq" data-seq="${s.seq}" hidden></span></div>`;
  }).join("");
  el.querySelectorAll(".tcard").forEach(c => c.onclick = () => { selected = c.dataset.table; renderTables(); renderDetail(); });
}

function renderAlerts() {
  const items = [];
  for (const id of Object.keys(states).sort()) {
    const s = states[id];
    for (const irr of s.choices) items.push([id, s, irr]);
  }
  document.getElementById("alert-count").textContent = items.length ? `(${items.length})` : "";
  const el = document.getElementById("alerts");
  if (!items.length) { el.innerHTML = '<p class="muted">None.</p>'; return; }
  el.innerHTML = items.map(([id, s, irr]) => `<div class="alert" data-table="${esc(id)}" data-code="${esc(irr.code)}">
    <div><b>Table ${esc(id)}</b>, board ${s.board ? s.board.number : "-"}: <span class="code">${esc(irr.code)}</span>
    by ${esc(irr.seat || "-")} &mdash; <span class="law">Law ${esc(irr.law)}</span></div>
    ${lawTextSlot(id, s.board ? s.board.number : null, irr.law, irr.law_text)}
    <div>${esc(irr.detail || "")}</div>
    <div>${(irr.options || []).map(o => `<button class="option" data-table="${esc(id)}" data-code="${esc(irr.code)}" data-option="${esc(o.code)}"
       title="${esc(o.text)}">${esc(o.code)} <span class="muted">(${esc(o.chooser)})</span></button>`).join("")}</div>
    <div class="muted">${(irr.options || []).map(o => `<div><b>${esc(o.code)}</b>: ${esc(o.text)}</div>`).join("")}</div></div>`).join("");
  el.querySelectorAll("button.option").forEach(b => b.onclick = () => rule(b.dataset.table, b.dataset.code, b.dataset.option, b));
  lawTexts(el);
}

async function rule(table, code, option, button) {
  const body = {code, option};
  if (code === "CLAIM_DISPUTED" || code === "CLAIM") {
    const t = prompt("Declarer side's total tricks (Law 70)?");
    if (t === null) return;
    body.tricks = parseInt(t, 10);
  }
  if (button) button.disabled = true;
  try {
    await api(`/api/tables/${encodeURIComponent(table)}/rulings`, {method: "POST", body: JSON.stringify(body)}, TOKEN);
    feed(`Table ${table}: ruled ${code} -> ${option}`);
  } catch (e) {
    toast(`Ruling refused: ${e.message}`);
    if (button) button.disabled = false;
  }
}

function feed(text) {
  const el = document.getElementById("feed");
  const d = document.createElement("div");
  d.textContent = new Date().toLocaleTimeString() + "  " + text;
  el.prepend(d);
  while (el.children.length > 200) el.lastChild.remove();
}

async function renderDetail() {
  const el = document.getElementById("detail");
  if (!selected || !states[selected]) { el.style.display = "none"; return; }
  const s = states[selected];
  el.style.display = "";
  const hands = SEATS.map(seat => `<div class="hand ${seat}"><b>${seat}${seat === s.declarer ? " (declarer)" : seat === s.dummy ? " (dummy)" : ""}</b>
     ${handHtml(s.hands[seat] ? s.hands[seat].cards : null)}</div>`).join("");
  const tricks = (s.tricks || []).map(trickHtml).join("");
  const irrs = s.irregularities.map(i => `<div>${esc(i.code)} (Law ${esc(i.law)}) ${esc(i.seat || "")}: ${esc(i.detail || "")}
     <b>[${esc(i.disposition || "open")}]</b></div>`).join("") || '<span class="muted">none</span>';
  el.innerHTML = `<h2>Table ${esc(selected)} &mdash; board ${s.board ? s.board.number + " (dealer " + s.board.dealer + ", " + s.board.vulnerable + " vulnerable)" : "-"}</h2>
    <div class="row"><div><div class="hands">${hands}<div class="center">${contractHtml(s.contract)} ${s.declarer || ""}<br>
      ${s.tricks_won ? `NS ${s.tricks_won.NS} &middot; EW ${s.tricks_won.EW}` : ""}</div></div></div>
    <div>${s.auction ? auctionHtml(s.auction) : ""}<div class="log">${tricks}</div></div></div>
    <h3>Irregularities</h3><div>${irrs}</div>
    <h3>Result</h3><div>${s.result ? `${esc(s.result.contract || "-")} ${esc(s.result.declarer || "")}, ${s.result.tricks ?? "-"} tricks, NS ${s.result.score_ns ?? "-"} [${esc(s.result.status)}]` : "not complete"}
      ${s.adjustment ? `<br>Adjusted (Law ${esc(s.adjustment.law)}): ${esc(JSON.stringify(s.adjustment))}` : ""}</div>
    <h3>Adjusted score (Law 12)</h3>
    <form id="adjust-form">Artificial: NS <select name="ns"><option>A+</option><option selected>A</option><option>A-</option></select>
      EW <select name="ew"><option>A+</option><option selected>A</option><option>A-</option></select>
      <button name="artificial" type="button">Set artificial (12C1)</button><br>
      Assigned: contract <input name="contract" size="5" placeholder="4SX"> by <select name="declarer">${SEATS.map(x => `<option>${x}</option>`).join("")}</select>
      tricks <input name="tricks" size="2" type="number" min="0" max="13">
      <button name="assigned" type="button">Set assigned (12C2)</button> <button name="cancel" type="button">Cancel adjustment</button></form>
    <h3>Seat links</h3><div id="seat-links" class="muted">-</div>
    <h3>Journal (this board)</h3><div id="journal" class="log">loading</div>`;
  const f = document.getElementById("adjust-form");
  const board = s.board ? s.board.number : null;
  const post = body => api(`/api/tables/${selected}/boards/${board}/adjustment`, {method: "POST", body: JSON.stringify(body)}, TOKEN)
    .then(() => feed(`Table ${selected} board ${board}: adjustment ${body.kind}`)).catch(e => toast(e.message));
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
  el.innerHTML = `round ${esc(toks.N.round)}: ` + SEATS.map(x => toks[x].used ? `${x} <span class="muted">(signed in)</span>` :
    `<a href="${esc(toks[x].link)}" target="_blank" rel="noreferrer">${x}</a>${toks[x].pair ? ` <span class="muted">(pair ${esc(toks[x].pair)})</span>` : ""}`).join(" ") +
    ` <button id="revoke-seats">revoke and renew</button>`;
  document.getElementById("revoke-seats").onclick = async () => {
    if (!confirm(`End every sign-in at table ${table}?`)) return;
    try {
      const r = await api(`/api/tables/${encodeURIComponent(table)}/revoke`, {method: "POST"}, TOKEN);
      feed(`Table ${table}: seat sign-ins revoked`);
      showSeatLinks(table, r.seats);
    } catch (e) { toast(e.message); }
  };
}

async function loadResults() {
  try {
    const res = await api("/api/results", {}, TOKEN);
    document.getElementById("results").innerHTML = res.map(b => `<div><b>Board ${b.board}</b>${b.released ? "" : " (not released)"}: ` +
      b.results.map(e => `T${esc(e.table)} ${contractHtml(e.contract)} ${esc(e.declarer || "")} ${e.tricks ?? ""} NS ${e.score_ns ?? "-"}` +
        (e.ns_percent != null ? ` (${e.ns_percent}%)` : "") + (e.adjustment ? " adj" : "")).join(" | ") + "</div>").join("") || "no boards yet";
  } catch (e) { document.getElementById("results").textContent = e.message; }
}
document.getElementById("refresh-results").onclick = loadResults;

// Live upload (docs/upload.md): per target what is queued, delivered, failed, and the last error.
function ago(t) { return t ? `${Math.max(0, Math.round(Date.now() / 1000 - t))} s ago` : "never"; }
async function loadUploads() {
  const el = document.getElementById("uploads");
  try {
    const res = await api("/api/uploads", {}, TOKEN);
    if (!res.targets.length) { el.textContent = "No upload target configured."; return; }
    const failing = res.targets.filter(t => t.failed).length;
    document.getElementById("uploads-summary").textContent = failing ? `(${failing} with failures)` : "";
    el.classList.remove("muted");
    el.innerHTML = `<table class="uploads"><tr><th>target</th><th>pending</th><th>held</th><th>sending</th><th>delivered</th>
      <th>failed</th><th>oldest pending</th><th>last success</th><th>last error</th><th></th></tr>` +
      res.targets.map(t => `<tr class="${t.failed ? "upl-failed" : t.pending ? "upl-pending" : ""}" data-target="${esc(t.name)}">
        <td><b>${esc(t.name)}</b> <span class="muted">${esc(t.kind)} ${esc(t.destination || "")}${t.only_released ? " (released boards)" : ""}</span></td>
        <td>${t.pending}</td><td title="waiting for the board's release">${t.held}</td><td>${t.in_flight}</td>
        <td>${t.delivered}</td><td>${t.failed}</td>
        <td>${t.oldest_pending_age_s == null ? "-" : t.oldest_pending_age_s + " s"}</td><td>${ago(t.last_success_at)}</td>
        <td class="muted">${t.last_error ? esc(t.last_error) + " (" + ago(t.last_error_at) + ")" : "-"}</td>
        <td>${t.failed ? `<button class="upl-retry" data-target="${esc(t.name)}">retry failed</button>` : ""}</td></tr>`).join("") + "</table>";
    el.querySelectorAll("button.upl-retry").forEach(b => b.onclick = async () => {
      b.disabled = true;
      try {
        const r = await api(`/api/uploads/${encodeURIComponent(b.dataset.target)}/retry`, {method: "POST"}, TOKEN);
        feed(`Uploads ${r.target}: ${r.requeued} failed message(s) queued again`);
        loadUploads();
      } catch (e) { toast(`Retry refused: ${e.message}`); b.disabled = false; }
    });
  } catch (e) { el.textContent = e.message; }
}

let detailTimer = null;
function onMessage(m) {
  if (m.type === "state") {
    states[m.table] = m.state;
    renderTables(); renderAlerts();
    if (m.table === selected && !detailTimer) detailTimer = setTimeout(() => { detailTimer = null; renderDetail(); }, 300);
  } else if (m.type === "flagged") {
    const i = m.irregularity;
    toast(`Table ${m.table}: ${i.code} (Law ${i.law})`);
    feed(`Table ${m.table} board ${m.board}: ${i.code} (Law ${i.law}) by ${i.seat || "-"}: ${i.detail || ""}`);
  } else if (m.type === "device") {
    feed(`Table ${m.table} device ${m.device || ""}: ${m.code} ${m.detail || ""}`);
  }
}

async function start() {
  if (!TOKEN) TOKEN = await credential().catch(() => "");
  if (!TOKEN) { showLogin(); document.getElementById("status").textContent = "no token"; return; }
  try {
    const me = await api("/api/whoami", {}, TOKEN);
    if (me.role !== "director") { showLogin("That is not the director's token."); return; }
  } catch (e) { showLogin(e.message); return; }
  stream("/ws/club", onMessage, st => document.getElementById("status").textContent = st, TOKEN);
  loadResults(); setInterval(loadResults, 15000);
  loadUploads(); setInterval(loadUploads, 3000);
  setInterval(() => document.getElementById("clock").textContent = new Date().toLocaleTimeString(), 1000);
}
start();
