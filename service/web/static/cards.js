// The printable table cards: one card per table with each seat's QR code of its reusable card link
// (/seat#card=<code>, service/api/cards.py). The director's token lives in this tab's sessionStorage, as in
// the console; the codes come from the address this page was opened with, so open it with the LAN address.
const SEAT_NAMES = () => ({N: t("cards.N", "North"), E: t("cards.E", "East"), S: t("cards.S", "South"), W: t("cards.W", "West")});
let TOKEN = "";

function cardHtmlFor(c) {
  const names = SEAT_NAMES();
  const seats = ["N", "E", "S", "W"].map(s => {
    const e = c.seats[s];
    return `<div class="seat-cell"><h3>${esc(names[s])}</h3>${e.svg}
      <p class="link">${esc(e.link)}</p>${e.generation ? `<p class="renewed no-print">${esc(t("cards.renewed", "new code: print again"))}</p>` : ""}</div>`;
  }).join("");
  return `<article class="table-card" data-table="${esc(c.table)}"><h2>${esc(t("cards.table", "Table {table}", {table: c.table}))}</h2>
    <p class="event">${esc(c.event || "")}</p><div class="seats">${seats}</div></article>`;
}

function showLogin(msg) {
  document.getElementById("login").hidden = false;
  document.getElementById("login-error").textContent = msg || "";
}

async function load() {
  try {
    const cards = await api("/api/cards", {}, TOKEN);
    document.getElementById("cards").innerHTML = cards.map(cardHtmlFor).join("") ||
      `<p>${esc(t("cards.none", "No tables."))}</p>`;
    document.getElementById("login").hidden = true;
    document.body.dataset.loaded = String(cards.length);
  } catch (e) { showLogin(refusalWords(e)); }
}

document.getElementById("login-form").addEventListener("submit", ev => {
  ev.preventDefault();
  TOKEN = document.getElementById("token-input").value.trim();
  sessionStorage.setItem("bt-token", TOKEN);
  load();
});
document.getElementById("print").addEventListener("click", () => window.print());

(async () => {
  await loadLanguage("cards");
  if (["localhost", "127.0.0.1", "[::1]"].includes(location.hostname)) {
    const w = document.getElementById("host-warning");
    w.hidden = false;
    // the command is code (shown as typed, in every language): {command} in the sentence
    w.innerHTML = esc(t("cards.localhost",
      "This page was opened with {host}: the tablets cannot reach that address. Open it with the address {command} printed for the room.",
      {host: location.host, command: "\u0000"})).replace("\u0000", "<code>make run</code>");
  }
  TOKEN = await credential().catch(() => "");
  if (!TOKEN) { showLogin(); return; }
  load();
})();
