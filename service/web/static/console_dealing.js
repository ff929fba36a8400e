// The console's dealing machine (service/api/dealing.py): the director names the machine (its serial port, or
// "sim" when the service runs simulated tables) and it deals the evening's hand records. Each problem the
// machine reports shows at once in words, a board that failed waits for the volunteer's fix (done as told,
// cards back in the machine, skip, stop) and the end says whether the dealt set is the hand records. Live from
// the director's /ws/club ({"type": "dealing"}), like console_calls.js with its own stream; the token is this
// tab's (sessionStorage), as in console.js.
(function () {
  let token = "";
  let run = {state: "idle"};
  const $ = id => document.getElementById(id);
  const STATUS = () => ({
    to_deal: t("console_dealing.status.to_deal", "to deal"), ok: t("console_dealing.status.ok", "verified"),
    fixed_by_hand: t("console_dealing.status.fixed_by_hand", "fixed by hand"),
    skipped: t("console_dealing.status.skipped", "skipped"), aborted: t("console_dealing.status.aborted", "stopped"),
    not_dealt: t("console_dealing.status.not_dealt", "not dealt")});
  const CHOICE = () => ({
    continue: t("console_dealing.choice.continue", "Continue (done as told)"),
    redeal: t("console_dealing.choice.redeal", "Redeal (the cards are back in the machine)"),
    skip: t("console_dealing.choice.skip", "Skip (deal it later)"),
    abort: t("console_dealing.choice.abort", "Abort (stop dealing)")});

  function build() {
    $("dealing-section").innerHTML = `<h2 data-i18n="console_dealing.title">The dealing machine</h2>
      <p class="muted" data-i18n="console_dealing.help">The machine deals the evening's hand records and checks every card. Import or generate the hand records first.</p>
      <form id="deal-form" class="ev-controls">
        <label class="ev-field"><span data-i18n="console_dealing.machine">Machine (serial port)</span>
          <input id="deal-machine" name="machine" maxlength="300" placeholder="/dev/ttyUSB0" data-verbatim autocomplete="off" spellcheck="false"></label>
        <label class="ev-field" id="deal-faults-field" hidden><span data-i18n="console_dealing.faults">Simulated faults (simulator only)</span>
          <input id="deal-faults" name="faults" maxlength="300" placeholder="wrong_pocket=0.1,duplicate=0.1" data-verbatim></label>
        <button type="submit" id="deal-start" data-i18n="console_dealing.start">Deal the hand records</button>
      </form>
      <p id="deal-status" role="status" aria-live="polite"></p>
      <div id="deal-stop" class="alert" role="alert" hidden></div>
      <div id="deal-outcome" role="status" hidden></div>
      <ol id="deal-boards" class="deal-boards"></ol>
      <h3 data-i18n="console_dealing.problems">What the machine reported</h3>
      <ul id="deal-problems" class="deal-problems"><li class="muted" data-i18n="console_dealing.no_problems">Nothing yet.</li></ul>`;
    applyLanguage($("dealing-section"));
    $("deal-machine").addEventListener("input", () => { $("deal-faults-field").hidden = $("deal-machine").value.trim().toLowerCase() !== "sim"; });
    $("deal-form").addEventListener("submit", async ev => {
      ev.preventDefault();
      const body = {machine: $("deal-machine").value.trim()};
      const faults = $("deal-faults").value.trim();
      if (!$("deal-faults-field").hidden && faults) body.faults = faults;
      $("deal-start").disabled = true;
      say(t("console_dealing.connecting", "Connecting to the machine..."));
      try { const r = await api("/api/event/dealing", {method: "POST", body: JSON.stringify(body)}, token); if (newer(r)) render(r); }
      catch (e) { say(refusalWords(e), true); $("deal-start").disabled = false; }
    });
  }

  function say(text, bad) { const el = $("deal-status"); el.textContent = text; el.classList.toggle("ev-bad", !!bad); }

  function statusLine(r) {
    if (r.state === "idle") return t("console_dealing.idle", "Not dealing.");
    if (r.state === "connecting") return t("console_dealing.connecting", "Connecting to the machine...");
    if (r.state === "failed") return t("console_dealing.failed", "The dealing stopped: {error}", {error: engineText(r.error || "", r.error_parts)});
    const where = {done: r.done, total: r.total, machine: r.machine};
    if (r.state === "waiting") return t("console_dealing.waiting", "Board {board} waits for the volunteer ({done} of {total} boards done).", {...where, board: r.stop ? r.stop.board : "-"});
    if (r.state === "done") return t("console_dealing.done", "Finished: {done} of {total} boards on {machine}.", where);
    return r.current ? t("console_dealing.dealing", "Dealing board {board} on {machine} ({done} of {total} boards done).", {...where, board: r.current})
                     : t("console_dealing.dealing_next", "Dealing on {machine} ({done} of {total} boards done).", where);
  }

  // The newest snapshot wins: a push and a fetch may cross (a run's number, then its version, only go up).
  function newer(r) { return !run.run || (r.run || 0) > run.run || ((r.run || 0) === run.run && (r.version || 0) >= (run.version || 0)); }
  // /api/event answers {"event": null} before an event exists: no request that can only fail (404)
  async function currentRun() {
    const ev = await api("/api/event", {}, token);
    return ev.event ? await api("/api/event/dealing", {}, token) : null;
  }
  async function refresh() {
    try { const r = await currentRun(); if (r && newer(r)) render(r); } catch (e) { /* the next push or poll */ }
  }

  function render(r) {
    run = r || {state: "idle"};
    const busy = ["connecting", "dealing", "waiting"].includes(run.state);
    $("deal-start").disabled = busy;
    say(statusLine(run), run.state === "failed");
    const stop = $("deal-stop");
    if (run.state === "waiting" && run.stop) {
      const s = run.stop, words = CHOICE();
      stop.hidden = false;
      stop.dataset.board = s.board;
      stop.innerHTML = `<b>${esc(t("console_dealing.stop_title", "Board {board} needs the volunteer", {board: s.board}))}</b>
        <p class="deal-message">${esc(engineText(s.message, s.message_parts))}</p>
        <div class="deal-choices">${s.choices.map(c => `<button type="button" class="deal-choice" data-choice="${esc(c)}">${esc(words[c] || c)}</button>`).join("")}</div>`;
      stop.querySelectorAll("button.deal-choice").forEach(b => b.addEventListener("click", async () => {
        stop.querySelectorAll("button").forEach(x => { x.disabled = true; });
        try {
          const r = await api("/api/event/dealing/decision", {method: "POST", body: JSON.stringify({board: s.board, decision: b.dataset.choice})}, token);
          if (newer(r)) render(r);
        }
        catch (e) { say(refusalWords(e), true); stop.querySelectorAll("button").forEach(x => { x.disabled = false; }); }
      }));
    } else { stop.hidden = true; stop.innerHTML = ""; delete stop.dataset.board; }
    const out = $("deal-outcome");
    if (run.outcome) {
      out.hidden = false;
      out.className = run.outcome.equal ? "deal-equal" : "deal-differs";
      out.textContent = run.outcome.equal
        ? t("console_dealing.equal", "The dealt set is the evening's hand records: {n} boards, every card checked.", {n: Object.keys(run.outcome.dealt || {}).length})
        : engineText(run.outcome.message, run.outcome.message_parts);
    } else { out.hidden = true; }
    const words = STATUS();
    $("deal-boards").innerHTML = (run.boards || []).map(b => `<li class="deal-board deal-${esc(b.status)}" data-board="${b.board}">
      <b>${b.board}</b> ${esc(words[b.status] || b.status)}</li>`).join("");
    const problems = (run.problems || []).slice().reverse();
    $("deal-problems").innerHTML = problems.length ? problems.map(p => `<li class="deal-problem${p.blocking ? " deal-blocking" : ""}${p.kind === "DECISION" ? " deal-decision" : ""}" data-kind="${esc(p.kind)}" data-board="${p.board}">${esc(engineText(p.message, p.message_parts))}</li>`).join("")
      : `<li class="muted">${esc(t("console_dealing.no_problems", "Nothing yet."))}</li>`;
  }

  async function start() {
    token = sessionStorage.getItem("bt-token") || "";
    if (!token) { setTimeout(start, 1000); return; }          // console.js signs in first
    try { if ((await api("/api/whoami", {}, token)).role !== "director") { setTimeout(start, 2000); return; } }
    catch (e) { setTimeout(start, 2000); return; }
    await loadStrings("console_dealing");          // this section's strings join the console's
    build();
    const nav = document.querySelector('#console-nav a[href="#dealing-section"]');
    if (nav) nav.textContent = t("console_dealing.nav", "Dealing");
    // a push missed while the stream was (re)connecting is fetched once it is live; while a run is on, a poll
    // every 5 s as well
    stream("/ws/club", m => { if (m.type === "dealing") { const r = {...m}; delete r.type; if (newer(r)) render(r); } },
           st => { if (st === "live") refresh(); }, token);
    setInterval(() => { if (["connecting", "dealing", "waiting"].includes(run.state)) refresh(); }, 5000);
    document.addEventListener("bt-event-changed", () => { say(""); refresh(); });   // set up in the evening section
    try {
      const r = await currentRun();
      if (!r) {
        render({state: "idle"});
        say(t("console_dealing.no_event", "No event yet: set up the event and its hand records first."));
        return;
      }
      if (r.machine && !$("deal-machine").value) {            // the machine of the last run, ready to deal again
        $("deal-machine").value = r.machine === "simulated machine" ? "sim" : r.machine;
        $("deal-machine").dispatchEvent(new Event("input"));
      }
      render(r);
    }
    catch (e) {
      render({state: "idle"});
      say(e.status === 404 ? t("console_dealing.no_event", "No event yet: set up the event and its hand records first.") : refusalWords(e));
    }
  }
  start();
})();
