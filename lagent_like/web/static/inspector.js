// lagent-like inspector: plain JavaScript, no build step, no outside requests.
// Every text from the server goes in with textContent, never as HTML.
"use strict";
(function () {
  const SETTINGS = JSON.parse(document.getElementById("settings").textContent);
  // Replaced when a server is connected or disconnected (see reloadCatalogue).
  let CATALOGUE = JSON.parse(document.getElementById("catalogue").textContent);
  const TOKEN = new URLSearchParams(location.search).get("token") || "";
  let uid = 0;

  // -- small helpers ---------------------------------------------------------------
  function h(tag, attrs, ...children) {
    const el = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
      else if (key === "text") el.textContent = value;
      else el.setAttribute(key, value === true ? "" : String(value));
    }
    for (const child of children.flat(Infinity)) {
      if (child === null || child === undefined || child === false) continue;
      el.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return el;
  }
  const nextId = (stem) => `${stem}-${++uid}`;
  const pretty = (value) => JSON.stringify(value, null, 2);
  const codeName = (kind, code) => SETTINGS.codes[kind][String(code)] || "code " + code;

  async function api(path, body, method) {
    const options = { headers: { Authorization: "Bearer " + TOKEN } };
    if (method) options.method = method;
    if (body !== undefined) {
      options.method = method || "POST";
      options.headers["Content-Type"] = "application/json";
      options.body = JSON.stringify(body);
    }
    const response = await fetch(path, options);
    let data;
    try { data = await response.json(); } catch (e) { data = { error: `HTTP ${response.status}` }; }
    if (!response.ok) throw new Error(data.error || `HTTP ${response.status}`);
    return data;
  }

  function copyButton(label, getText) {
    const status = h("span", { class: "muted", role: "status" });
    const button = h("button", { type: "button", "aria-label": "Copy " + label, onclick: async () => {
      const text = getText();
      status.textContent = "";
      try { await navigator.clipboard.writeText(text); status.textContent = "copied"; }
      catch (e) {
        // Clipboard access needs a secure context or a permission; select the text instead.
        const area = h("textarea", { "aria-hidden": "true" }); area.value = text; document.body.append(area);
        area.select(); document.execCommand("copy"); area.remove(); status.textContent = "copied";
      }
    } }, "Copy");
    return h("span", {}, button, " ", status);
  }

  // -- tabs ------------------------------------------------------------------------
  const tabs = ["tab-tools", "tab-traces", "tab-servers"].map((id) => document.getElementById(id));
  function selectTab(tab) {
    for (const other of tabs) {
      const selected = other === tab;
      other.setAttribute("aria-selected", String(selected));
      other.tabIndex = selected ? 0 : -1;
      document.getElementById(other.getAttribute("aria-controls")).hidden = !selected;
    }
    if (tab.id === "tab-traces") loadTraces();
    if (tab.id === "tab-servers") loadServers();
  }
  tabs.forEach((tab, i) => {
    tab.addEventListener("click", () => selectTab(tab));
    tab.addEventListener("keydown", (event) => {
      if (event.key !== "ArrowRight" && event.key !== "ArrowLeft") return;
      const next = tabs[(i + (event.key === "ArrowRight" ? 1 : tabs.length - 1)) % tabs.length];
      selectTab(next); next.focus();
    });
  });

  // -- catalogue -------------------------------------------------------------------
  const list = document.getElementById("tool-list");
  const search = document.getElementById("search");
  const count = document.getElementById("search-count");
  const detail = document.getElementById("tool-detail");
  let current = null;

  function lintTags(entry) {
    const tags = [];
    for (const severity of ["error", "warning"]) {
      const n = entry.lint.filter((f) => f.severity === severity).length;
      if (n) tags.push(h("span", { class: "tag " + severity }, `${n} ${severity}${n > 1 ? "s" : ""}`));
    }
    if (entry.runs_code) tags.push(h("span", { class: "tag" }, "runs code"));
    return tags;
  }

  function renderList() {
    const words = search.value.toLowerCase().split(/\s+/).filter(Boolean);
    const shown = CATALOGUE.filter((e) => words.every((w) => e.search.includes(w)));
    const items = shown.map((entry) => h("li", {}, h("button", {
      type: "button", "data-name": entry.name, "aria-current": entry.name === current ? "true" : null,
      onclick: () => openTool(entry.name, true),
    }, entry.name, lintTags(entry))));
    list.replaceChildren(...items);
    count.textContent = `${shown.length} of ${CATALOGUE.length} APIs`;
  }
  search.addEventListener("input", renderList);

  function exportPane(title, value) {
    const text = pretty(value);
    return h("section", { class: "export", "aria-label": title },
      h("header", {}, h("h4", {}, title), copyButton(title, () => text)),
      h("pre", { tabindex: "0", "aria-label": title + " (JSON)" }, text));
  }

  const entries = new Map();
  async function openTool(name, focus) {
    let entry = entries.get(name);
    if (!entry) {
      try { entry = await api("/api/tools/" + encodeURIComponent(name)); }
      catch (e) { detail.replaceChildren(h("p", { class: "bad", role: "alert" }, "Error: " + e.message)); return; }
      entries.set(name, entry);
    }
    showTool(entry, focus);
  }

  function showTool(entry, focus) {
    current = entry.name;
    for (const button of list.querySelectorAll("button")) {
      if (button.dataset.name === entry.name) button.setAttribute("aria-current", "true");
      else button.removeAttribute("aria-current");
    }
    const ex = entry.exports;
    const findings = entry.lint.length
      ? h("ul", { class: "findings" }, entry.lint.map((f) =>
          h("li", {}, h("span", { class: "tag " + f.severity }, f.severity), " ", h("code", {}, f.code), ": ", f.message)))
      : h("p", { class: "ok" }, "No findings.");
    const result = h("div", { class: "box result", role: "region", "aria-live": "polite", "aria-label": "Result" },
      h("p", { class: "muted" }, "No call yet."));
    detail.replaceChildren(
      h("h2", { id: "tool-title" }, entry.name, lintTags(entry)),
      h("p", {}, entry.description.description || h("em", {}, "(no description)")),
      h("h3", {}, "What the model is told"),
      h("div", { class: "exports" },
        exportPane("Lagent description (system prompt)", entry.description),
        exportPane("OpenAI", ex.openai), exportPane("OpenAI strict", ex.openai_strict),
        exportPane("Anthropic", ex.anthropic), exportPane("Gemini", ex.gemini), exportPane("MCP", ex.mcp)),
      h("h3", {}, "Lint findings"), findings,
      h("h3", {}, "Try it"),
      entry.callable ? tryPanels(entry, result)
        : h("p", { class: "warn", role: "note" }, "This tool runs code. Calling it from the page needs the operator's flag: restart with --allow-code."),
      result);
    if (focus) detail.focus();
  }

  // -- the form from the JSON Schema -----------------------------------------------
  function unwrap(schema) {
    // Optional[X] arrives as anyOf [X, null]: the form shows X and leaves it empty for none.
    const options = schema.anyOf || schema.oneOf;
    if (Array.isArray(options)) {
      const real = options.filter((s) => s.type !== "null");
      if (real.length === 1) return Object.assign({}, schema, real[0], { anyOf: undefined, oneOf: undefined });
    }
    if (Array.isArray(schema.type)) {
      const real = schema.type.filter((t) => t !== "null");
      if (real.length === 1) return Object.assign({}, schema, { type: real[0] });
    }
    return schema;
  }

  // Each builder returns {element, read}; read() gives {present, value} or throws Error(text).
  function fieldFor(rawSchema, label, required, path) {
    const schema = unwrap(rawSchema || {});
    const id = nextId("f");
    const hintId = id + "-hint";
    const hints = [];
    if (schema.description) hints.push(schema.description);
    if (schema.default !== undefined) hints.push("default: " + JSON.stringify(schema.default));
    const labelText = `${label}${required ? " (required)" : " (optional)"}`;
    const hint = hints.length ? h("p", { class: "hint", id: hintId }, hints.join(" · ")) : null;
    const described = hint ? hintId : null;

    if (Array.isArray(schema.enum)) {
      const select = h("select", { id, "aria-describedby": described, "data-path": path },
        required ? null : h("option", { value: "" }, "(not given)"),
        schema.enum.map((v, i) => h("option", { value: String(i) }, JSON.stringify(v))));
      return { element: h("div", { class: "field" }, h("label", { for: id }, labelText), hint, select),
        read: () => select.value === "" ? { present: false } : { present: true, value: schema.enum[Number(select.value)] } };
    }
    if (schema.type === "boolean") {
      const select = h("select", { id, "aria-describedby": described, "data-path": path },
        required ? null : h("option", { value: "" }, "(not given)"),
        h("option", { value: "true" }, "true"), h("option", { value: "false" }, "false"));
      return { element: h("div", { class: "field" }, h("label", { for: id }, labelText), hint, select),
        read: () => select.value === "" ? { present: false } : { present: true, value: select.value === "true" } };
    }
    if (schema.type === "integer" || schema.type === "number") {
      const input = h("input", { id, type: "number", step: schema.type === "integer" ? "1" : "any",
        required, "aria-describedby": described, "data-path": path });
      return { element: h("div", { class: "field" }, h("label", { for: id }, labelText), hint, input),
        read: () => {
          if (input.value.trim() === "") return { present: false };
          const n = Number(input.value);
          if (!Number.isFinite(n)) throw new Error(`${label}: not a number`);
          return { present: true, value: n };
        } };
    }
    if (schema.type === "string") {
      const input = h("input", { id, type: "text", required, "aria-describedby": described, "data-path": path });
      return { element: h("div", { class: "field" }, h("label", { for: id }, labelText), hint, input),
        read: () => input.value === "" && !required ? { present: false } : { present: true, value: input.value } };
    }
    if (schema.type === "array" && schema.items && !Array.isArray(schema.items)) {
      const rows = [];
      const holder = h("ol", {});
      const legend = h("legend", {}, labelText);
      const add = h("button", { type: "button", "aria-label": `Add an item to ${label}` }, "Add item");
      const fieldset = h("fieldset", { "data-path": path }, legend, hint, holder, add);
      add.addEventListener("click", () => {
        const row = {};
        row.field = fieldFor(schema.items, `${label} item`, true, `${path}[]`);
        const remove = h("button", { type: "button" }, "Remove");
        row.li = h("li", {}, row.field.element, remove);
        row.remove = remove;
        remove.addEventListener("click", () => { rows.splice(rows.indexOf(row), 1); row.li.remove(); renumber(); add.focus(); });
        rows.push(row); holder.append(row.li); renumber();
        const first = row.li.querySelector("input, select, textarea"); if (first) first.focus();
      });
      function renumber() {
        rows.forEach((row, i) => {
          const lab = row.li.querySelector("label, legend");
          if (lab) lab.firstChild.textContent = `${label} item ${i + 1}`;
          row.remove.setAttribute("aria-label", `Remove ${label} item ${i + 1}`);
        });
      }
      return { element: fieldset, read: () => {
        if (!rows.length && !required) return { present: false };
        return { present: true, value: rows.map((row) => { const r = row.field.read(); return r.present ? r.value : null; }) };
      } };
    }
    if (schema.type === "object" && schema.properties) {
      const group = objectFields(schema, path);
      return { element: h("fieldset", { "data-path": path }, h("legend", {}, labelText), hint, group.elements),
        read: () => { const value = group.read(); return !required && !Object.keys(value).length ? { present: false } : { present: true, value }; } };
    }
    // Anything else (unions, free-form objects, tuples): a JSON value typed by hand.
    const area = h("textarea", { id, rows: "2", required, "aria-describedby": described, "data-path": path });
    const jsonHint = h("p", { class: "hint" }, "a JSON value" + (schema.type ? ` (${JSON.stringify(schema.type)})` : ""));
    return { element: h("div", { class: "field" }, h("label", { for: id }, labelText), hint, jsonHint, area),
      read: () => {
        if (area.value.trim() === "") return { present: false };
        try { return { present: true, value: JSON.parse(area.value) }; }
        catch (e) { throw new Error(`${label}: not valid JSON (${e.message})`); }
      } };
  }

  function objectFields(schema, path) {
    const required = new Set(schema.required || []);
    const fields = Object.entries(schema.properties || {}).map(([name, sub]) =>
      [name, fieldFor(sub, name, required.has(name), path ? `${path}.${name}` : name)]);
    return {
      elements: fields.map(([, f]) => f.element),
      read: () => {
        const value = {};
        for (const [name, f] of fields) { const r = f.read(); if (r.present) value[name] = r.value; }
        return value;
      },
    };
  }

  function tryPanels(entry, result) {
    const group = objectFields(entry.schema, "");
    const formError = h("p", { class: "bad", role: "alert" });
    const form = h("form", { "aria-label": "Arguments form for " + entry.name, class: "box" },
      h("h4", {}, "Form (from the JSON Schema)"),
      group.elements.length ? group.elements : h("p", { class: "muted" }, "This API takes no arguments."),
      formError, h("button", { type: "submit", class: "primary" }, "Call"));
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      let value;
      try { value = group.read(); formError.textContent = ""; }
      catch (e) { formError.textContent = e.message; return; }
      call(entry.name, value, result);
    });
    const rawId = nextId("raw");
    const raw = h("textarea", { id: rawId, rows: "6", spellcheck: "false", "aria-describedby": rawId + "-hint" });
    const example = {};
    for (const p of entry.description.required || []) example[p] = "";
    raw.value = JSON.stringify(example);
    const rawForm = h("form", { "aria-label": "Raw arguments for " + entry.name, class: "box raw-form" },
      h("h4", {}, "Raw arguments"),
      h("label", { for: rawId }, "Arguments as a model would write them"),
      h("p", { class: "hint", id: rawId + "-hint" }, "Sent as text, unchanged: dirty JSON, code fences, Python literals or tuple syntax go through the tool's parser."),
      raw, h("button", { type: "submit", class: "primary" }, "Call with raw arguments"));
    rawForm.addEventListener("submit", (event) => { event.preventDefault(); call(entry.name, raw.value, result); });
    return h("div", { class: "try" }, form, rawForm);
  }

  // Files come with the token in the Authorization header, never in a link (links
  // leak to logs and history): the page fetches them and hands the browser a blob.
  async function fileBlob(href) {
    const response = await fetch(href, { headers: { Authorization: "Bearer " + TOKEN } });
    if (!response.ok) {
      let data;
      try { data = await response.json(); } catch (e) { data = {}; }
      throw new Error(data.error || `HTTP ${response.status}`);
    }
    return response.blob();
  }

  async function download(event, item) {
    event.preventDefault();
    try {
      const blob = await fileBlob(item.href);
      const url = URL.createObjectURL(new Blob([blob], { type: "application/octet-stream" }));
      const name = String(item.content).split(/[\\/]/).pop() || "file";
      const link = h("a", { href: url, download: name });
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(url), 60000);
    } catch (e) {
      event.target.after(h("span", { class: "bad", role: "alert" }, " Error: " + e.message));
    }
  }

  async function call(name, argumentsValue, result) {
    result.replaceChildren(h("p", { class: "muted" }, "Calling " + name + "…"));
    const started = performance.now();
    try {
      const answer = await api("/api/call", { name, arguments: argumentsValue });
      result.replaceChildren(...renderCall(answer, performance.now() - started));
    } catch (e) {
      result.replaceChildren(h("p", { class: "bad", role: "alert" }, "Error: " + e.message));
    }
    loadHistory();
  }

  // -- call history and "open in Try it" -------------------------------------------
  const historyList = document.getElementById("history-list");
  const historyEmpty = document.getElementById("history-empty");
  const argumentsText = (value) => typeof value === "string" ? value : JSON.stringify(value);

  async function loadHistory() {
    let calls;
    try { calls = await api("/api/history"); } catch (e) { historyEmpty.textContent = "Error: " + e.message; return; }
    historyEmpty.hidden = calls.length > 0;
    historyList.replaceChildren(...calls.map((c) => h("li", {}, h("button", {
      type: "button", "data-call": c.id, title: argumentsText(c.arguments),
      "aria-label": `Open call ${c.id} again: ${c.name} ${argumentsText(c.arguments)}, ${codeName("state", c.state)}`,
      onclick: () => openInTry(c.name, argumentsText(c.arguments)),
    }, `${c.id}. ${c.name}`, h("span", { class: "tag" }, codeName("state", c.state))))));
  }

  // Show the API on the Tools tab with ``text`` in its raw box, ready to edit and call.
  async function openInTry(name, text) {
    selectTab(tabs[0]);
    await openTool(name, false);
    const raw = detail.querySelector("form.raw-form textarea");
    if (!raw) return;
    raw.value = text;
    raw.scrollIntoView({ block: "center" });
    raw.focus();
  }

  function renderItems(items) {
    if (!items || !items.length) return h("p", { class: "muted" }, "(no result items)");
    return h("ol", { class: "items" }, items.map((item, i) => {
      const type = item.type || "text";
      if (type === "image" && item.href) {
        const img = h("img", { class: "result", alt: `image result ${i + 1}: ${item.content}` });
        fileBlob(item.href).then((blob) => { if (blob.type.startsWith("image/")) img.src = URL.createObjectURL(blob); })
          .catch((e) => img.replaceWith(h("span", { class: "bad" }, "Error: " + e.message)));
        return h("li", {}, `image: ${item.content}`, h("br"), img);
      }
      if (item.href) return h("li", {}, `${type}: `, h("a", { href: "#", onclick: (e) => download(e, item) }, String(item.content)));
      if (item.not_served) return h("li", {}, `${type}: `, h("code", {}, String(item.content)), " ", h("span", { class: "muted" }, item.not_served));
      if (type === "text") return h("li", {}, "text:", h("pre", { tabindex: "0" }, String(item.content)));
      return h("li", {}, `${type}: `, h("code", {}, typeof item.content === "string" ? item.content : JSON.stringify(item.content)));
    }));
  }

  function renderRecord(record, repairs, extra) {
    const ok = record.state === 0;
    const facts = [
      ["state", h("span", { class: ok ? "ok" : "bad" }, `${codeName("state", record.state)} (${record.state})`)],
      ["valid", `${codeName("valid", record.valid)} (${record.valid})`],
      ["errmsg", record.errmsg === null ? h("span", { class: "muted" }, "none") : h("pre", { class: "bad" }, record.errmsg)],
      ["attempts", String(record.attempts)],
    ].concat(extra || []);
    if (record.args) facts.push(["arguments read", h("pre", {}, pretty(record.args))]);
    const repairList = repairs && repairs.length
      ? h("ul", { class: "repairs", "aria-label": "Repairs" }, repairs.map((r) => h("li", {}, r)))
      : h("p", { class: "muted repairs-none" }, "Nothing repaired: the arguments were read as written.");
    return [
      h("dl", { class: "facts" }, facts.map(([k, v]) => [h("dt", {}, k), h("dd", {}, v)])),
      h("h4", {}, "What the lenient parser repaired"), repairList,
      h("h4", {}, "Result items"), renderItems(record.result),
    ];
  }

  function renderCall(answer, roundTripMs) {
    const record = answer.record;
    const time = `${(answer.seconds * 1000).toFixed(2)} ms in the executor, ${roundTripMs.toFixed(1)} ms round trip`;
    const body = renderRecord(Object.assign({}, record, { result: answer.items }), answer.repairs, [["time", time]]);
    return [h("h4", { class: "result-title" }, `Result: ${codeName("state", record.state)}`), ...body];
  }

  // -- traces ----------------------------------------------------------------------
  const traceList = document.getElementById("trace-list");
  const traceDetail = document.getElementById("trace-detail");
  const traceStatus = document.getElementById("trace-status");
  let currentTrace = null;
  let poll = null;
  let following = null;

  const traceSearch = document.getElementById("trace-search");
  const traceCount = document.getElementById("trace-count");
  let allTraces = [];

  function renderTraces() {
    const words = traceSearch.value.toLowerCase().split(/\s+/).filter(Boolean);
    const text = (t) => `${t.id}. ${t.title} ${t.running ? "running" : t.stop_reason}`.toLowerCase();
    const shown = allTraces.filter((t) => words.every((w) => text(t).includes(w)));
    traceList.replaceChildren(...shown.map((t) => h("li", {}, h("button", {
      type: "button", "data-trace": t.id, "aria-current": currentTrace === t.id ? "true" : null,
      onclick: () => openTrace(t.id, 0),
    }, `${t.id}. ${t.title}`, h("span", { class: "tag" }, t.running ? "running" : `${t.turns} turns, ${t.stop_reason}`)))));
    traceCount.textContent = `${shown.length} of ${allTraces.length} traces`;
  }
  traceSearch.addEventListener("input", renderTraces);

  async function loadTraces(select) {
    try {
      allTraces = await api("/api/traces");
      renderTraces();
      if (select) openTrace(select, 0);
    } catch (e) { traceStatus.textContent = "Error: " + e.message; }
  }

  document.getElementById("trace-file").addEventListener("change", async (event) => {
    const file = event.target.files[0];
    if (!file) return;
    try {
      const trace = JSON.parse(await file.text());
      const answer = await api("/api/traces", { trace, title: file.name });
      traceStatus.textContent = `Opened ${file.name}.`;
      await loadTraces(answer.id);
    } catch (e) { traceStatus.textContent = `Could not open ${file.name}: ${e.message}`; }
  });

  if (SETTINGS.agent) {
    document.getElementById("ask-box").hidden = false;
    document.getElementById("ask-form").addEventListener("submit", async (event) => {
      event.preventDefault();
      const question = document.getElementById("question");
      try {
        const answer = await api("/api/ask", { question: question.value });
        traceStatus.textContent = "Asked; the run shows turn by turn.";
        await loadTraces(answer.id);
      } catch (e) { traceStatus.textContent = "Error: " + e.message; }
    });
  }

  function messageView(message) {
    let content = message.content;
    if (typeof content !== "string") content = pretty(content);
    const parts = [h("strong", {}, message.role + ":"), h("pre", {}, content || "")];
    if (message.tool_calls) parts.push(h("pre", {}, "tool_calls: " + pretty(message.tool_calls)));
    return h("div", { class: "message" }, parts);
  }

  const OUTCOMES = { action: "tool call", final_answer: "final answer", no_action: "no action found", parse_error: "unreadable action" };

  function turnView(trace, turn, previousSent) {
    const sent = turn.messages_sent == null ? null : trace.messages.slice(0, turn.messages_sent);
    const fresh = sent ? sent.slice(previousSent) : [];
    const sections = [h("h3", { id: "turn-heading", tabindex: "-1" }, `Turn ${turn.index}: ${OUTCOMES[turn.outcome] || turn.outcome}`)];
    if (turn.repeat_of) sections.push(h("p", { class: "warn" }, `Repeats the call of turn ${turn.repeat_of}.`));
    sections.push(h("h4", {}, "Messages sent"));
    if (sent) {
      sections.push(h("p", { class: "muted" }, `${sent.length} messages; new since the last turn:`), fresh.map(messageView),
        h("details", {}, h("summary", {}, `All ${sent.length} messages`), sent.map(messageView)));
    } else sections.push(h("p", { class: "muted" }, "not recorded (the run is still going, or an older trace)"));
    const failed = turn.outcome === "parse_error" || turn.outcome === "no_action";
    const raw = h("pre", { tabindex: "0", "aria-label": "Model output" }, turn.model_text || "(empty)");
    if (failed) {
      const why = turn.action_return ? turn.action_return.errmsg : "";
      sections.push(h("h4", {}, "The parse failed"), h("div", { class: "side-by-side failed-parse" },
        h("section", { class: "box" }, h("h5", {}, "The text that failed"), raw),
        h("section", { class: "box" }, h("h5", {}, "What the model was told"), h("pre", { class: "bad" }, why || ""))));
    } else {
      sections.push(h("h4", {}, "Model output (raw)"), raw);
    }
    const parsed = [["outcome", OUTCOMES[turn.outcome] || turn.outcome]];
    if (turn.thought) parsed.push(["thought", turn.thought]);
    if (turn.action) parsed.push(["action", h("code", {}, turn.action)]);
    if (turn.action_input !== null && turn.action_input !== undefined) parsed.push(["action input", h("pre", {}, turn.action_input)]);
    if (turn.tool_calls) parsed.push(["tool calls", h("pre", {}, pretty(turn.tool_calls))]);
    sections.push(h("h4", {}, "Parsed action"), h("dl", { class: "facts" }, parsed.map(([k, v]) => [h("dt", {}, k), h("dd", {}, v)])));
    const tracedCalls = turn.tool_calls
      ? turn.tool_calls.map((c) => [c.function && c.function.name, c.function && c.function.arguments])
      : turn.action ? [[turn.action, turn.action_input == null ? "" : turn.action_input]] : [];
    const openers = tracedCalls.filter(([name]) => name).map(([name, args]) => h("button", {
      type: "button", class: "open-in-try", onclick: () => openInTry(name, argumentsText(args == null ? "" : args)),
    }, `Open ${name} in Try it`));
    if (openers.length) sections.push(h("p", { class: "turn-nav" }, openers));
    const returns = turn.tool_returns || (turn.action_return ? [turn.action_return] : []);
    returns.forEach((record, i) => {
      sections.push(h("h4", {}, returns.length > 1 ? `ActionReturn ${i + 1}` : "ActionReturn"));
      sections.push(record ? h("div", { class: "box" }, renderRecord(record, record.repairs)) : h("p", {}, "(a call without a function name)"));
    });
    const timing = [];
    if (turn.model_seconds != null) timing.push(["model", `${(turn.model_seconds * 1000).toFixed(1)} ms`]);
    if (turn.tool_seconds != null) timing.push(["tools and parsing", `${(turn.tool_seconds * 1000).toFixed(1)} ms`]);
    if (turn.usage) {
      for (const [k, v] of Object.entries(turn.usage)) {
        if (typeof v === "number") timing.push([k.replace(/_/g, " "), String(v)]);
      }
    } else {
      timing.push(["tokens", "not reported by the server"]);
    }
    sections.push(h("h4", {}, "Timings and tokens"), h("dl", { class: "facts timing" }, timing.map(([k, v]) => [h("dt", {}, k), h("dd", {}, v)])));
    if (turn.observation != null) sections.push(h("h4", {}, "Observation sent back"), h("pre", {}, turn.observation));
    return sections;
  }

  // -- a run's time line: model and tool time per turn, with totals ----------------
  const ms = (seconds) => `${(seconds * 1000).toFixed(1)} ms`;
  function turnTokens(turn) {
    const u = turn.usage;
    if (!u) return null;
    if (typeof u.total_tokens === "number") return u.total_tokens;
    const parts = ["prompt_tokens", "completion_tokens", "input_tokens", "output_tokens"].map((k) => u[k]);
    return parts.some((v) => typeof v === "number") ? parts.reduce((a, v) => a + (typeof v === "number" ? v : 0), 0) : null;
  }

  function timeLine(turns) {
    if (!turns.length) return [];
    const model = turns.reduce((a, t) => a + (t.model_seconds || 0), 0);
    const tools = turns.reduce((a, t) => a + (t.tool_seconds || 0), 0);
    const counted = turns.map(turnTokens).filter((n) => n !== null);
    const tokens = counted.length ? String(counted.reduce((a, n) => a + n, 0)) : "not reported by the server";
    const longest = Math.max(...turns.map((t) => (t.model_seconds || 0) + (t.tool_seconds || 0)), 1e-9);
    const bar = (cls, seconds) => h("span", { class: "bar " + cls, style: `width: ${(100 * seconds / longest).toFixed(1)}%` });
    const rows = turns.map((t) => h("li", {},
      h("span", { class: "line-text" }, `Turn ${t.index}: model ${ms(t.model_seconds || 0)}, tools ${ms(t.tool_seconds || 0)}`),
      h("span", { class: "bars", "aria-hidden": "true" }, bar("model", t.model_seconds || 0), bar("tools", t.tool_seconds || 0))));
    const list = h("ol", { class: "time-line", "aria-label": "Time line" }, rows);
    return [h("h3", {}, "Time line"),
      h("dl", { class: "facts totals", "aria-label": "Totals" },
        h("dt", {}, "turns"), h("dd", {}, String(turns.length)),
        h("dt", {}, "model"), h("dd", {}, ms(model)),
        h("dt", {}, "tools and parsing"), h("dd", {}, ms(tools)),
        h("dt", {}, "total"), h("dd", {}, ms(model + tools)),
        h("dt", {}, "tokens"), h("dd", {}, tokens)),
      h("p", { class: "hint" }, "Each bar: the model's time (blue), then the tools' (brown), to the scale of the longest turn."),
      list];
  }

  async function openTrace(id, position) {
    if (poll) { clearTimeout(poll); poll = null; }
    if (following && following.id !== id) { following.stop.abort(); following = null; }
    let trace;
    try { trace = await api("/api/traces/" + encodeURIComponent(id)); }
    catch (e) { traceStatus.textContent = "Error: " + e.message; return; }
    showTrace(id, trace, position);
    if (trace.running && !following) follow(id);
  }

  // A live run is pushed by the server (Server-Sent Events) as it changes: the page
  // follows its latest turn without asking again. Read with fetch, not EventSource,
  // so that the token goes in the Authorization header as for every other request.
  async function follow(id) {
    const stop = new AbortController();
    following = { id, stop };
    try {
      const response = await fetch(`/api/traces/${encodeURIComponent(id)}/events`,
        { headers: { Authorization: "Bearer " + TOKEN }, signal: stop.signal });
      if (!response.ok || !response.body) throw new Error(`HTTP ${response.status}`);
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        let cut;
        while ((cut = buffer.indexOf("\n\n")) >= 0) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          const data = block.split("\n").filter((l) => l.startsWith("data: ")).map((l) => l.slice(6)).join("\n");
          if (!data || block.startsWith("event: end")) continue;
          const trace = JSON.parse(data);
          if (currentTrace === id) showTrace(id, trace, Number.MAX_SAFE_INTEGER);
          if (!trace.running) loadTraces();
        }
      }
    } catch (e) {
      if (stop.signal.aborted) return;
      // The stream broke (a proxy, a restart): ask again, as before streams.
      if (currentTrace === id) poll = setTimeout(() => { following = null; openTrace(id, Number.MAX_SAFE_INTEGER); }, 700);
      return;
    } finally {
      if (following && following.stop === stop) following = null;
    }
  }

  function showTrace(id, trace, position) {
    currentTrace = id;
    for (const b of traceList.querySelectorAll("button")) {
      if (b.dataset.trace === id) b.setAttribute("aria-current", "true"); else b.removeAttribute("aria-current");
    }
    const turns = trace.turns;
    const at = Math.max(0, Math.min(position, turns.length - 1));
    const head = [h("h2", {}, trace.title),
      h("dl", { class: "facts" },
        h("dt", {}, "status"), h("dd", {}, trace.running ? "running" : `ended: ${trace.stop_reason}`),
        h("dt", {}, "answer"), h("dd", {}, trace.answer === null ? h("span", { class: "muted" }, "none") : trace.answer),
        trace.error ? [h("dt", {}, "error"), h("dd", { class: "bad" }, trace.error)] : null,
        trace.running && trace.live ? [h("dt", {}, `turn ${trace.live.turn} so far`), h("dd", { class: "live-turn" },
          h("pre", { "aria-label": "Model output so far" }, trace.live.model_text || "(empty)"),
          trace.live.calls.map((c) => h("p", {}, "calling ", h("code", {}, c.name), " ", h("code", {}, argumentsText(c.arguments)))))] : null,
        trace.running && trace.progress && trace.progress.length ? [h("dt", {}, `${trace.progress[0].tool} so far`),
          h("dd", {}, h("pre", {}, trace.progress.map(p => typeof p.chunk === "string" ? p.chunk : JSON.stringify(p.chunk)).join("")))] : null)];
    if (!turns.length) {
      traceDetail.replaceChildren(...head, h("p", {}, "No turns yet."));
    } else {
      const prev = h("button", { type: "button", disabled: at === 0, onclick: () => showAt(at - 1) }, "Previous turn");
      const next = h("button", { type: "button", disabled: at === turns.length - 1, onclick: () => showAt(at + 1) }, "Next turn");
      const jump = h("ol", { class: "turn-jump", "aria-label": "Turns" }, turns.map((t, i) => h("li", {}, h("button", {
        type: "button", "aria-current": i === at ? "step" : null, onclick: () => showAt(i),
      }, `Turn ${t.index}: ${OUTCOMES[t.outcome] || t.outcome}`))));
      const previousSent = at > 0 && turns[at - 1].messages_sent != null ? turns[at - 1].messages_sent : 0;
      traceDetail.replaceChildren(...head, ...timeLine(turns),
        h("nav", { class: "turn-nav", "aria-label": "Turn navigation" }, prev,
          h("span", { id: "turn-position", role: "status" }, `Turn ${at + 1} of ${turns.length}`), next),
        h("details", {}, h("summary", {}, "All turns"), jump),
        h("article", { class: "turn", "aria-labelledby": "turn-heading" }, turnView(trace, turns[at], previousSent)));
    }
    function showAt(i) { openTrace(id, i).then(() => { const t = document.getElementById("turn-heading"); if (t) t.focus(); }); }
  }

  // -- MCP servers: connect, reconnect, disconnect -----------------------------------
  const serverList = document.getElementById("server-list");
  const serverStatus = document.getElementById("server-status");
  const STATUS_CLASS = { connected: "ok", failed: "bad", disconnected: "muted" };

  // The tools changed: the list, the counts and search follow, and opened entries are re-read.
  async function reloadCatalogue() {
    CATALOGUE = await api("/api/tools?index=1");
    entries.clear();
    if (current && !CATALOGUE.some((e) => e.name === current)) {
      current = null;
      detail.replaceChildren(h("p", { class: "muted" }, "Choose a tool on the left."));
    }
    renderList();
  }

  function serverView(server) {
    const act = (label, run) => h("button", { type: "button", "data-action": label.toLowerCase(), onclick: run }, label);
    const buttons = [act("Reconnect", () => changeServer(server, "reconnect"))];
    if (server.status === "connected") buttons.push(act("Disconnect", () => changeServer(server, "disconnect")));
    else buttons.push(act("Remove", () => changeServer(server, "remove")));
    return h("li", { "data-server": server.id, "aria-label": `${server.name || server.target}: ${server.status}` },
      h("h3", {}, server.name || "(not connected yet)", h("span", { class: "tag " + (STATUS_CLASS[server.status] || "") }, server.status)),
      h("dl", { class: "facts" },
        h("dt", {}, server.kind === "url" ? "URL" : "command"), h("dd", {}, h("code", {}, server.target)),
        h("dt", {}, "tools"), h("dd", {}, server.tools.length ? server.tools.join(", ") : h("span", { class: "muted" }, "none")),
        server.at_start ? [h("dt", {}, "given"), h("dd", {}, "at start (--mcp)")] : null),
      server.error ? h("pre", { class: "bad server-error", role: "alert" }, server.error) : null,
      h("p", { class: "turn-nav" }, buttons));
  }

  async function loadServers() {
    try {
      const answer = await api("/api/servers");
      document.getElementById("server-target-hint").textContent = answer.commands
        ? "An http(s) URL (streamable HTTP) or a command line that starts a stdio server."
        : "An http(s) URL (streamable HTTP). Command lines need the inspector started with --allow-connect-commands.";
      document.getElementById("servers-empty").hidden = answer.servers.length > 0;
      serverList.replaceChildren(...answer.servers.map(serverView));
    } catch (e) { serverStatus.textContent = "Error: " + e.message; }
  }

  async function changeServer(server, action) {
    const label = server.name || server.target;
    serverStatus.textContent = `${action === "reconnect" ? "Reconnecting" : action === "remove" ? "Removing" : "Disconnecting"} ${label}…`;
    try {
      if (action === "remove") await api("/api/servers/" + encodeURIComponent(server.id), undefined, "DELETE");
      else {
        const answer = await api(`/api/servers/${encodeURIComponent(server.id)}/${action}`, {});
        serverStatus.textContent = answer.status === "failed" ? `${label}: failed` : `${label}: ${answer.status}`;
      }
      if (action === "remove") serverStatus.textContent = `${label}: removed`;
      await reloadCatalogue();
    } catch (e) { serverStatus.textContent = "Error: " + e.message; }
    await loadServers();
  }

  document.getElementById("connect-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const target = document.getElementById("server-target");
    const token = document.getElementById("server-token");
    const button = event.target.querySelector("button");
    serverStatus.textContent = `Connecting to ${target.value}…`;
    button.disabled = true;
    try {
      const answer = await api("/api/servers", { target: target.value, token: token.value || null });
      serverStatus.textContent = answer.status === "connected"
        ? `Connected: ${answer.name}, ${answer.tools.length} tools.` : `Could not connect: see the server's error below.`;
      if (answer.status === "connected") { target.value = ""; token.value = ""; }
      await reloadCatalogue();
    } catch (e) { serverStatus.textContent = "Error: " + e.message; }
    button.disabled = false;
    await loadServers();
  });

  // -- start -----------------------------------------------------------------------
  renderList();
  loadHistory();
  if (location.hash.startsWith("#tool=")) {
    openTool(decodeURIComponent(location.hash.slice(6)), false);
  }
})();
