// The API's documentation, drawn from /openapi.json without any library (works offline). The page's own words
// are translated (locales/zh-Hant/docs.json); the API's descriptions stay as the service writes them.
function schemaText(s, spec, depth = 0) {
  if (!s || depth > 4) return "";
  if (s.$ref) {
    const name = s.$ref.split("/").pop();
    return depth ? esc(name) : `${esc(name)} ${schemaText(spec.components.schemas[name], spec, depth + 1)}`;
  }
  if (s.anyOf) return s.anyOf.map(x => schemaText(x, spec, depth + 1)).join(" | ");
  if (s.enum) return s.enum.map(v => esc(JSON.stringify(v))).join(" | ");
  if (s.const !== undefined) return esc(JSON.stringify(s.const));
  if (s.type === "array") return `[${schemaText(s.items, spec, depth + 1)}]`;
  if (s.type === "object" && s.properties) {
    const req = new Set(s.required || []);
    return "{" + Object.entries(s.properties).map(([k, v]) =>
      `<br>&nbsp;&nbsp;<b>${esc(k)}</b>${req.has(k) ? "" : "?"}: ${schemaText(v, spec, depth + 1)}` +
      (v.description ? ` <span class="muted">${esc(v.description)}</span>` : "")).join("") + "<br>}";
  }
  const lim = ["minimum", "maximum", "maxLength", "pattern"].filter(k => s[k] !== undefined).map(k => `${k} ${esc(s[k])}`);
  return esc(s.type || "any") + (lim.length ? ` <span class="muted">(${lim.join(", ")})</span>` : "");
}

async function load() {
  await loadLanguage("docs");
  const spec = await api("/openapi.json");
  document.getElementById("title").textContent = `${spec.info.title} ${spec.info.version} API`;
  const out = [`<p>${esc(spec.info.description || "")}</p>`];
  for (const [path, ops] of Object.entries(spec.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      const params = (op.parameters || []).map(p => `<div>${esc(t("docs.in." + p.in, p.in))} <b>${esc(p.name)}</b>${p.required ? "" : "?"}: ` +
        `${schemaText(p.schema, spec)} <span class="muted">${esc(p.description || "")}</span></div>`).join("");
      const body = op.requestBody ? `<div>${esc(t("docs.body", "body"))}: ${schemaText(op.requestBody.content["application/json"].schema, spec)}</div>` : "";
      const codes = Object.entries(op.responses || {}).map(([c, r]) => `${esc(c)} ${esc(r.description)}`).join("; ");
      out.push(`<details class="op"><summary><code>${esc(method.toUpperCase())} ${esc(path)}</code> ${esc(op.summary || "")}</summary>` +
        `<div class="muted">${esc(op.description || "")}</div>${params}${body}<div class="muted">${esc(t("docs.answers", "answers"))}: ${codes}</div></details>`);
    }
  }
  document.getElementById("api").innerHTML = out.join("");
  document.getElementById("status").textContent = t("docs.paths", "{n} paths", {n: Object.keys(spec.paths).length});
}
load().catch(e => { document.getElementById("status").textContent = refusalWords(e); });
