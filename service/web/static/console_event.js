// The director's evening in the console (service/api/event_console.py): set up the event (sections and movements), import
// the member list, the round clock, advance rounds (a table or all), late tables highlighted, each table's
// end-of-round guidance. Uses TOKEN from console.js (or this tab's stored token) and t() from common.js; its own
// strings come from static/locales/<lang>/console_event.json (common.js loadStrings).
(function () {
  const EV = {event: null, fetchedAt: 0, guidance: {}, roundsKey: "", timer: null};
  const KINDS = ["mitchell", "howell", "teams", "round_robin"];

  function te(key, english, params) { return t("console_event." + key, english, params); }
  function token() {
    return (typeof TOKEN !== "undefined" && TOKEN) || sessionStorage.getItem("bt-token") || "";
  }
  function say(text, bad) {
    const el = document.getElementById("ev-status");
    el.textContent = text;
    el.classList.toggle("ev-bad", !!bad);
  }
  async function eventStrings() {
    await loadStrings("console_event");
    document.querySelectorAll("#event-section [data-i18n]").forEach(el => {
      el.textContent = te(el.dataset.i18n.replace(/^console_event\./, ""), el.textContent);
    });
  }

  // ---------------------------------------------------------------------------------------- the set-up form
  function countLabel(kind) {
    return {mitchell: te("tables", "Tables"), howell: te("pairs", "Pairs"), teams: te("boards", "Boards"),
            round_robin: te("teams", "Teams")}[kind];
  }
  function kindName(kind) {
    return {mitchell: te("kind.mitchell", "Mitchell"), howell: te("kind.howell", "Howell"),
            teams: te("kind.teams", "Teams match"), round_robin: te("kind.round_robin", "Teams round robin")}[kind];
  }
  let sectionSerial = 0;
  function sectionHtml(id) {
    const n = ++sectionSerial;
    const f = (name, label, input) => `<label class="ev-field" data-field="${name}"><span>${label}</span>${input}</label>`;
    return `<fieldset class="ev-sec" data-n="${n}"><legend>${te("section", "Section")}
        <input name="id" value="${esc(id)}" size="3" maxlength="8" aria-label="${esc(te("section_id", "Section letter"))}"></legend>
      ${f("kind", te("movement", "Movement"), `<select name="kind">${KINDS.map(k => `<option value="${k}">${esc(kindName(k))}</option>`).join("")}</select>`)}
      ${f("count", `<span class="ev-count">${esc(countLabel("mitchell"))}</span>`, `<input name="count" type="number" min="2" max="60" value="4" inputmode="numeric">`)}
      ${f("bpr", te("boards_per_round", "Boards per round"), `<input name="bpr" type="number" min="1" max="12" value="2" inputmode="numeric">`)}
      ${f("rounds", te("rounds", "Rounds (blank: all)"), `<input name="rounds" type="number" min="1" max="60" inputmode="numeric">`)}
      ${f("even", te("even", "Even tables"), `<select name="even"><option value="relay">${esc(te("even.relay", "relay and bye stand"))}</option>
         <option value="skip">${esc(te("even.skip", "skip after half"))}</option></select>`)}
      ${f("first", te("first_board", "First board"), `<input name="first" type="number" min="1" max="999" value="1" inputmode="numeric">`)}
      <button type="button" class="ev-remove">${esc(te("remove_section", "Remove section"))}</button></fieldset>`;
  }
  function syncSection(fs) {
    const kind = fs.querySelector("[name=kind]").value;
    fs.querySelector(".ev-count").textContent = countLabel(kind);
    fs.querySelector("[data-field=rounds]").hidden = kind !== "mitchell";
    fs.querySelector("[data-field=even]").hidden = kind !== "mitchell";
    fs.querySelector("[data-field=bpr]").hidden = false;
  }
  function addSection() {
    const box = document.getElementById("ev-sections");
    const ids = [...box.querySelectorAll("[name=id]")].map(i => i.value);
    const id = "ABCDEFGH".split("").find(x => !ids.includes(x)) || "";
    box.insertAdjacentHTML("beforeend", sectionHtml(id));
    const fs = box.lastElementChild;
    fs.querySelector("[name=kind]").onchange = () => syncSection(fs);
    fs.querySelector(".ev-remove").onclick = () => { if (box.children.length > 1) fs.remove(); };
    syncSection(fs);
  }
  function movementOf(fs) {
    const v = name => fs.querySelector(`[name=${name}]`).value.trim();
    const kind = v("kind"), count = parseInt(v("count"), 10), bpr = parseInt(v("bpr"), 10) || 2;
    const mv = {kind, boards_per_round: bpr, first_board: parseInt(v("first"), 10) || 1};
    mv[{mitchell: "tables", howell: "pairs", teams: "boards", round_robin: "teams"}[kind]] = count;
    if (kind === "mitchell") {
      mv.even = v("even");
      if (v("rounds")) mv.rounds = parseInt(v("rounds"), 10);
    }
    return mv;
  }
  function eventOf(form) {
    const secs = [...form.querySelectorAll(".ev-sec")];
    const body = {name: form.elements.name.value.trim() || te("default_name", "Club session"),
                  scoring: form.elements.scoring.value};
    if (form.elements.table_kinds.value === "scoring") body.table_kinds = "scoring";
    if (form.elements.law_edition.value) body.law_edition = form.elements.law_edition.value;
    if (form.elements.lead_check.value) body.lead_check = form.elements.lead_check.value;
    if (secs.length === 1) body.movement = movementOf(secs[0]);
    else body.sections = secs.map(fs => ({id: fs.querySelector("[name=id]").value.trim(), movement: movementOf(fs)}));
    return body;
  }
  async function submitEvent(ev) {
    ev.preventDefault();
    const body = eventOf(ev.target);
    const post = b => api("/api/event", {method: "POST", body: JSON.stringify(b)}, token());
    try {
      let out;
      try { out = await post(body); }
      catch (e) {
        if (e.status !== 409) throw e;
        if (!confirm(te("confirm_replace", "The current event has boards played. Replace it (its results are no longer shown)?"))) return;
        out = await post({...body, replace: true});
      }
      say(te("created", "Event set up: {name}, tables {tables}.", {name: out.event.name, tables: out.tables.join(", ")}));
      EV.roundsKey = "";
      refresh();
      document.dispatchEvent(new CustomEvent("bt-event-changed"));   // the boards section lists the new event now
    } catch (e) { say(te("refused", "Refused: {why}", {why: refusalWords(e)}), true); }
  }

  // ---------------------------------------------------------------------------------------- the law edition
  // The running event's edition: it changes only before any of its tables has started a board (the service
  // refuses it in words after that, and the list goes back to the event's edition).
  const editionName = e => e === "wbf2017" ? te("edition.2017", "2017 Laws") : te("edition.1997", "1997 Laws (1999 Chinese edition)");
  const leadName = m => ({off: te("lead.off", "entered, not checked"), warn: te("lead.warn", "checked: warn"),
                          "must comply": te("lead.must", "checked: must comply")})[m] || te("lead.unset", "the scoring program's setting, else not checked");
  async function setLaws(sel) {
    try {
      const out = await api("/api/event/laws", {method: "POST", body: JSON.stringify({law_edition: sel.value})}, token());
      say(te("laws_set", "Law edition: {edition}.", {edition: editionName(out.law_edition)}));
    } catch (e) {
      const b = e.body || {};
      say(b.code === "EDITION_LOCKED"
        ? te("edition_locked", "Refused: boards have started at table {tables} under the {edition}: the law edition cannot change within an event (every table plays a board under the same laws). Set up a new event to play under another edition.",
             {tables: (b.tables || []).join(", "), edition: editionName(b.law_edition)})
        : te("refused", "Refused: {why}", {why: refusalWords(e)}), true);
    }
    refresh();
  }

  // ---------------------------------------------------------------------------------------- the member list
  async function importMembers() {
    const file = document.getElementById("ev-members-file").files[0];
    const text = file ? await file.text() : document.getElementById("ev-members-text").value;
    if (!text.trim()) { say(te("members_none", "Choose a CSV file or paste the list first."), true); return; }
    try {
      const out = await api("/api/players", {method: "POST", body: JSON.stringify({csv: text})}, token());
      say(te("members_done", "Member list imported: {n} members.", {n: out.members}));
      document.getElementById("ev-members-count").textContent = te("members_count", "{n} members", {n: out.members});
    } catch (e) { say(te("refused", "Refused: {why}", {why: refusalWords(e)}), true); }
  }

  // ---------------------------------------------------------------------------------------- rounds and clock
  async function startClock(restart) {
    const minutes = parseFloat(document.getElementById("ev-minutes").value);
    try {
      await api("/api/event/clock", {method: "POST", body: JSON.stringify({minutes, restart})}, token());
      say(restart ? te("clock_started", "Round clock started: {m} minutes.", {m: minutes})
                  : te("clock_set", "Rounds last {m} minutes.", {m: minutes}));
      refresh();
    } catch (e) { say(te("refused", "Refused: {why}", {why: refusalWords(e)}), true); }
  }
  async function advance(tables) {
    const body = tables ? {tables} : {};
    if (!tables && !confirm(te("confirm_advance", "Move every table to its next round?"))) return;
    try {
      const out = await api("/api/event/advance", {method: "POST", body: JSON.stringify(body)}, token());
      say(Object.entries(out.rounds).map(([tb, r]) => te("moved", "Table {table}: round {round}", {table: tb, round: r})).join(" · "));
      refresh();
      document.dispatchEvent(new CustomEvent("bt-event-changed"));
    } catch (e) { say(te("refused", "Refused: {why}", {why: refusalWords(e)}), true); }
  }
  function clockText(p) {
    if (p.remaining == null) return te("no_clock", "no clock");
    const secs = p.remaining - (Date.now() - EV.fetchedAt) / 1000;    // time is up at 0, as for lateness
    const a = secs > 0 ? Math.ceil(secs) : Math.floor(-secs), mm = Math.floor(a / 60), ss = String(a % 60).padStart(2, "0");
    return secs > 0 ? te("left", "{t} left", {t: `${mm}:${ss}`}) : te("over", "{t} over time", {t: `${mm}:${ss}`});
  }
  function isLate(p) {           // the server's word at the fetch, or the clock ran out since
    if (p.remaining == null) return p.late;
    return p.late || (p.remaining - (Date.now() - EV.fetchedAt) / 1000 <= 0 && p.done.length < p.boards.length);
  }
  // Every second: the clocks count down in place (the cards and their buttons stay as they are).
  function tick() {
    if (!EV.event || !EV.event.event) return;
    const late = new Set();
    for (const p of EV.event.progress) {
      const card = document.querySelector(`#ev-tables .ev-card[data-table="${CSS.escape(p.table)}"]`);
      if (!card) continue;
      const l = isLate(p);
      if (l) late.add(p.table);
      card.querySelector(".ev-clock").textContent = clockText(p);
      card.classList.toggle("ev-late", l);
      const badge = card.querySelector(".ev-badge");
      if (l && !badge) card.firstElementChild.insertAdjacentHTML("beforeend", ` <span class="ev-badge">${esc(te("late", "late"))}</span>`);
      if (!l && badge) badge.remove();
    }
    highlightLate(late);
  }
  function dir(d) { return d === "NS" ? te("dir.NS", "NS") : te("dir.EW", "EW"); }
  function guidanceText(g) {
    if (!g) return "";
    if (g.last_round) return te("last_round", "Last round: the event ends here.");
    // a pair as the results name it: a Mitchell's East-West pair 5 of 4 tables is "EW 1" (the seat page says so too)
    const num = p => { const l = String(p.label ?? p.pair); return l.startsWith(p.direction + " ") ? l.slice(p.direction.length + 1) : l; };
    const pairs = g.pairs.map(p => p.next_table
      ? te("pair_goes", "{dir} pair {pair} → table {table} {next}", {dir: dir(p.direction), pair: num(p), table: p.next_table, next: dir(p.next_direction)})
      : te("pair_sits_out", "{dir} pair {pair} sits out", {dir: dir(p.direction), pair: num(p)}));
    const shared = g.boards.shared_with || [];
    const boards = g.boards.next_table && shared.length
      ? te("boards_go_shared", "boards {b} → table {table} (shared with table {others})", {b: g.boards.numbers.join(", "), table: g.boards.next_table, others: shared.join(", ")})
      : g.boards.next_table
      ? te("boards_go", "boards {b} → table {table}", {b: g.boards.numbers.join(", "), table: g.boards.next_table})
      : g.boards.bye_stand ? te("boards_bye", "boards {b} → the bye stand", {b: g.boards.numbers.join(", ")})
      : te("boards_stay", "boards {b} are not played next round", {b: g.boards.numbers.join(", ")});
    const now = g.boards.shared_now || [];           // a relay: the other table plays them this round too
    const first = now.length ? [te("boards_shared_now", "boards {b} shared with table {others} this round: they go on once both are done", {b: g.boards.numbers.join(", "), others: now.join(", ")})] : [];
    return pairs.concat(first, [boards]).join(" · ");
  }
  // A movement's name in the page's language: the names the service gives its own movements ("Mitchell 4 tables
  // (relay & bye stand)", "Howell 6 pairs", results/movement.py) are worded here; a name the club gave is its own.
  function movementName(name) {
    if (I18N.lang === "en") return name;
    const m = /^Mitchell (\d+) tables( \(relay & bye stand\)| \(skip\))?$/.exec(name);
    if (m) return te("movement.mitchell", "Mitchell {n} tables", {n: m[1]}) +
      (m[2] === " (skip)" ? te("movement.skip", " (skip)") : m[2] ? te("movement.relay", " (relay & bye stand)") : "");
    const h = /^Howell (\d+) pairs$/.exec(name);
    return h ? te("movement.howell", "Howell {n} pairs", {n: h[1]}) : name;
  }
  function renderEvent() {
    const e = EV.event;
    const sum = document.getElementById("ev-summary"), box = document.getElementById("ev-tables");
    document.getElementById("ev-laws-now").closest("label").hidden = !(e && e.event);
    if (!e || !e.event) {
      sum.textContent = te("no_event", "No event yet: set one up below.");
      box.innerHTML = "";
      highlightLate(new Set());
      return;
    }
    sum.textContent = te("summary", "{name} · {scoring} · {sections}", {name: e.event.name,
      scoring: I18N.lang === "en" ? e.event.scoring : te("scoring." + String(e.event.scoring).toLowerCase(), e.event.scoring),
      sections: e.event.sections.map(s => `${s.id}: ${movementName(s.movement)}, ${s.rounds} ${te("rounds_word", "rounds")}`).join("; ")}) +
      (e.clock && e.clock.minutes ? " · " + te("minutes_round", "{m} min a round", {m: e.clock.minutes}) : "") +
      " · " + te("laws_summary", "Laws: {edition}", {edition: editionName(e.event.law_edition)}) +
      " · " + te("lead_summary", "opening lead: {mode}", {mode: leadName(e.lead_check)});
    const lawsNow = document.getElementById("ev-laws-now");
    if (document.activeElement !== lawsNow) lawsNow.value = e.event.law_edition;
    const late = new Set();
    const choosing = box.contains(document.activeElement) && document.activeElement.tagName === "SELECT";
    if (choosing) {                       // a director choosing a table's kind: keep his list open
      e.progress.forEach(p => { if (isLate(p)) late.add(p.table); });
      highlightLate(late);
      return;
    }
    box.innerHTML = e.progress.map(p => {
      const l = isLate(p);
      if (l) late.add(p.table);
      return `<div class="ev-card${l ? " ev-late" : ""}" data-table="${esc(p.table)}">
        <div><b>${esc(te("table", "Table {table}", {table: p.table}))}</b>
          <span class="ev-round">${esc(te("round_of", "round {round} of {rounds}", {round: p.round, rounds: p.rounds}))}</span>
          ${l ? `<span class="ev-badge">${esc(te("late", "late"))}</span>` : ""}</div>
        <div class="ev-clock">${esc(clockText(p))}</div>
        <div>${esc(te("boards_done", "boards {boards}: {done} done", {boards: p.boards.join(", ") || "-", done: p.done.length}))}</div>
        <div class="ev-guide">${esc(guidanceText(EV.guidance[p.table]))}</div>
        <button type="button" class="ev-next" data-table="${esc(p.table)}" ${p.round >= p.rounds ? "disabled" : ""}>${esc(te("next_round", "Next round"))}</button>
        <label class="ev-kind-label">${esc(te("kind_label", "Table"))}
          <select class="ev-kind" data-table="${esc(p.table)}">
            <option value="played"${p.kind === "scoring" ? "" : " selected"}>${esc(te("kind_played", "cards and readers"))}</option>
            <option value="scoring"${p.kind === "scoring" ? " selected" : ""}>${esc(te("kind_scoring", "scoring only"))}</option>
          </select></label>
      </div>`;
    }).join("");
    box.querySelectorAll("button.ev-next").forEach(b => b.onclick = () => advance([b.dataset.table]));
    box.querySelectorAll("select.ev-kind").forEach(sel => sel.onchange = () => setKind(sel.dataset.table, sel.value));
    highlightLate(late);
  }
  // The table cards console.js draws: a late table gets the "late" mark (re-applied after every redraw).
  function highlightLate(late) {
    EV.late = late;
    document.querySelectorAll("#tables .tcard").forEach(c => {
      const on = late.has(c.dataset.table);
      c.classList.toggle("ev-late", on);
      let badge = c.querySelector(".ev-badge");
      if (on && !badge) c.insertAdjacentHTML("beforeend", ` <span class="ev-badge">${esc(te("late", "late"))}</span>`);
      if (!on && badge) badge.remove();
    });
  }
  // A table of real cards without readers keys its results at the table (scoring only); an event may mix both.
  async function setKind(table, kind) {
    try {
      await api(`/api/tables/${encodeURIComponent(table)}/kind`, {method: "POST", body: JSON.stringify({kind})}, token());
      say(te("kind_set", "Table {table}: {kind}", {table, kind: kind === "scoring" ? te("kind_scoring", "scoring only")
        : te("kind_played", "cards and readers")}));
      refresh();
    } catch (e) { say(refusalWords(e), true); }
  }
  async function refresh() {
    if (!token()) return;
    try {
      EV.event = await api("/api/event", {}, token());
      EV.fetchedAt = Date.now();
      if (EV.event.event) {
        const key = EV.event.progress.map(p => `${p.table}:${p.round}`).join(",") + "|" + EV.event.event.name;
        if (key !== EV.roundsKey) {
          const all = await api("/api/event/guidance/all", {}, token());
          EV.guidance = Object.fromEntries(all.map(g => [g.table, g]));
          EV.roundsKey = key;
        }
        if (EV.event.members != null && !document.getElementById("ev-members-count").textContent)
          document.getElementById("ev-members-count").textContent = te("members_count", "{n} members", {n: EV.event.members});
      }
      renderEvent();
    } catch (e) { say(refusalWords(e), true); }
  }

  async function init() {
    await eventStrings();
    addSection();
    document.getElementById("ev-form").addEventListener("submit", submitEvent);
    document.getElementById("ev-add-section").onclick = addSection;
    document.getElementById("ev-members-import").onclick = importMembers;
    document.getElementById("ev-clock-start").onclick = () => startClock(true);
    document.getElementById("ev-clock-set").onclick = () => startClock(false);
    document.getElementById("ev-advance-all").onclick = () => advance(null);
    document.getElementById("ev-laws-now").onchange = ev => setLaws(ev.target);
    new MutationObserver(() => EV.late && highlightLate(EV.late))
      .observe(document.getElementById("tables"), {childList: true});
    const wait = setInterval(() => { if (token()) { clearInterval(wait); refresh(); } }, 300);
    setInterval(refresh, 5000);
    setInterval(tick, 1000);
  }
  init();
})();
