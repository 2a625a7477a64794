// A small MCP server for what @modelcontextprotocol/server-everything cannot show: expired
// sessions (404), paginated tools/list, JSON replies, a stream closed before its response with
// `retry:`, a POST answering 405 (legacy SSE fallback), a legacy endpoint on another origin, CORS
// without an exposed Mcp-Session-Id, server requests (ping, sampling) and a call that never ends.
//
// Plain Node (node:http only), bound to 127.0.0.1. Usage: `node testing/mcp-test-server.mjs [port]`
// (0 or nothing: a free port); prints `MCP_TEST_SERVER_URL=http://127.0.0.1:PORT` when listening.
//
// The first path segment picks the behaviour; the rest is free, so each test uses its own path and
// reads only its own traffic from `GET /__log?path=<prefix>` (each entry keeps a few named headers
// and `allHeaders`, every header as received):
//   /json/...        Streamable HTTP, JSON replies, sessions, 3 pages of tools
//   /sse/...         the same with SSE replies; and, not listed, `elicit-late` (works `delayMs`,
//                    asks an elicitation on the call's stream, works `afterMs` after the answer)
//   /expire/...      404 to the second request of the first session on each path ("expired")
//   /expire-paging/... JSON replies; declares resources and prompts too; tools/list and
//                    resources/list page by 3 with cursors only the session that gave them knows
//                    (another session's gets -32602 "invalid cursor"), and the first request on
//                    each path carrying a cursor gets 404 (the session expired between pages)
//   /restart/...     JSON replies; tool `restart` forgets every session of its path once answered
//                    (a server restart: each request then gets 404), initialize takes 300 ms;
//                    declares `resources.subscribe` and `logging`, and accepts their requests
//   /refuse-initialized/... JSON replies; the first notifications/initialized on each path gets
//                    503, and a session whose notifications/initialized was not accepted gets
//                    400 for any request (as the Python SDK's servers do)
//   /resume/...      tools/call: priming event (id, retry: 300), stream closed, response on GET
//   /resume-initialize/... the same for initialize; the GET resuming it must carry the session id
//                    the POST's response headers gave (400 otherwise)
//   /broken/...      tools/call: a progress event (id `<call>-1`, retry: 50), then the connection
//                    breaks inside the response event (`cut: "data"`) or after its `id: <call>-2`
//                    line (`cut: "id"`); a GET with `Last-Event-ID: <call>-1` replays the response
//   /legacy/...      POST 405; GET is a legacy SSE stream whose endpoint is /legacy/message
//   /cross/...       POST 405; GET is a legacy SSE stream whose endpoint is on another origin
//   /hidden-session/ sends Mcp-Session-Id without exposing it to the page, then requires it
//   /standalone/...  SSE replies; the standalone GET stream carries a `ping` request, and the
//                    progress of tool `detached-progress` (`steps` every `intervalMs`, the answer
//                    one interval after the last), sent as a server sends a notification it
//                    relates to no request; tool `end-standalone` ends the standalone stream
//   /changing/...    SSE replies; tools/list gives `echo`, `add-tool` and the tools added so far;
//                    `add-tool` adds the tool `name` and sends `notifications/tools/list_changed`
//                    on the standalone GET stream (`via: "standalone"`, as the TypeScript SDK's
//                    servers do) or on the call's own stream (`via: "response"`); with
//                    `failNextListing`, the next tools/list fails with a JSON-RPC error
//   /bulk/...        JSON replies with the BULK_TOOLS: `slow` (waits `ms`; the most calls in flight
//                    at once per session path is at `GET /__inflight?path=<prefix>`), `big` (`chars`
//                    characters of digits, every tenth a line end with `lines`), `fail-500` (HTTP
//                    500), `not-json` (200 with an HTML body), `rpc-error` (a JSON-RPC error),
//                    `mismatched-output` and `missing-output` (results that break their tools'
//                    `outputSchema`: content it refuses, no `structuredContent`);
//                    and, not listed, `deep` (a result nested `depth` arrays deep, 100 000 by
//                    default)
//   /bulk-sse/...    the same tools with SSE replies
//   /many/N/...      JSON replies; tools/list gives N tools, `tool-1` to `tool-N`, in one page
//   /sampling/...    SSE replies; one tool, `forecast`, which runs a server's own loop over
//                    sampling with tools (MCP 2025-11-25, SEP-1577): it asks the client's model
//                    `question` with its tool `get.weather` (a name no provider takes as is),
//                    runs the tool_use blocks it gets back and asks again with their tool_result
//                    blocks, at most 3 times (the last with toolChoice "none"), and answers with
//                    every createMessage result (or error) it got, as JSON
//   /catalog/...     JSON replies; declares resources and prompts too: resources/list gives 7
//                    resources, 3 a page; prompts/list answers every page with nextCursor `again`
//   /keys/...        JSON replies; one tool, `list-apps`, whose property keys Anthropic refuses
//                    (`filter[id]`, 70 characters), answers with the arguments it got as JSON
//   /stuck/...       JSON replies; a POST of notifications/cancelled is answered only after 5 s
//                    (a server whose event loop the cancelled call still blocks)
//   /redirect/...    307 to the same path under /json/ (a client must not follow it)
//   /stall/...       reads every request and never answers (a server stuck before initialize)
//   /ping-fails/...  JSON replies; every ping gets HTTP 500 (an idle session that failed)
//   /no-version-cors/... JSON replies; the CORS preflight allows Mcp-Session-Id but not
//                    MCP-Protocol-Version (a browser refuses every request that carries it)
//   /string-ids/...  JSON replies whose id is the request's id as a string (`"id": "3"`)
//   /strict-version/... JSON replies; an initialize offering a version other than 2025-03-26 or
//                    2024-11-05 gets the spec's example error (-32602 with `data.supported`)
//   /ping-unknown/... JSON replies; every ping gets the JSON-RPC error -32601 (a server that does
//                    not implement ping, as some answer: go-sdk#900)
//   /stall-initialize/... initialize's reply sends its headers (a session id) and never a body
//   /stall-initialized/... JSON replies; notifications/initialized is never answered (a session
//                    opened, then a server stuck)
//   /future-version/ JSON replies; initialize opens a session but answers protocol version
//                    2099-01-01, which no client supports
//   /legacy-future-version/ /legacy/ whose initialize answers 2099-01-01; how many of its
//                    streams are open is at `GET /__legacy-open?path=<prefix>`
//   /auth/...        JSON replies; every request needs `Authorization: Bearer <the path's token>`,
//                    `good` at first, else 401 with a Bearer challenge (`resource_metadata` at
//                    /.well-known/oauth-protected-resource/auth/..., which this server serves,
//                    `scope`, `error="invalid_token"` when a token came); tool `expire-token`
//                    makes `next` the path's token once answered
//   /auth-scope/...  /auth/ where the token `admin` passes too, and tool `admin` needs it: other
//                    tokens get 403 `error="insufficient_scope"`
//   /auth-legacy/... /legacy/ with /auth/'s token check on the stream and on every POST
//   /.well-known/oauth-protected-resource/prm-html/..., .../prm-no-issuer/...: protected
//                    resource metadata answered 200 but unusable, an HTML page (a catch-all route's)
//                    and a JSON object without `authorization_servers`
//   /.well-known/oauth-authorization-server, /oauth/register, /oauth/authorize, /oauth/token:
//                    the authorization server the /auth/ paths' metadata names (RFC 8414, RFC 7591,
//                    RFC 6749 with PKCE S256 and RFC 8707 `resource`). /oauth/authorize approves at
//                    once with a 302 to `redirect_uri` carrying `code` and `state`; a client
//                    registered with client_name "deny" gets `error=access_denied`, one named
//                    "wrong-state" a different `state`, one named "hold" a page that stays, one
//                    named "hold-at-home" a page that stays on the redirect URI's origin, one
//                    named "coop" a page sent with `Cross-Origin-Opener-Policy: same-origin` that
//                    goes on to the redirect after a second. Its metadata says it sends RFC 9207's
//                    `iss` (authorization_response_iss_parameter_supported), and every redirect
//                    carries it but those of "mix-up" (another issuer's) and "no-iss" (none).
//                    /oauth/token checks the code's client id, redirect URI, resource and PKCE
//                    verifier, and issues the token the resource's
//                    /auth/ path accepts (`good` at first) with a refresh token, as does the
//                    refresh grant; POST /oauth/__rotate?path=<path>&token=<t> makes `t` the
//                    token that path accepts (the one it held is refused from then on);
//                    POST /oauth/__refresh-fails?answer=<503|invalid_grant|invalid_client|drop|html200>
//                    makes refresh grants fail that way until one without `answer`;
//                    /.well-known/oauth-authorization-server/impostor serves the same metadata,
//                    whose issuer is not the impostor's, for the protected resource metadata's
//                    `?as=impostor`, which names the issuer http://<host>/impostor
//   GET /__bare:     `{ url }`, the origin of a second listener where every path answers 404 (and
//                    CORS preflights 204): a server with no OAuth metadata and no default OAuth
//                    endpoints, which this origin, its authorization server's, cannot stand for
//   (other modes answer a GET without Last-Event-ID with 405)

import { createHash } from "node:crypto";
import http from "node:http";

const log = [];
const sessions = new Map();
const legacyStreams = new Map();
let nextSessionNumber = 1;

const TOOLS = [
  { name: "echo", description: "Echoes the message", inputSchema: { type: "object", properties: { message: { type: "string" } }, required: ["message"] } },
  { name: "add", description: "Adds a and b", inputSchema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } } } },
  { name: "", description: "A tool with an empty name, to be skipped", inputSchema: { type: "object" } },
  { name: "progress", description: "Reports progress `steps` times every `intervalMs`, then answers", inputSchema: { type: "object" } },
  { name: "ask-client", description: "Sends ping, sampling and elicitation requests to the client, then reports the answers", inputSchema: { type: "object" } },
  { name: "hang", description: "Never answers", inputSchema: { type: "object" } },
  { name: "structured", description: "Structured content only", inputSchema: { type: "object" } },
];
const ADD_TOOL = { name: "add-tool", description: "Adds the tool `name` and tells the client its tools changed", inputSchema: { type: "object" } };
const BULK_TOOLS = [
  TOOLS[0],
  { name: "slow", description: "Answers after `ms` milliseconds", inputSchema: { type: "object", properties: { ms: { type: "number" } } } },
  { name: "big", description: "Answers with `chars` characters", inputSchema: { type: "object", properties: { chars: { type: "number" } } } },
  { name: "fail-500", description: "The server fails with HTTP 500", inputSchema: { type: "object" } },
  { name: "not-json", description: "The server answers with a body that is not JSON", inputSchema: { type: "object" } },
  { name: "rpc-error", description: "The server answers with a JSON-RPC error", inputSchema: { type: "object" } },
  {
    name: "mismatched-output",
    description: "Answers with structuredContent its outputSchema refuses",
    inputSchema: { type: "object" },
    outputSchema: { type: "object", properties: { temperature: { type: "number" }, readings: { type: "array", items: { type: "number" } } }, required: ["temperature", "unit"] },
  },
  { name: "missing-output", description: "Has an outputSchema, answers without structuredContent", inputSchema: { type: "object" }, outputSchema: { type: "object" } },
];
const KEYS_TOOLS = [
  {
    name: "list-apps",
    description: "Answers with the arguments it got",
    inputSchema: { type: "object", properties: { "filter[id]": { type: "string" }, ["k".repeat(70)]: { type: "integer" } }, required: ["filter[id]"] },
  },
];
const SAMPLING_TOOLS = [
  { name: "forecast", description: "Asks the client's model `question`, lending it the tool get.weather", inputSchema: { type: "object", properties: { question: { type: "string" } } } },
];
const WEATHER_TOOL = {
  name: "get.weather",
  description: "Current weather for a city",
  inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
};
const PAGE_SIZE = 3;
const CATALOG_RESOURCES = Array.from({ length: 7 }, (_, index) => ({ uri: `test://resource/${index + 1}`, name: `resource-${index + 1}` }));
/// Per session path: calls of `slow` in flight now and the most at once.
const inFlight = new Map();

function corsHeaders(exposeSessionId, allowProtocolVersion = true) {
  return {
    "Access-Control-Allow-Origin": "*",
    "Access-Control-Allow-Methods": "GET, POST, DELETE, OPTIONS",
    "Access-Control-Allow-Headers": `content-type, accept, mcp-session-id, ${allowProtocolVersion ? "mcp-protocol-version, " : ""}last-event-id, authorization`,
    "Access-Control-Expose-Headers": `${exposeSessionId ? "mcp-session-id, " : ""}mcp-protocol-version, www-authenticate`,
  };
}

function result(id, value) {
  return { jsonrpc: "2.0", id, result: value };
}

function sseFrame(message, eventId) {
  return `${eventId ? `id: ${eventId}\n` : ""}event: message\ndata: ${JSON.stringify(message)}\n\n`;
}

function toolsPage(cursor, mode) {
  const all = mode === "bulk" || mode === "bulk-sse" ? BULK_TOOLS : mode === "keys" ? KEYS_TOOLS : TOOLS;
  return pageOf(all, cursor, "tools");
}

/// The page of `all` at `cursor` (`page-<start>`), its entries under `member`.
function pageOf(all, cursor, member) {
  const start = cursor ? Number(cursor.replace("page-", "")) : 0;
  const next = start + PAGE_SIZE < all.length ? { nextCursor: `page-${start + PAGE_SIZE}` } : {};
  return { [member]: all.slice(start, start + PAGE_SIZE), ...next };
}

/// The reply to request `id` for the page of `all` at `cursor` (/expire-paging/): its cursors
/// name `session`, and another session's is refused with -32602, as the spec asks of an invalid
/// cursor (2025-11-25, "Pagination": cursors are opaque and belong to the session that gave them).
function sessionPage(id, session, all, cursor, member) {
  const prefix = `${session.id}:`;
  if (cursor !== undefined && !cursor.startsWith(prefix)) {
    return { jsonrpc: "2.0", id, error: { code: -32602, message: `invalid cursor ${cursor}` } };
  }
  const page = pageOf(all, cursor?.slice(prefix.length), member);
  if (page.nextCursor) page.nextCursor = prefix + page.nextCursor;
  return result(id, page);
}

/// The tools of `/many/N/...`: `tool-1` to `tool-N`.
function manyTools(path) {
  const count = Number(path.split("/")[2]) || 0;
  return Array.from({ length: count }, (_, index) => ({ name: `tool-${index + 1}`, description: "One of many", inputSchema: { type: "object" } }));
}

function readBody(request) {
  return new Promise((resolve) => {
    const chunks = [];
    request.on("data", (chunk) => chunks.push(chunk));
    request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
  });
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// Answers one client request. `send(message)` writes to the reply channel (JSON or SSE);
// returns when the response was sent (or never, for `hang`).
async function answer(message, context, send) {
  const { id, method, params = {} } = message;
  switch (method) {
    case "initialize":
      if (context.session.mode === "strict-version") {
        const supported = ["2025-03-26", "2024-11-05"];
        if (!supported.includes(params.protocolVersion)) {
          return send({ jsonrpc: "2.0", id, error: { code: -32602, message: "Unsupported protocol version", data: { supported, requested: params.protocolVersion } } });
        }
        return send(result(id, { protocolVersion: params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "mcp-test-server", version: "1.0.0" } }));
      }
      return send(result(id, {
        protocolVersion: context.session.mode.endsWith("future-version") ? "2099-01-01" : params.protocolVersion === "2024-11-05" ? "2024-11-05" : "2025-06-18",
        capabilities: ["catalog", "expire-paging"].includes(context.session.mode)
          ? { tools: {}, resources: {}, prompts: {} }
          : context.session.mode === "restart" ? { tools: {}, resources: { subscribe: true }, logging: {} } : { tools: {} },
        serverInfo: { name: "mcp-test-server", version: "1.0.0" },
      }));
    case "ping":
      if (context.session.mode === "ping-unknown") return send({ jsonrpc: "2.0", id, error: { code: -32601, message: "Method not found" } });
      return send(result(id, {}));
    case "tools/list":
      if (context.session.failNextListing) {
        context.session.failNextListing = false;
        return send({ jsonrpc: "2.0", id, error: { code: -32603, message: "listing failed once" } });
      }
      if (context.session.mode === "changing") return send(result(id, { tools: [TOOLS[0], ADD_TOOL, ...context.session.addedTools] }));
      if (context.session.mode === "many") return send(result(id, { tools: manyTools(context.session.path) }));
      if (context.session.mode === "sampling") return send(result(id, { tools: SAMPLING_TOOLS }));
      if (context.session.mode === "expire-paging") return send(sessionPage(id, context.session, TOOLS, params.cursor, "tools"));
      return send(result(id, toolsPage(params.cursor, context.session.mode)));
    case "tools/call":
      return callTool(id, params, context, send);
    case "resources/list":
      if (context.session.mode === "expire-paging") return send(sessionPage(id, context.session, CATALOG_RESOURCES, params.cursor, "resources"));
      return send(result(id, pageOf(CATALOG_RESOURCES, params.cursor, "resources")));
    case "prompts/list":
      return send(result(id, { prompts: [{ name: "again" }], nextCursor: "again" }));
    case "resources/subscribe":
    case "resources/unsubscribe":
    case "logging/setLevel":
      // Declared by /restart/ only: accepted, and read back from the log by the tests.
      return send(result(id, {}));
    default:
      return send({ jsonrpc: "2.0", id, error: { code: -32601, message: `unknown method ${method}` } });
  }
}

async function callTool(id, params, context, send) {
  const args = params.arguments ?? {};
  const token = params._meta?.progressToken;
  switch (params.name) {
    case "echo":
      return send(result(id, { content: [{ type: "text", text: `Echo: ${args.message}` }] }));
    case "add":
      return send(result(id, { content: [{ type: "text", text: String(args.a + args.b) }] }));
    case "structured":
      return send(result(id, { content: [], structuredContent: { answer: 42 } }));
    case "mismatched-output":
      return send(result(id, { content: [{ type: "text", text: "warm" }], structuredContent: { temperature: "warm", readings: [1, "two"] } }));
    case "missing-output":
      return send(result(id, { content: [{ type: "text", text: "42" }] }));
    case "list-apps":
      return send(result(id, { content: [{ type: "text", text: JSON.stringify(args) }] }));
    case "progress": {
      const steps = args.steps ?? 3;
      for (let step = 1; step <= steps; step++) {
        await sleep(args.intervalMs ?? 50);
        send({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: token, progress: step, total: steps, message: `step ${step}` } });
      }
      return send(result(id, { content: [{ type: "text", text: `done after ${steps} steps` }] }));
    }
    case "ask-client": {
      const waiting = ["srv-ping", "srv-sampling", "srv-elicit"].map((requestId) => new Promise((resolve) => context.session.waiters.set(requestId, resolve)));
      send({ jsonrpc: "2.0", id: "srv-ping", method: "ping" });
      send({ jsonrpc: "2.0", id: "srv-sampling", method: "sampling/createMessage", params: { messages: [], maxTokens: 1 } });
      send({
        jsonrpc: "2.0",
        id: "srv-elicit",
        method: "elicitation/create",
        params: { message: "Your name?", requestedSchema: { type: "object", properties: { name: { type: "string", default: "Ada" }, note: { type: "string" } } } },
      });
      const answers = await Promise.race([Promise.all(waiting), sleep(5000).then(() => "no answers within 5 s")]);
      return send(result(id, { content: [{ type: "text", text: JSON.stringify(answers) }] }));
    }
    case "forecast": {
      // The server's loop of the spec's "Multi-turn Tool Loop": the client only samples.
      const messages = [{ role: "user", content: { type: "text", text: args.question ?? "Weather in Paris?" } }];
      const answers = [];
      for (let turn = 1; turn <= 3; turn++) {
        const requestId = `srv-forecast-${turn}`;
        const answered = new Promise((resolve) => context.session.waiters.set(requestId, resolve));
        const toolChoice = { mode: turn === 3 ? "none" : "auto" };
        send({ jsonrpc: "2.0", id: requestId, method: "sampling/createMessage", params: { messages, tools: [WEATHER_TOOL], toolChoice, maxTokens: 200 } });
        const reply = await Promise.race([answered, sleep(5000).then(() => ({ error: "no answer within 5 s" }))]);
        answers.push(reply.result ?? reply.error);
        if (reply.result?.stopReason !== "toolUse") break;
        const content = [].concat(reply.result.content);
        messages.push({ role: "assistant", content });
        const results = content.filter((block) => block.type === "tool_use").map((use) => {
          const known = use.name === WEATHER_TOOL.name;
          const text = known ? `Weather in ${use.input.city}: 18°C` : `unknown tool ${use.name}`;
          return { type: "tool_result", toolUseId: use.id, content: [{ type: "text", text }], isError: !known };
        });
        messages.push({ role: "user", content: results });
      }
      return send(result(id, { content: [{ type: "text", text: JSON.stringify(answers) }] }));
    }
    case "elicit-late": {
      // Unlisted (listings elsewhere count the tools): works `delayMs`, asks the client a
      // question, waits for the answer, works `afterMs` more, then reports the answer. A client
      // whose timeout does not restart on the question and on its answer times out first.
      await sleep(args.delayMs ?? 0);
      const answered = new Promise((resolve) => context.session.waiters.set("srv-late", resolve));
      send({
        jsonrpc: "2.0",
        id: "srv-late",
        method: "elicitation/create",
        params: { message: "Still there?", requestedSchema: { type: "object", properties: { name: { type: "string" } } } },
      });
      const answer = await Promise.race([answered, sleep(5000).then(() => "no answer within 5 s")]);
      await sleep(args.afterMs ?? 0);
      return send(result(id, { content: [{ type: "text", text: JSON.stringify(answer) }] }));
    }
    case "detached-progress": {
      const steps = args.steps ?? 3;
      for (let step = 1; step <= steps; step++) {
        await sleep(args.intervalMs ?? 50);
        context.session.standalone?.write(sseFrame({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: token, progress: step } }));
      }
      // The answer comes one interval after the last report: sent at once on its own connection,
      // it could overtake the report on the standalone stream, which the client then ignores.
      await sleep(args.intervalMs ?? 50);
      return send(result(id, { content: [{ type: "text", text: `done after ${steps} steps` }] }));
    }
    case "end-standalone": {
      // As a proxy that closes an idle connection: the client should open the stream again.
      context.session.standalone?.end();
      return send(result(id, { content: [{ type: "text", text: "standalone stream ended" }] }));
    }
    case "add-tool": {
      context.session.addedTools.push({ name: args.name, description: "Added at run time", inputSchema: { type: "object" } });
      context.session.failNextListing = args.failNextListing === true;
      const changed = { jsonrpc: "2.0", method: "notifications/tools/list_changed" };
      if (args.via === "response") send(changed);
      else context.session.standalone?.write(sseFrame(changed));
      return send(result(id, { content: [{ type: "text", text: `added ${args.name}` }] }));
    }
    case "hang":
      return new Promise(() => {});
    case "slow": {
      const count = inFlight.get(context.session.path) ?? { now: 0, max: 0 };
      inFlight.set(context.session.path, count);
      count.now++;
      count.max = Math.max(count.max, count.now);
      await sleep(args.ms ?? 100);
      count.now--;
      return send(result(id, { content: [{ type: "text", text: `slept ${args.ms ?? 100} ms` }] }));
    }
    case "big": {
      const unit = args.lines ? "012345678\n" : "0123456789";
      return send(result(id, { content: [{ type: "text", text: unit.repeat(Math.ceil((args.chars ?? 10) / 10)).slice(0, args.chars ?? 10) }] }));
    }
    case "rpc-error":
      return send({ jsonrpc: "2.0", id, error: { code: -32000, message: "injected JSON-RPC error" } });
    case "expire-token":
      send(result(id, { content: [{ type: "text", text: "token expired" }] }));
      authTokens.set(new URL(context.session.path, "http://127.0.0.1").pathname, args.next);
      return;
    case "admin":
      return send(result(id, { content: [{ type: "text", text: "admin done" }] }));
    default:
      return send(result(id, { content: [{ type: "text", text: `unknown tool ${params.name}` }], isError: true }));
  }
}

function newSession(mode, path) {
  const id = `session-${nextSessionNumber++}`;
  const session = { id, mode, path, requests: 0, waiters: new Map(), addedTools: [], standalone: null };
  sessions.set(id, session);
  return session;
}

async function handleStreamable(request, response, mode, body) {
  const exposeSessionId = mode !== "hidden-session";
  const cors = corsHeaders(exposeSessionId);
  if (request.method === "GET") {
    const resumeFrom = request.headers["last-event-id"];
    if (mode === "standalone" && !resumeFrom && sessions.has(request.headers["mcp-session-id"])) {
      // The standalone stream: a server request that belongs to no client request.
      response.writeHead(200, { ...cors, "Content-Type": "text/event-stream" });
      response.write(sseFrame({ jsonrpc: "2.0", id: "standalone-ping", method: "ping" }));
      const session = sessions.get(request.headers["mcp-session-id"]);
      session.standalone = response;
      request.on("close", () => {
        session.standalone = null;
        response.end();
      });
      return;
    }
    const changing = mode === "changing" && !resumeFrom && sessions.get(request.headers["mcp-session-id"]);
    if (changing) {
      response.writeHead(200, { ...cors, "Content-Type": "text/event-stream" });
      response.write(": standalone stream open\n\n");
      changing.standalone = response;
      request.on("close", () => {
        changing.standalone = null;
        response.end();
      });
      return;
    }
    if (mode === "broken" && resumeFrom) {
      // Replays what followed `resumeFrom` on the broken stream: after the progress event, the
      // response; after the response, nothing.
      response.writeHead(200, { ...cors, "Content-Type": "text/event-stream" });
      const reply = brokenReplies.get(resumeFrom);
      brokenReplies.delete(resumeFrom);
      response.end(reply ? sseFrame(reply.message, reply.eventId) : "");
      return;
    }
    const pending = resumeFrom && pendingResumes.get(resumeFrom);
    if (!pending) {
      response.writeHead(405, cors).end();
      return;
    }
    if (mode === "resume-initialize" && request.headers["mcp-session-id"] !== pending.sessionId) {
      response.writeHead(400, cors).end("Bad Request: no session id");
      return;
    }
    pendingResumes.delete(resumeFrom);
    response.writeHead(200, { ...cors, "Content-Type": "text/event-stream" });
    response.end(sseFrame(pending.reply, `${resumeFrom}-done`));
    return;
  }
  if (request.method === "DELETE") {
    sessions.delete(request.headers["mcp-session-id"]);
    response.writeHead(200, cors).end();
    return;
  }
  let message;
  try {
    message = JSON.parse(body);
  } catch {
    response.writeHead(400, cors).end("not JSON");
    return;
  }
  const sessionId = request.headers["mcp-session-id"];
  let session;
  if (message.method === "initialize") {
    if (mode === "restart") await sleep(300);
    session = newSession(mode, request.url);
  } else {
    session = sessions.get(sessionId);
    if (!session) {
      response.writeHead(sessionId ? 404 : 400, cors).end(sessionId ? "session not found" : "Bad Request: no session id");
      return;
    }
    session.requests++;
    if (mode === "refuse-initialized" && message.method === "notifications/initialized") {
      if (!refusedInitializedPaths.has(session.path)) {
        refusedInitializedPaths.add(session.path);
        response.writeHead(503, cors).end("busy");
        return;
      }
      session.initialized = true;
    }
    if (mode === "refuse-initialized" && !session.initialized) {
      response.writeHead(400, cors).end("Received request before initialization was complete");
      return;
    }
    const expiresNow = mode === "expire" ? session.requests === 2 : mode === "expire-paging" && message.params?.cursor !== undefined;
    if (expiresNow && !expiredPaths.has(session.path)) {
      expiredPaths.add(session.path);
      sessions.delete(session.id);
      response.writeHead(404, cors).end("session expired");
      return;
    }
  }
  if (mode === "stall-initialized" && message.method === "notifications/initialized") return;
  if (mode === "ping-fails" && message.method === "ping") {
    response.writeHead(500, cors).end("ping failed");
    return;
  }
  const headers = { ...cors, "Mcp-Session-Id": session.id };
  if (mode === "stuck" && message.method === "notifications/cancelled") await sleep(5000);
  if (message.id === undefined) {
    response.writeHead(202, headers).end();
    return;
  }
  if (message.method === undefined) {
    const waiter = session.waiters.get(String(message.id));
    if (waiter) waiter(message);
    response.writeHead(202, headers).end();
    return;
  }
  if (mode === "bulk" && message.method === "tools/call" && message.params?.name === "fail-500") {
    response.writeHead(500, cors).end("injected failure");
    return;
  }
  if (mode === "bulk" && message.method === "tools/call" && message.params?.name === "deep") {
    const depth = message.params.arguments?.depth ?? 100000;
    const nested = "[".repeat(depth) + "]".repeat(depth);
    response.writeHead(200, { ...headers, "Content-Type": "application/json" });
    response.end(`{"jsonrpc":"2.0","id":${JSON.stringify(message.id)},"result":{"content":[],"structuredContent":{"nested":${nested}}}}`);
    return;
  }
  if (mode === "bulk" && message.method === "tools/call" && message.params?.name === "not-json") {
    response.writeHead(200, { ...headers, "Content-Type": "application/json" }).end("<html>not json</html>");
    return;
  }
  if (mode === "restart" && message.method === "tools/call" && message.params?.name === "restart") {
    for (const [id, other] of sessions) if (other.path === session.path) sessions.delete(id);
    response.writeHead(200, { ...headers, "Content-Type": "application/json" });
    response.end(JSON.stringify(result(message.id, { content: [{ type: "text", text: "restarted" }] })));
    return;
  }
  if (["auth", "auth-scope", "json", "catalog", "expire-paging", "many", "keys", "bulk", "restart", "refuse-initialized", "stuck", "future-version", "stall-initialized", "ping-fails", "ping-unknown", "no-version-cors", "string-ids", "strict-version"].includes(mode)) {
    await answer(message, { session }, (reply) => {
      if (reply.id !== message.id) return;
      if (mode === "string-ids") reply.id = String(reply.id);
      response.writeHead(200, { ...headers, "Content-Type": "application/json" }).end(JSON.stringify(reply));
    });
    return;
  }
  response.writeHead(200, { ...headers, "Content-Type": "text/event-stream" });
  if (mode === "stall-initialize" && message.method === "initialize") {
    response.flushHeaders();
    return;
  }
  const resumed = mode === "resume-initialize" ? "initialize" : mode === "resume" ? "tools/call" : null;
  if (message.method === resumed) {
    const eventId = `resume-${session.id}-${message.id}`;
    response.end(`id: ${eventId}\nretry: 300\ndata: \n\n`);
    let reply;
    await answer(message, { session }, (message) => (reply = message));
    pendingResumes.set(eventId, { reply, sessionId: session.id });
    return;
  }
  if (mode === "broken" && message.method === "tools/call") {
    const eventId = `broken-${session.id}-${message.id}`;
    const progress = { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: message.params._meta?.progressToken, progress: 1 } };
    const reply = result(message.id, { content: [{ type: "text", text: "after the break" }] });
    brokenReplies.set(`${eventId}-1`, { message: reply, eventId: `${eventId}-2` });
    const cutEvent = message.params.arguments?.cut === "id" ? `id: ${eventId}-2\n` : `id: ${eventId}-2\ndata: ${JSON.stringify(reply).slice(0, 30)}`;
    response.write(`retry: 50\nid: ${eventId}-1\ndata: ${JSON.stringify(progress)}\n\n${cutEvent}`);
    setTimeout(() => response.socket?.destroy(), 50);
    return;
  }
  request.on("close", () => response.end());
  await answer(message, { session }, (reply) => response.write(sseFrame(reply)));
  response.end();
}

/// Per /auth/ path: the token its requests need (`good` when absent).
const authTokens = new Map();

/// The 401 or 403 an /auth/ request gets, with its challenge, or null when its token passes.
function authRefusal(request, url, mode, message) {
  const sessionId = url.searchParams.get("sessionId");
  const path = sessionId ? new URL(legacyStreams.get(sessionId)?.session.path ?? "/", "http://127.0.0.1").pathname : url.pathname;
  const sent = request.headers.authorization;
  const metadata = `resource_metadata="http://${request.headers.host}/.well-known/oauth-protected-resource${path}"`;
  const accepted = [`Bearer ${authTokens.get(path) ?? "good"}`, ...(mode === "auth-scope" ? ["Bearer admin"] : [])];
  if (!accepted.includes(sent)) {
    return { status: 401, challenge: `Bearer ${metadata}, scope="mcp:tools"${sent ? ', error="invalid_token"' : ""}` };
  }
  if (mode === "auth-scope" && message?.params?.name === "admin" && sent !== "Bearer admin") {
    return { status: 403, challenge: `Bearer error="insufficient_scope", scope="mcp:tools mcp:admin", ${metadata}, error_description="the admin tool needs mcp:admin"` };
  }
  return null;
}

/// The authorization server's state: registered clients, issued codes and refresh tokens.
const oauthClients = new Map();
const oauthCodes = new Map();
const oauthRefreshTokens = new Map();
let oauthCounter = 0;
/// How every refresh grant fails until cleared: a status (503), "invalid_grant",
/// "invalid_client", "html200" (a 200 web page, no token response), or "drop" (the connection
/// is closed without an answer, also when Chromium sends the request again, as it does once on a
/// reused connection); null: it does not.
let refreshFailure = null;

/// Answers a request to the authorization server's paths; false for any other path.
function answerOAuth(request, response, url, body) {
  const origin = `http://${request.headers.host}`;
  const json = (status, value) => {
    response.writeHead(status, { ...corsHeaders(true), "Content-Type": "application/json", "Cache-Control": "no-store" });
    response.end(JSON.stringify(value));
  };
  // The impostor's metadata is this server's, whose `issuer` is not the impostor's.
  if (["/.well-known/oauth-authorization-server", "/.well-known/oauth-authorization-server/impostor"].includes(url.pathname)) {
    json(200, {
      issuer: origin,
      authorization_endpoint: `${origin}/oauth/authorize`,
      token_endpoint: `${origin}/oauth/token`,
      registration_endpoint: `${origin}/oauth/register`,
      response_types_supported: ["code"],
      grant_types_supported: ["authorization_code", "refresh_token"],
      code_challenge_methods_supported: ["S256"],
      token_endpoint_auth_methods_supported: ["none"],
      authorization_response_iss_parameter_supported: true,
    });
  } else if (url.pathname === "/oauth/register" && request.method === "POST") {
    const metadata = JSON.parse(body || "{}");
    if (!Array.isArray(metadata.redirect_uris) || metadata.redirect_uris.length === 0) {
      json(400, { error: "invalid_redirect_uri" });
      return true;
    }
    oauthCounter += 1;
    const client = { ...metadata, client_id: `client-${oauthCounter}`, client_id_issued_at: Math.floor(Date.now() / 1000) };
    oauthClients.set(client.client_id, client);
    json(201, client);
  } else if (url.pathname === "/oauth/authorize") {
    const query = Object.fromEntries(url.searchParams);
    const client = oauthClients.get(query.client_id);
    if (!client || !client.redirect_uris.includes(query.redirect_uri)) {
      response.writeHead(400, { "Content-Type": "text/plain" }).end("unknown client or redirect_uri");
      return true;
    }
    if (client.client_name === "hold") {
      response.writeHead(200, { "Content-Type": "text/html" }).end("<p>signing in…</p>");
      return true;
    }
    if (client.client_name === "hold-at-home") {
      // A sign-in page on the redirect page's own origin (its style sheet stands in for it).
      response.writeHead(302, { Location: new URL("/style.css", query.redirect_uri).href }).end();
      return true;
    }
    const target = new URL(query.redirect_uri);
    // RFC 9207: every answer names its issuer, but for the clients that test the check.
    if (client.client_name !== "no-iss") {
      target.searchParams.set("iss", client.client_name === "mix-up" ? "http://127.0.0.1:1" : origin);
    }
    if (client.client_name === "coop") {
      // An identity provider's sign-in page isolated by COOP (as many are): the popup leaves the
      // opener's browsing context group. The user "signs in" for a second, then the page goes on.
      oauthCounter += 1;
      const code = `code-${oauthCounter}`;
      oauthCodes.set(code, { ...query });
      target.searchParams.set("code", code);
      target.searchParams.set("state", query.state ?? "");
      const page = `<p>signing in…</p><script>setTimeout(() => location.replace(${JSON.stringify(target.href)}), 1000)</script>`;
      response.writeHead(200, { "Content-Type": "text/html", "Cross-Origin-Opener-Policy": "same-origin" }).end(page);
      return true;
    }
    if (client.client_name === "deny") {
      target.searchParams.set("error", "access_denied");
      target.searchParams.set("error_description", "the user refused");
    } else if (query.response_type !== "code" || query.code_challenge_method !== "S256" || !query.code_challenge) {
      target.searchParams.set("error", "invalid_request");
    } else {
      oauthCounter += 1;
      const code = `code-${oauthCounter}`;
      oauthCodes.set(code, { ...query });
      target.searchParams.set("code", code);
    }
    target.searchParams.set("state", client.client_name === "wrong-state" ? "forged" : query.state ?? "");
    response.writeHead(302, { Location: target.href }).end();
  } else if (url.pathname === "/oauth/__refresh-fails" && request.method === "POST") {
    refreshFailure = url.searchParams.get("answer") || null;
    json(200, {});
  } else if (url.pathname === "/oauth/__rotate" && request.method === "POST") {
    authTokens.set(url.searchParams.get("path"), url.searchParams.get("token"));
    json(200, {});
  } else if (url.pathname === "/oauth/token" && request.method === "POST") {
    const form = Object.fromEntries(new URLSearchParams(body));
    const issue = (client_id, resource) => {
      oauthCounter += 1;
      const refreshToken = `refresh-${oauthCounter}`;
      oauthRefreshTokens.set(refreshToken, { client_id, resource });
      // A flow of MCP 2025-03-26 names no resource: the default token.
      const accessToken = (resource && authTokens.get(new URL(resource).pathname)) ?? "good";
      json(200, { access_token: accessToken, token_type: "Bearer", expires_in: 3600, refresh_token: refreshToken });
    };
    if (form.grant_type === "authorization_code") {
      const granted = oauthCodes.get(form.code);
      oauthCodes.delete(form.code);
      const challenge = createHash("sha256").update(form.code_verifier ?? "").digest("base64url");
      const wrong = !granted ? "unknown code"
        : granted.client_id !== form.client_id ? "client_id"
        : granted.redirect_uri !== form.redirect_uri ? "redirect_uri"
        : granted.resource !== form.resource ? "resource"
        : granted.code_challenge !== challenge ? "code_verifier"
        : null;
      if (wrong) json(400, { error: "invalid_grant", error_description: `wrong ${wrong}` });
      else issue(form.client_id, form.resource);
    } else if (form.grant_type === "refresh_token" && refreshFailure) {
      const answer = refreshFailure;
      if (answer === "drop") request.socket.destroy();
      else if (answer === "invalid_client") json(401, { error: "invalid_client" });
      else if (answer === "invalid_grant") json(400, { error: "invalid_grant", error_description: "the refresh token was revoked" });
      else if (answer === "html200") {
        // What a proxy or a captive portal answers in the token endpoint's place.
        response.writeHead(200, { ...corsHeaders(true), "Content-Type": "text/html" });
        response.end("<!doctype html><title>Sign in to the network</title>");
      }
      else json(Number(answer), { error: "temporarily_unavailable" });
    } else if (form.grant_type === "refresh_token") {
      const granted = oauthRefreshTokens.get(form.refresh_token);
      if (!granted || granted.client_id !== form.client_id) json(400, { error: "invalid_grant" });
      else issue(form.client_id, form.resource);
    } else {
      json(400, { error: "unsupported_grant_type" });
    }
  } else {
    return false;
  }
  return true;
}

const pendingResumes = new Map();
/// Per event id of a /broken/ stream: the response to replay to a GET resuming after it.
const brokenReplies = new Map();
const expiredPaths = new Set();
const refusedInitializedPaths = new Set();

function handleLegacy(request, response, mode, url, body) {
  const cors = corsHeaders(true);
  const prefix = `/${url.pathname.split("/")[1]}`;
  if (url.pathname.endsWith("/message") && request.method === "POST") {
    const stream = legacyStreams.get(url.searchParams.get("sessionId"));
    if (!stream) {
      response.writeHead(404, cors).end("unknown legacy session");
      return;
    }
    response.writeHead(202, cors).end("Accepted");
    const message = JSON.parse(body);
    if (message.method === undefined) {
      const waiter = stream.session.waiters.get(String(message.id));
      if (waiter) waiter(message);
      return;
    }
    if (message.id !== undefined) {
      answer(message, { session: stream.session }, (reply) => stream.response.write(`event: message\ndata: ${JSON.stringify(reply)}\n\n`));
    }
    return;
  }
  if (request.method === "POST") {
    response.writeHead(405, cors).end("Method Not Allowed");
    return;
  }
  if (request.method !== "GET") {
    response.writeHead(405, cors).end();
    return;
  }
  const session = newSession(mode, request.url);
  legacyStreams.set(session.id, { response, session });
  response.writeHead(200, { ...cors, "Content-Type": "text/event-stream" });
  const endpoint = mode === "cross"
    ? `http://127.0.0.1:1${prefix}/message?sessionId=${session.id}`
    : `${prefix}/message?sessionId=${session.id}`;
  response.write(`event: endpoint\ndata: ${endpoint}\n\n`);
  // The response, not the request: a request read to its end may have closed already.
  response.on("close", () => legacyStreams.delete(session.id));
}

const server = http.createServer(async (request, response) => {
  const url = new URL(request.url, "http://127.0.0.1");
  if (request.method === "OPTIONS") {
    response.writeHead(204, corsHeaders(true, url.pathname.split("/")[1] !== "no-version-cors")).end();
    return;
  }
  if (url.pathname === "/__inflight") {
    const prefix = url.searchParams.get("path") ?? "/";
    const max = Math.max(0, ...[...inFlight].filter(([path]) => path.startsWith(prefix)).map(([, count]) => count.max));
    response.writeHead(200, { ...corsHeaders(true), "Content-Type": "application/json" });
    response.end(JSON.stringify({ max }));
    return;
  }
  if (url.pathname === "/__bare") {
    response.writeHead(200, { ...corsHeaders(true), "Content-Type": "application/json" });
    response.end(JSON.stringify({ url: `http://127.0.0.1:${bare.address().port}` }));
    return;
  }
  if (url.pathname === "/__legacy-open") {
    const prefix = url.searchParams.get("path") ?? "/";
    const open = [...legacyStreams.values()].filter((stream) => stream.session.path.startsWith(prefix)).length;
    response.writeHead(200, { ...corsHeaders(true), "Content-Type": "application/json" });
    response.end(JSON.stringify({ open }));
    return;
  }
  if (url.pathname.startsWith("/.well-known/oauth-protected-resource/")) {
    // RFC 9728 §3: the metadata of the resource at the rest of the path.
    const resourcePath = url.pathname.slice("/.well-known/oauth-protected-resource".length);
    const resource = `http://${request.headers.host}${resourcePath}`;
    const unusable = resourcePath.split("/")[1];
    if (unusable === "prm-html") {
      response.writeHead(200, { ...corsHeaders(true), "Content-Type": "text/html" });
      response.end("<!doctype html><title>App</title><div id=root></div>");
      return;
    }
    if (unusable === "prm-no-issuer") {
      response.writeHead(200, { ...corsHeaders(true), "Content-Type": "application/json" });
      response.end(JSON.stringify({ resource }));
      return;
    }
    // `?as=impostor` names the issuer whose metadata claims to be this server's (RFC 8414 §3.3).
    const issuer = `http://${request.headers.host}${url.searchParams.get("as") === "impostor" ? "/impostor" : ""}`;
    response.writeHead(200, { ...corsHeaders(true), "Content-Type": "application/json" });
    response.end(JSON.stringify({ resource, authorization_servers: [issuer], scopes_supported: ["mcp:tools", "mcp:admin"] }));
    return;
  }
  if (url.pathname === "/__log") {
    const prefix = url.searchParams.get("path") ?? "/";
    response.writeHead(200, { ...corsHeaders(true), "Content-Type": "application/json" });
    response.end(JSON.stringify(log.filter((entry) => entry.path.startsWith(prefix))));
    return;
  }
  const body = await readBody(request);
  let parsed = null;
  try {
    parsed = body ? JSON.parse(body) : null;
  } catch {
    parsed = body;
  }
  log.push({
    at: Date.now(),
    method: request.method,
    path: url.pathname,
    query: url.search,
    headers: {
      accept: request.headers["accept"],
      contentType: request.headers["content-type"],
      sessionId: request.headers["mcp-session-id"],
      protocolVersion: request.headers["mcp-protocol-version"],
      lastEventId: request.headers["last-event-id"],
      authorization: request.headers["authorization"],
    },
    allHeaders: request.headers,
    body: parsed,
  });
  if (answerOAuth(request, response, url, body)) return;
  const mode = url.pathname.split("/")[1];
  const refusal = mode.startsWith("auth") && authRefusal(request, url, mode, parsed);
  if (refusal) {
    response.writeHead(refusal.status, { ...corsHeaders(true), "WWW-Authenticate": refusal.challenge }).end("unauthorized");
    return;
  }
  if (mode === "redirect") {
    const target = url.pathname.replace(/^\/redirect\//, "/json/");
    response.writeHead(307, { ...corsHeaders(true), location: target }).end();
  } else if (["legacy", "cross", "legacy-future-version", "auth-legacy"].includes(mode)) {
    handleLegacy(request, response, mode, url, body);
  } else if (mode === "stall") {
    // Never answered; the client's abort or timeout closes the connection.
  } else if (["auth", "auth-scope", "json", "catalog", "expire-paging", "many", "keys", "sse", "expire", "restart", "refuse-initialized", "resume", "broken", "hidden-session", "standalone", "changing", "sampling", "bulk", "bulk-sse", "stuck", "future-version", "stall-initialized", "stall-initialize", "resume-initialize", "ping-fails", "ping-unknown", "no-version-cors", "string-ids", "strict-version"].includes(mode)) {
    await handleStreamable(request, response, mode, body);
  } else {
    response.writeHead(404, corsHeaders(true)).end("unknown route");
  }
});

const bare = http.createServer((request, response) => {
  response.writeHead(request.method === "OPTIONS" ? 204 : 404, corsHeaders(true)).end();
});
bare.listen(0, "127.0.0.1");

const port = Number(process.argv[2] ?? process.env.PORT ?? 0);
server.listen(port, "127.0.0.1", () => {
  console.log(`MCP_TEST_SERVER_URL=http://127.0.0.1:${server.address().port}`);
});
