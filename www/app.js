// The demo page: settings, MCP servers, tools and a chat, on the package's public JS API only.
// Untrusted text (model answers, tool output, server errors) reaches the DOM through
// `textContent` or the escaping Markdown renderer, never as raw HTML.
import * as wasm from "./pkg/mcp_agent_wasm.js";
import { renderMarkdown } from "./markdown.js";

const OFFLINE_ID = "offline-demo";
/** Image types shown from tool image blocks; SVG is left out because it can carry script. */
const IMAGE_TYPES = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);
const KEY_STORAGE = "mcp-agent-wasm-demo-api-key";
/** Provider settings beyond key, model and base URL: which providers take them (see ProviderConfig). */
const EXTRA_SETTINGS = [
  { row: "project-id-row", input: "project-id", key: "projectId", providers: ["ibm"] },
  { row: "api-version-row", input: "api-version", key: "apiVersion", providers: ["ibm", "azure_openai"] },
];

const $ = (id) => document.getElementById(id);

const state = {
  providers: [],
  /** The offline demo's model server, from /demo-config.json. */
  modelUrl: null,
  /** In memory only; sessionStorage too when the person asks for it. */
  apiKey: "",
  /** The provider the key was typed for: it goes to that provider only. */
  keyProvider: "",
  servers: [],
  history: [],
  running: null,
};

function element(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (name === "text") node.textContent = value;
    else if (name === "className") node.className = value;
    else node.setAttribute(name, value);
  }
  node.append(...children.filter((child) => child !== null && child !== undefined));
  return node;
}

// ---- settings -------------------------------------------------------------------------------

function selectedProvider() {
  return state.providers.find((provider) => provider.id === $("provider").value);
}

function fillProviders() {
  const offline = {
    id: OFFLINE_ID,
    displayName: "Offline demo (scripted model, not an LLM)",
    defaultModel: "scripted-demo",
    suggestedModels: ["scripted-demo"],
    requiresApiKey: false,
    defaultBaseUrl: state.modelUrl,
  };
  const listed = typeof wasm.listProviders === "function" ? wasm.listProviders() : [];
  state.providers = [offline, ...listed];
  for (const provider of state.providers) {
    $("provider").append(element("option", { value: provider.id, text: provider.displayName }));
  }
  $("provider").value = OFFLINE_ID;
  providerChanged();
}

function providerChanged() {
  const provider = selectedProvider();
  const offline = provider.id === OFFLINE_ID;
  $("model").value = provider.defaultModel ?? "";
  $("model").readOnly = offline;
  $("model-suggestions").replaceChildren(
    ...(provider.suggestedModels ?? []).map((model) => element("option", { value: model })),
  );
  $("base-url").value = "";
  $("base-url").placeholder = provider.defaultBaseUrl ?? "required for this provider";
  $("base-url").readOnly = offline;
  for (const setting of EXTRA_SETTINGS) {
    $(setting.row).hidden = !setting.providers.includes(provider.id);
    $(setting.input).value = "";
  }
  $("api-key").value = provider.id === state.keyProvider ? state.apiKey : "";
  $("api-key-row").hidden = offline;
  $("remember-key-row").hidden = offline;
  $("mode-badge").hidden = !offline;
  $("provider-note").textContent = offline
    ? "Replies come from a local scripted server that follows fixed rules (it is not an LLM). " +
      "It calls the real server-everything tools, then answers from their results."
    : `Your key is sent only to ${provider.defaultBaseUrl ?? "the base URL you give"}.` +
      (provider.requiresApiKey ? "" : " This provider can work without a key.");
}

function providerConfig() {
  const provider = selectedProvider();
  if (provider.id === OFFLINE_ID) {
    if (!state.modelUrl) throw new Error("the offline demo needs `cargo xtask demo` (no /demo-config.json)");
    return { id: "openai_compatible", baseUrl: state.modelUrl, model: "scripted-demo", apiKey: "none" };
  }
  const config = { id: provider.id, model: $("model").value.trim() };
  if (state.apiKey && state.keyProvider === provider.id) config.apiKey = state.apiKey;
  const baseUrl = $("base-url").value.trim();
  if (baseUrl) config.baseUrl = baseUrl;
  for (const setting of EXTRA_SETTINGS) {
    const value = $(setting.input).value.trim();
    if (value && setting.providers.includes(provider.id)) config[setting.key] = value;
  }
  return config;
}

function apiKeyChanged() {
  state.apiKey = $("api-key").value;
  state.keyProvider = selectedProvider().id;
  const remembered = JSON.stringify({ provider: state.keyProvider, key: state.apiKey });
  if ($("remember-key").checked) sessionStorage.setItem(KEY_STORAGE, remembered);
  else sessionStorage.removeItem(KEY_STORAGE);
}

// ---- MCP servers ----------------------------------------------------------------------------

function parseHeaders(text) {
  const headers = {};
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    const colon = line.indexOf(":");
    if (colon <= 0) throw new Error(`header line without "Name: value": ${line.trim()}`);
    headers[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
  }
  return headers;
}

/**
 * The demo's sign-in for servers that need OAuth: when a server refuses it (401 with its OAuth
 * metadata), `browserOAuth` registers the demo, opens the server's authorization page in a popup
 * and keeps the tokens for this tab. A server given an `Authorization` header keeps that instead.
 */
let signIn = { allowLocal: undefined, getAccessToken: undefined };

function oauthSignIn() {
  const allowLocal = $("allow-local").checked;
  if (signIn.getAccessToken === undefined || signIn.allowLocal !== allowLocal) {
    const getAccessToken = wasm.browserOAuth({
      redirectUri: new URL("oauth-callback.html", location.href).href,
      clientName: "mcp-agent-wasm demo",
      storage: sessionStorage,
      allowInsecureLocalUrls: allowLocal,
    });
    signIn = { allowLocal, getAccessToken };
  }
  return signIn.getAccessToken;
}

function serverConfigs(servers) {
  return servers.map(({ name, url, headers }) => {
    const authorized = Object.keys(headers ?? {}).some((header) => header.toLowerCase() === "authorization");
    return authorized ? { name, url, headers } : { name, url, headers, getAccessToken: oauthSignIn() };
  });
}

/** A provider that needs no key, for listing tools only: listing never calls the model. */
function listingProvider() {
  return { id: "openai_compatible", baseUrl: state.modelUrl ?? "http://127.0.0.1", model: "listing" };
}

/**
 * An Agent over `servers`. Listing Agents get `onElicitation` and `approveSampling` too (they
 * never call a tool, so neither is asked): a server may offer tools only to clients that declare
 * elicitation or sampling, and the tool list must show what a run offers.
 */
function newAgent(provider, servers, { approveToolCall, onElicitation = () => ({ action: "decline" }), approveSampling = () => false } = {}) {
  return new wasm.Agent({
    provider,
    mcpServers: serverConfigs(servers),
    allowInsecureLocalUrls: $("allow-local").checked,
    approveToolCall,
    onElicitation,
    approveSampling,
  });
}

/**
 * `approveSampling` for a run: what the server wants the model to read, in the current turn,
 * with Allow and Deny; a denial also when the library stops waiting.
 */
function askBeforeSampling(view) {
  return (request, { signal, server }) =>
    new Promise((resolve) => {
      const question = element("section", { className: "sampling elicitation" });
      const finish = (allowed) => {
        signal.removeEventListener("abort", onAbort);
        question.remove();
        resolve(allowed);
      };
      const onAbort = () => finish(false);
      signal.addEventListener("abort", onAbort);
      const asked = (request.messages ?? []).map((message) =>
        `${message.role}: ${[message.content].flat().map((block) => block?.text ?? `(${block?.type})`).join(" ")}`);
      if (request.systemPrompt) asked.unshift(`system: ${request.systemPrompt}`);
      // Tools the server lends the model for this answer (it runs them itself, after this one).
      const offered = (request.tools ?? []).map((tool) => tool?.name);
      const allow = element("button", { type: "button", className: "allow", text: "Allow" });
      const deny = element("button", { type: "button", className: "deny secondary", text: "Deny" });
      allow.addEventListener("click", () => finish(true));
      deny.addEventListener("click", () => finish(false));
      question.append(
        element("p", { className: "small muted", text: `${server} wants the model to answer (at most ${request.maxTokens} tokens):` }),
        element("pre", { text: asked.join("\n") }),
        ...(offered.length > 0
          ? [element("p", { className: "small", text: `Tools offered to the model: ${offered.join(", ")} (tool choice: ${request.toolChoice?.mode ?? "auto"})` })]
          : []),
        element("div", { className: "elicitation-actions" }, allow, deny),
      );
      view.body.append(question);
      view.answer = null;
    });
}

/**
 * `onElicitation` for a run: the server's question in the current turn, as a form drawn from
 * `requestedSchema`, or as a URL to open (its host shown first). The promise settles on Submit
 * (or Open), Decline or Cancel, and with a cancel when the library stops waiting (the call
 * ended or the run was stopped), which also removes the question.
 */
function askTheUser(view) {
  return (request, { signal, server }) =>
    new Promise((resolve) => {
      const form = element("form", { className: "elicitation", "data-mode": request.mode });
      const finish = (answer) => {
        signal.removeEventListener("abort", onAbort);
        form.remove();
        resolve(answer);
      };
      const onAbort = () => finish({ action: "cancel" });
      signal.addEventListener("abort", onAbort);
      form.append(element("p", { className: "small muted", text: `${server} asks:` }), element("p", { text: request.message }));
      let content = () => undefined;
      let target = null;
      if (request.mode === "url") {
        try {
          target = new URL(request.url);
        } catch {
          target = null;
        }
        const web = target && (target.protocol === "https:" || target.protocol === "http:");
        form.append(element("p", { className: "small", text: web ? `Open a page on ${target.host}?` : "The server sent no web address to open." }));
        if (!web) target = null;
      } else {
        content = formFields(form, request.requestedSchema);
      }
      const submit = element("button", { type: "submit", text: request.mode === "url" ? "Open" : "Submit" });
      if (request.mode === "url" && !target) submit.disabled = true;
      const decline = element("button", { type: "button", className: "secondary", text: "Decline" });
      const cancel = element("button", { type: "button", className: "secondary", text: "Cancel" });
      decline.addEventListener("click", () => finish({ action: "decline" }));
      cancel.addEventListener("click", () => finish({ action: "cancel" }));
      form.addEventListener("submit", (event) => {
        event.preventDefault();
        if (target) window.open(target.href, "_blank", "noopener,noreferrer");
        finish({ action: "accept", content: content() });
      });
      form.append(element("div", { className: "elicitation-actions" }, submit, decline, cancel));
      view.body.append(form);
      view.answer = null;
    });
}

/** A form mode elicitation's choices, from `enum` (with `enumNames`) or `oneOf`/`anyOf` consts. */
function choicesOf(schema) {
  if (Array.isArray(schema?.enum)) {
    return schema.enum.map((value, index) => ({ value: String(value), label: String(schema.enumNames?.[index] ?? value) }));
  }
  const options = schema?.oneOf ?? schema?.anyOf;
  if (Array.isArray(options)) {
    return options.filter((option) => "const" in option).map((option) => ({ value: String(option.const), label: String(option.title ?? option.const) }));
  }
  return null;
}

const INPUT_TYPES = { email: "email", uri: "url", date: "date", "date-time": "datetime-local" };

/**
 * One labelled field per property of a flat `requestedSchema` (strings, numbers, booleans,
 * single and multiple choice, as the spec restricts it); the browser checks `required`, bounds
 * and formats before Submit. Returns a reader of the filled-in values, leaving empty optional
 * fields out.
 */
function formFields(form, schema) {
  const required = new Set(Array.isArray(schema?.required) ? schema.required : []);
  const readers = [];
  for (const [name, property] of Object.entries(schema?.properties ?? {})) {
    const choices = property.type === "array" ? choicesOf(property.items) : choicesOf(property);
    // Several checkboxes are a group with a legend; any other field is one labelled control.
    const several = property.type === "array" && choices;
    const title = `${property.title ?? name}${required.has(name) ? " *" : ""}`;
    const label = element(several ? "fieldset" : "label", { className: "field", "data-field": name },
      element(several ? "legend" : "span", { text: title }));
    if (property.description) label.append(element("span", { className: "small muted", text: property.description }));
    if (several) {
      const boxes = choices.map((choice) => {
        const box = element("input", { type: "checkbox", value: choice.value });
        box.checked = Array.isArray(property.default) && property.default.map(String).includes(choice.value);
        label.append(element("span", { className: "choice" }, box, ` ${choice.label}`));
        return box;
      });
      readers.push((content) => {
        content[name] = boxes.filter((box) => box.checked).map((box) => box.value);
      });
    } else if (choices) {
      const select = element("select", { name },
        ...(required.has(name) ? [] : [element("option", { value: "", text: "—" })]),
        ...choices.map((choice) => element("option", { value: choice.value, text: choice.label })));
      if (property.default !== undefined) select.value = String(property.default);
      label.append(select);
      readers.push((content) => {
        if (select.value !== "") content[name] = select.value;
      });
    } else if (property.type === "boolean") {
      const box = element("input", { type: "checkbox", name });
      box.checked = property.default === true;
      label.append(box);
      readers.push((content) => {
        content[name] = box.checked;
      });
    } else {
      const numeric = property.type === "number" || property.type === "integer";
      const input = element("input", { name, type: numeric ? "number" : INPUT_TYPES[property.format] ?? "text" });
      if (numeric) input.step = property.type === "integer" ? "1" : "any";
      for (const [keyword, attribute] of [["minimum", "min"], ["maximum", "max"], ["minLength", "minlength"], ["maxLength", "maxlength"]]) {
        if (typeof property[keyword] === "number") input.setAttribute(attribute, String(property[keyword]));
      }
      if (required.has(name)) input.required = true;
      if (property.default !== undefined) input.value = String(property.default);
      label.append(input);
      readers.push((content) => {
        if (input.value !== "") content[name] = numeric ? Number(input.value) : input.value;
      });
    }
    form.append(label);
  }
  return () => {
    const content = {};
    for (const read of readers) read(content);
    return content;
  };
}

/**
 * `approveToolCall` for a run whose page asks before each tool call: the call's card gets Allow
 * and Deny buttons, and the promise settles when one is pressed, or with a denial when the run
 * stops. The library may ask before the page has drawn the card, so a question waits in
 * `view.approvals` until `toolCard` shows it.
 */
function askBeforeEachCall(view) {
  return (call, { signal }) =>
    new Promise((resolve) => {
      const answer = (allowed) => {
        signal.removeEventListener("abort", onAbort);
        view.approvals.delete(call.id);
        view.cards.get(call.id)?.approval.remove();
        resolve(allowed);
      };
      const onAbort = () => answer(false);
      signal.addEventListener("abort", onAbort);
      view.approvals.set(call.id, answer);
      const entry = view.cards.get(call.id);
      if (entry) showApproval(entry, answer);
    });
}

function showApproval(entry, answer) {
  entry.card.dataset.status = "approval";
  entry.status.textContent = "waiting for you";
  // What the tool would be given is what the person decides on.
  entry.card.querySelector(".tool-args").open = true;
  const allow = element("button", { type: "button", className: "allow", text: "Allow" });
  const deny = element("button", { type: "button", className: "deny secondary", text: "Deny" });
  allow.addEventListener("click", () => {
    entry.card.dataset.status = "running";
    entry.status.textContent = "running";
    entry.started = performance.now();
    answer(true);
  });
  deny.addEventListener("click", () => {
    entry.declined = true;
    answer(false);
  });
  entry.approval.replaceChildren(element("span", { className: "small", text: "Run this tool? " }), allow, deny);
}

function renderServers() {
  $("servers").replaceChildren(
    ...state.servers.map((server) => {
      const statusText = {
        connecting: "connecting",
        ok: `connected, ${server.toolCount} tool${server.toolCount === 1 ? "" : "s"}`,
        error: "error",
      }[server.status];
      const item = element(
        "li",
        { className: "server", "data-server": server.name, "data-status": server.status },
        element("span", { className: `dot ${server.status}`, role: "img", "aria-label": statusText }),
        element(
          "div",
          { className: "server-text" },
          element("strong", { text: server.name }),
          element("span", { className: "small muted url", text: server.url }),
          element("span", { className: "small server-status", text: statusText }),
          server.error ? element("span", { className: "small error server-error", text: server.error }) : null,
        ),
      );
      const remove = element("button", {
        type: "button",
        className: "icon",
        "aria-label": `Remove server ${server.name}`,
        text: "✕",
      });
      remove.addEventListener("click", () => {
        state.servers = state.servers.filter((other) => other !== server);
        refreshTools();
      });
      item.append(remove);
      return item;
    }),
  );
}

function renderTools(tools) {
  $("tool-count").textContent = `(${tools.length})`;
  $("tools").replaceChildren(
    ...tools.map((tool) =>
      element(
        "li",
        { className: "tool", "data-tool-name": tool.name, "data-server": tool.server },
        element("code", { className: "tool-name", text: tool.name }),
        element("span", { className: "small muted", text: ` ${tool.server} / ${tool.tool}` }),
        tool.description ? element("p", { className: "small", text: tool.description }) : null,
      )),
  );
}

let listingGeneration = 0;

/** Lists each server on its own (status, count, error), then all healthy ones together, which
 * gives the function names the model will see (collisions renamed across servers). */
async function refreshTools() {
  const generation = ++listingGeneration;
  for (const server of state.servers) Object.assign(server, { status: "connecting", error: "" });
  renderServers();
  if (typeof wasm.Agent !== "function") return;
  await Promise.all(state.servers.map(async (server) => {
    let agent;
    try {
      agent = newAgent(listingProvider(), [server]);
      const tools = await agent.listTools();
      Object.assign(server, { status: "ok", toolCount: tools.length });
    } catch (error) {
      Object.assign(server, { status: "error", error: errorText(error) });
    } finally {
      agent?.free();
    }
  }));
  if (generation !== listingGeneration) return;
  renderServers();
  const healthy = state.servers.filter((server) => server.status === "ok");
  let tools = [];
  if (healthy.length > 0) {
    const agent = newAgent(listingProvider(), healthy);
    try {
      tools = await agent.listTools();
    } catch (error) {
      setStatus(`Listing tools failed: ${errorText(error)}`);
    } finally {
      agent.free();
    }
  }
  if (generation === listingGeneration) renderTools(tools);
}

function addServer(event) {
  event.preventDefault();
  const name = $("server-name").value.trim();
  const url = $("server-url").value.trim();
  try {
    if (state.servers.some((server) => server.name === name)) throw new Error(`a server is already named ${name}`);
    const headers = parseHeaders($("server-headers").value);
    state.servers.push({ name, url, headers, status: "connecting", toolCount: 0, error: "" });
  } catch (error) {
    $("add-server-error").textContent = error.message;
    return;
  }
  $("add-server-error").textContent = "";
  $("add-server").reset();
  refreshTools();
}

// ---- chat -----------------------------------------------------------------------------------

function errorText(error) {
  const message = error?.message ?? String(error);
  return error?.code ? `${message} (${error.code})` : message;
}

function setStatus(text) {
  $("status-line").textContent = text;
}

function setRunning(controller) {
  state.running = controller;
  $("send").disabled = controller !== null;
  $("stop").disabled = controller === null;
}

function addUserTurn(text) {
  const turn = element("li", { className: "turn user" }, element("div", { className: "bubble", text }));
  $("transcript").append(turn);
}

/** The parts of one assistant turn, filled in as events arrive. */
function addAssistantTurn() {
  const meta = element("div", { className: "turn-meta small muted" });
  const round = element("span", { className: "round" });
  const usage = element("span", { className: "usage" });
  const reason = element("span", { className: "final-reason" });
  meta.append(round, usage, reason);
  const reasoningText = element("div", { className: "reasoning-text small" });
  const reasoning = element("details", { className: "reasoning", hidden: "" },
    element("summary", { text: "Reasoning" }), reasoningText);
  const body = element("div", { className: "turn-body" });
  const turn = element("li", { className: "turn assistant", "data-state": "running" }, meta, reasoning, body);
  $("transcript").append(turn);
  return { turn, meta, round, usage, reason, reasoning, reasoningText, body, cards: new Map(), approvals: new Map(), writing: new Map(), answer: null };
}

/** The answer text block of the current round (a new one after tool cards). */
function answerBlock(view) {
  if (!view.answer) {
    view.answer = { node: element("div", { className: "answer markdown" }), text: "" };
    view.body.append(view.answer.node);
  }
  return view.answer;
}

function formatJson(value) {
  try {
    return JSON.stringify(value, null, 2);
  } catch {
    return String(value);
  }
}

function toolCard(view, event) {
  const status = element("span", { className: "tool-status", text: "running" });
  const eta = element("span", { className: "tool-eta small muted" });
  const progress = element("progress", { className: "tool-progress", hidden: "", "aria-label": `Progress of ${event.name}` });
  const progressText = element("span", { className: "small muted progress-text" });
  const result = element("div", { className: "tool-result" });
  const approval = element("div", { className: "tool-approval" });
  const card = element(
    "section",
    { className: "tool-card", "data-status": "running", "data-tool": event.name, "data-progress-updates": "0" },
    element("header", {},
      element("code", { text: event.name }),
      element("span", { className: "small muted", text: ` ${event.server} / ${event.tool}` }),
      status, eta),
    element("details", { className: "tool-args" },
      element("summary", { className: "small", text: "Arguments" }),
      element("pre", { text: formatJson(event.arguments) })),
    approval,
    element("div", { className: "progress-row" }, progress, progressText),
    result,
  );
  card.setAttribute("aria-label", `Tool call ${event.name}`);
  view.body.append(card);
  view.answer = null;
  const entry = { card, status, eta, progress, progressText, result, approval, started: performance.now() };
  const waiting = view.approvals.get(event.id);
  if (waiting) showApproval(entry, waiting);
  return entry;
}

function finishCard(entry, status, label) {
  entry.card.dataset.status = status;
  entry.status.textContent = label;
  entry.eta.textContent = `${((performance.now() - entry.started) / 1000).toFixed(1)} s`;
}

function toolResultNodes(event) {
  const nodes = [];
  for (const block of event.content ?? []) {
    if (block?.type === "text") {
      const node = element("div", { className: "markdown" });
      node.innerHTML = renderMarkdown(block.text ?? "");
      nodes.push(node);
    } else if (block?.type === "image") {
      const mimeType = String(block.mimeType ?? "");
      const data = String(block.data ?? "");
      if (IMAGE_TYPES.has(mimeType) && /^[A-Za-z0-9+/]+={0,2}$/.test(data)) {
        nodes.push(element("img", { src: `data:${mimeType};base64,${data}`, alt: "Image returned by the tool", className: "tool-image" }));
      } else {
        nodes.push(element("p", { className: "small muted", text: `(image of type ${mimeType} not shown)` }));
      }
    } else if (block?.type === "resource_link") {
      nodes.push(element("p", { className: "small", text: `Resource: ${block.name ?? ""} ${block.uri ?? ""}` }));
    } else if (block?.type) {
      nodes.push(element("p", { className: "small muted", text: `(${block.type} content)` }));
    }
  }
  if (event.structuredContent !== undefined && event.structuredContent !== null) {
    nodes.push(element("details", { className: "structured", open: "" },
      element("summary", { className: "small", text: "Structured content" }),
      element("pre", { text: formatJson(event.structuredContent) })));
  }
  return nodes;
}

function handleEvent(view, event) {
  switch (event.type) {
    case "round":
      view.round.textContent = `Round ${event.round}`;
      view.turn.dataset.round = String(event.round);
      setStatus(`Round ${event.round}…`);
      break;
    case "text": {
      const block = answerBlock(view);
      block.text += event.text;
      block.node.innerHTML = renderMarkdown(block.text);
      break;
    }
    case "reasoning":
      view.reasoning.hidden = false;
      view.reasoningText.textContent += event.text;
      break;
    case "toolInputStart": {
      // A call the model is still writing; its card replaces it once the answer is complete.
      view.writing.get(event.id)?.node.remove();
      const text = element("pre", { className: "small" });
      const node = element("div", { className: "tool-writing" },
        element("span", { className: "small muted", text: `Writing a call of ${event.name}…` }), text);
      view.body.append(node);
      view.answer = null;
      view.writing.set(event.id, { node, text });
      break;
    }
    case "toolInputDelta": {
      const writing = view.writing.get(event.id);
      if (writing) writing.text.textContent += event.delta;
      break;
    }
    case "toolInputDiscarded":
      view.writing.get(event.id)?.node.remove();
      view.writing.delete(event.id);
      break;
    case "toolCall":
      view.writing.get(event.id)?.node.remove();
      view.writing.delete(event.id);
      view.cards.set(event.id, toolCard(view, event));
      break;
    case "toolEta": {
      const entry = view.cards.get(event.id);
      if (entry) entry.eta.textContent = `ETA ≈ ${(event.etaMs / 1000).toFixed(1)} s`;
      break;
    }
    case "toolProgress": {
      const entry = view.cards.get(event.id);
      if (!entry) break;
      entry.progress.hidden = false;
      if (event.total) entry.progress.max = event.total;
      entry.progress.value = event.progress;
      entry.card.dataset.progressUpdates = String(Number(entry.card.dataset.progressUpdates) + 1);
      entry.progressText.textContent = `${event.progress}${event.total ? ` / ${event.total}` : ""}` +
        (event.message ? ` — ${event.message}` : "");
      break;
    }
    case "toolResult": {
      const entry = view.cards.get(event.id);
      if (!entry) break;
      finishCard(entry, event.isError ? "error" : "done", event.isError ? "tool error" : "done");
      entry.result.replaceChildren(...toolResultNodes(event));
      break;
    }
    case "toolError": {
      const entry = view.cards.get(event.id);
      if (!entry) break;
      // A call cut short by Stop is reported as a tool error too; show it as cancelled.
      const cancelled = state.running?.signal.aborted === true;
      if (entry.declined) finishCard(entry, "declined", "declined");
      else finishCard(entry, cancelled ? "cancelled" : "error", cancelled ? "cancelled" : "failed");
      entry.result.replaceChildren(element("p", { className: "error", text: event.message }));
      break;
    }
    case "usage": {
      // The event holds the run's running totals, not one model call's.
      const cached = event.cachedInputTokens ? ` (${event.cachedInputTokens} cached)` : "";
      const reasoning = event.reasoningTokens ? ` (${event.reasoningTokens} reasoning)` : "";
      view.usage.textContent = `${event.inputTokens} in${cached} · ${event.outputTokens} out${reasoning} tokens`;
      break;
    }
    case "serverError": {
      const server = state.servers.find((candidate) => candidate.name === event.server);
      if (server) Object.assign(server, { status: "error", error: `${event.message} (${event.code})` });
      renderServers();
      view.body.append(element("p", { className: "error small", text: `MCP server ${event.server}: ${event.message}` }));
      break;
    }
    case "final":
      view.reason.textContent = event.reason;
      view.turn.dataset.state = event.reason;
      if (event.text && !view.body.querySelector(".answer")) answerBlock(view).node.innerHTML = renderMarkdown(event.text);
      for (const entry of view.cards.values()) {
        if (["running", "approval"].includes(entry.card.dataset.status)) finishCard(entry, "cancelled", "cancelled");
      }
      for (const { node } of view.writing.values()) node.remove();
      state.history = event.messages;
      break;
    default:
      break;
  }
}

/** `for await` over a run's stream, also where ReadableStream is not async-iterable. */
async function* eventsOf(stream) {
  if (Symbol.asyncIterator in stream) {
    yield* stream;
    return;
  }
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    reader.releaseLock();
  }
}

async function send(text) {
  if (state.running || !text.trim()) return;
  $("empty-hint").hidden = true;
  addUserTurn(text);
  const view = addAssistantTurn();
  const controller = new AbortController();
  setRunning(controller);
  setStatus("Starting…");
  const messages = [...state.history, { role: "user", content: text }];
  let agent;
  try {
    const servers = state.servers.filter((server) => server.status !== "error");
    agent = newAgent(providerConfig(), servers, {
      approveToolCall: $("ask-tools").checked ? askBeforeEachCall(view) : undefined,
      onElicitation: askTheUser(view),
      approveSampling: askBeforeSampling(view),
    });
    for await (const event of eventsOf(agent.run(messages, { signal: controller.signal }))) {
      handleEvent(view, event);
      view.turn.scrollIntoView({ block: "end" });
    }
    setStatus(view.turn.dataset.state === "aborted" ? "Stopped." : "Done.");
  } catch (error) {
    view.turn.dataset.state = "error";
    view.reason.textContent = "error";
    view.body.append(element("p", { className: "error run-error", role: "alert", text: errorText(error) }));
    if (Array.isArray(error?.messages)) state.history = error.messages;
    setStatus("The run failed.");
  } finally {
    agent?.free();
    setRunning(null);
  }
}

function stop() {
  state.running?.abort();
}

// ---- start ----------------------------------------------------------------------------------

async function loadDemoConfig() {
  try {
    const response = await fetch("./demo-config.json", { cache: "no-store" });
    if (!response.ok) return null;
    return await response.json();
  } catch {
    return null;
  }
}

function wireUp() {
  $("provider").addEventListener("change", providerChanged);
  $("api-key").addEventListener("input", apiKeyChanged);
  $("remember-key").addEventListener("change", apiKeyChanged);
  $("allow-local").addEventListener("change", refreshTools);
  $("add-server").addEventListener("submit", addServer);
  $("composer").addEventListener("submit", (event) => {
    event.preventDefault();
    const text = $("prompt").value;
    if (state.running || !text.trim()) return;
    $("prompt").value = "";
    send(text);
  });
  $("prompt").addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      $("composer").requestSubmit();
    }
  });
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && state.running) stop();
  });
  $("stop").addEventListener("click", stop);
  $("new-chat").addEventListener("click", () => {
    stop();
    state.history = [];
    $("transcript").replaceChildren();
    $("empty-hint").hidden = false;
    setStatus("");
  });
  for (const button of document.querySelectorAll(".suggestion")) {
    button.addEventListener("click", () => {
      $("prompt").value = button.textContent;
      $("composer").requestSubmit();
    });
  }
}

/** The key kept for this tab with the provider it was typed for, or null. */
function rememberedKey() {
  try {
    const stored = JSON.parse(sessionStorage.getItem(KEY_STORAGE) ?? "null");
    return typeof stored?.provider === "string" && typeof stored?.key === "string" ? stored : null;
  } catch {
    return null;
  }
}

async function start() {
  await wasm.default();
  $("version").textContent = wasm.version();
  const stored = rememberedKey();
  if (stored) {
    state.apiKey = stored.key;
    state.keyProvider = stored.provider;
    $("remember-key").checked = true;
  }
  const config = await loadDemoConfig();
  state.modelUrl = config?.modelUrl ?? null;
  state.servers = (config?.mcpServers ?? []).map((server) => ({
    name: server.name, url: server.url, headers: {}, status: "connecting", toolCount: 0, error: "",
  }));
  if (!config) setStatus("No /demo-config.json: add an MCP server and choose a provider to start.");
  fillProviders();
  wireUp();
  document.body.dataset.ready = "true";
  await refreshTools();
}

start().catch((error) => {
  setStatus(`The page failed to start: ${errorText(error)}`);
});
