// A player's view of his own table: his hand, dummy once faced, the auction until his first play (Law 41C).
// The player opens his seat's one-time link (/seat#signin=...): it is redeemed for this round's token.
let TOKEN = "", TABLE = "", ME = "";
const CALLS = ["Pass", "X", "XX"].concat([1, 2, 3, 4, 5, 6, 7].flatMap(l => ["C", "D", "H", "S", "NT"].map(s => l + s)));
let state = null;

function toast(text) {
  const t = document.getElementById("toast");
  t.textContent = text; t.style.display = "block";
  clearTimeout(toast.timer); toast.timer = setTimeout(() => t.style.display = "none", 5000);
}
async function post(body) {
  try { await api(`/api/tables/${encodeURIComponent(TABLE)}/events`, {method: "POST", body: JSON.stringify(body)}, TOKEN); }
  catch (e) { toast(e.message); }
}
async function choose(code, option) {
  try { await api(`/api/tables/${encodeURIComponent(TABLE)}/rulings`, {method: "POST", body: JSON.stringify({code, option})}, TOKEN); }
  catch (e) { toast(e.message); }
}

function render() {
  const s = state;
  document.getElementById("title").textContent = `Table ${TABLE}, seat ${ME}`;
  document.getElementById("board").innerHTML = s.withheld ?
    `Board ${s.board.number} in play &middot; <span class="muted">your pair still has to play it: nothing of it is shown (Law 16B)</span>` : s.board ?
    `Board ${s.board.number}, dealer ${s.board.dealer}, ${esc(s.board.vulnerable)} vulnerable &middot; <span class="phase ${s.phase}">${esc(s.phase)}</span>
     &middot; turn: <b>${s.turn || "-"}</b> &middot; contract ${contractHtml(s.contract)} ${s.declarer || ""}` : "Waiting for a board.";
  const playing = s.phase === "play" || s.phase === "opening_lead" || s.phase === "awaiting_ruling";
  const mayPlay = seat => playing && s.turn === seat && (seat === ME || (seat === s.dummy && s.declarer === ME));
  document.getElementById("hands").innerHTML = SEATS.map(seat => `<div class="hand ${seat}"><b>${seat}${seat === ME ? " (you)" : ""}${seat === s.dummy ? " dummy" : ""}</b>
    ${s.hands[seat] ? handHtml(s.hands[seat].cards, () => mayPlay(seat)) : '<span class="muted">hidden</span>'}</div>`).join("") +
    `<div class="center">${s.tricks_won ? `NS ${s.tricks_won.NS} &middot; EW ${s.tricks_won.EW}` : ""}</div>`;
  document.querySelectorAll("#hands .card.play").forEach(c => c.onclick = () => {
    const seat = c.closest(".hand").classList[1];
    post({type: "card", seat, card: c.dataset.card});
  });
  document.getElementById("auction").innerHTML = auctionHtml(s.auction);
  const myCall = s.turn === ME && (s.phase === "auction" || s.phase === "board_ready" || (s.phase === "awaiting_ruling" && !s.contract));
  document.getElementById("box").innerHTML = myCall ? CALLS.map(c => `<button data-call="${c}">${callHtml(c)}</button>`).join("") : "";
  document.querySelectorAll("#box button").forEach(b => b.onclick = () => post({type: "call", seat: ME, call: b.dataset.call}));
  document.getElementById("play").innerHTML = s.trick || s.last_trick ? (s.last_trick ? "Last trick: " + trickHtml(s.last_trick) : "") +
    (s.trick ? "Current: " + trickHtml(s.trick) : "") : (s.tricks ? s.tricks.map(trickHtml).join("") : '<span class="muted">-</span>');
  const ch = s.choices || [];
  document.getElementById("choices-section").style.display = ch.length ? "" : "none";
  document.getElementById("choices").innerHTML = ch.map(i => `<div><b>${esc(i.code)}</b> (Law ${esc(i.law)}):${lawTextSlot(TABLE, s.board ? s.board.number : null, i.law, i.law_text)}` +
    i.options.map(o => `<button data-code="${esc(i.code)}" data-option="${esc(o.code)}" title="${esc(o.text)}">${esc(o.code)}</button> ${esc(o.text)}<br>`).join("") + "</div>").join("");
  document.querySelectorAll("#choices button").forEach(b => b.onclick = () => choose(b.dataset.code, b.dataset.option));
  lawTexts(document.getElementById("choices"));
  document.getElementById("irregularities").innerHTML = s.irregularities.map(i =>
    `<div>${esc(i.code)} (Law ${esc(i.law)}) ${esc(i.seat || "")} ${esc(i.detail || "")} [${esc(i.disposition || "open")}]</div>`).join("") || "none";
  if (s.result) document.getElementById("play").innerHTML += `<p>Result: ${esc(s.result.contract)} ${esc(s.result.declarer || "")}, ${s.result.tricks ?? "-"} tricks, NS ${s.result.score_ns ?? "-"}</p>`;
}

function signedOut(msg) {
  document.getElementById("board").textContent = msg + " Open your table's link for this round (the director has it).";
  document.getElementById("status").textContent = "signed out";
}
async function stillValid() {
  try { await api("/api/whoami", {}, TOKEN); return true; }
  catch (e) { if (/\((401|403)\)$/.test(e.message)) { signedOut(e.message); return false; } return true; }
}

async function main() {
  try { TOKEN = await credential(); } catch (e) { signedOut(e.message); return; }
  const parts = TOKEN.split(".");
  if (parts[0] !== "seat" || !(await stillValid())) {
    if (parts[0] !== "seat") signedOut("This page needs a seat's sign-in link.");
    return;
  }
  TABLE = parts[1]; ME = parts[2];
  stream(`/ws/tables/${encodeURIComponent(TABLE)}`, m => {
    if (m.type === "state") { state = m.state; render(); }
  }, st => document.getElementById("status").textContent = st, TOKEN, stillValid);
}
main();
