// The console's downloads: the event's results (USEBIO, PBN, CSV, LIN), the hand-record sheets, the printable
// table cards, and the club's default page language. The director's token travels in a header, so a download is
// a fetch turned into a Blob and saved through a temporary link (service/api/exports.py).
const EXPORT_KINDS = [
  ["usebio", () => t("console_exports.usebio", "USEBIO (XML)")],
  ["pbn", () => t("console_exports.pbn", "PBN results")],
  ["csv", () => t("console_exports.csv", "CSV travellers")],
  ["csv?part=ranking", () => t("console_exports.ranking", "CSV ranking")],
  ["lin", () => t("console_exports.lin", "LIN (ZIP, one file a board)")],
  ["handrecords", () => t("console_exports.handrecords", "Hand-record sheets (HTML)")],
];

function exportsToken() { return sessionStorage.getItem("bt-token") || ""; }

async function download(kind, button) {
  const status = document.getElementById("exports-status");
  button.disabled = true;
  status.textContent = t("console_exports.working", "Preparing {what} ...", {what: button.textContent});
  try {
    let r = await fetch(`/api/exports/${kind}`, {headers: {Authorization: "Bearer " + exportsToken()}});
    // 202 with Retry-After: work done ahead of time (the sheets' double-dummy analysis) is not finished yet
    for (let tries = 0; r.status === 202 && r.headers.get("Retry-After") && tries < 60; tries++) {
      let ready = null;
      try { ready = await r.json(); } catch (e) { /* not JSON */ }
      status.textContent = ready && ready.boards
        ? t("console_exports.waiting", "Preparing {what}: the analysis of {ready} of {boards} boards is done ...",
            {what: button.textContent, ready: ready.ready, boards: ready.boards})
        : t("console_exports.working", "Preparing {what} ...", {what: button.textContent});
      await new Promise(done => setTimeout(done, 1000 * Number(r.headers.get("Retry-After"))));
      r = await fetch(`/api/exports/${kind}`, {headers: {Authorization: "Bearer " + exportsToken()}});
    }
    if (!r.ok) {
      let body = null;
      try { body = await r.json(); } catch (e) { /* not JSON */ }
      throw refusal(r, body);             // worded in the page's language by refusalWords()
    }
    const name = (/filename="([^"]+)"/.exec(r.headers.get("Content-Disposition") || "") || [])[1] || kind;
    const url = URL.createObjectURL(await r.blob());
    const a = document.createElement("a");
    a.href = url; a.download = name; document.body.appendChild(a); a.click(); a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10000);
    status.textContent = t("console_exports.done", "Downloaded {name}", {name});
  } catch (e) {
    status.textContent = t("console_exports.failed", "Download refused: {error}", {error: refusalWords(e)});
  } finally { button.disabled = false; }
}

async function renderExports() {
  const el = document.getElementById("exports");
  if (!el) return;
  await loadStrings("console_exports");
  document.querySelector("#exports-section h2").textContent = t("console_exports.title", "Exports and printing");
  el.innerHTML = `<div class="exports-buttons">${EXPORT_KINDS.map(([k, label]) =>
      `<button type="button" class="export" data-kind="${esc(k)}">${esc(label())}</button>`).join("")}</div>
    <p id="exports-status" class="muted" role="status"></p>
    <p><a href="/cards">${esc(t("console_exports.cards", "Print the table cards (QR codes for every seat)"))}</a></p>
    <label for="club-language">${esc(t("console_exports.language", "Default language of the pages"))}</label>
    <select id="club-language"><option value="">${esc(t("console_exports.browser", "each browser's own"))}</option>
      <option value="en">English</option><option value="zh-Hant">中文（繁體）</option></select>`;
  el.querySelectorAll("button.export").forEach(b => b.addEventListener("click", () => download(b.dataset.kind, b)));
  const sel = document.getElementById("club-language");
  try { sel.value = (await api("/api/language")).language || ""; } catch (e) { /* older service */ }
  sel.addEventListener("change", async () => {
    try {
      await api("/api/language", {method: "POST", body: JSON.stringify({language: sel.value || null})}, exportsToken());
      document.getElementById("exports-status").textContent = t("console_exports.languageSet", "Default language saved.");
    } catch (e) { document.getElementById("exports-status").textContent = refusalWords(e); }
  });
}
renderExports();
