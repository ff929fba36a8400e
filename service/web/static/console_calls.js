// The console's calls for the director (service/api/terminal.py): a seat's "call the director" or a disputed
// result shows at once with its table, seat and board; "answered" marks it dealt with. Its own stream of the
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
      ${c.reason && c.reason !== "call" ? `&mdash; ${esc(c.reason)}` : ""} <span class="muted">${esc(new Date(c.at).toLocaleTimeString())}</span>
      <button type="button" class="answer" data-call="${c.id}">${esc(t("console_calls.answered", "Answered"))}</button></div>`).join("")
      : `<p class="muted">${esc(t("console_calls.none", "None."))}</p>`;
    el().querySelectorAll("button.answer").forEach(b => b.onclick = async () => {
      try {
        const r = await api(`/api/director-calls/${b.dataset.call}/answer`, {method: "POST"}, token);
        calls.set(r.id, r); render();
      } catch (e) { if (typeof toast === "function") toast(e.message); }
    });
  }
  async function load() {
    try { (await api("/api/director-calls?open=true", {}, token)).forEach(c => calls.set(c.id, c)); } catch (e) { /* not the director */ }
    render();
  }
  // this section's strings join the console's (loadLanguage would replace the page's own)
  async function strings() {
    const lang = I18N.lang !== "en" ? I18N.lang : chooseLanguage(null);
    if (lang !== "en") {
      try { Object.assign(I18N.dict, await (await fetch(`/static/locales/${lang}/console_calls.json`)).json()); }
      catch (e) { /* English stays */ }
    }
    applyLanguage(document.getElementById("calls-section"));
  }
  async function start() {
    token = sessionStorage.getItem("bt-token") || "";
    if (!token) { setTimeout(start, 1000); return; }          // console.js signs in first
    try { if ((await api("/api/whoami", {}, token)).role !== "director") { setTimeout(start, 2000); return; } }
    catch (e) { setTimeout(start, 2000); return; }
    await strings();
    await load();
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
