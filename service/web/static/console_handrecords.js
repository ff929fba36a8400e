// The console's hand records (service/api/hand_records.py): the session's hand-record file, read here in the
// browser and sent with its name (the suffix names the format), or a secure set the service deals; what is loaded
// (where it came from, how many boards, whether it can still be replaced) and the service's refusal in its own
// words. The section shows once an event is set up and follows a new event (which has no set yet). The
// director's token is this tab's (sessionStorage), as in console.js.
const HR = {listing: null, busy: false};
const HR_FORMATS = ".pbn,.lin,.csv,.dup,.dlm,.bri,.dge,.ber,.rzd,.cds,.bhg";

function hrToken() { return sessionStorage.getItem("bt-token") || ""; }

function hrSay(text, bad) {
  const el = document.getElementById("hr-status");
  el.textContent = text;
  el.classList.toggle("hr-bad", !!bad);
}

// The file's bytes as base64 (binary formats such as Duplimate's .dup travel unchanged).
async function hrBase64(file) {
  const bytes = new Uint8Array(await file.arrayBuffer());
  let text = "";
  for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(text);
}

function hrSummary(l) {
  if (!l.boards.length) return t("console_handrecords.none", "No hand records yet: import the session's file or generate a secure set.");
  const first = l.boards[0].board, last = l.boards[l.boards.length - 1].board;
  const what = t("console_handrecords.loaded", "Loaded: {source} · {n} boards ({first}–{last})",
                 {source: l.source || "-", n: l.boards.length, first, last});
  return what + " · " + (l.replaceable
    ? t("console_handrecords.replaceable", "can be replaced until the first board starts")
    : t("console_handrecords.frozen", "frozen: the first board has started"));
}

function renderHandRecords() {
  const l = HR.listing;
  const section = document.getElementById("handrecords-section");
  const link = document.getElementById("nav-handrecords");
  section.hidden = link.hidden = !l;
  if (!l) return;
  document.getElementById("hr-summary").textContent = hrSummary(l);
  section.classList.toggle("hr-frozen", !l.replaceable);
  for (const id of ["hr-file", "hr-import", "hr-generate"]) document.getElementById(id).disabled = HR.busy || !l.replaceable;
}

async function loadHandRecords() {
  try {
    // /api/event answers {"event": null} before an event exists: no request that can only fail (404) every 10 s
    const ev = await api("/api/event", {}, hrToken());
    HR.listing = ev.event ? await api("/api/event/hand-records", {}, hrToken()) : null;
  } catch (e) {
    HR.listing = null;                            // not signed in, or the service is away: nothing to offer
  }
  renderHandRecords();
}

async function sendHandRecords(path, body, done) {
  HR.busy = true; renderHandRecords();
  try {
    HR.listing = await api(path, {method: "POST", body: JSON.stringify(body)}, hrToken());
    hrSay(done(HR.listing));
  } catch (e) {
    await loadHandRecords();                      // the refusal is said once the section is up to date again
    hrSay(t("console_handrecords.refused", "Refused: {why}", {why: refusalWords(e)}), true);
  } finally { HR.busy = false; renderHandRecords(); }
}

async function importHandRecords() {
  const input = document.getElementById("hr-file");
  const file = input.files[0];
  if (!file) { hrSay(t("console_handrecords.choose", "Choose the session's hand-record file first."), true); return; }
  hrSay(t("console_handrecords.reading", "Reading {name} ...", {name: file.name}));
  let data;
  try { data = await hrBase64(file); }
  catch (e) { hrSay(t("console_handrecords.unreadable", "The browser cannot read {name}: {why}", {name: file.name, why: refusalWords(e)}), true); return; }
  // the file is read: the field is cleared now, so that a file chosen while this one is sent stays chosen
  input.value = "";
  await sendHandRecords("/api/event/hand-records", {filename: file.name, content_base64: data},
    l => t("console_handrecords.imported", "Imported {name}: {n} boards.", {name: file.name, n: l.boards.length}));
}

async function generateHandRecords() {
  if (HR.listing && HR.listing.boards.length &&
      !confirm(t("console_handrecords.confirm_generate", "Replace the hand records from {source} with a new secure set?", {source: HR.listing.source || "-"}))) return;
  await sendHandRecords("/api/event/hand-records/generate", {},
    l => t("console_handrecords.generated", "A secure set of {n} boards was dealt: nobody can deal it again.", {n: l.boards.length}));
}

async function startHandRecords() {
  const el = document.getElementById("handrecords");
  if (!el) return;
  await loadStrings("console_handrecords");
  document.querySelector("#handrecords-section h2").textContent = t("console_handrecords.title", "Hand records");
  el.innerHTML = `<p id="hr-summary"></p>
    <p class="muted">${esc(t("console_handrecords.help", "The session's hand-record file (PBN, LIN, CSV, Duplimate .dup, Dealer4 .dlm, .bri, .dge, .ber, .rzd, .cds, .bhg) names every board of the event once; it can be replaced until the first board starts. The sheets, the public screen and the exports use it."))}</p>
    <div class="hr-controls">
      <label class="hr-field"><span>${esc(t("console_handrecords.file", "Hand-record file"))}</span>
        <input id="hr-file" type="file" accept="${HR_FORMATS}"></label>
      <button type="button" id="hr-import">${esc(t("console_handrecords.import", "Import the file"))}</button>
      <button type="button" id="hr-generate">${esc(t("console_handrecords.generate", "Generate a secure set"))}</button>
    </div>
    <p id="hr-status" role="status" aria-live="polite"></p>`;
  document.getElementById("hr-import").addEventListener("click", importHandRecords);
  document.getElementById("hr-generate").addEventListener("click", generateHandRecords);
  document.addEventListener("bt-event-changed", () => { hrSay(""); loadHandRecords(); });   // a new event has no set
  const wait = setInterval(() => { if (hrToken()) { clearInterval(wait); loadHandRecords(); } }, 300);
  setInterval(() => { if (!document.hidden && hrToken() && !HR.busy) loadHandRecords(); }, 10000);
}
startHandRecords();
