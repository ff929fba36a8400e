// A public board drawn for the results and spectator pages: the four hands in the compass layout, the
// double-dummy tricks of each declarer in each strain, and the par (service/event/public_screen.py sends them only
// for a board the public may see). Needs common.js (t, esc, SYM, SUITS).
const STRAIN_ORDER = ["NT", "S", "H", "D", "C"];
function seatName(s) {
  return t("common.seat." + s, {N: "North", E: "East", S: "South", W: "West"}[s]);
}
function vulText(v) {
  return t("common.vul." + v, {None: "None", NS: "N-S", EW: "E-W", All: "All"}[v] || v);
}
function suitLine(cards, suit) {
  const ranks = cards.filter(c => c[0] === suit).map(c => rank(c[1]));
  const label = t("common.suit." + suit, {S: "spades", H: "hearts", D: "diamonds", C: "clubs"}[suit]);
  return `<div class="suit-line"><span class="suit-${suit}" role="img" aria-label="${esc(label)}">${SYM[suit]}</span> ` +
    `${ranks.length ? ranks.join(" ") : "&mdash;"}</div>`;
}
function diagramHandHtml(seat, cards, dealer) {
  return `<div class="dhand ${seat}"><div class="dseat">${esc(seatName(seat))}` +
    `${seat === dealer ? ` <span class="dealer-mark">${esc(t("common.dealer_short", "dealer"))}</span>` : ""}</div>` +
    SUITS.map(s => suitLine(cards || [], s)).join("") + "</div>";
}
function diagramHtml(board, deal) {
  const centre = `<div class="dcentre"><b>${board}</b><br>${esc(t("common.vulnerable", "Vul"))} ${esc(vulText(deal.vulnerable))}</div>`;
  return `<div class="diagram" role="group" aria-label="${esc(t("common.hands_of", "Hands of board {n}", {n: board}))}">` +
    SEATS.map(s => diagramHandHtml(s, deal.hands[s], deal.dealer)).join("") + centre + "</div>";
}
function strainHead(st) {
  return st === "NT" ? esc(t("common.nt", "NT")) : `<span class="suit-${st}">${SYM[st]}</span>`;
}
function parContractHtml(text) {     // "4SW=", "6HXE-4", "3NTN+1"
  const m = /^([1-7])(NT|S|H|D|C)(X{0,2})([NESW])(.*)$/.exec(text);
  if (!m) return esc(text);
  return `${m[1]}${strainHead(m[2])}${m[3]} ${esc(seatName(m[4]))} ${esc(m[5])}`;
}
function ddHtml(dd) {
  if (!dd) return `<p class="muted dd-wait">${esc(t("common.dd_pending", "Double-dummy analysis: being computed"))}</p>`;
  const head = STRAIN_ORDER.map(st => `<th scope="col">${strainHead(st)}</th>`).join("");
  const rows = ["N", "S", "E", "W"].map(s => `<tr><th scope="row">${esc(seatName(s))}</th>` +
    STRAIN_ORDER.map(st => `<td>${dd.tricks[s][st]}</td>`).join("") + "</tr>").join("");
  const par = dd.par.length ? dd.par.map(parContractHtml).join(", ") : esc(t("common.passed_out", "passed out"));
  const score = dd.par_score > 0 ? `+${dd.par_score}` : String(dd.par_score);
  return `<table class="dd"><caption>${esc(t("common.dd_caption", "Double-dummy tricks"))}</caption>` +
    `<tr><th scope="col"></th>${head}</tr>${rows}</table>` +
    `<p class="par" data-par-score="${dd.par_score}"><b>${esc(t("common.par", "Par"))}</b> ` +
    `${esc(t("common.ns", "NS"))} ${score} &middot; ${par}</p>`;
}
function boardRecordHtml(board, deal) {
  if (!deal) return "";
  return `<div class="record">${diagramHtml(board, deal)}<div class="analysis">${ddHtml(deal.dd)}</div></div>`;
}
