// The console's calls for the director (service/api/terminal.py, service/api/board_start.py): a seat's "call the
// director", a disputed result, "my cards differ", a wrong board, a keyed lead the hand record contradicts show at
// once with their table, seat, board, reason and law in words; a wrong board has the director's two rulings (Law
// 15); "answered" marks a call dealt with. Its own stream of the
// club (the console's token from this tab's sessionStorage), so console.js is not touched.
(function () {
  const calls = new Map();        // id -> call
  let token = "";
  const el = () => document.getElementById("calls");
  function render() {
    const open = [...calls.values()].filter(c => !c.answered).sort((a, b) => a.id - b.id);
    document.getElementById("calls-count").textContent = open.length ? `(${open.length})` : "";
    el().innerHTML = open.length ? open.map(c => `<div class="alert call" data-call="${c.id}" data-table="${esc(c.table)}">
      <b>${esc(t("console_calls.table", "Table {table}", {table: c.table}))}</b>, ${esc(c.seat ? t("console_calls.seat", "seat {seat}", {seat: c.seat}) : t("console_calls.director", "the director"))},
      ${esc(c.board ? t("console_calls.board", "board {n}", {n: c.board}) : t("console_calls.no_board", "no board"))}
      ${reasonHtml(c)} <span class="muted">${esc(clockTime(new Date(c.at)))}</span>
      ${c.law ? `<div><span class="law">${esc(t("console_calls.law", "Law {law}", {law: c.law}))}</span>${lawTextSlot(c.table, c.board, String(c.law).split(",")[0], c.law_text)}</div>` : ""}
      ${c.code === "WRONG_BOARD" ? `<div class="rulings">
        <button type="button" class="rule" data-call="${c.id}" data-ruling="play_here">${esc(t("console_calls.play_here", "Let board {n} be played here (Law 15)", {n: c.board}))}</button>
        <button type="button" class="rule" data-call="${c.id}" data-ruling="correct_board">${esc(t("console_calls.correct_board", "Have the correct board played (Law 15A)"))}</button></div>` : ""}
      <button type="button" class="answer" data-call="${c.id}">${esc(t("console_calls.answered", "Answered"))}</button></div>`).join("")
      : `<p class="muted">${esc(t("console_calls.none", "None."))}</p>`;
    el().querySelectorAll("button.rule").forEach(b => b.onclick = async () => {
      try {
        const r = await api(`/api/director-calls/${b.dataset.call}/rule`, {method: "POST", body: JSON.stringify({ruling: b.dataset.ruling})}, token);
        calls.set(r.id, r); render();
        if (typeof toast === "function") toast(engineText(r.ruling, r.ruling_parts));
      } catch (e) { if (typeof toast === "function") toast(refusalWords(e)); }
    });
    if (typeof lawTexts === "function") lawTexts(el());
    el().querySelectorAll("button.answer").forEach(b => b.onclick = async () => {
      try {
        const r = await api(`/api/director-calls/${b.dataset.call}/answer`, {method: "POST"}, token);
        calls.set(r.id, r); render();
      } catch (e) { if (typeof toast === "function") toast(refusalWords(e)); }
    });
  }
  // The reasons a seat's "call the director" offers (service/live/director_calls.py REASONS); the law goes below.
  const REASON_WORDS = {
    INSUFFICIENT_BID: () => t("console_calls.reason_insufficient_bid", "insufficient bid"),
    CALL_OUT_OF_ROTATION: () => t("console_calls.reason_call_out_of_rotation", "call out of rotation"),
    LEAD_OUT_OF_TURN: () => t("console_calls.reason_lead_out_of_turn", "lead out of turn"),
    REVOKE: () => t("console_calls.reason_revoke", "revoke"),
    CLAIM_DISPUTE: () => t("console_calls.reason_claim_dispute", "claim disputed"),
    UNAUTHORIZED_INFORMATION: () => t("console_calls.reason_unauthorized_information", "unauthorized information (a hesitation, a remark)"),
    MISINFORMATION: () => t("console_calls.reason_misinformation", "a wrong or missing explanation or alert"),
    OTHER: () => t("console_calls.reason_other", "other"),
  };
  // What the call is about, in words: the codes the service names (a wrong board, cards that differ from the hand
  // record, a keyed lead the hand record contradicts), else the service's own words.
  // The service's own words follow in brackets on an English page where they say more than the console's (a wrong
  // board's rounds); a page in another language shows only its own words.
  function reasonHtml(c) {
    const words = c.code === "WRONG_BOARD" ? t("console_calls.wrong_board", "wrong board: board {n} is not one of the table's boards now; it did not start", {n: c.board})
      : c.code === "CARDS_DIFFER" ? t("console_calls.cards_differ", "my cards differ: the cards of board {n} differ from the hand record", {n: c.board})
      : c.code === "LEAD_CHECK" ? t("console_calls.lead_check", "the opening lead keyed on board {n} is not in the leader's hand per the hand record", {n: c.board})
      : c.code === "RESULT_DISPUTED" ? t("console_calls.result_disputed", "result of board {n} disputed", {n: c.board})
      : c.code === "SEAT_UNIT" ? t("console_calls.seat_unit", "called from the seat unit")
      : REASON_WORDS[c.code] ? REASON_WORDS[c.code]()
      : c.reason && c.reason !== "call" ? c.reason : "";
    const note = c.note ? ` <q class="note">${esc(c.note)}</q>` : "";
    // the service's words when it sent their pieces (a keyed lead's card, how often it was refused) are worded in the
    // page's language; plain English ones only on an English page
    const theirs = c.code && c.reason && !REASON_WORDS[c.code] && !["RESULT_DISPUTED", "SEAT_UNIT"].includes(c.code) &&
      (I18N.lang === "en" || c.reason_parts || !["WRONG_BOARD", "CARDS_DIFFER", "LEAD_CHECK"].includes(c.code))
      ? ` <span class="muted">(${esc(engineText(c.reason, c.reason_parts))})</span>` : "";
    return words || note ? `&mdash; <span class="reason" data-code="${esc(c.code || "")}">${esc(words)}</span>${theirs}${note}` : "";
  }
  async function load() {
    try { (await api("/api/director-calls?open=true", {}, token)).forEach(c => calls.set(c.id, c)); } catch (e) { /* not the director */ }
    render();
  }
  // this section's strings join the console's; the calls are worded once the page's own (engine) words are in
  async function strings() {
    await loadStrings("console_calls");
    applyLanguage(document.getElementById("calls-section"));
    applyLanguage(document.getElementById("lead-check-section"));
  }
  // The lead check at scoring-only tables (service/event/lead_check.py): off, warn, must comply; journalled.
  async function leadCheck() {
    const sel = document.getElementById("lead-check"), status = document.getElementById("lead-check-status");
    if (!sel) return;
    const show = r => {
      sel.value = r.mode;
      status.textContent = r.set_by ? "" : t("console_calls.lead_default", "(not set: the scoring program's setting, else off)");
    };
    try { show(await api("/api/event/lead-check", {}, token)); } catch (e) { return; }
    sel.onchange = async () => {
      try { show(await api("/api/event/lead-check", {method: "POST", body: JSON.stringify({mode: sel.value})}, token));
            if (typeof toast === "function") toast(t("console_calls.lead_saved", "Lead check: {mode}", {mode: sel.options[sel.selectedIndex].text})); }
      catch (e) { if (typeof toast === "function") toast(refusalWords(e)); }
    };
  }
  async function start() {
    token = sessionStorage.getItem("bt-token") || "";
    if (!token) { setTimeout(start, 1000); return; }          // console.js signs in first
    try { if ((await api("/api/whoami", {}, token)).role !== "director") { setTimeout(start, 2000); return; } }
    catch (e) { setTimeout(start, 2000); return; }
    await strings();
    await load();
    await leadCheck();
    stream("/ws/club", m => {
      if (m.type === "director_call" || m.type === "director_call_answered") {
        const c = {...m}; delete c.type;
        if (m.type === "director_call_answered" && !c.answered) c.answered = new Date().toISOString();
        calls.set(c.id, c); render();
        if (m.type === "director_call" && typeof toast === "function")
          toast(t("console_calls.toast", "Director call: table {table}, seat {seat}", {table: m.table, seat: m.seat || "-"}));
      }
    }, null, token);
  }
  start();
})();
