// The table terminal: a player's view of his own table on a phone or tablet. His hand, dummy once faced, the
// auction until his first play (Laws 20, 41C), the bidding box with alerts, claims and concessions and the
// opponents' answer, "call the director", the result to confirm, the board's traveller and the pair's running
// score, where everyone goes at the end of the round; at a scoring-only table, keying the result.
// The player opens his seat's link (/seat#signin=... or a table card's #card=...): common.js credential().
let TOKEN = "", TABLE = "", ME = "";
let state = null;
const UI = {level: null, alert: false, explanation: "", claimOpen: false, handedTo: "", extrasFor: null, extras: null, pair: null,
            roundBoards: null, labels: {}, keyTyped: false, keyBoardTyped: false};
const STRAINS = ["C", "D", "H", "S", "NT"];
const SIDE = {N: "NS", S: "NS", E: "EW", W: "EW"};
const SEAT_NAME = {N: () => t("seat.north", "North"), E: () => t("seat.east", "East"),
                   S: () => t("seat.south", "South"), W: () => t("seat.west", "West")};
const $ = id => document.getElementById(id);
// A section is written again only when what it shows changed. Every state message rewrote every section, and the
// browser parsed, laid out and painted them all again: most of what a phone did in an evening (docs/PERFORMANCE.md).
// The sections written here are written only through these two.
const WRITTEN = new WeakMap();
function setHtml(el, markup) {
  if (WRITTEN.get(el) === markup) return false;
  el.innerHTML = markup; WRITTEN.set(el, markup);
  return true;
}
function setText(el, text) { WRITTEN.delete(el); el.textContent = text; }
// A section not shown now is emptied once, not at every message.
function clear(el) { WRITTEN.delete(el); if (el.firstChild) el.replaceChildren(); }

function toast(text) {
  const el = $("toast");
  el.textContent = text; el.style.display = "block";
  clearTimeout(toast.timer); toast.timer = setTimeout(() => el.style.display = "none", 5000);
}
function tableUrl(rest) { return `/api/tables/${encodeURIComponent(TABLE)}${rest}`; }
async function send(path, body) {
  try { return await api(path, {method: "POST", body: JSON.stringify(body || {})}, TOKEN); }
  catch (e) {
    if (e.status === 401) { await credentialEnded(refusalWords(e)); return null; }
    toast(refusalText(e)); return null;
  }
}
// A refusal the page words itself (in the page's language) when the service names its code; else the service's words.
function refusalText(e) {
  const b = e.body || {};
  switch (b.code) {
    case "WRONG_BOARD": return t("seat.wrong_board", "Board {n} is not one of this table's boards now: it does not start. The director is called (Law 15).", {n: b.board});
    case "NUMBER_MISMATCH": return t("seat.number_mismatch", "The number typed is not the board's: check the number printed on the board.");
    case "NO_HAND_RECORDS": return t("seat.no_hand_records", "The director has not loaded the hand records: the board cannot start yet.");
    case "PLAYED": return t("seat.board_keyed", "This table has keyed board {n}'s result already: the opponents answer for it.", {n: b.board});
    case "IN_PLAY": return t("seat.board_in_play", "Another board is in play at this table: finish it first.");
    case "LEAD_NOT_IN_HAND": return /director is called/.test(e.message)
      ? t("seat.lead_refused_called", "The lead is not in the leader's hand per the hand record: the director is called.")
      : t("seat.lead_refused", "The lead is not in the leader's hand per the hand record: check the opening lead.");
    case "LEAD_DECLARING_SIDE": return /director is called/.test(e.message)
      ? t("seat.lead_declaring_called", "The lead is a card of the declaring side per the hand record, and the opening lead is the defenders': the director is called.")
      : t("seat.lead_declaring", "The lead is a card of the declaring side per the hand record, and the opening lead is the defenders' (declarer's left-hand opponent leads, Law 41A): check the opening lead and the declarer.");
    default: return refusalWords(e);
  }
}
const post = body => send(tableUrl("/events"), body);
const choose = (code, option) => send(tableUrl("/rulings"), {code, option});
function vulText(v) {
  return {None: t("seat.vul_none", "nobody"), NS: t("seat.vul_ns", "North-South"), EW: t("seat.vul_ew", "East-West"),
          All: t("seat.vul_all", "both sides"), Both: t("seat.vul_all", "both sides")}[v] || v;
}
function sideName(side) { return side === "NS" ? t("seat.side_ns", "North-South") : t("seat.side_ew", "East-West"); }
function bidRank(call) {
  const m = /^([1-7])(C|D|H|S|NT)$/.exec(call);
  return m ? (m[1] - 1) * 5 + STRAINS.indexOf(m[2]) : -1;
}

// ------------------------------------------------------------------------------------------- the board line
function renderBoard(s) {
  $("title").textContent = t("seat.title", "Table {table}, seat {seat}", {table: TABLE, seat: seatShort(ME)});
  const el = $("board");
  if (s.withheld) {
    setHtml(el, esc(t("seat.withheld", "Board {n} in play: your pair still has to play it, nothing of it is shown (Law 16B)", {n: s.board.number})));
    return;
  }
  if (!s.board) { setText(el, s.kind === "scoring" ? t("seat.scoring_waiting", "Scoring-only table: key each board's result below.") : t("seat.waiting", "Waiting for a board.")); return; }
  const parts = [`<b>${esc(t("seat.board_n", "Board {n}", {n: s.board.number}))}</b>`,
    esc(t("seat.dealer", "dealer {seat}", {seat: seatShort(s.board.dealer)})),
    esc(t("seat.vulnerable", "vulnerable: {who}", {who: vulText(s.board.vulnerable)})),
    `<span class="phase ${esc(s.phase)}">${esc(phaseLine(s))}</span>`];
  const turn = turnLine(s);
  if (turn) parts.push(turn.act ? `<b class="your-turn turn-line">${esc(turn.text)}</b>` : `<span class="turn-line">${esc(turn.text)}</span>`);
  if (s.contract) parts.push(`${esc(t("seat.contract", "contract"))} ${contractHtml(s.contract)} ${esc(s.contract !== "PASS" && s.declarer ? SEAT_NAME[s.declarer]() : "")}`);
  setHtml(el, parts.join(" &middot; "));
}

// The phase in words; once the director has ruled, the table complies (no longer "awaiting ruling").
function phaseLine(s) {
  const irrs = s.irregularities || [];
  if (s.phase === "awaiting_ruling" && !irrs.some(i => i.awaiting_choice) && irrs.some(i => i.ruling))
    return t("seat.phase_ruled", "ruling given: the table complies");
  return phaseText(s.phase);
}
// What this player does now (Laws 42-45: declarer plays dummy's cards, dummy plays none).
function turnLine(s) {
  if (!s.turn) return null;
  const who = SEAT_NAME[s.turn]();
  const playing = ["play", "opening_lead"].includes(s.phase) && s.declarer;
  if (playing && ME === s.dummy && s.phase === "play")
    return {act: false, text: t("seat.dummy_plays", "Declarer plays your cards")};
  if (playing && ME === s.declarer && s.turn === s.dummy)
    return {act: true, text: t("seat.play_from_dummy", "Play from dummy ({seat})", {seat: who})};
  if (s.turn === ME) return {act: true, text: t("seat.your_turn", "Your turn")};
  return {act: false, text: t("seat.waiting_for", "Waiting for {seat}", {seat: who})};
}

// ------------------------------------------------------------------------------------------- penalty cards
// A penalty card lies face up on the table (Laws 49-51): everyone at the table sees it, with what it means for
// its owner's next play and for his partner's next lead.
function partnerOf(seat) { return SEATS[(SEATS.indexOf(seat) + 2) % 4]; }
function penaltyMeaning(s, owner, card, kind) {
  const suit = suitWord(card[0]), partner = partnerOf(owner);
  const you = owner === ME, pard = partner === ME, decl = s.declarer === ME;
  if (kind === "minor") {
    return [you ? t("seat.pc_minor_you", "You may not play another {suit} below the 10 before it; you may play an honour of {suit} instead (Law 50C).", {suit})
      : t("seat.pc_minor", "{seat} may not play another {suit} below the 10 before it, but may play an honour of {suit} instead (Law 50C).", {seat: SEAT_NAME[owner](), suit}),
      pard ? t("seat.pc_minor_partner", "No lead restriction for you; what the card shows is unauthorized information for you (Law 16).")
        : t("seat.pc_minor_lead", "No lead restriction for {seat}.", {seat: SEAT_NAME[partner]()})];
  }
  const play = you ? t("seat.pc_major_you", "You must play it at your first legal opportunity: lead, follow, discard or ruff; following suit comes first (Law 50D1).")
    : t("seat.pc_major", "{seat} must play it at the first legal opportunity; following suit comes first (Law 50D1).", {seat: SEAT_NAME[owner]()});
  const lead = pard ? t("seat.pc_major_partner", "When you are next on lead, wait for declarer: he requires or forbids a {suit} lead (the card is then picked up) or leaves you free (the card stays) (Law 50D2).", {suit})
    : decl ? t("seat.pc_major_declarer", "When {seat} is next on lead you choose before he leads: require or forbid a {suit} lead (the card is then picked up), or no restriction (the card stays) (Law 50D2).", {seat: SEAT_NAME[partner](), suit})
    : t("seat.pc_major_lead", "When {seat} is next on lead, declarer chooses first: require or forbid a {suit} lead (the card is then picked up), or no restriction (the card stays) (Law 50D2).", {seat: SEAT_NAME[partner](), suit});
  return [play, lead];
}
function renderPenalty(s) {
  const el = $("penalty");
  const pcs = s.phase !== "board_complete" && s.penalty_cards || {};
  const rows = [];
  for (const owner of SEATS) {
    for (const [card, kind] of Object.entries(pcs[owner] || {})) {
      const label = kind === "major" ? t("seat.pc_major_label", "major penalty card") : t("seat.pc_minor_label", "minor penalty card");
      rows.push(`<li class="penalty-card ${esc(kind)}" data-seat="${owner}" data-card="${esc(card)}"><b>${esc(owner === ME ? t("seat.pc_yours", "Your card") : SEAT_NAME[owner]())}</b> ` +
        `${cardHtml(card)} <span class="pc-kind">${esc(label)}</span><br>${penaltyMeaning(s, owner, card, kind).map(esc).join(" ")}</li>`);
    }
  }
  el.hidden = !rows.length;
  setHtml(el, rows.length ? `<h3>${esc(t("seat.pc_title", "Penalty cards on the table"))}</h3><ul>${rows.join("")}</ul>` : "");
}

// ------------------------------------------------------------------------------------------- hands and trick
function cardButton(c, seat, playable) {
  const label = `${SEAT_NAME[seat]()} ${({S: "\u2660", H: "\u2665", D: "\u2666", C: "\u2663"})[c[0]]}${rank(c[1])}`;
  return playable ? `<button type="button" class="card play suit-${c[0]}" data-card="${c}" data-seat="${seat}" aria-label="${esc(t("seat.play_card", "play {card}", {card: label}))}">${rank(c[1])}</button>`
    : `<span class="card suit-${c[0]}" data-card="${c}">${rank(c[1])}</span>`;
}
function handBlock(seat, cards, playable, big) {
  const claimer = state && state.claim && state.phase !== "board_complete" ? state.claim.seat : null;
  const label = seat === ME ? t("seat.your_hand", "Your hand ({seat})", {seat}) :
    seat === (state && state.dummy) ? t("seat.dummy_hand", "Dummy ({seat})", {seat}) :
    seat === claimer ? t("seat.claimer_hand", "{seat}'s cards, faced with the claim", {seat: SEAT_NAME[seat]()}) : SEAT_NAME[seat]();
  return `<div class="hand ${seat}${big ? " big" : ""}" aria-label="${esc(label)}"><div class="hand-name">${esc(label)}</div>` +
    SUITS.map(su => `<div class="suit-row"><span class="suit-sym suit-${su}" aria-hidden="true">${SYM[su]}</span>` +
      cards.filter(c => c[0] === su).map(c => cardButton(c, seat, playable(c))).join("") + "</div>").join("") + "</div>";
}
function renderHands(s) {
  const playing = ["play", "opening_lead", "awaiting_ruling"].includes(s.phase) && !s.claim;
  const mayPlay = seat => playing && s.turn === seat && (seat === ME && s.dummy !== ME || (seat === s.dummy && s.declarer === ME));
  const complete = s.phase === "board_complete";
  const shown = SEATS.filter(seat => s.hands[seat] && (s.hands[seat].cards.length || (s.hands[seat].original || []).length));
  $("table-section").hidden = !shown.length && !s.trick && !s.last_trick;     // a scoring-only table: no cards known
  let html;
  if (complete && shown.length === 4) {            // the board is over: every hand as dealt, small
    html = `<div class="all-hands">${SEATS.map(seat => handBlock(seat, s.hands[seat].original || s.hands[seat].cards, () => false, false)).join("")}</div>`;
  } else {
    const others = shown.filter(seat => seat !== ME);
    html = others.map(seat => handBlock(seat, s.hands[seat].cards, () => mayPlay(seat), false)).join("") +
      (s.hands[ME] ? handBlock(ME, s.hands[ME].cards, () => mayPlay(ME), true) : "");
  }
  if (setHtml($("hands"), html))
    $("hands").querySelectorAll(".card.play").forEach(b => b.onclick = () => post({type: "card", seat: b.dataset.seat, card: b.dataset.card}));
  const tr = s.trick || s.last_trick;
  const won = s.tricks_won && !complete ? `<div class="won">${esc(t("seat.tricks_won", "Tricks: NS {ns}, EW {ew}", {ns: s.tricks_won.NS, ew: s.tricks_won.EW}))}</div>` : "";
  setHtml($("trick"), tr ? `<div class="compass" aria-label="${esc(t("seat.trick_n", "Trick {n}", {n: tr.number}))}">` +
    SEATS.map(seat => { const c = tr.cards.find(x => x.seat === seat); return `<div class="pos ${seat}"><small>${seat}</small> ${c ? cardHtml(c.card) : ""}</div>`; }).join("") +
    `<div class="pos C">${esc(s.trick ? t("seat.trick_n", "Trick {n}", {n: tr.number}) : t("seat.last_trick", "Last trick"))}</div></div>` + won : won);
}

// ------------------------------------------------------------------------------------------- the auction
function auctionTable(a) {
  if (!a) return `<p class="muted">${esc(t("seat.auction_gone", "The auction is no longer shown after your first play (Law 41C): only the contract."))}</p>`;
  const order = ["W", "N", "E", "S"];
  const cells = [];
  for (let i = 0; i < order.indexOf(a.dealer); i++) cells.push("<td></td>");
  let cancelled = {};
  for (const c of a.calls) {
    if (!c.stands) { cancelled[c.seat] = (cancelled[c.seat] || "") + `<span class="cancelled">${callHtml(c.call)}</span> `; continue; }
    const alert = c.alert ? ` <span class="alert-mark" title="${esc(t("seat.alerted", "alerted"))}">!</span><span class="sr-only">${esc(t("seat.alerted", "alerted"))}</span>` : "";
    cells.push(`<td class="${c.alert ? "alerted" : ""}" data-seat="${c.seat}" data-call="${esc(c.call)}">${cancelled[c.seat] || ""}${callHtml(c.call)}${alert}</td>`);
    delete cancelled[c.seat];
  }
  for (const seat of Object.keys(cancelled)) cells.push(`<td>${cancelled[seat]}</td>`);
  const rows = [];
  for (let i = 0; i < cells.length; i += 4) rows.push("<tr>" + cells.slice(i, i + 4).join("") + "</tr>");
  // the alerts' written explanations this seat may read (the service sends them to the caller's opponents only)
  const explained = a.calls.filter(c => c.stands && c.explanation);
  const notes = explained.length ? `<ul class="explanations">${explained.map(c =>
    `<li data-seat="${c.seat}" data-call="${esc(c.call)}">${esc(SEAT_NAME[c.seat]())} ${callHtml(c.call)} &mdash; <span class="explanation">${esc(c.explanation)}</span></li>`).join("")}</ul>` : "";
  return `<table class="auction"><thead><tr>${order.map(seat => `<th scope="col">${esc(seatShort(seat))}</th>`).join("")}</tr></thead><tbody>${rows.join("")}</tbody></table>` + notes;
}
function myCallTurn(s) {
  return s.turn === ME && (s.phase === "auction" || s.phase === "board_ready" || (s.phase === "awaiting_ruling" && !s.contract));
}
function renderBidding(s) {
  const inAuction = s.board && !s.withheld && s.kind !== "scoring" || (s.auction && s.auction.calls.length);
  $("bidding-section").hidden = !inAuction;
  setHtml($("auction"), s.board ? auctionTable(s.auction) : "");
  const box = $("box");
  const typing = document.activeElement && document.activeElement.id === "alert-explanation";
  if (!myCallTurn(s)) { clear(box); UI.level = null; return; }
  const standing = (s.auction ? s.auction.calls : []).filter(c => c.stands && bidRank(c.call) >= 0);
  const top = standing.length ? bidRank(standing[standing.length - 1].call) : -1;
  const lvl = UI.level;
  box.innerHTML = `<div class="box-row levels" role="group" aria-label="${esc(t("seat.level", "Level"))}">` +
    [1, 2, 3, 4, 5, 6, 7].map(l => `<button type="button" class="level${lvl === l ? " on" : ""}${(l - 1) * 5 + 4 <= top ? " low" : ""}" data-level="${l}" aria-pressed="${lvl === l}">${l}</button>`).join("") + "</div>" +
    `<div class="box-row strains" role="group" aria-label="${esc(t("seat.strain", "Strain"))}">` +
    STRAINS.map(st => `<button type="button" class="strain" data-strain="${st}" ${lvl ? "" : "disabled"} aria-label="${lvl ? esc(lvl + (st === "NT" ? "NT" : " " + st)) : st}">${st === "NT" ? "NT" : `<span class="suit-${st}">${SYM[st]}</span>`}</button>`).join("") + "</div>" +
    `<div class="box-row others"><button type="button" class="call pass" data-call="Pass">${esc(t("seat.pass", "Pass"))}</button>` +
    `<button type="button" class="call dbl" data-call="X">X</button><button type="button" class="call rdbl" data-call="XX">XX</button>` +
    `<button type="button" id="alert-toggle" class="alert-toggle${UI.alert ? " on" : ""}" aria-pressed="${UI.alert}">${esc(t("seat.alert", "Alert"))}</button></div>` +
    (UI.alert ? `<label class="explain"><span>${esc(t("seat.explain_alert", "Explain your call to the opponents (your partner does not see it)"))}</span>
      <input type="text" id="alert-explanation" maxlength="160" autocomplete="off" value="${esc(UI.explanation)}"></label>` : "");
  const call = c => {
    const explanation = UI.alert ? UI.explanation.trim() : "";
    post({type: "call", seat: ME, call: c, alert: UI.alert, ...(explanation ? {explanation} : {})});
    UI.level = null; UI.alert = false; UI.explanation = "";
  };
  const input = $("alert-explanation");
  if (input) {
    input.oninput = () => { UI.explanation = input.value; };
    if (typing) { input.focus(); input.setSelectionRange(input.value.length, input.value.length); }   // a redraw
  }
  box.querySelectorAll(".level").forEach(b => b.onclick = () => { UI.level = +b.dataset.level; renderBidding(state); });
  box.querySelectorAll(".strain").forEach(b => b.onclick = () => { if (UI.level) call(UI.level + b.dataset.strain); });
  box.querySelectorAll(".call").forEach(b => b.onclick = () => call(b.dataset.call));
  $("alert-toggle").onclick = () => { UI.alert = !UI.alert; renderBidding(state); };
}

// ------------------------------------------------------------------------------------------- claims
function renderClaim(s) {
  const el = $("claim-section");
  const playing = ["play", "opening_lead"].includes(s.phase) && s.declarer && s.dummy !== ME;
  if (s.claim && s.phase !== "board_complete") {
    const c = s.claim, mine = SIDE[c.seat] !== SIDE[ME];
    const answered = c.responses[ME] !== undefined;
    const declSide = SIDE[s.declarer] === SIDE[c.seat];
    const what = declSide ? t("seat.claim_by", "{seat} claims: declarer's side takes {n} tricks in all", {seat: SEAT_NAME[c.seat](), n: c.tricks})
      : t("seat.concede_by", "{seat} concedes: declarer's side takes {n} tricks in all", {seat: SEAT_NAME[c.seat](), n: c.tricks});
    el.hidden = false;
    const faced = c.seat !== ME && s.hands[c.seat] ? `<p class="claim-faced">${esc(t("seat.claim_faced", "{seat} faces his remaining cards: they are shown with the table's hands.", {seat: SEAT_NAME[c.seat]()}))}</p>` : "";
    el.innerHTML = `<h2>${esc(t("seat.claim", "Claim"))}</h2><p class="claim-statement">${esc(what)}</p>` + faced + (mine && !answered && s.phase === "claim_pending" ?
      `<div class="actions"><button type="button" id="claim-accept" class="primary">${esc(t("seat.accept", "Accept"))}</button>` +
      `<button type="button" id="claim-dispute">${esc(t("seat.dispute", "Dispute: call the director"))}</button></div>` :
      `<p class="muted">${esc(answered ? t("seat.answered", "You answered.") : t("seat.waiting_opponents", "Waiting for the opponents' answer."))}</p>`);
    if ($("claim-accept")) {
      $("claim-accept").onclick = () => post({type: "claim_response", seat: ME, accept: true});
      $("claim-dispute").onclick = () => post({type: "claim_response", seat: ME, accept: false});
    }
    return;
  }
  if (!playing) { el.hidden = true; clear(el); UI.claimOpen = false; return; }
  el.hidden = false;
  const declarerSide = SIDE[ME] === SIDE[s.declarer];
  const won = s.tricks_won ? s.tricks_won[SIDE[s.declarer]] : 0;
  const label = declarerSide ? t("seat.claim_open", "Claim") : t("seat.concede_open", "Concede");
  if (!UI.claimOpen) {
    el.innerHTML = `<button type="button" id="claim-open">${esc(label)}</button>`;
    $("claim-open").onclick = () => { UI.claimOpen = true; renderClaim(state); };
    return;
  }
  const options = Array.from({length: 14 - won}, (_, i) => won + i);
  el.innerHTML = `<h2>${esc(label)}</h2><label for="claim-tricks">${esc(t("seat.claim_tricks", "Tricks for declarer's side in all"))}</label> ` +
    `<select id="claim-tricks">${options.map(n => `<option value="${n}">${n}</option>`).join("")}</select>` +
    `<div class="actions"><button type="button" id="claim-send" class="primary">${esc(label)}</button>` +
    `<button type="button" id="claim-cancel">${esc(t("seat.cancel", "Cancel"))}</button></div>`;
  $("claim-send").onclick = () => { UI.claimOpen = false; post({type: "claim", seat: ME, tricks: +$("claim-tricks").value}); };
  $("claim-cancel").onclick = () => { UI.claimOpen = false; renderClaim(state); };
}

// ------------------------------------------------------------------------------------------- scoring-only keying
function renderKeying(s) {
  const el = $("keying-section");
  const accepted = !!(s.confirm && s.confirm.answer && s.confirm.answer.accept);
  // correcting: the keyer's own result, shown again in the form until the opponents accept it
  const correcting = !!(s.board && UI.correcting === s.board.number && s.phase === "board_complete" && !accepted);
  if (!correcting) UI.correcting = null;
  const open = s.kind === "scoring" && !s.withheld && (!s.board || s.phase === "board_ready" ||
    (s.phase === "board_complete" && accepted) || correcting);
  if (!open) { el.hidden = true; clear(el); UI.keyTyped = false; return; }
  const mark = (correcting ? "c" : "") + (s.board ? s.board.number : "");
  if (!el.hidden && el.dataset.board === mark) return;    // keep what is being keyed
  el.hidden = false;
  el.dataset.board = mark;
  const next = correcting ? s.board.number : nextBoard(s);
  const sel = (id, label, opts) => `<div class="field"><label for="${id}">${esc(label)}</label><select id="${id}">${opts}</select></div>`;
  const opt = (v, text) => `<option value="${esc(v)}">${esc(text)}</option>`;
  el.innerHTML = `<h2>${esc(correcting ? t("seat.correct_title", "Correct the result of board {n}", {n: next}) : t("seat.key_title", "Key the result"))}</h2><form id="key-form" class="key-form">` +
    `<div class="field"><label for="key-board">${esc(t("seat.key_board", "Board"))}</label><input id="key-board" type="number" min="1" max="9999" inputmode="numeric" value="${next}"${correcting ? " readonly" : ""}></div>` +
    sel("key-level", t("seat.key_level", "Level"), opt("", "-") + [1, 2, 3, 4, 5, 6, 7].map(l => opt(l, l)).join("") + opt("PASS", t("seat.passed_out", "Passed out"))) +
    sel("key-strain", t("seat.key_strain", "Strain"), STRAINS.map(st => opt(st, st === "NT" ? "NT" : SYM[st])).join("")) +
    sel("key-risk", t("seat.key_risk", "Doubled"), opt("", "-") + opt("X", "X") + opt("XX", "XX")) +
    sel("key-declarer", t("seat.key_declarer", "Declarer"), SEATS.map(x => opt(x, x)).join("")) +
    sel("key-lead", t("seat.key_lead", "Opening lead"), opt("", "-") + SUITS.map(su => ["A", "K", "Q", "J", "T", "9", "8", "7", "6", "5", "4", "3", "2"].map(r => opt(su + r, SYM[su] + rank(r))).join("")).join("")) +
    sel("key-tricks", t("seat.key_tricks", "Tricks taken by declarer"), Array.from({length: 14}, (_, i) => opt(i, i)).join("")) +
    `<div class="actions"><button type="submit" class="primary" id="key-send">${esc(correcting ? t("seat.correct_send", "Enter the corrected result") : t("seat.key_send", "Enter the result"))}</button>` +
    (correcting ? `<button type="button" id="key-cancel">${esc(t("seat.correct_cancel", "Keep the result"))}</button>` : "") + `</div></form>`;
  $("key-tricks").value = "7";
  UI.keyTyped = UI.keyBoardTyped = false;
  $("key-form").addEventListener("input", e => { UI.keyTyped = true; if (e.target.id === "key-board") UI.keyBoardTyped = true; });
  if (correcting) {                                   // the form starts from the result as keyed
    const r = s.result || {}, m = /^([1-7])(C|D|H|S|NT)(XX|X)?$/.exec(r.contract || "");
    if (r.contract === "PASS") $("key-level").value = "PASS";
    else if (m) {
      $("key-level").value = m[1]; $("key-strain").value = m[2]; $("key-risk").value = m[3] || "";
      $("key-declarer").value = r.declarer || "N"; $("key-tricks").value = String(r.tricks ?? 7);
      $("key-lead").value = (s.confirm && s.confirm.lead) || "";
    }
    $("key-cancel").onclick = () => { UI.correcting = null; render(); };
  }
  $("key-form").onsubmit = async ev => {
    ev.preventDefault();
    const board = +$("key-board").value, level = $("key-level").value;
    if (!(board >= 1)) { toast(t("seat.key_board_missing", "Enter the board's number.")); return; }
    if (!level) { toast(t("seat.key_level_missing", "Choose the contract's level, or Passed out.")); return; }
    const result = level === "PASS" ? {type: "result", contract: "PASS"} :
      {type: "result", contract: level + $("key-strain").value + $("key-risk").value, declarer: $("key-declarer").value,
       tricks: +$("key-tricks").value, ...($("key-lead").value ? {lead: $("key-lead").value} : {})};
    const fixing = UI.correcting === board && state.board && state.board.number === board && state.phase === "board_complete";
    if (!fixing && !(state.board && state.board.number === board && state.phase === "board_ready")) {
      // the same rule as a table of phones (service/event/board_start.py): a board not the table's now is Law 15's
      if (!(await send(tableUrl(`/boards/${board}/start`), {confirm: board}))) return;
    }
    const r = await post(result);
    if (r) {
      el.dataset.board = "";
      if (fixing) { UI.correcting = null; render(); }
      if (r.warning) toast(t("seat.lead_warning", "The lead is not in the leader's hand per the hand record: the director is told."));
    }
  };
}

// The board to key next: the one started, else the round's next board (the first of a new round), else the next;
// blank once the round's last board is in (the table waits for the director to move it on; a board keyed then is
// one the player names).
function nextBoard(s) {
  if (s.board && s.phase === "board_ready") return s.board.number;
  const rb = UI.roundBoards || [];
  const i = s.board ? rb.indexOf(s.board.number) : -1;
  if (i >= 0) return i + 1 < rb.length ? rb[i + 1] : "";
  if (rb.length) return rb[0];
  return s.board ? s.board.number + 1 : 1;
}

// ------------------------------------------------------------------------------------------- starting a board
// A table of phones (or readers) starts its board itself: the round's boards not yet played are offered
// (GET offered-boards); the player picks one and types the number printed on the board again (Bridgemate's board
// verification). The service deals it from the evening's hand record; a board not the table's now is refused and
// the director called (Law 15).
function mayStart(s) { return s.kind !== "scoring" && !s.withheld && (!s.board || s.phase === "board_complete"); }
async function renderStart(s) {
  const el = $("start-section");
  if (!mayStart(s)) { el.hidden = true; clear(el); el.dataset.sig = ""; UI.startKey = null; return; }
  if (!el.hidden && UI.startKey && el.innerHTML) return;           // the same offer: keep what is typed
  const key = UI.startKey = {};
  let offer;
  try { offer = await api(tableUrl("/offered-boards"), {}, TOKEN); } catch (e) { el.hidden = true; return; }
  if (UI.startKey !== key || !mayStart(shown(state))) return;
  el.hidden = false;
  const other = UI.startPick === "other";           // a board the terminal does not offer: the player names it
  const picked = other || (UI.startPick && offer.boards.includes(UI.startPick)) ? UI.startPick : null;
  // A state pushed while the player taps must not rebuild the same offer: a tap whose press and release land on
  // two different buttons is no click at all, and the player's choice would be lost.
  const sig = JSON.stringify([offer.boards, !!offer.hand_records, other, picked, UI.startRefusal || "", document.documentElement.lang]);
  if (el.innerHTML && el.dataset.sig === sig) return;
  el.dataset.sig = sig;
  const typed = $("start-confirm") ? $("start-confirm").value : "", named = $("start-number") ? $("start-number").value : "";
  el.innerHTML = `<h2>${esc(t("seat.start_title", "Start a board"))}</h2>` +
    (UI.startRefusal ? `<p class="warn-line" id="start-refusal">${esc(UI.startRefusal)}</p>` : "") +
    (offer.hand_records ? "" : `<p class="muted">${esc(t("seat.no_hand_records", "The director has not loaded the hand records: the board cannot start yet."))}</p>`) +
    (offer.boards.length ? `<div class="actions start-boards" role="group" aria-label="${esc(t("seat.start_pick", "The round's boards"))}">` +
      offer.boards.map(n => `<button type="button" class="start-board${n === picked ? " primary" : ""}" data-board="${n}">${esc(t("seat.board_n", "Board {n}", {n}))}</button>`).join("") + "</div>"
      : `<p class="muted">${esc(t("seat.start_none", "No board of this round is left to start: the director moves the table on."))}</p>`) +
    `<div class="actions"><button type="button" class="start-board start-other${other ? " primary" : ""}" data-board="other">${esc(t("seat.start_other", "Another board"))}</button></div>` +
    `<form id="start-form" class="key-form"${picked ? "" : " hidden"}>` +
    (other ? `<div class="field"><label for="start-number">${esc(t("seat.start_number", "Board number"))}</label><input id="start-number" type="number" min="1" max="9999" inputmode="numeric" autocomplete="off" value="${esc(named)}"></div>` : "") +
    `<div class="field"><label for="start-confirm">${esc(t("seat.start_confirm", "Type the number printed on the board"))}</label>` +
    `<input id="start-confirm" type="number" min="1" max="9999" inputmode="numeric" autocomplete="off" value="${esc(typed)}"></div>` +
    `<div class="actions"><button type="submit" class="primary" id="start-send">${esc(other ? t("seat.start_send_other", "Start the board") : t("seat.start_send", "Start board {n}", {n: picked || ""}))}</button></div></form>`;
  el.querySelectorAll("button.start-board").forEach(b => b.onclick = () => {
    UI.startPick = b.dataset.board === "other" ? "other" : +b.dataset.board; UI.startKey = null; UI.startRefusal = ""; if ($("start-confirm")) $("start-confirm").value = ""; renderStart(shown(state)).then(() => $("start-confirm") && $("start-confirm").focus());
  });
  if ($("start-form")) $("start-form").onsubmit = async ev => {
    ev.preventDefault();
    const n = UI.startPick === "other" ? +$("start-number").value : UI.startPick, typed = +$("start-confirm").value;
    if (!(n >= 1)) { toast(t("seat.key_board_missing", "Enter the board's number.")); return; }
    if (typed !== n) { toast(t("seat.number_mismatch", "The number typed is not the board's: check the number printed on the board.")); return; }
    try {
      await api(tableUrl(`/boards/${n}/start`), {method: "POST", body: JSON.stringify({confirm: typed})}, TOKEN);
      UI.startPick = null; UI.startRefusal = "";
    } catch (e) {
      if (e.status === 401) { await credentialEnded(refusalWords(e)); return; }
      UI.startRefusal = refusalText(e);                   // kept on the page: why the board did not start
      toast(UI.startRefusal);
      UI.startKey = null; renderStart(shown(state));      // the offer may have changed (a ruling)
    }
  };
}
// "My cards differ": the cards in the player's hand are not those the phone shows from the hand record.
function renderCardsDiffer(s) {
  $("cards-differ").hidden = !(s.kind !== "scoring" && s.board && !s.withheld && s.phase !== "board_complete" && s.hands && s.hands[ME]);
}

// ------------------------------------------------------------------------------------------- after the board
function renderResult(s) {
  const el = $("result-section");
  if (s.phase !== "board_complete" || !s.result) { el.hidden = true; clear(el); return; }
  el.hidden = false;
  const r = s.result, c = s.confirm || {};
  const res = r.contract === "PASS" ? t("seat.result_passed", "Passed out") :
    t("seat.result_line", "{contract} by {declarer}, {tricks} tricks", {contract: "\u0001", declarer: r.declarer || "-", tricks: r.tricks ?? "-"});
  const score = r.score_ns == null ? "" : t("seat.score_line", "Score: NS {ns}, EW {ew}", {ns: r.score_ns, ew: -r.score_ns});
  let html = `<h2>${esc(t("seat.result_title", "Result of board {n}", {n: s.board.number}))}</h2><p class="result-line"><b>${esc(res).replace("\u0001", contractHtml(r.contract))}</b>` +
    (c.lead ? ` &middot; ${esc(t("seat.lead", "lead"))} ${cardHtml(c.lead)}` : "") + `<br>${esc(score)}</p>`;
  const answer = c.answer;
  if (answer && answer.accept) {
    html += `<p class="ok-line">${esc(t("seat.confirmed", "Confirmed by {side} ({seat}).", {side: sideName(answer.side), seat: answer.seat || "-"}))}</p>`;
  } else {
    if (answer) html += `<p class="warn-line">${esc(t("seat.disputed", "Disputed by {seat}: the director is called.", {seat: answer.seat || answer.side}))}</p>`;
    if (SIDE[ME] === c.side) {
      html += `<p>${esc(t("seat.confirm_ask", "Do you agree with this result?"))}</p><div class="actions">` +
        `<button type="button" id="confirm-accept" class="primary">${esc(t("seat.confirm_accept", "Accept the result"))}</button>` +
        `<button type="button" id="confirm-dispute">${esc(t("seat.confirm_dispute", "Dispute"))}</button></div>`;
    } else if (s.kind === "scoring" && c.keyed && c.keyed_by === ME && UI.correcting === s.board.number) {
      // being corrected below: not handed over meanwhile
    } else if (s.kind === "scoring" && c.keyed && c.keyed_by === ME) {
      // one terminal for the table: handed over to the opponents (the server refuses it once they have their own)
      const opp = SEATS.filter(x => SIDE[x] === c.side);
      html += `<p>${esc(t("seat.hand_over", "Hand this device to {side} to confirm.", {side: sideName(c.side)}))}</p>` +
        `<div class="field"><label for="confirm-seat">${esc(t("seat.confirming_seat", "Confirming player"))}</label><select id="confirm-seat">` +
        opp.map(x => `<option value="${x}">${esc(SEAT_NAME[x]())}</option>`).join("") + `</select></div><div class="actions">` +
        `<button type="button" id="confirm-accept" class="primary">${esc(t("seat.confirm_accept", "Accept the result"))}</button>` +
        `<button type="button" id="confirm-dispute">${esc(t("seat.confirm_dispute", "Dispute"))}</button></div>`;
    } else {
      html += `<p class="muted">${esc(t("seat.confirm_wait", "Waiting for {side} to confirm the result.", {side: sideName(c.side)}))}</p>`;
    }
  }
  if (s.kind === "scoring" && c.keyed && c.keyed_by === ME && !(answer && answer.accept) && UI.correcting !== s.board.number) {
    html += `<div class="actions"><button type="button" id="correct-result">${esc(t("seat.correct", "Correct the result"))}</button></div>`;
  }
  html += `<div id="traveller"></div><div id="running"></div>`;
  el.innerHTML = html;
  if ($("correct-result")) $("correct-result").onclick = () => { UI.correcting = s.board.number; render(); };
  const answerWith = accept => () => {
    const body = {accept};
    if ($("confirm-seat")) body.seat = $("confirm-seat").value;
    send(tableUrl(`/boards/${s.board.number}/confirm`), body).then(r => { if (r && !accept) toast(t("seat.director_called", "The director has been called.")); });
  };
  if ($("confirm-accept")) { $("confirm-accept").onclick = answerWith(true); $("confirm-dispute").onclick = answerWith(false); }
  if (answer && answer.accept) loadExtras(s.board.number);
}

// The board's traveller and the pair's running score (a seat's view of /api/public/results: never a board its
// table still has to play), and the end-of-round guidance once the table has played its round's boards.
async function loadExtras(board) {
  const key = `${board}|${state.seq}`;
  if (UI.extrasFor === key) {             // the same state drawn again (a stream's greeting after it reconnected)
    if (UI.extras && $("traveller")) { $("traveller").innerHTML = UI.extras.traveller; $("running").innerHTML = UI.extras.running; }
    return;
  }
  UI.extrasFor = key;
  UI.extras = null;
  let view = null;
  try { view = await api("/api/public/results", {}, TOKEN); } catch (e) { view = null; }
  if (UI.extrasFor !== key) return;        // another board or state meanwhile: its own call draws it
  if (view && $("traveller")) {
    const entry = (view.boards || []).find(b => b.board === board);
    const rows = entry && entry.visible ? entry.travellers.flatMap(tr => tr.rows) : [];
    const mine = rows.find(r => String(r.table) === TABLE);
    if (mine && mine.ns != null) UI.pair = {NS: mine.ns, EW: mine.ew}[SIDE[ME]];
    $("traveller").innerHTML = rows.length ? `<h3>${esc(t("seat.traveller", "Traveller, board {n}", {n: board}))}</h3><div class="scroll-x" tabindex="0" role="region" aria-label="${esc(t("seat.traveller", "Traveller, board {n}", {n: board}))}"><table class="traveller">` +
      `<thead><tr><th scope="col">${esc(t("seat.col_ns", "NS"))}</th><th scope="col">${esc(t("seat.col_ew", "EW"))}</th><th scope="col">${esc(t("seat.col_contract", "Contract"))}</th>` +
      `<th scope="col">${esc(t("seat.col_by", "By"))}</th><th scope="col">${esc(t("seat.col_tricks", "Tricks"))}</th><th scope="col" class="num">${esc(t("seat.col_score", "NS score"))}</th><th scope="col" class="num">%</th></tr></thead><tbody>` +
      rows.map(r => `<tr${String(r.table) === TABLE ? ' class="mine"' : ""}><td>${esc(r.ns_label ?? r.ns ?? "")}</td><td>${esc(r.ew_label ?? r.ew ?? "")}</td>` +
        `<td>${r.adjusted ? esc(r.adjusted) : contractHtml(r.contract)}</td><td>${esc(r.declarer || "")}</td><td>${esc(r.tricks ?? "")}</td>` +
        `<td class="num">${esc(r.score_ns ?? "")}</td><td class="num">${esc(r.ns_percent ?? "")}</td></tr>`).join("") + "</tbody></table></div>"
      : `<p class="muted">${esc(t("seat.traveller_later", "The traveller shows once the board's results are released."))}</p>`;
    const ranking = (view.rankings || []).flatMap(rk => rk.rows);
    const me = UI.pair != null ? ranking.find(r => String(r.entrant) === String(UI.pair)) : null;
    $("running").innerHTML = me && me.top !== 0 ? `<p class="running">${esc(t("seat.running", "Pair {pair}: {score} so far, place {place}", {pair: me.label || me.entrant, score: me.score ?? "-", place: me.place ?? "-"}))}</p>` : "";
    UI.extras = {traveller: $("traveller").innerHTML, running: $("running").innerHTML};
  }
  loadGuidance(view);
}

// A pair as the results name it: a Mitchell's East-West pair 5 of 4 tables is "EW 1", so "EW pair 1" here.
function pairNumber(p) {
  const label = String(p.label ?? p.pair);
  return label.startsWith(p.direction + " ") ? label.slice(p.direction.length + 1) : label;
}
async function loadGuidance(view) {
  const el = $("guidance-section");
  const prog = view && (view.progress || []).find(p => String(p.table) === TABLE);
  if (!prog || !prog.boards.length || prog.done.length < prog.boards.length) { el.hidden = true; return; }
  let g;
  try { g = await api(`/api/event/guidance?table=${encodeURIComponent(TABLE)}`, {}, TOKEN); }
  catch (e) { el.hidden = true; return; }                   // 404: no guidance offered
  const pairLine = p => p.next_table == null ? t("seat.pair_out", "{dir} pair {pair}: no further round here (a sit-out, or the event ends)", {dir: p.direction, pair: pairNumber(p)})
    : p.next_table === String(g.table) && p.next_direction === p.direction ? t("seat.pair_stays", "{dir} pair {pair}: stay at table {table}, {next}", {dir: p.direction, pair: pairNumber(p), table: p.next_table, next: p.next_direction})
    : t("seat.pair_moves", "{dir} pair {pair}: go to table {table}, sit {next}", {dir: p.direction, pair: pairNumber(p), table: p.next_table, next: p.next_direction});
  const b = g.boards || {numbers: [], next_table: null};
  const boards = b.next_table == null && b.bye_stand ? t("seat.boards_bye", "Boards {boards} go to the bye stand: a later round plays them.", {boards: (b.numbers || []).join(", ")})
    : b.next_table == null ? t("seat.boards_done", "Boards {boards}: not played again; hand them to the director.", {boards: (b.numbers || []).join(", ")})
    : (b.shared_with || []).length ? t("seat.boards_go_shared", "Boards {boards} go to table {table}, which shares them with table {others}.", {boards: (b.numbers || []).join(", "), table: b.next_table, others: b.shared_with.join(", ")})
    : t("seat.boards_go", "Boards {boards} go to table {table}.", {boards: (b.numbers || []).join(", "), table: b.next_table});
  // a relay: another table plays the same boards this round, and they go on only once both tables have played them
  const now = (b.shared_now || []).length ? `<li>${esc(t("seat.boards_shared_now", "Boards {boards} are shared with table {others} this round: they go on once both tables have played them.", {boards: (b.numbers || []).join(", "), others: b.shared_now.join(", ")}))}</li>` : "";
  el.hidden = false;
  el.innerHTML = `<h2>${esc(g.last_round ? t("seat.end_event", "The last round is over") : t("seat.end_round", "End of round {r}", {r: g.round}))}</h2><ul class="guidance">` +
    (g.pairs || []).map(p => `<li${SIDE[ME] === p.direction ? ' class="mine"' : ""}>${esc(pairLine(p))}</li>`).join("") + now + `<li>${esc(boards)}</li></ul>`;
}

// ------------------------------------------------------------------------------------------- the pairs' names
// Entered once per pair for the session: the service keeps them for the pair's later rounds and tables
// (service/event/pair_names.py), and every page of the table is sent a "players" message when any of them saves
// names, so partner's phone shows them at once. A scoring-only table's one device may enter both pairs
// (may_enter). The form waits while a board is being bid or played (it would push the hand off a phone's screen).
function boardInPlay(s) { return !!(s.board && !["board_ready", "board_complete"].includes(s.phase)); }
// The names come two ways, the stream's message and the page's own request after a save: of the same round, the
// later version stays (an answer computed before the opponents' save, read after its message, must not undo it).
function laterPlayers(info) {
  return !UI.players || info.round !== UI.players.round || (info.version ?? 0) >= (UI.players.version ?? 0);
}
async function loadPlayers() {
  let info;
  try { info = await api(tableUrl("/players"), {}, TOKEN); }
  catch (e) { UI.players = null; $("players-section").hidden = true; return; }   // 404: not offered
  if (!laterPlayers(info)) return;
  UI.players = info;
  renderPlayers();
}
function playersArrived(m) {
  if (!UI.players || UI.players.round !== m.round) { loadPlayers(); return; }
  if (!laterPlayers(m)) return;
  UI.players = {...UI.players, NS: m.NS, EW: m.EW, version: m.version};
  renderPlayers();
}
function renderPlayers() {
  const el = $("players-section"), info = UI.players;
  if (!info) { el.hidden = true; return; }
  const typed = {};                                   // what a player is typing outlives a redraw (partner saved)
  el.querySelectorAll("input[data-typed]").forEach(i => { typed[i.id] = i.value; });
  const mine = SIDE[ME], may = info.may_enter || [mine];
  UI.playersEdit = UI.playersEdit || {};
  let html = "";
  for (const side of [mine, mine === "NS" ? "EW" : "NS"]) {
    const pair = info[side] || {}, names = pair.names || [], label = UI.labels[pair.pair] ?? pair.pair;
    const editable = may.includes(side), editing = editable && (names.length < 2 || UI.playersEdit[side]);
    if (names.length) {
      html += `<p class="muted players-line" data-side="${side}">${esc(t("seat.players_are", "Pair {pair}: {names}", {pair: label ?? "-", names: names.join(", ")}))}` +
        (editable && !editing ? ` <button type="button" class="players-change" data-side="${side}">${esc(t("seat.players_change", "Change names"))}</button>` : "") + "</p>";
    }
    if (!editing) continue;
    const seats = side === "NS" ? ["N", "S"] : ["E", "W"];
    const title = side === mine ? t("seat.players_title", "Your pair this round") : t("seat.players_title_other", "The opponents' names");
    html += `<h2>${esc(title)}${label != null ? ` <span class="pair-label">${esc(label)}</span>` : ""}</h2>` +
      `<form id="${side === mine ? "players-form" : "players-form-other"}" class="key-form players-form" data-side="${side}">` +
      seats.map((x, i) => `<div class="field"><label for="player-${x}">${esc(t("seat.player_label", "{seat}: member number or name", {seat: SEAT_NAME[x]()}))}</label>` +
        `<input id="player-${x}" name="${x}" maxlength="60" autocomplete="off" placeholder="${esc(names[i] || "")}"></div>`).join("") +
      `<div class="actions"><button type="submit" class="primary">${esc(t("seat.players_send", "Save names"))}</button></div></form>`;
  }
  el.innerHTML = html;
  el.hidden = !html || !!(el.querySelector("form") && state && boardInPlay(shown(state)));
  el.querySelectorAll("input").forEach(i => {
    if (i.id in typed) { i.value = typed[i.id]; i.dataset.typed = "1"; }
    i.oninput = () => { i.dataset.typed = "1"; };
  });
  el.querySelectorAll(".players-change").forEach(b => b.onclick = () => { UI.playersEdit[b.dataset.side] = true; renderPlayers(); });
  el.querySelectorAll("form").forEach(f => f.onsubmit = async ev => {
    ev.preventDefault();
    const body = {};
    f.querySelectorAll("input").forEach(i => { const v = i.value.trim(); if (v) body[i.name] = v; });
    if (!Object.keys(body).length) return;
    if (await send(tableUrl("/players"), body)) {
      f.querySelectorAll("input").forEach(i => { delete i.dataset.typed; i.value = ""; });
      UI.playersEdit[f.dataset.side] = false;
      loadPlayers();
    }
  });
}

// ------------------------------------------------------------------------------------------- rulings, irregularities
// The offender's name, then what happened; a detail that already starts with the name is not given it twice
function irrDetail(i) {
  const who = SEAT_NAME[i.seat] ? SEAT_NAME[i.seat]() : "", detail = detailText(i);
  return who && !detail.startsWith(who) ? `${who} ${detail}` : detail;
}
function renderRulings(s) {
  const ch = s.choices || [];
  $("choices-section").hidden = !ch.length;
  const choices = ch.map(i => `<div><b>${codeLabel(i.code)}</b> (${esc(t("seat.law", "Law {law}", {law: i.law}))}):${lawTextSlot(TABLE, s.board ? s.board.number : null, i.law, i.law_text)}` +
    i.options.map(o => `<button type="button" data-code="${esc(i.code)}" data-option="${esc(o.code)}" title="${esc(optionExplained(o))}">${esc(optionText(o.code))}</button> ${esc(optionExplained(o))}<br>`).join("") + "</div>").join("");
  if (setHtml($("choices"), choices)) {
    $("choices").querySelectorAll("button").forEach(b => b.onclick = () => choose(b.dataset.code, b.dataset.option));
    lawTexts($("choices"));
  }
  setHtml($("irregularities"), (s.irregularities || []).map(i =>
    `<div class="irr" data-code="${esc(i.code)}">${codeLabel(i.code)} (${esc(t("seat.law", "Law {law}", {law: i.law}))}) ${esc(irrDetail(i))} &mdash; <span class="irr-state">${esc(dispositionText(i))}</span></div>`).join("") || esc(t("seat.none", "none")));
}

// The boards of the table's current round (its guidance names them; null without an event). After the director
// moves the table on, the table's state is still the last board of the old round, which a credential of the new
// round receives withheld (it is not its pair's board here this round: Law 16B, service/event/board_rule.py) or,
// where it may see it, complete: either way the page shows the new round (no board yet, the names form, the
// keying form at the round's first board), not the old board.
async function loadRound() {
  try {
    const g = await api(`/api/event/guidance?table=${encodeURIComponent(TABLE)}`, {}, TOKEN);
    UI.roundBoards = (g.boards && g.boards.numbers) || null;
    (g.pairs || []).forEach(p => { UI.labels[p.pair] = p.label ?? String(p.pair); });
  } catch (e) { UI.roundBoards = null; }
  // drawn again with the round's first board, unless the player has begun keying: what he keyed stays, and the
  // board field offers the round's board unless he typed one
  if (!UI.keyTyped) $("keying-section").hidden = true;
  else if (!UI.keyBoardTyped && state && $("key-board") && !$("key-board").readOnly) $("key-board").value = nextBoard(shown(state));
  if (state) render();
}
function earlierRound(s) {
  return !!(UI.roundBoards && s.board && (s.phase === "board_complete" || s.withheld) &&
            !UI.roundBoards.includes(s.board.number));
}
// The table's state as this page shows it: the new round with no board yet while the table is still on the old
// round's last board.
function shown(s) {
  return earlierRound(s) ? {...s, board: null, phase: null, withheld: false, turn: null, declarer: null, dummy: null,
    contract: null, hands: {}, auction: null, trick: null, last_trick: null, claim: null, result: null, confirm: null,
    penalty_cards: null, choices: [], irregularities: []} : s;
}
function render() {
  const s = shown(state);
  renderBoard(s);
  renderRulings(s);
  renderHands(s);
  renderPenalty(s);
  renderBidding(s);
  renderClaim(s);
  renderKeying(s);
  renderStart(s);
  renderCardsDiffer(s);
  renderResult(s);
  if (s.phase !== "board_complete") { $("guidance-section").hidden = true; UI.extrasFor = null; }
  if ($("players-section").querySelector("form")) $("players-section").hidden = boardInPlay(s);
}

// ------------------------------------------------------------------------------------------- credentials
function signedOut(msg) {
  const el = $("signed-out");
  el.hidden = false;
  el.innerHTML = `<h2>${esc(t("seat.signed_out", "Signed out"))}</h2><p>${esc(t("seat.scan_card", "Scan the card at your table (or open this round's link) to sign in again."))}</p>`;
  $("status").textContent = t("seat.status_signed_out", "signed out");
  setText($("board"), msg || t("seat.signed_out", "Signed out"));           // why, where the board line was
  ["table-section", "bidding-section", "claim-section", "keying-section", "result-section", "choices-section",
   "players-section", "guidance-section", "irregularities-section", "call-director", "start-section", "cards-differ", "director-section"].forEach(id => $(id).hidden = true);
}
// The seat's token ended (a new round, a revocation): the page follows its pair, never its table. It trades its
// token for the pair's seat in the new round (POST /api/signin/renew: the server finds the pair's next table and
// seat); a pair that sits out, waits for its table or has finished is told so and the page asks again every 10 s.
// A revoked, replaced or already renewed token signs out: scan the card at your (new) table.
let renewing = null;
function newSeat(r) {
  TOKEN = r.token; TABLE = r.table; ME = r.seat;
  sessionStorage.setItem("bt-token", r.token);
  state = null; UI.pair = null; UI.roundBoards = null; UI.extrasFor = null; UI.extras = null; UI.labels = {};
  UI.keyTyped = false;
  setHtml($("hands"), ""); setHtml($("trick"), ""); setHtml($("auction"), "");
  ["keying-section", "result-section", "guidance-section", "players-section", "claim-section", "start-section"].forEach(id => $(id).hidden = true);
  UI.startKey = null; UI.startPick = null; UI.startRefusal = "";
  $("signed-out").hidden = true; $("table-section").hidden = false;
  $("irregularities-section").hidden = false; $("call-director").hidden = false;
  $("title").textContent = t("seat.title", "Table {table}, seat {seat}", {table: TABLE, seat: seatShort(ME)});
  setText($("board"), t("seat.waiting", "Waiting for a board."));
  connect(); loadRound().then(loadPlayers);
}
function notSeated(r) {
  signedOut("");
  const el = $("signed-out");
  const text = r.status === "over" ? t("seat.session_over", "Your session is over: your pair has no further round.")
    : r.status === "sit_out" ? t("seat.sit_out", "Your pair sits out round {r}: this page shows your next table when its round begins.", {r: r.round})
    : t("seat.wait_table", "Round {r}: your pair's next table has not started the round yet; this page follows when it does.", {r: r.round});
  el.innerHTML = `<h2>${esc(r.status === "over" ? t("seat.over_title", "Session over") : t("seat.between_title", "Between tables"))}</h2><p class="pair-status" data-status="${esc(r.status)}">${esc(text)}</p>`;
  setText($("board"), text);
  $("status").textContent = "";
}
async function renewCredential() {
  try { return await api("/api/signin/renew", {method: "POST", body: "{}"}, TOKEN); }
  catch (e) { return {status: "signed_out", message: refusalWords(e)}; }
}
async function credentialEnded(msg) {
  if (!renewing) {
    renewing = (async () => {
      streamToken = null;                             // nothing more from the old credential's stream
      const r = await renewCredential();
      if (r.status === "seated" && r.token) { newSeat(r); return true; }
      if (["sit_out", "waiting", "over"].includes(r.status)) {
        notSeated(r);
        if (r.status !== "over") setTimeout(() => credentialEnded(msg), 10000);
        return false;
      }
      signedOut(r.message || msg);
      return false;
    })().finally(() => setTimeout(() => { renewing = null; }, 0));
  }
  return renewing;
}
async function stillValid() {
  try { await api("/api/whoami", {}, TOKEN); return true; }
  catch (e) {
    if ([401, 403].includes(e.status)) { await credentialEnded(refusalWords(e)); return false; }
    return true;
  }
}
let streamToken = null;
function connect() {
  const mine = TOKEN;
  streamToken = mine;
  stream(`/ws/tables/${encodeURIComponent(TABLE)}`, m => {
    if (streamToken !== mine) return;
    if (m.type === "state") { state = m.state; UI.startKey = null; render(); }   // a ruling may change the offer
    else if (m.type === "players") playersArrived(m);
  }, st => {
    if (streamToken !== mine) return;
    $("status").textContent = t("seat.status_" + st.replace(/ /g, "_"), st);
    if (st === "live" && UI.players) loadPlayers();       // names saved while the stream was down
  }, mine,
  async () => streamToken === mine && await stillValid());
}

// "Call the director" asks why first (service/live/director_calls.py REASONS): an irregularity with its laws, or
// other with a short note (one line, at most 120 characters; the service drops control characters).
const CALL_REASONS = [
  ["insufficient_bid", () => t("seat.reason_insufficient_bid", "Insufficient bid (Law 27)")],
  ["call_out_of_rotation", () => t("seat.reason_call_out_of_rotation", "Call out of rotation (Laws 29-32)")],
  ["lead_out_of_turn", () => t("seat.reason_lead_out_of_turn", "Lead out of turn (Laws 53-56)")],
  ["revoke", () => t("seat.reason_revoke", "Revoke (Laws 62-64)")],
  ["claim_dispute", () => t("seat.reason_claim_dispute", "Claim disputed (Laws 68-71)")],
  ["unauthorized_information", () => t("seat.reason_unauthorized_information", "Hesitation or remark: unauthorized information (Laws 16, 73)")],
  ["misinformation", () => t("seat.reason_misinformation", "Wrong or missing explanation or alert (Laws 20, 21, 75)")],
  ["other", () => t("seat.reason_other", "Something else")],
];
function openDirectorForm() {
  const form = $("director-form");
  form.innerHTML = `<div class="reasons">${CALL_REASONS.map(([code, words], i) =>
      `<label class="reason"><input type="radio" name="reason" value="${code}"${i === 0 ? " checked" : ""}> ${esc(words())}</label>`).join("")}</div>
    <label class="note"><span>${esc(t("seat.director_note", "In a few words (required for something else)"))}</span>
      <input type="text" name="note" maxlength="120" autocomplete="off"></label>
    <div class="actions"><button type="submit" id="director-send">${esc(t("seat.call_director", "Call the director"))}</button>
      <button type="button" id="director-cancel">${esc(t("seat.cancel", "Cancel"))}</button></div>`;
  $("director-section").hidden = false;
  $("director-cancel").onclick = () => { $("director-section").hidden = true; };
  form.onsubmit = async ev => {
    ev.preventDefault();
    const reason = form.elements.reason.value, note = form.elements.note.value.trim();
    if (reason === "other" && !note) { toast(t("seat.director_note_needed", "Say in a few words why you call the director.")); form.elements.note.focus(); return; }
    const r = await send(tableUrl("/director"), note ? {reason, note} : {reason});
    if (r) { $("director-section").hidden = true; toast(t("seat.director_called", "The director has been called.")); }
  };
  $("director-section").scrollIntoView({block: "nearest"});
  form.querySelector("input[name=reason]").focus();
}

async function main() {
  await loadLanguage("seat");
  $("cards-differ").onclick = async () => {
    if (!TABLE) return;
    const r = await send(tableUrl("/director"), {reason: "cards_differ"});
    if (r) toast(t("seat.cards_differ_called", "The director has been called: your cards differ from the hand record (Laws 13 and 87)."));
  };
  $("call-director").onclick = () => { if (TABLE) openDirectorForm(); };
  try { TOKEN = await credential(); } catch (e) { signedOut(refusalWords(e)); return; }
  const parts = (TOKEN || "").split(".");
  if (parts[0] !== "seat") { signedOut(t("seat.needs_link", "This page needs a seat's sign-in link.")); return; }
  [, TABLE, ME] = parts;
  if (!(await stillValid())) return;
  $("title").textContent = t("seat.title", "Table {table}, seat {seat}", {table: TABLE, seat: seatShort(ME)});
  connect();
  loadRound().then(loadPlayers);
}
main();
