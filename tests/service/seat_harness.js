// Runs the seat page's own scripts (service/web/static/common.js and seat.js) in Node against a running service: real
// fetch and WebSocket (node --experimental-websocket), a minimal stand-in for the page's elements. It prints a JSON
// line every 200 ms with what the page shows (title, board line, the cards drawn, the signed-out panel) and one
// line per WebSocket message it receives, so a test can follow the page without a browser.
// Usage: node --experimental-websocket seat_harness.js <base url> <fragment, e.g. "#card=..."> <static dir>
"use strict";
const fs = require("fs");
const path = require("path");
const vm = require("vm");

const [base, hash, staticDir] = process.argv.slice(2);
const out = obj => process.stdout.write(JSON.stringify(obj) + "\n");

function universal() {                       // any property, any call: itself (for chains the test does not read)
  const f = function () { return p; };
  const p = new Proxy(f, {
    get(_t, k) {
      if (k === Symbol.toPrimitive) return () => "";
      if (k === Symbol.iterator) return function* () {};
      if (k === "then") return undefined;
      if (k === "length") return 0;
      return p;
    },
    apply() { return p; },
  });
  return p;
}
const elements = {};
function element(id) {
  if (!elements[id]) {
    const store = {id, hidden: false, innerHTML: "", textContent: "", dataset: {}, style: {}, value: "",
                   querySelectorAll: () => [], querySelector: () => null};
    elements[id] = new Proxy(store, {
      get(t, k) { return k in t ? t[k] : universal(); },
      set(t, k, v) { t[k] = v; return true; },
    });
  }
  return elements[id];
}
function storage() {
  const m = {};
  return {getItem: k => (k in m ? m[k] : null), setItem: (k, v) => { m[k] = String(v); }, removeItem: k => { delete m[k]; }};
}
const host = base.replace(/^https?:\/\//, "");
class PageSocket extends WebSocket {          // the page's WebSocket, each message also printed for the test
  constructor(url, protocols) {
    super(url, protocols);
    this.addEventListener("message", ev => out({frame: url, data: String(ev.data)}));
  }
}
const context = {
  console, setTimeout, clearTimeout, setInterval, clearInterval, URLSearchParams, Promise, JSON, Error,
  location: {hash, search: "", pathname: "/seat", protocol: "http:", host},
  history: {replaceState() {}},
  sessionStorage: storage(), localStorage: storage(),
  navigator: {language: "en", languages: ["en"]},
  document: {getElementById: element, documentElement: element("html"), querySelectorAll: () => [],
             querySelector: () => null, addEventListener() {}, createElement: () => universal(), body: universal()},
  fetch: (p, opts) => fetch(p.startsWith("/") ? base + p : p, opts),
  WebSocket: PageSocket,
};
context.window = context;
vm.createContext(context);
process.on("unhandledRejection", e => out({error: String(e && e.stack || e)}));
process.on("uncaughtException", e => out({error: String(e && e.stack || e)}));
for (const name of ["common.js", "seat.js"]) {
  vm.runInContext(fs.readFileSync(path.join(staticDir, name), "utf8"), context, {filename: name});
}
const cards = html => [...html.matchAll(/data-card="(\w\w)" data-seat="(\w)"|<span class="card suit-\w" data-card="(\w\w)"/g)]
  .map(m => m[1] || m[3]);
setInterval(() => {
  const seen = vm.runInContext("({table: TABLE, seat: ME, round: TOKEN ? +TOKEN.split('.')[3] : null, "
    + "board: state && state.board ? state.board.number : null})", context);
  const panel = elements["signed-out"];
  out({...seen, title: element("title").textContent, line: element("board").textContent,
       cards: cards(element("hands").innerHTML), signed_out: panel ? !panel.hidden && panel.innerHTML : false});
}, 200);
