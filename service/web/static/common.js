// Shared helpers for the console, seat and spectator pages (plain JS, no build step).
const SUITS = ["S", "H", "D", "C"], SYM = {S: "\u2660", H: "\u2665", D: "\u2666", C: "\u2663", NT: "NT"};
const SEATS = ["N", "E", "S", "W"];
// Language: English, or Chinese in the seed's traditional script (zh-Hant). Chosen by ?lang= (remembered in
// this browser), else the director's default for the club (GET /api/language, when the service offers it), else
// the browser's own languages. Each page's strings go through t(key, english, params): the English text is in
// the code, the Chinese in static/locales/zh-Hant/<page>.json (and common.json); a missing key shows English.
// I18N.ready settles once loadLanguage has the page's own words (common, engine, page): a part of the page that
// renders before then would word the service's sentences in English on a Chinese page, and nothing re-renders.
let languageLoaded = () => {};
const I18N = {lang: "en", dict: {}, parts: [], ready: new Promise(done => { languageLoaded = done; })};
function t(key, english, params) {
  let s = I18N.dict[key] ?? english ?? key;
  if (params) s = s.replace(/\{(\w+)\}/g, (m, k) => params[k] ?? m);
  return s;
}
function chooseLanguage(clubDefault) {
  const asked = new URLSearchParams(location.search).get("lang");
  if (asked === "en" || asked === "zh-Hant") { localStorage.setItem("bt-lang", asked); return asked; }
  const kept = localStorage.getItem("bt-lang");
  if (kept === "en" || kept === "zh-Hant") return kept;
  if (clubDefault === "en" || clubDefault === "zh-Hant") return clubDefault;
  return (navigator.languages || [navigator.language || "en"]).some(l => /^zh\b/i.test(l)) ? "zh-Hant" : "en";
}
// Load the page's strings before its first render; elements with data-i18n="key" get their text from it.
async function loadLanguage(page) {
  let clubDefault = null;
  try { clubDefault = (await api("/api/language")).language; } catch (e) { clubDefault = null; }
  try {
    I18N.lang = chooseLanguage(clubDefault);
    document.documentElement.lang = I18N.lang === "zh-Hant" ? "zh-Hant" : "en";
    if (I18N.lang !== "en") {                 // merged: a part's strings that arrived first stay
      for (const name of ["common", "engine", page, ...I18N.parts]) {
        try { Object.assign(I18N.dict, await (await fetch(`/static/locales/${I18N.lang}/${name}.json`)).json()); }
        catch (e) { /* a missing file leaves English */ }
      }
    }
    applyLanguage(document);
    languageSwitch();
  } finally { languageLoaded(); }
}
// The EN / 中文 switch in the page's header: a link to the same page with ?lang=, which chooseLanguage keeps in
// this browser (localStorage) ahead of the club's default; the page reloads in the other language.
function languageSwitch() {
  const header = document.querySelector("header");
  if (!header || header.querySelector(".lang-switch")) return;
  const nav = document.createElement("nav");
  nav.className = "lang-switch";
  nav.setAttribute("aria-label", t("common.language", "Language"));
  for (const [lang, label] of [["en", "EN"], ["zh-Hant", "中文"]]) {
    const q = new URLSearchParams(location.search);
    q.set("lang", lang);
    const a = document.createElement("a");
    a.href = location.pathname + "?" + q.toString();
    a.lang = lang; a.hreflang = lang; a.textContent = label;
    a.dataset.lang = lang;
    if (lang === I18N.lang) a.setAttribute("aria-current", "true");
    a.addEventListener("click", () => localStorage.setItem("bt-lang", lang));
    nav.appendChild(a);
  }
  header.appendChild(nav);
}
// A part of a page (a console section in its own console_<part>.js) adds its own strings file; loadLanguage
// keeps it when it (re)loads the page's. It returns once the page's words are loaded too (I18N.ready), so the
// part's first render is in the page's language.
async function loadStrings(part) {
  if (!I18N.parts.includes(part)) I18N.parts.push(part);
  let clubDefault = null;
  try { clubDefault = (await api("/api/language")).language; } catch (e) { clubDefault = null; }
  const lang = chooseLanguage(clubDefault);
  if (lang !== "en") {
    try { Object.assign(I18N.dict, await (await fetch(`/static/locales/${lang}/${part}.json`)).json()); }
    catch (e) { /* a missing file leaves English */ }
  }
  await I18N.ready;
}
// Words for the codes the service sends, one mapping per kind: irregularities (common.irr.*), their
// dispositions (common.disp.*), rectification options (common.opt.*) and table phases (common.phase.*). A page
// never shows the code itself: a code without an entry becomes its own words ("FIFTH_CARD_TO_TRICK" -> "Fifth
// card to trick"); the Chinese is in locales/zh-Hant/common.json.
function codeWords(code) {
  const s = String(code || "").replace(/[_:]+/g, " ").trim().toLowerCase();
  return s.charAt(0).toUpperCase() + s.slice(1);
}
function irrText(code) { return t("common.irr." + code, codeWords(code)); }
function phaseText(phase) { return t("common.phase." + phase, codeWords(phase)); }
function suitWord(s) { return t("common.suit." + s, {S: "spades", H: "hearts", D: "diamonds", C: "clubs"}[s] || s); }
function cardWords(c) { return `${SYM[c[0]] || c[0]}${rank(c[1])}`; }
function optionText(code) {
  const [head, arg] = String(code || "").split(":");
  if (arg && /^[SHDC]$/.test(arg)) return t("common.opt." + head + "_suit", codeWords(head) + " {suit}", {suit: suitWord(arg)});
  if (arg && /^[SHDC][AKQJT2-9]$/.test(arg)) return t("common.opt." + head + "_card", codeWords(head) + " {card}", {card: cardWords(arg)});
  return t("common.opt." + code, codeWords(code));
}
function chooserText(chooser) {
  return SEATS.includes(chooser) ? t("common.seat." + chooser, chooser) : t("common.chooser." + chooser, codeWords(chooser));
}
// An irregularity's state: open, ruled while the table complies (the view's "ruling"), or how it was disposed of.
function dispositionText(irr) {
  const d = irr.disposition;
  if (!d) return irr.ruling ? t("common.disp_ruled_open", "ruled: {option}; the table complies", {option: optionText(irr.ruling)})
    : irr.awaiting_choice ? t("common.disp_open", "open: awaiting the ruling") : t("common.disp_pending", "open");
  const i = d.indexOf(":");
  if (i > 0) return t("common.disp_with", "{how}: {option}", {how: t("common.disp." + d.slice(0, i), codeWords(d.slice(0, i))), option: optionText(d.slice(i + 1))});
  return t("common.disp." + d, codeWords(d));
}
// A sentence of the law engine (an irregularity's detail, an option's text) in the page's language: the service
// sends the English and its pieces (<field>_parts: each piece's English, key and parameters, table/texts.py); a
// piece whose key the locale knows (locales/<lang>/engine.json, "engine.<key>") is translated, its parameters
// worded by their names (a seat, a suit, cards, a call); any other piece stays as the service wrote it.
function engineParam(name, value) {
  if (/^(seat|offender|partner|leader|declarer|dummy|claimer)\d*(_name)?$/.test(name) && SEATS.includes(value)) return t("common.seat." + value, {N: "North", E: "East", S: "South", W: "West"}[value]);
  if (/^suit\d*$/.test(name)) return suitWord(value);
  if (name === "one_suit") return I18N.lang === "en" ? ({S: "spade", H: "heart", D: "diamond", C: "club"}[value] || value) : suitWord(value);
  if (/^suits\d*$/.test(name)) return String(value).split("/").map(s => SYM[s] || s).join("/");
  if (/^cards?\d*$/.test(name)) return String(value).split(" ").filter(Boolean).map(cardWords).join(" ");
  if (/^card\d*_name$/.test(name)) return I18N.lang === "en" && /^[SHDC]/.test(value) ? `${({A: "ace", K: "king", Q: "queen", J: "jack"})[value[1]] || rank(value[1])} of ${({S: "spades", H: "hearts", D: "diamonds", C: "clubs"})[value[0]]}` : cardWords(value);
  // a dealing machine's pocket: a seat's, or (no seat) the reject tray
  if (/^pocket\d*$/.test(name)) return SEATS.includes(value) ? t("common.pocket", "{seat} pocket", {seat: t("common.seat." + value, {N: "North", E: "East", S: "South", W: "West"}[value])}) : t("common.reject_tray", "reject tray");
  if (/^call\d*$/.test(name)) return callWords(value);
  if (/^option\d*$/.test(name)) return optionText(value);
  // rectification options listed (", "-joined codes) and whose choice one is (a seat, declarer, the director)
  if (name === "options") return String(value).split(", ").map(optionText).join(I18N.lang === "en" ? ", " : "、");
  if (name === "chooser") return chooserText(value);
  // the system's words for a failed device or file ("[Errno 2] could not open port …"): in another language, the
  // error's number in words where the locale has them (common.errno.<n>), else the system's words as they are
  if ((name === "error" || name === "why") && I18N.lang !== "en") {
    const numbers = [...String(value).matchAll(/\[Errno (\d+)\]/g)];
    if (numbers.length) return t("common.errno." + numbers[numbers.length - 1][1], value);
  }
  // a request's field by its dotted name (a section's index dropped: "sections.0.movement.tables"), several joined
  // by ", "; the values a field takes, as pydantic quotes them ("'skip' or 'relay'")
  if (name === "field" || name === "fields") return String(value).split(", ").map(f => {
    const plain = f.replace(/\.\d+(?=\.|$)/g, "").replace(/^sections\.movement/, "movement");
    return t("common.field." + plain, f);
  }).join(I18N.lang === "en" ? ", " : "、");
  if (name === "expected") {
    if (I18N.lang === "en") return value;
    const values = (String(value).match(/'[^']*'/g) || [value]).map(v => `「${t("common.value." + v.replace(/'/g, ""), v.replace(/'/g, ""))}」`);
    return values.length > 1 ? t("common.or", "{a} or {b}", {a: values.slice(0, -1).join("、"), b: values[values.length - 1]}) : values[0];
  }
  if (/^side\d*$/.test(name) && (value === "NS" || value === "EW")) return value === "NS" ? t("common.ns", "NS") : t("common.ew", "EW");
  if (/^code\d*$/.test(name)) return irrText(value);
  if (name === "disposition") return dispositionText({disposition: value});
  if (name === "kind") return t("common.event." + value, value);
  if (name === "vulnerability") return t("common.vul." + value, value);
  // a dealing machine's decision(s): the API's words in English, the console's button words in another language
  if (name === "decision" || name === "choices") return I18N.lang === "en" ? value
    : String(value).split(", ").map(c => t("console_dealing.choice." + c, c)).join("、");
  if (name === "credential") return t("common.credential." + String(value).replace(/\W+/g, "_"), value);
  return value;
}
function engineText(english, parts) {
  if (!Array.isArray(parts) || !parts.length) return english || "";
  return parts.map(p => {
    const tpl = p.key ? (I18N.lang === "en" ? p.template : I18N.dict["engine." + p.key]) : null;
    if (!tpl) return p.text;
    return tpl.replace(/\{(\w+)\}/g, (m, k) => (p.params && k in p.params) ? engineParam(k, p.params[k]) : m);
  }).join("");
}
function detailText(irr) { return engineText(irr.detail, irr.detail_parts); }
function optionExplained(o) { return engineText(o.text, o.text_parts); }
// A refusal (a 4xx answer, thrown by api()) in the page's language: the service's words, translated when it sent
// their pieces (detail_parts); the status code is for the program, not the reader.
function refusalWords(e) {
  return e && e.detail !== undefined ? engineText(e.detail, e.detailParts) : String(e && e.message || e);
}
// A time of day in the page's language ("下午3:26:51" on a Chinese page, "3:26:51 PM" on an English one).
function clockTime(d) { return (d || new Date()).toLocaleTimeString(I18N.lang === "zh-Hant" ? "zh-Hant" : "en"); }
// A seat where English writes its letter ("seat W", "dealer E"): the letter in English, the seat's name (西) else.
function seatShort(seat) { return I18N.lang === "en" ? seat : t("common.seat." + seat, seat); }
// A call in words for the page: a bid as it is written ("1NT"), Pass, X and XX in the page's language.
function callWords(call) { return call === "Pass" ? t("common.call.Pass", "Pass") : call; }
// An irregularity's label in the page's language (the code rides along as data, never as text).
function codeLabel(code) { return `<span class="irr-name" data-code="${esc(code)}">${esc(irrText(code))}</span>`; }
function applyLanguage(root) {
  root.querySelectorAll("[data-i18n]").forEach(el => { el.textContent = t(el.dataset.i18n, el.textContent); });
  root.querySelectorAll("[data-i18n-title]").forEach(el => { el.title = t(el.dataset.i18nTitle, el.title); });
  root.querySelectorAll("[data-i18n-placeholder]").forEach(el => { el.placeholder = t(el.dataset.i18nPlaceholder, el.placeholder); });
  root.querySelectorAll("[data-i18n-label]").forEach(el => {
    el.setAttribute("aria-label", t(el.dataset.i18nLabel, el.getAttribute("aria-label")));
  });
}
function esc(s) { return String(s ?? "").replace(/[&<>"']/g, c => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"}[c])); }
function rank(r) { return r === "T" ? "10" : r; }
function cardHtml(c, playable) {
  return `<span class="card suit-${c[0]}${playable ? " play" : ""}" data-card="${c}">${SYM[c[0]]}${rank(c[1])}</span>`;
}
function handHtml(cards, playable) {
  if (!cards) return "";
  return SUITS.map(s => `<div class="suit-${s}">${SYM[s]} ` +
    cards.filter(c => c[0] === s).map(c =>
      `<span class="card${playable && playable(c) ? " play" : ""}" data-card="${c}">${rank(c[1])}</span>`).join(" ") +
    "</div>").join("");
}
function callHtml(call) {
  const m = /^([1-7])(C|D|H|S|NT)$/.exec(call);
  return m ? `${m[1]}<span class="suit-${m[2]}">${SYM[m[2]]}</span>` : esc(callWords(call));
}
function contractHtml(c) {
  if (!c) return "-";
  const m = /^([1-7])(C|D|H|S|NT)(X{0,2})$/.exec(c);
  return m ? `${m[1]}<span class="suit-${m[2]}">${SYM[m[2]]}</span>${m[3]}` : esc(c);
}
function auctionHtml(a) {
  if (!a) return `<p class="muted">${esc(t("common.auction_hidden", "The auction is no longer shown (Law 41C): only the contract."))}</p>`;
  const order = ["W", "N", "E", "S"];
  let cells = [];
  for (let i = 0; i < order.indexOf(a.dealer); i++) cells.push("<td></td>");
  let cancelled = {};                       // seat -> struck-through calls shown before the call that stands
  for (const c of a.calls) {
    if (!c.stands) { cancelled[c.seat] = (cancelled[c.seat] || "") + `<span class="cancelled">${callHtml(c.call)}</span> `; continue; }
    const cls = c.alert ? "alerted" : "";
    cells.push(`<td class="${cls}" title="${esc(t("common.seat." + c.seat, c.seat))}${c.alert ? esc(t("common.alerted_mark", " (alerted)")) : ""}">${cancelled[c.seat] || ""}${callHtml(c.call)}</td>`);
    delete cancelled[c.seat];
  }
  for (const seat of Object.keys(cancelled)) cells.push(`<td>${cancelled[seat]}</td>`);
  let rows = [];
  for (let i = 0; i < cells.length; i += 4) rows.push("<tr>" + cells.slice(i, i + 4).join("") + "</tr>");
  const notes = a.calls.filter(c => c.stands && c.explanation);    // alerts' explanations the viewer may read
  return `<table class="auction"><tr>${order.map(s => `<th>${esc(seatShort(s))}</th>`).join("")}</tr>${rows.join("")}</table>` +
    (notes.length ? `<ul class="explanations">${notes.map(c => `<li data-seat="${esc(c.seat)}">${esc(t("common.seat." + c.seat, c.seat))} ${callHtml(c.call)} &mdash; <span class="explanation">${esc(c.explanation)}</span></li>`).join("")}</ul>` : "");
}
function trickHtml(trick) {
  if (!trick) return "";
  const seat = x => esc(t("common.seat." + x, x));
  return `<div>${esc(t("common.trick_n", "trick {n}", {n: trick.number}))}: ` + trick.cards.map(c => `${seat(c.seat)} ${cardHtml(c.card)}`).join(", ") +
    (trick.winner ? ` &rarr; ${seat(trick.winner)}` : "") + "</div>";
}
// Credentials never stay in an address: a one-time sign-in link (#signin=<code>) or a table card (#card=<code>) is
// redeemed for the seat's token, a director's #token= (or an old-style ?token=) is taken off the address bar at
// once; the token then lives in this tab's sessionStorage and travels in a header (docs/security.md). A card's
// code is not kept: it names a table, and the pair moves on (the seat page renews through its token instead).
function takeFromUrl() {
  const hash = new URLSearchParams(location.hash.slice(1));
  const query = new URLSearchParams(location.search);
  const found = {signin: hash.get("signin"), card: hash.get("card"), token: hash.get("token") || query.get("token")};
  if (hash.has("signin") || hash.has("card") || hash.has("token") || query.has("token")) {
    query.delete("token");
    const q = query.toString();
    history.replaceState(null, "", location.pathname + (q ? "?" + q : ""));
  }
  return found;
}
// A link opened in a tab that already shows the page changes only its #fragment: no new page load, so the page
// would go on with its old (perhaps ended) credential. Load the page again to take the new one.
let followsLinks = false;
function reloadOnNewLink() {
  if (followsLinks) return;
  followsLinks = true;
  if (typeof window.addEventListener !== "function") return;     // not a browser (the seat script under Node)
  window.addEventListener("hashchange", () => { if (/[#&](card|signin|token)=/.test(location.hash)) location.reload(); });
}
async function credential() {
  reloadOnNewLink();
  const found = takeFromUrl();
  sessionStorage.removeItem("bt-card");            // kept by earlier versions of the page
  if (found.card || found.signin) {
    const r = await api(found.card ? "/api/signin/card" : "/api/signin",
                        {method: "POST", body: JSON.stringify({code: found.card || found.signin})});
    sessionStorage.setItem("bt-token", r.token);
    return r.token;
  }
  if (found.token) { sessionStorage.setItem("bt-token", found.token); return found.token; }
  return sessionStorage.getItem("bt-token") || "";
}
async function api(path, opts = {}, token = "") {
  const headers = {"Content-Type": "application/json"};
  if (token) headers["Authorization"] = "Bearer " + token;
  const r = await fetch(path, {...opts, headers});
  let body = null;
  try { body = await r.json(); } catch (e) { body = null; }
  if (!r.ok) throw refusal(r, body);
  return body;
}
// The error a refused answer (4xx/5xx) is thrown as: its English in the message, with the status; its fields for
// a page that words it itself; its detail and pieces for refusalWords().
function refusal(r, body) {
  const err = new Error((body && body.detail ? (typeof body.detail === "string" ? body.detail : JSON.stringify(body.detail)) : r.statusText) + ` (${r.status})`);
  err.body = body;                         // the refusal's fields (its code), for a page that words it itself
  err.status = r.status;
  err.detail = body && typeof body.detail === "string" ? body.detail : err.message.replace(/ \(\d+\)$/, "");
  err.detailParts = body && body.detail_parts;  // its pieces, for refusalWords() to word in the page's language
  return err;
}
// A live stream; the token goes as a subprotocol (never in the URL). stillValid() is asked before reconnecting:
// false ends the stream (a credential that ended is not retried for ever).
function stream(path, onMessage, onStatus, token = "", stillValid = null) {
  let delay = 500;
  function open() {
    const url = (location.protocol === "https:" ? "wss://" : "ws://") + location.host + path;
    const ws = token ? new WebSocket(url, ["bridgetable", "bearer." + token]) : new WebSocket(url);
    ws.onopen = () => { delay = 500; onStatus && onStatus("live"); };
    ws.onmessage = ev => onMessage(JSON.parse(ev.data), ws);
    ws.onclose = async () => {
      if (stillValid && !(await stillValid())) { onStatus && onStatus("signed out"); return; }
      onStatus && onStatus("reconnecting"); setTimeout(open, delay); delay = Math.min(delay * 2, 8000);
    };
  }
  open();
}
// A pushed view (the results screen, /ws/results): the first message is the view whole ({type, seq, [type]: view}),
// each later one whole again or a patch of the version held ({type: type + "_patch", from, seq, set: [[path,
// value] or [path], ...]}, service/live/patches.py). A patch of another version than the one held (one was
// missed) reopens the stream, which greets whole. onView gets the view after every message.
function viewStream(path, type, onView, onStatus, token = "") {
  let view = null, seq = null;
  stream(path, (m, ws) => {
    if (m.type === type) { view = m[type]; seq = m.seq; }
    else if (m.type === type + "_patch") {
      if (view === null || m.from !== seq) { view = null; ws.close(); return; }
      for (const [where, ...value] of m.set) {
        const last = where[where.length - 1];
        const parent = where.slice(0, -1).reduce((o, k) => o[k], view);
        if (value.length) parent[last] = value[0]; else delete parent[last];
      }
      seq = m.seq;
    } else return;
    onView(view);
  }, st => { if (st !== "live") view = null; onStatus && onStatus(st); }, token);
}
// The text of a cited law in the edition of the table's current board (the seed's Chinese under 1997, a brief
// quotation with its source under 2017), fetched once per table, board and law. A slot shows the paraphrase the
// view carried until the text arrives; on a page not in Chinese the paraphrase stays and the seed's Chinese
// text folds out beneath it (it is the authoritative wording of the 1997 edition).
const LAW_TEXTS = new Map();      // "table|board|law" -> {value, promise}
function lawKey(law) { return String(law || "").split("/")[0].replace(/[()\s]/g, ""); }
function lawTextHtml(law, paraphrase) {
  // the book's name in the page's language (common.law_source.<edition>); the service names it in English
  const source = I18N.lang === "en" ? law.source : t("common.law_source." + law.edition, law.source);
  const src = law.url ? `<a href="${esc(law.url)}" target="_blank" rel="noopener">${esc(source)}</a>` : esc(source);
  // what the Chinese is when it is not the book's own words: the project's summary of a 2017 entry, or the seed's
  // text standing for a 2017 law that has no entry here
  const note = law.kind === "summary_zh" ? t("common.law_summary_zh", "a Chinese summary of the law, not an official translation")
    : law.fallback && law.lang === "zh" ? t("common.law_seed_for_2017", "the 1997 edition's text of this law (no 2017 text here)") : "";
  const quote = `<span class="law-quote" lang="${law.lang === "zh" ? "zh-Hant" : "en"}">${esc(law.text).replace(/\n/g, "<br>")}</span>` +
    `<br><small>${esc(t("common.law_n", "Law {law}", {law: law.cited}))} &mdash; ${src}${note ? ` (${esc(note)})` : ""}</small>`;
  if (law.lang !== "zh" || I18N.lang === "zh-Hant" || !paraphrase) return quote;
  return `${esc(paraphrase)}<details class="law-seed"><summary>${esc(t("common.law_seed_text", "Show the law's Chinese text (the seed edition)"))}</summary>${quote}</details>`;
}
function lawTextSlot(table, board, law, paraphrase) {
  const key = `${table}|${board ?? ""}|${lawKey(law)}`;
  const known = LAW_TEXTS.get(key);
  const inner = known && known.value ? lawTextHtml(known.value, paraphrase) : esc(paraphrase || "");
  return `<div class="muted law-text" data-key="${esc(key)}" data-paraphrase="${esc(paraphrase || "")}">${inner}</div>`;
}
function lawTexts(root) {
  root.querySelectorAll(".law-text[data-key]").forEach(el => {
    const key = el.dataset.key, [table, , law] = key.split("|");
    if (!law) return;
    let entry = LAW_TEXTS.get(key);
    if (!entry) {
      entry = {value: null, promise: null};
      const lang = I18N.lang === "zh-Hant" ? "&lang=zh" : "";     // the seed's Chinese wording for a Chinese page
      entry.promise = api(`/api/laws/${encodeURIComponent(law)}?table=${encodeURIComponent(table)}${lang}`)
        .then(found => (entry.value = found)).catch(() => null);
      LAW_TEXTS.set(key, entry);
    }
    entry.promise.then(found => { if (found && el.isConnected) el.innerHTML = lawTextHtml(found, el.dataset.paraphrase); });
  });
}
