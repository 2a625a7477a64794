#!/usr/bin/env node
// A scripted LLM provider for tests. Plain Node (node:http), no dependencies, 127.0.0.1 only.
//
//   node testing/provider-server.mjs [--port N] [--fixtures DIR]
//
// Prints its base URL (`http://127.0.0.1:PORT`) as the first line on stdout once listening.
//
// Any POST that is not a control route is a model call. It is RECORDED, then answered by, in order:
//   1. an injected fault, if the options ask for one;
//   2. a fixture from ../shared/fixtures, replayed byte for byte with its provider's framing;
//   3. the next round of the script posted to /__script, in OpenAI's SSE wire format (a path
//      ending in /responses: the Responses API's);
//   4. otherwise 404.
// A path ending in /identity/token answers as IBM IAM does (for watsonx tests).
//
// Options come from a path prefix, so that a provider base URL can carry them:
//   /_/<urlencoded query string>/<provider path>
//   e.g. base URL http://127.0.0.1:PORT/_/fixture%3Dopenai%2Fparallel-tool-calls.sse%26chunk%3D7
// or from request headers `x-test-<option>` (e.g. `x-test-fixture`). Options:
//   fixture=DIR/FILE      fixture to replay (.sse raw, .chunks.txt framed, .ndjson raw, .json raw);
//                         own/FILE is one of this project's bodies in tests/fixtures/streams
//   chunk=BYTES           bytes per write (default 64)
//   delay=MS              pause before each write after the first (slow chunks)
//   status=CODE           answer CODE instead (429, 500, 401, 404, …) with a JSON error body
//   times=N               only the first N calls with these options get `status` (default: all)
//   retryAfter=S          Retry-After header: seconds, or `date:S` for an HTTP-date S seconds ahead
//   errorBody=JSON        the body sent with `status`
//   disconnectAfter=BYTES destroy the connection after sending that many body bytes
//   hangAfter=BYTES       send that many body bytes, then never end the response
//   silent=1              never answer at all, not even with a status line and headers
//   redirect=URL          answer 307 with Location: URL
//
// Control routes:
//   GET  /__requests   every recorded model call: {method, url, path, headers, body, json, at}
//   GET  /__preflights every CORS preflight: {url, origin, method, headers (requested), at}
//   POST /__reset      forget records, preflights, fault counters and the script; end hanging
//                      responses
//   POST /__script     {"rounds": [...]}: answer the next model calls in turn. A round is
//                      {text?, reasoning?, toolCalls?: [{id?, name, arguments}], finishReason?,
//                       usage?: {prompt_tokens, completion_tokens}, encryptedReasoning? (Responses
//                       only)} or a fault {status, retryAfter?,
//                       errorBody?}; `noIds: true` leaves tool-call ids out; `raw: "..."` sends
//                       that text as the SSE body verbatim (malformed lines, huge events). A round
//                       may also carry the write options chunk, delay, disconnectAfter, hangAfter.
//   GET  /__fixture?name=DIR/FILE   the framed bytes a fixture replay sends (for comparisons)

import http from "node:http";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const HOST = "127.0.0.1";
const here = path.dirname(fileURLToPath(import.meta.url));

function argument(name, fallback) {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 && index + 1 < process.argv.length ? process.argv[index + 1] : fallback;
}

const port = Number(argument("port", process.env.PORT ?? "0"));
const fixturesDir = path.resolve(
  argument("fixtures", process.env.FIXTURES_DIR ?? path.join(here, "..", "..", "shared", "fixtures")),
);

const ALLOWED_HEADERS = [
  "authorization",
  "x-api-key",
  "anthropic-version",
  "anthropic-dangerous-direct-browser-access",
  "x-goog-api-key",
  "api-key",
  "content-type",
  "accept",
  "x-test-fixture",
  "x-test-chunk",
  "x-test-delay",
  "x-test-status",
  "x-test-times",
  "x-test-retryafter",
  "x-test-errorbody",
  "x-test-disconnectafter",
  "x-test-hangafter",
  "x-test-silent",
  "x-test-redirect",
].join(", ");

const OPTION_NAMES = [
  "fixture",
  "chunk",
  "delay",
  "status",
  "times",
  "retryAfter",
  "errorBody",
  "disconnectAfter",
  "hangAfter",
  "silent",
  "redirect",
];

let records = [];
let preflights = [];
let faultCounters = new Map();
let script = [];
const hanging = new Set();

function cors(request, response) {
  response.setHeader("access-control-allow-origin", request.headers.origin ?? "*");
  response.setHeader("vary", "origin");
  response.setHeader("access-control-allow-methods", "GET, POST, OPTIONS");
  response.setHeader("access-control-allow-headers", ALLOWED_HEADERS);
  response.setHeader("access-control-expose-headers", "retry-after, retry-after-ms, content-type");
  response.setHeader("access-control-max-age", "600");
}

function sendJson(response, status, value, extraHeaders = {}) {
  const body = Buffer.from(JSON.stringify(value), "utf8");
  response.writeHead(status, { "content-type": "application/json", ...extraHeaders });
  response.end(body);
}

function readBody(request) {
  return new Promise((resolve, reject) => {
    const parts = [];
    request.on("data", (part) => parts.push(part));
    request.on("end", () => resolve(Buffer.concat(parts).toString("utf8")));
    request.on("error", reject);
  });
}

const sleep = (milliseconds) => new Promise((resolve) => setTimeout(resolve, milliseconds));

/// Options from the `/_/<query>/` path prefix and `x-test-*` headers; returns them with the
/// provider path that follows the prefix.
function parseOptions(request, url) {
  const options = {};
  let providerPath = url.pathname;
  const prefix = providerPath.match(/^\/_\/([^/]*)(\/.*)?$/);
  if (prefix) {
    for (const [name, value] of new URLSearchParams(decodeURIComponent(prefix[1]))) {
      options[name] = value;
    }
    providerPath = prefix[2] ?? "/";
  }
  for (const name of OPTION_NAMES) {
    const header = request.headers[`x-test-${name.toLowerCase()}`];
    if (header !== undefined) options[name] = header;
  }
  return { options, providerPath };
}

/// Bodies written for this project (tests/fixtures/streams), named `own/<file>`.
const ownFixturesDir = path.resolve(here, "..", "tests", "fixtures", "streams");

function fixturePath(name) {
  const [dir, relative] = name.startsWith("own/") ? [ownFixturesDir, name.slice(4)] : [fixturesDir, name];
  const resolved = path.resolve(dir, relative);
  if (!resolved.startsWith(dir + path.sep)) throw new Error(`fixture outside ${dir}`);
  return resolved;
}

/// A fixture framed as its provider sends it (see ../shared/fixtures/README.md).
function framedFixture(name) {
  const raw = fs.readFileSync(fixturePath(name));
  if (name.endsWith(".sse")) return { body: raw, contentType: "text/event-stream" };
  if (name.endsWith(".ndjson")) return { body: raw, contentType: "application/x-ndjson" };
  if (name.endsWith(".json")) return { body: raw, contentType: "application/json" };
  if (name.endsWith(".chunks.txt")) {
    const vendor = name.split("/")[0];
    let framed = "";
    for (const line of raw.toString("utf8").split("\n")) {
      if (line.trim() === "") continue;
      if (vendor === "anthropic") framed += `event: ${JSON.parse(line).type}\n`;
      framed += `data: ${line}\n\n`;
    }
    if (vendor === "openai" || vendor === "openai-compatible") framed += "data: [DONE]\n\n";
    return { body: Buffer.from(framed, "utf8"), contentType: "text/event-stream" };
  }
  throw new Error(`unknown fixture framing: ${name}`);
}

/// Writes `body` in chunks, then ends, drops the connection, or hangs, as the options say.
async function sendBytes(response, body, options) {
  const chunk = Math.max(1, Number(options.chunk ?? 64));
  const delay = Number(options.delay ?? 0);
  let limit = body.length;
  let ending = "end";
  if (options.disconnectAfter !== undefined) {
    limit = Math.min(limit, Number(options.disconnectAfter));
    ending = "disconnect";
  } else if (options.hangAfter !== undefined) {
    limit = Math.min(limit, Number(options.hangAfter));
    ending = "hang";
  }
  for (let offset = 0; offset < limit; offset += chunk) {
    if (offset > 0 && delay > 0) await sleep(delay);
    if (response.destroyed) return;
    const piece = body.subarray(offset, Math.min(offset + chunk, limit));
    await new Promise((resolve) => response.write(piece, resolve));
  }
  if (ending === "end") response.end();
  else if (ending === "disconnect") response.socket?.destroy();
  else {
    hanging.add(response);
    response.on("close", () => hanging.delete(response));
  }
}

function retryAfterValue(value) {
  if (value === undefined) return undefined;
  const date = String(value).match(/^date:(\d+)$/);
  if (date) return new Date(Date.now() + Number(date[1]) * 1000).toUTCString();
  return String(value);
}

function sendFault(response, fault) {
  const status = Number(fault.status);
  const headers = {};
  const retryAfter = retryAfterValue(fault.retryAfter);
  if (retryAfter !== undefined) headers["retry-after"] = retryAfter;
  let body;
  if (fault.errorBody === undefined) {
    body = { error: { message: `injected HTTP ${status}`, type: "test_fault", code: status } };
  } else {
    body = typeof fault.errorBody === "string" ? JSON.parse(fault.errorBody) : fault.errorBody;
  }
  sendJson(response, status, body, headers);
}

function pieces(text, size) {
  const out = [];
  for (let offset = 0; offset < text.length; offset += size) out.push(text.slice(offset, offset + size));
  return out;
}

/// One scripted round in OpenAI's Chat Completions SSE format, as in
/// ../shared/fixtures/openai/parallel-tool-calls.sse.
function scriptedStream(round, number, model, includeUsage) {
  const base = {
    id: `chatcmpl-script${number}`,
    object: "chat.completion.chunk",
    created: 1727346178 + number,
    model,
    system_fingerprint: "fp_script",
  };
  const calls = round.toolCalls ?? [];
  const chunk = (delta, finishReason = null) =>
    `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }] })}\n\n`;
  let out = chunk({ role: "assistant", content: round.text ? "" : null });
  for (const piece of pieces(round.reasoning ?? "", 12)) out += chunk({ reasoning_content: piece });
  for (const piece of pieces(round.text ?? "", 8)) out += chunk({ content: piece });
  calls.forEach((call, index) => {
    const id = round.noIds ? {} : { id: call.id ?? `call_script${number}_${index}` };
    const head = { index, ...id, type: "function", function: { name: call.name, arguments: "" } };
    out += chunk({ tool_calls: [head] });
    const args = typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments ?? {});
    for (const piece of pieces(args, 5)) out += chunk({ tool_calls: [{ index, function: { arguments: piece } }] });
  });
  out += chunk({}, round.finishReason ?? (calls.length > 0 ? "tool_calls" : "stop"));
  if (includeUsage) {
    const usage = round.usage ?? { prompt_tokens: 10, completion_tokens: 5 };
    const total = (usage.prompt_tokens ?? 0) + (usage.completion_tokens ?? 0);
    out += `data: ${JSON.stringify({ ...base, choices: [], usage: { ...usage, total_tokens: total } })}\n\n`;
  }
  out += "data: [DONE]\n\n";
  return Buffer.from(out, "utf8");
}

/// The same round as a whole `chat.completion` body (for `stream: false` requests).
function scriptedWhole(round, number, model) {
  const calls = (round.toolCalls ?? []).map((call, index) => ({
    ...(round.noIds ? {} : { id: call.id ?? `call_script${number}_${index}` }),
    type: "function",
    function: {
      name: call.name,
      arguments: typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments ?? {}),
    },
  }));
  const message = { role: "assistant", content: round.text ?? null };
  if (round.reasoning) message.reasoning_content = round.reasoning;
  if (calls.length > 0) message.tool_calls = calls;
  const usage = round.usage ?? { prompt_tokens: 10, completion_tokens: 5 };
  return {
    id: `chatcmpl-script${number}`,
    object: "chat.completion",
    created: 1727346178 + number,
    model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: round.finishReason ?? (calls.length > 0 ? "tool_calls" : "stop") }],
    usage: { ...usage, total_tokens: (usage.prompt_tokens ?? 0) + (usage.completion_tokens ?? 0) },
  };
}

/// The output items of one scripted round as the Responses API writes them when they are done:
/// a reasoning item (summary text, and encrypted content when the round gives one), a message,
/// then one `function_call` per call.
function responsesItems(round, number) {
  const items = [];
  if (round.reasoning || round.encryptedReasoning) {
    const item = { id: `rs_script${number}`, type: "reasoning", summary: [] };
    if (round.reasoning) item.summary.push({ type: "summary_text", text: round.reasoning });
    if (round.encryptedReasoning) item.encrypted_content = round.encryptedReasoning;
    items.push(item);
  }
  if (round.text) {
    items.push({
      id: `msg_script${number}`,
      type: "message",
      status: "completed",
      role: "assistant",
      content: [{ type: "output_text", annotations: [], logprobs: [], text: round.text }],
    });
  }
  (round.toolCalls ?? []).forEach((call, index) => {
    items.push({
      id: `fc_script${number}_${index}`,
      type: "function_call",
      status: "completed",
      arguments: typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments ?? {}),
      call_id: call.id ?? `call_script${number}_${index}`,
      name: call.name,
    });
  });
  return items;
}

/// A whole Responses API `response` object for one scripted round; `finishReason: "length"`
/// makes it incomplete at `max_output_tokens`.
function scriptedResponse(round, number, model, output) {
  const usage = round.usage ?? { prompt_tokens: 10, completion_tokens: 5 };
  const incomplete = round.finishReason === "length";
  return {
    id: `resp_script${number}`,
    object: "response",
    created_at: 1727346178 + number,
    status: incomplete ? "incomplete" : "completed",
    incomplete_details: incomplete ? { reason: "max_output_tokens" } : null,
    error: null,
    model,
    output,
    usage: {
      input_tokens: usage.prompt_tokens ?? 0,
      input_tokens_details: { cached_tokens: usage.cached_tokens ?? 0 },
      output_tokens: usage.completion_tokens ?? 0,
      output_tokens_details: { reasoning_tokens: usage.reasoning_tokens ?? 0 },
      total_tokens: (usage.prompt_tokens ?? 0) + (usage.completion_tokens ?? 0),
    },
  };
}

/// One scripted round as a streamed Responses API answer: `event:` lines naming each event's
/// `type`, each item added, streamed in pieces and done, then `response.completed` (or
/// `response.incomplete`), as OpenAI's streaming reference lists them.
function scriptedResponsesStream(round, number, model) {
  let sequence = 0;
  let out = "";
  const send = (type, fields) => {
    out += `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...fields })}\n\n`;
  };
  const created = scriptedResponse(round, number, model, []);
  send("response.created", { response: { ...created, status: "in_progress", usage: null } });
  send("response.in_progress", { response: { ...created, status: "in_progress", usage: null } });
  const items = responsesItems(round, number);
  items.forEach((item, output_index) => {
    const item_id = item.id;
    if (item.type === "reasoning") {
      send("response.output_item.added", { output_index, item: { id: item_id, type: "reasoning", summary: [] } });
      item.summary.forEach((part, summary_index) => {
        send("response.reasoning_summary_part.added", { item_id, output_index, summary_index, part: { type: "summary_text", text: "" } });
        for (const delta of pieces(part.text, 12)) {
          send("response.reasoning_summary_text.delta", { item_id, output_index, summary_index, delta });
        }
        send("response.reasoning_summary_text.done", { item_id, output_index, summary_index, text: part.text });
        send("response.reasoning_summary_part.done", { item_id, output_index, summary_index, part });
      });
    } else if (item.type === "message") {
      const text = item.content[0].text;
      send("response.output_item.added", { output_index, item: { ...item, status: "in_progress", content: [] } });
      send("response.content_part.added", { item_id, output_index, content_index: 0, part: { type: "output_text", annotations: [], logprobs: [], text: "" } });
      for (const delta of pieces(text, 8)) {
        send("response.output_text.delta", { item_id, output_index, content_index: 0, delta, logprobs: [] });
      }
      send("response.output_text.done", { item_id, output_index, content_index: 0, text, logprobs: [] });
      send("response.content_part.done", { item_id, output_index, content_index: 0, part: item.content[0] });
    } else {
      send("response.output_item.added", { output_index, item: { ...item, status: "in_progress", arguments: "" } });
      for (const delta of pieces(item.arguments, 5)) {
        send("response.function_call_arguments.delta", { item_id, output_index, delta });
      }
      send("response.function_call_arguments.done", { item_id, output_index, arguments: item.arguments });
    }
    send("response.output_item.done", { output_index, item });
  });
  const finished = scriptedResponse(round, number, model, items);
  send(finished.status === "completed" ? "response.completed" : "response.incomplete", { response: finished });
  return Buffer.from(out, "utf8");
}

async function answerModelCall(request, response, url, body) {
  const { options, providerPath } = parseOptions(request, url);
  let json = null;
  try {
    json = JSON.parse(body);
  } catch {
    json = null;
  }
  records.push({
    method: request.method,
    url: url.pathname + url.search,
    path: providerPath + url.search,
    headers: request.headers,
    body,
    json,
    at: Date.now(),
  });

  if (options.redirect !== undefined) {
    response.writeHead(307, { location: options.redirect }).end();
    return;
  }

  if (options.silent !== undefined) {
    hanging.add(response);
    response.on("close", () => hanging.delete(response));
    return;
  }

  if (providerPath.endsWith("/identity/token")) {
    sendJson(response, 200, {
      access_token: `test-iam-token-${records.length}`,
      refresh_token: "not_supported",
      token_type: "Bearer",
      expires_in: 3600,
      expiration: Math.floor(Date.now() / 1000) + 3600,
    });
    return;
  }

  if (options.status !== undefined) {
    const key = JSON.stringify(options) + providerPath;
    const count = (faultCounters.get(key) ?? 0) + 1;
    faultCounters.set(key, count);
    if (options.times === undefined || count <= Number(options.times)) {
      sendFault(response, options);
      return;
    }
  }

  if (options.fixture !== undefined) {
    let framed;
    try {
      framed = framedFixture(options.fixture);
    } catch (error) {
      sendJson(response, 500, { error: { message: `fixture: ${error.message}` } });
      return;
    }
    response.writeHead(200, { "content-type": framed.contentType, "cache-control": "no-cache" });
    await sendBytes(response, framed.body, options);
    return;
  }

  if (script.length > 0) {
    const round = script.shift();
    const number = records.length;
    if (round.status !== undefined) {
      sendFault(response, round);
      return;
    }
    const model = json?.model ?? "gpt-4o-2024-08-06";
    if (providerPath.endsWith("/responses")) {
      if (json?.stream === false) {
        sendJson(response, 200, scriptedResponse(round, number, model, responsesItems(round, number)));
        return;
      }
      response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      await sendBytes(response, scriptedResponsesStream(round, number, model), { ...options, ...round });
      return;
    }
    if (json?.stream === false) {
      sendJson(response, 200, scriptedWhole(round, number, model));
      return;
    }
    response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    const stream = round.raw !== undefined
      ? Buffer.from(round.raw, "utf8")
      : scriptedStream(round, number, model, json?.stream_options?.include_usage === true);
    await sendBytes(response, stream, { ...options, ...round });
    return;
  }

  sendJson(response, 404, { error: { message: "no fixture selected and no script loaded", type: "test_server" } });
}

const server = http.createServer(async (request, response) => {
  cors(request, response);
  const url = new URL(request.url, `http://${HOST}`);
  try {
    if (request.method === "OPTIONS") {
      preflights.push({
        url: url.pathname + url.search,
        origin: request.headers.origin ?? null,
        method: request.headers["access-control-request-method"] ?? null,
        headers: request.headers["access-control-request-headers"] ?? null,
        at: Date.now(),
      });
      response.writeHead(204);
      response.end();
      return;
    }
    if (request.method === "GET" && url.pathname === "/__requests") {
      sendJson(response, 200, records);
      return;
    }
    if (request.method === "GET" && url.pathname === "/__preflights") {
      sendJson(response, 200, preflights);
      return;
    }
    if (request.method === "POST" && url.pathname === "/__reset") {
      await readBody(request);
      records = [];
      preflights = [];
      faultCounters = new Map();
      script = [];
      for (const open of hanging) open.socket?.destroy();
      hanging.clear();
      sendJson(response, 200, { reset: true });
      return;
    }
    if (request.method === "POST" && url.pathname === "/__script") {
      const posted = JSON.parse(await readBody(request));
      script = Array.isArray(posted) ? posted : posted.rounds ?? [];
      sendJson(response, 200, { rounds: script.length });
      return;
    }
    if (request.method === "GET" && url.pathname === "/__fixture") {
      const framed = framedFixture(url.searchParams.get("name") ?? "");
      response.writeHead(200, { "content-type": framed.contentType });
      response.end(framed.body);
      return;
    }
    if (request.method === "POST") {
      await answerModelCall(request, response, url, await readBody(request));
      return;
    }
    sendJson(response, 404, { error: { message: `no route ${request.method} ${url.pathname}` } });
  } catch (error) {
    if (!response.headersSent) sendJson(response, 500, { error: { message: String(error?.message ?? error) } });
    else response.destroy();
  }
});

server.listen(port, HOST, () => {
  process.stdout.write(`http://${HOST}:${server.address().port}\n`);
});

for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, () => {
    for (const open of hanging) open.socket?.destroy();
    server.close(() => process.exit(0));
    setTimeout(() => process.exit(0), 500).unref();
  });
}
