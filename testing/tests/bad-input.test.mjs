// Issue #11's bad-input table, one test per row: faults of the scripted provider
// (testing/provider-server.mjs) and of the MCP test server (testing/mcp-test-server.mjs), hostile
// model output, blocked URLs and aborts. Every row ends with a stable code or event, a message that
// says what to do, the run's messages intact, and no hang (each test has a bounded timeout).
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  bounded,
  eventsOf,
  faultConfig as config,
  env,
  mcpLog,
  mcpTestPath,
  providerBaseUrl,
  providerRequests,
  runInPage,
  scriptProvider,
  browser,
  openPackagePage,
  page,
  useSharedPage,
} from "./agent-harness.mjs";

useSharedPage();

const question = [{ role: "user", content: "Use the tools if you need them." }];

const testServer = (mode, name = mode) => ({ name, url: `${env.mcpTestUrl}${mcpTestPath(mode)}` });

/** One OpenAI Chat Completions SSE event, as in ../shared/fixtures/openai/text.chunks.txt. */
function sseChunk(delta, finishReason = null) {
  const chunk = { id: "chatcmpl-raw", object: "chat.completion.chunk", created: 1727346178, model: "scripted", choices: [{ index: 0, delta, finish_reason: finishReason }] };
  return `data: ${JSON.stringify(chunk)}\n\n`;
}

function assertCompleted(run) {
  assert.equal(run.error, undefined, JSON.stringify(run.error));
  const final = run.events.at(-1);
  assert.equal(final.type, "final");
  assert.equal(final.reason, "completed");
  assert.deepEqual(final.messages[0], question[0], "the conversation is kept");
  return final;
}

function assertFailed(run, code, advice) {
  assert.equal(run.error?.code, code, JSON.stringify(run.error ?? run.events.at(-1)));
  assert.match(run.error.message, advice);
  assert.deepEqual(run.error.messages, question, "the conversation is kept");
}

async function resetProvider() {
  await fetch(`${env.providerUrl}/__reset`, { method: "POST" });
}

// ---- provider

test("provider: a malformed SSE line is skipped and the run completes", bounded, async () => {
  const raw =
    sseChunk({ role: "assistant", content: "Hel" }) +
    "this line has no field separator\n\n" +
    ":a comment line\n\n" +
    sseChunk({ content: "lo" }) +
    sseChunk({}, "stop") +
    "data: [DONE]\n\n";
  await scriptProvider([{ raw }]);
  const final = assertCompleted(await runInPage(page, config(), question));
  assert.equal(final.text, "Hello");
});

test("provider: an invalid JSON chunk ends the run with provider_stream_error, messages kept", bounded, async () => {
  const raw = sseChunk({ role: "assistant", content: "Hel" }) + "data: {not json\n\n" + sseChunk({ content: "lo" }) + "data: [DONE]\n\n";
  await scriptProvider([{ raw }]);
  const run = await runInPage(page, config(), question);
  assertFailed(run, "provider_stream_error", /json/i);
  assert.equal((await providerRequests()).length, 1);
});

test("provider: a connection dropped mid tool-call is retried once and the run completes", bounded, async () => {
  const call = { id: "call_echo", name: "echo", arguments: { message: "x".repeat(200) } };
  // 1200 bytes end the stream inside the tool call's arguments (each piece is a ~200-byte event).
  await scriptProvider([{ toolCalls: [call], disconnectAfter: 1200 }, { toolCalls: [call] }, { text: "echoed" }]);
  const run = await runInPage(page, config({ servers: [testServer("json", "test")] }), question);
  const final = assertCompleted(run);
  assert.equal(final.text, "echoed");
  assert.equal(eventsOf(run, "toolCall").length, 1, "the broken round left no call behind");
  assert.equal((await providerRequests()).length, 3, "the dropped round was asked for once more");
  // The call starts again on the page with the answer asked for again (whether the cut attempt's
  // start reached the page depends on what the browser read before the reset).
  const starts = eventsOf(run, "toolInputStart");
  assert.ok(starts.length >= 1 && starts.every((event) => event.id === "call_echo"), JSON.stringify(starts));
  const again = run.events.indexOf(starts.at(-1));
  const called = run.events.findIndex((event) => event.type === "toolCall");
  const text = run.events.slice(again, called).filter((event) => event.type === "toolInputDelta").map((event) => event.delta).join("");
  assert.deepEqual(JSON.parse(text), call.arguments, "the pieces after the second start are the whole arguments");
});

test("provider: with maxRetries: 0 a connection dropped mid tool-call is not asked for again", bounded, async () => {
  const call = { id: "call_echo", name: "echo", arguments: { message: "x".repeat(200) } };
  await scriptProvider([{ toolCalls: [call], disconnectAfter: 1200 }, { text: "never asked for" }]);
  const run = await runInPage(page, config({ servers: [testServer("json", "test")], maxRetries: 0 }), question);
  assertFailed(run, "provider_network", /./);
  assert.equal((await providerRequests()).length, 1);
});

test("provider: a stream cut early is asked for again while maxRetries lasts", bounded, async () => {
  const call = { id: "call_echo", name: "echo", arguments: { message: "x".repeat(200) } };
  const cut = { toolCalls: [call], disconnectAfter: 1200 };
  await scriptProvider([cut, cut, { toolCalls: [call] }, { text: "echoed" }]);
  const run = await runInPage(page, config({ servers: [testServer("json", "test")] }), question);
  assert.equal(assertCompleted(run).text, "echoed");
  assert.equal(eventsOf(run, "toolCall").length, 1, "the broken rounds left no call behind");
  assert.equal((await providerRequests()).length, 4, "two cuts, each asked for again, then the answer");
});

test("provider: the calls shown of a cut answer are discarded on the page before the answer asked for again", bounded, async () => {
  // Each try names its call afresh, as a real provider does; slow writes so that each cut try's
  // toolInputStart surely reaches the page before the drop.
  const tryWith = (id) => ({ id, name: "echo", arguments: { message: "x".repeat(200) } });
  await scriptProvider([
    { toolCalls: [tryWith("call_cut1")], delay: 50, disconnectAfter: 1200 },
    { toolCalls: [tryWith("call_cut2")], delay: 50, disconnectAfter: 1200 },
    { toolCalls: [tryWith("call_whole")] },
    { text: "echoed" },
  ]);
  const run = await runInPage(page, config({ servers: [testServer("json", "test")] }), question);
  assert.equal(assertCompleted(run).text, "echoed");
  const shown = run.events.filter((event) => event.type.startsWith("toolInput") && event.type !== "toolInputDelta");
  assert.deepEqual(shown.map((event) => `${event.type} ${event.id}`), [
    "toolInputStart call_cut1",
    "toolInputDiscarded call_cut1",
    "toolInputStart call_cut2",
    "toolInputDiscarded call_cut2",
    "toolInputStart call_whole",
  ]);
  assert.deepEqual(eventsOf(run, "toolCall").map((event) => event.id), ["call_whole"], "only the whole answer's call is made");
});

test("provider: a failed answer and a cut stream draw on one maxRetries budget", bounded, async () => {
  const call = { id: "call_echo", name: "echo", arguments: { message: "x".repeat(200) } };
  await scriptProvider([{ status: 503 }, { toolCalls: [call], disconnectAfter: 1200 }, { toolCalls: [call] }, { text: "never asked for" }]);
  const run = await runInPage(page, config({ servers: [testServer("json", "test")], maxRetries: 1 }), question);
  assertFailed(run, "provider_network", /./);
  assert.equal((await providerRequests()).length, 2, "maxRetries: 1 sends the call at most twice");
});

/** An Anthropic Messages SSE body: one tool call, or a text answer (as in ../shared/fixtures/anthropic). */
function anthropicStream({ toolCall, text }) {
  const event = (data) => `event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`;
  let out = event({ type: "message_start", message: { id: "msg_raw", type: "message", role: "assistant", content: [], model: "scripted", stop_reason: null, usage: { input_tokens: 12, output_tokens: 1 } } });
  if (toolCall) {
    out += event({ type: "content_block_start", index: 0, content_block: { type: "tool_use", id: toolCall.id, name: toolCall.name, input: {} } });
    const json = JSON.stringify(toolCall.arguments);
    for (let at = 0; at < json.length; at += 20) {
      out += event({ type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: json.slice(at, at + 20) } });
    }
  } else {
    out += event({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } });
    out += event({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text } });
  }
  out += event({ type: "content_block_stop", index: 0 });
  out += event({ type: "message_delta", delta: { stop_reason: toolCall ? "tool_use" : "end_turn" }, usage: { output_tokens: 30 } });
  return out + event({ type: "message_stop" });
}

test("provider: an Anthropic stream dropped mid tool-call is retried once too (its usage comes first)", bounded, async () => {
  const toolCall = { id: "toolu_echo", name: "echo", arguments: { message: "x".repeat(200) } };
  const whole = anthropicStream({ toolCall });
  await scriptProvider([
    { raw: whole, disconnectAfter: Math.floor(whole.length / 2) },
    { raw: whole },
    { raw: anthropicStream({ text: "echoed" }) },
  ]);
  const provider = { id: "anthropic", apiKey: "test-key-123", model: "scripted", baseUrl: providerBaseUrl() };
  const run = await runInPage(page, config({ provider, servers: [testServer("json", "test")] }), question);
  assert.equal(assertCompleted(run).text, "echoed");
  assert.equal(eventsOf(run, "toolCall").length, 1, "the broken round left no call behind");
  assert.equal((await providerRequests()).length, 3, "the dropped round was asked for once more");
  const usage = eventsOf(run, "usage").at(-1);
  assert.deepEqual([usage.inputTokens, usage.outputTokens], [24, 60], "the dropped try's count was replaced");
});

test("provider: a connection dropped after text was shown ends with provider_network, messages kept", bounded, async () => {
  // Slow writes so that the first pieces of text surely reach the page before the drop.
  await scriptProvider([{ text: "A long answer that the user already sees on screen.", delay: 50, disconnectAfter: 900 }, { text: "never asked for" }]);
  const run = await runInPage(page, config(), question);
  assert.ok(eventsOf(run, "text").length > 0, "some text was streamed first");
  assertFailed(run, "provider_network", /could not be reached/);
  assert.equal((await providerRequests()).length, 1, "no retry once the user saw text");
});

test("provider: a 200 answer that is no event stream (a web page, a JSON error) fails with provider_invalid_response", bounded, async () => {
  // What a wrong baseUrl (a web app answering every path), a proxy or a server ignoring
  // `stream: true` sends back; it used to end as a completed run with an empty answer.
  const bodies = [
    ["<!doctype html>\n<html><head><title>Sign in</title></head>\n<body></body></html>\n", /begins `<!doctype html> <html><head><title>Sign in/],
    [JSON.stringify({ error: { message: "model overloaded, try later" } }), /begins `\{"error":\{"message":"model overloaded, try later"/],
    ["", /empty/],
  ];
  for (const [raw, start] of bodies) {
    for (const id of ["openai_compatible", "anthropic"]) {
      await scriptProvider([{ raw }]);
      const run = await runInPage(page, config({ provider: { id, apiKey: "test-key-123", model: "scripted", baseUrl: providerBaseUrl() } }), question);
      assertFailed(run, "provider_invalid_response", start);
      assert.match(run.error.message, /check `baseUrl`/);
    }
  }
});

const statusRows = [
  { status: "401", code: "provider_auth", advice: /rejected the credentials \(HTTP 401\)/, requests: 1 },
  { status: "403", code: "provider_auth", advice: /rejected the credentials \(HTTP 403\)/, requests: 1 },
  { status: "404", code: "provider_model_not_found", advice: /has no model `scripted` \(HTTP 404\)/, requests: 1 },
  { status: "429", retryAfter: "0", code: "provider_rate_limited", advice: /rate limiting \(HTTP 429\)/, requests: 3 },
  { status: "500", code: "provider_http_status", advice: /answered HTTP 500/, requests: 3 },
  { status: "503", code: "provider_http_status", advice: /answered HTTP 503/, requests: 3 },
];
for (const row of statusRows) {
  test(`provider: HTTP ${row.status} always → ${row.code} after ${row.requests} request(s)`, bounded, async () => {
    await resetProvider();
    const faults = { status: row.status, ...(row.retryAfter ? { retryAfter: row.retryAfter } : {}) };
    const run = await runInPage(page, config({ faults }), question);
    assertFailed(run, row.code, row.advice);
    assert.equal((await providerRequests()).length, row.requests);
  });
}

test("provider: 429 with Retry-After: 1 waits a second, retries and completes", bounded, async () => {
  await scriptProvider([{ text: "after the wait" }]);
  const run = await runInPage(page, config({ faults: { status: "429", retryAfter: "1", times: "1" } }), question);
  assert.equal(assertCompleted(run).text, "after the wait");
  const requests = await providerRequests();
  assert.equal(requests.length, 2);
  assert.ok(requests[1].at - requests[0].at >= 950, `retried after ${requests[1].at - requests[0].at} ms`);
});

test("provider: 429 asking for a wait beyond 30 s fails at once and says how long to wait", bounded, async () => {
  for (const retryAfter of ["120", "date:120"]) {
    await resetProvider();
    const started = Date.now();
    const run = await runInPage(page, config({ faults: { status: "429", retryAfter } }), question);
    assertFailed(run, "provider_rate_limited", /rate limiting \(HTTP 429\): injected HTTP 429; it asks to wait 1[12]\d s before the next request/);
    assert.equal((await providerRequests()).length, 1, "no retry");
    assert.ok(Date.now() - started < 5000, "no wait");
  }
});

test("provider: a 500 once is retried and the run completes", bounded, async () => {
  await scriptProvider([{ text: "second try" }]);
  const run = await runInPage(page, config({ faults: { status: "500", times: "1" } }), question);
  assert.equal(assertCompleted(run).text, "second try");
  assert.equal((await providerRequests()).length, 2);
});

test("provider: maxRetries sets how often a refused call is sent again (the AI SDK's option)", bounded, async () => {
  for (const [maxRetries, requests] of [[0, 1], [3, 4]]) {
    await resetProvider();
    const run = await runInPage(page, config({ faults: { status: "503" }, maxRetries }), question);
    assertFailed(run, "provider_http_status", /answered HTTP 503/);
    assert.equal((await providerRequests()).length, requests, `maxRetries: ${maxRetries}`);
  }
});

test("provider: a stream that stops sending fails with provider_idle_timeout (idleTimeoutMs)", bounded, async () => {
  await scriptProvider([{ text: "This answer stalls after a few words and never ends.", hangAfter: 500 }]);
  const started = Date.now();
  const run = await runInPage(page, config({ idleTimeoutMs: 700 }), question);
  const elapsed = Date.now() - started;
  assertFailed(run, "provider_idle_timeout", /sent nothing for 700 ms.*raise `idleTimeoutMs`/);
  assert.ok(elapsed < 5000, `gave up after ${elapsed} ms`);
});

test("provider: one that never answers fails with provider_idle_timeout (idleTimeoutMs)", bounded, async () => {
  const started = Date.now();
  const run = await runInPage(page, config({ faults: { silent: "1" }, idleTimeoutMs: 700 }), question);
  const elapsed = Date.now() - started;
  assertFailed(run, "provider_idle_timeout", /sent nothing for 700 ms/);
  assert.ok(elapsed < 5000, `gave up after ${elapsed} ms`);
  await resetProvider();
});

test("provider: one SSE event over 16 MiB fails with provider_invalid_response, memory bounded", { timeout: 60_000 }, async () => {
  // Four times the 16 MiB cap: a decoder that kept buffering would need more memory than this.
  const payloadBytes = 64 * 1024 * 1024;
  await scriptProvider([{ raw: `data: ${"x".repeat(payloadBytes)}\n\n`, chunk: 1024 * 1024 }]);
  const fresh = await openPackagePage(browser);
  try {
    const run = await runInPage(fresh, config(), question);
    assertFailed(run, "provider_invalid_response", /16777216/);
    const wasmBytes = await fresh.evaluate(async () => (await window.agentWasm.default()).memory.buffer.byteLength);
    assert.ok(wasmBytes < payloadBytes, `wasm memory grew to ${wasmBytes} bytes for a ${payloadBytes}-byte event`);
  } finally {
    await fresh.close();
  }
});

// ---- model

test("model: unknown tool, invalid JSON arguments and arguments failing the schema are fed back", bounded, async () => {
  await scriptProvider([
    {
      toolCalls: [
        { id: "call_unknown", name: "no-such-tool", arguments: {} },
        { id: "call_bad_json", name: "echo", arguments: '{"message": "unterminated' },
        { id: "call_bad_schema", name: "echo", arguments: { message: 5 } },
      ],
    },
    { text: "I will fix my calls." },
  ]);
  const run = await runInPage(page, config({ servers: [testServer("json", "test")] }), question);
  const final = assertCompleted(run);
  const toolMessages = final.messages.filter((message) => message.role === "tool");
  assert.deepEqual(toolMessages.map((message) => message.tool_call_id), ["call_unknown", "call_bad_json", "call_bad_schema"]);
  for (const message of toolMessages) assert.match(message.content, /^Error: /, message.content);
  assert.match(toolMessages[0].content, /no-such-tool/);
  assert.match(toolMessages[2].content, /message/);
  const requests = await providerRequests();
  assert.equal(requests.length, 2, "the loop went on to the next round");
  assert.equal(requests[1].json.messages.filter((message) => message.role === "tool").length, 3);
});

test("model: 50 tool calls in one round all run, results in order, maxConcurrentTools respected", bounded, async () => {
  const calls = Array.from({ length: 50 }, (_, index) => ({ id: `call_${index}`, name: "slow", arguments: { ms: 40 + (index % 3) * 20 } }));
  await scriptProvider([{ toolCalls: calls }, { text: "all done" }]);
  const server = testServer("bulk");
  const run = await runInPage(page, config({ servers: [server], maxConcurrentTools: 5 }), question);
  const final = assertCompleted(run);
  assert.equal(eventsOf(run, "toolResult").length, 50);
  assert.deepEqual(
    final.messages.filter((message) => message.role === "tool").map((message) => message.tool_call_id),
    calls.map((call) => call.id),
  );
  const { max } = await (await fetch(`${env.mcpTestUrl}/__inflight?path=${encodeURIComponent(new URL(server.url).pathname)}`)).json();
  assert.equal(max, 5, "at most 5 calls in flight at the server");
  // Calls start in order, five at a time: call k starts once k - 4 results are out, and its
  // `toolEta` (known once a call of the tool has finished) comes after them.
  const etas = run.events.flatMap((event, index) => (event.type === "toolEta" ? [[event, index]] : []));
  assert.ok(etas.length >= 40, `${etas.length} toolEta events`);
  for (const [eta, index] of etas) {
    const started = Number(eta.id.slice("call_".length));
    const resultsBefore = run.events.slice(0, index).filter((event) => event.type === "toolResult").length;
    assert.ok(resultsBefore >= started - 4, `toolEta of ${eta.id} after ${resultsBefore} results`);
  }
});

// ---- MCP

test("MCP: a server that is down is reported (mcp_network) and the run goes on", bounded, async () => {
  await scriptProvider([{ text: "answered without tools" }]);
  const down = { name: "down", url: "http://127.0.0.1:9/mcp" };
  const run = await runInPage(page, config({ servers: [down] }), question);
  const [serverError] = eventsOf(run, "serverError");
  assert.equal(serverError.server, "down");
  assert.match(serverError.code, /^mcp_/);
  assert.match(serverError.message, /MCP server `down`: .*(unreachable|CORS)/);
  assert.equal(assertCompleted(run).text, "answered without tools");
});

test("MCP: a server that never answers holds a run no longer than toolTimeoutMs, then is reported", bounded, async () => {
  await scriptProvider([{ text: "answered with the tools that listed" }]);
  const started = Date.now();
  const servers = [testServer("stall", "stuck"), testServer("json", "test")];
  // 3 s: the working server's handshake and listing must fit in it too, even on a loaded machine.
  const run = await runInPage(page, config({ servers, toolTimeoutMs: 3000 }), question);
  const elapsed = Date.now() - started;
  const [serverError] = eventsOf(run, "serverError");
  assert.equal(serverError?.server, "stuck", JSON.stringify(run.events.slice(0, 3)));
  assert.equal(serverError.code, "mcp_timeout");
  assert.match(serverError.message, /MCP server `stuck`: .*3000 ms/);
  assert.equal(assertCompleted(run).text, "answered with the tools that listed");
  assert.ok((await providerRequests())[0].json.tools.some((tool) => tool.function.name === "echo"), "the other server's tools are offered");
  assert.ok(elapsed < 10_000, `the run took ${elapsed} ms`);
});

const toolFaultRows = [
  { tool: "fail-500", error: /HTTP 500/ },
  { tool: "not-json", error: /invalid message|not JSON|parse/i },
  { tool: "rpc-error", error: /server error -32000: injected JSON-RPC error/ },
];
for (const row of toolFaultRows) {
  test(`MCP: tool call answered with ${row.tool} → toolError fed back, loop continues`, bounded, async () => {
    await scriptProvider([{ toolCalls: [{ id: "call_fault", name: row.tool, arguments: {} }] }, { text: "noted the failure" }]);
    const run = await runInPage(page, config({ servers: [testServer("bulk")] }), question);
    const final = assertCompleted(run);
    const [toolError] = eventsOf(run, "toolError");
    assert.equal(toolError.id, "call_fault");
    assert.match(toolError.message, row.error);
    assert.match(final.messages.find((message) => message.role === "tool").content, /^Error: /);
    assert.equal((await providerRequests()).length, 2);
  });
}

test("MCP: an expired session (404) is re-initialized and the call succeeds", bounded, async () => {
  await scriptProvider([{ toolCalls: [{ id: "call_echo", name: "echo", arguments: { message: "again" } }] }, { text: "done" }]);
  const server = testServer("expire");
  const run = await runInPage(page, config({ servers: [server] }), question);
  assertCompleted(run);
  assert.match(eventsOf(run, "toolResult")[0].text, /Echo: again/);
  const initializes = (await mcpLog(new URL(server.url).pathname)).filter((entry) => entry.body?.method === "initialize");
  assert.equal(initializes.length, 2, "one initialize, one after the 404");
});

test("MCP: a call hanging past toolTimeoutMs → toolError, notifications/cancelled sent", bounded, async () => {
  await scriptProvider([{ toolCalls: [{ id: "call_hang", name: "hang", arguments: {} }] }, { text: "gave up on it" }]);
  const server = testServer("sse");
  const run = await runInPage(page, config({ servers: [server], toolTimeoutMs: 300 }), question);
  assertCompleted(run);
  assert.match(eventsOf(run, "toolError")[0].message, /no answer within 300 ms/);
  // The cancellation is sent in the background: the call ends without waiting for it (up to 5 s
  // for it to arrive on a loaded machine).
  let log = await mcpLog(new URL(server.url).pathname);
  for (let tries = 0; tries < 250 && !log.some((entry) => entry.body?.method === "notifications/cancelled"); tries++) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    log = await mcpLog(new URL(server.url).pathname);
  }
  const call = log.find((entry) => entry.body?.method === "tools/call");
  const cancelled = log.find((entry) => entry.body?.method === "notifications/cancelled");
  assert.ok(cancelled, "notifications/cancelled reached the server");
  assert.equal(cancelled.body.params.requestId, call.body.id);
});

test("MCP: a server hiding Mcp-Session-Id from CORS → error naming the header to expose", bounded, async () => {
  await scriptProvider([{ text: "no tools today" }]);
  const run = await runInPage(page, config({ servers: [testServer("hidden-session", "hidden")] }), question);
  const [serverError] = eventsOf(run, "serverError");
  assert.equal(serverError.code, "mcp_cors_header_missing");
  assert.match(serverError.message, /Access-Control-Expose-Headers: Mcp-Session-Id/);
  assertCompleted(run);
});

test("MCP: a 5 MB tool result is cut for the model with a note, whole for the UI", bounded, async () => {
  const chars = 5_000_000;
  await scriptProvider([{ toolCalls: [{ id: "call_big", name: "big", arguments: { chars } }] }, { text: "that was long" }]);
  const limit = 2000;
  const run = await runInPage(page, config({ servers: [testServer("bulk")], maxToolResultChars: limit }), question);
  const final = assertCompleted(run);
  const [result] = eventsOf(run, "toolResult");
  assert.equal(result.content[0].text.length, chars, "the UI gets the whole text");
  const forModel = final.messages.find((message) => message.role === "tool").content;
  assert.equal(forModel.slice(0, limit), "0123456789".repeat(limit / 10));
  assert.match(forModel.slice(limit), /truncated: the first 2000 of 5000000 characters/);
  const sent = (await providerRequests())[1].json.messages.find((message) => message.role === "tool").content;
  assert.equal(sent, forModel, "the model got the cut text");
});

test("MCP: a legacy endpoint event pointing to another origin is refused", bounded, async () => {
  await scriptProvider([{ text: "no tools today" }]);
  const server = { ...testServer("cross"), transport: "sse" };
  const run = await runInPage(page, config({ servers: [server] }), question);
  const [serverError] = eventsOf(run, "serverError");
  assert.equal(serverError.code, "mcp_legacy_endpoint_refused");
  assert.match(serverError.message, /not on the server's origin/);
  const posts = (await mcpLog(new URL(server.url).pathname)).filter((entry) => entry.method === "POST");
  assert.deepEqual(posts, [], "nothing was posted anywhere");
  assertCompleted(run);
});

// The blocked forms of the MCP issue's URL policy. `fetch` is replaced by a recording stub before
// the Agent exists, so even a policy bug could not reach any host.
const blockedUrls = [
  ["http://example.com/mcp", /allowInsecureLocalUrls/],
  ["https://127.0.0.1/mcp", /local or private/],
  ["https://localhost/mcp", /local or private/],
  ["https://2130706433/mcp", /local or private/],
  ["https://0x7f.1/mcp", /local or private/],
  ["https://0177.0.0.1/mcp", /local or private/],
  ["https://10.1.2.3/mcp", /local or private/],
  ["https://172.16.0.1/mcp", /local or private/],
  ["https://192.168.1.1/mcp", /local or private/],
  ["https://169.254.169.254/latest/meta-data", /local or private/],
  ["https://0.0.0.0/mcp", /local or private/],
  ["https://[::1]/mcp", /local or private/],
  ["https://[fe80::1]/mcp", /local or private/],
  ["https://[fd00::1]/mcp", /local or private/],
  ["https://[::ffff:127.0.0.1]/mcp", /local or private/],
  ["https://user:secret@example.com/mcp", /user name or password/],
  ["ftp://example.com/mcp", /scheme/],
  ["file:///etc/passwd", /scheme/],
  ["javascript:alert(1)", /scheme/],
  ["not a url", /not a valid URL/],
  ["https://exämple.com/mcp", /punycode/],
];
/**
 * Makes an Agent of each config in the page while `fetch` is a stub that records and refuses every
 * request (so that a policy bug fails the test instead of opening a connection): for each, the
 * error's code and message ("none" when the Agent was made) and the requests it tried.
 */
function constructWithFetchStubbed(configs) {
  return page.evaluate((configs) => {
    const realFetch = window.fetch;
    const recorded = [];
    window.fetch = (...args) => {
      recorded.push(String(args[0]?.url ?? args[0]));
      return Promise.reject(new TypeError("fetch is stubbed in this test"));
    };
    try {
      return configs.map((config) => {
        try {
          new window.agentWasm.Agent(config);
          return { code: "none", recorded: recorded.splice(0) };
        } catch (error) {
          return { code: error.code, message: error.message, recorded: recorded.splice(0) };
        }
      });
    } finally {
      window.fetch = realFetch;
    }
  }, configs);
}

test("URL policy: every blocked form is refused by the constructor before any request", bounded, async () => {
  const base = config({ allowInsecureLocalUrls: false });
  const outcomes = await constructWithFetchStubbed(
    blockedUrls.map(([url]) => ({ ...base, mcpServers: [{ name: "blocked", url }] })),
  );
  outcomes.forEach((outcome, index) => {
    const [url, expected] = blockedUrls[index];
    assert.equal(outcome.code, "mcp_url_refused", `${url}: ${outcome.message}`);
    assert.match(outcome.message, expected, url);
    assert.deepEqual(outcome.recorded, [], `${url} made no request`);
  });
});

test("provider: a baseUrl fetch would read relative to the page is refused by the constructor, no request made", bounded, async () => {
  // Without a scheme, fetch resolved it against the page: the key went to the page's own server,
  // whose 404 came back as provider_model_not_found. A path such as `/v1` is the page's own
  // proxy, and taken; `//host` names another server.
  const refused = ["api.example.com/v1", "//evil.example/v1", "http://"];
  const base = config();
  const outcomes = await constructWithFetchStubbed(
    refused.map((baseUrl) => ({ ...base, provider: { ...base.provider, baseUrl } })),
  );
  outcomes.forEach((outcome, index) => {
    const baseUrl = refused[index];
    assert.equal(outcome.code, "provider_invalid_url", `${baseUrl}: ${JSON.stringify(outcome)}`);
    assert.equal(outcome.message, `provider \`openai_compatible\`: \`baseUrl\` \`${baseUrl}\` is not an absolute http(s) URL`);
    assert.deepEqual(outcome.recorded, [], `${baseUrl} made no request`);
  });
});

test("provider: a misspelt setting (baseURL, as the OpenAI SDK writes it) is refused by the constructor, no request made", bounded, async () => {
  // It was ignored: the default base URL (api.openai.com) would have got the key meant for the proxy.
  const base = config();
  const [outcome] = await constructWithFetchStubbed([
    { ...base, provider: { id: "openai", apiKey: "test-key-123", baseURL: "https://proxy.example/v1" } },
  ]);
  assert.equal(outcome.code, "invalid_config", JSON.stringify(outcome));
  assert.match(outcome.message, /^invalid Agent config: unknown field `baseURL`, expected one of `id`, `apiKey`, `model`, `baseUrl`/);
  assert.deepEqual(outcome.recorded, []);
});

test("a key or header fetch cannot send is refused by the constructor, naming its position, no request made", bounded, async () => {
  // fetch rejected such a header with a TypeError on every request: the run failed with
  // provider_network after two retries. Each case's header is also given to the page's own
  // `Headers`, so the verdicts are the browser's, and whitespace around a value (stripped by
  // fetch) and Latin-1 are taken.
  const base = config();
  const withKey = (apiKey) => ({ ...base, provider: { ...base.provider, apiKey } });
  const withProviderHeader = (name, value) => ({ ...base, provider: { ...base.provider, headers: { [name]: value } } });
  const withServerHeader = (name, value) => ({ ...base, mcpServers: [{ name: "s", url: `${env.mcpTestUrl}/json/x`, headers: { [name]: value } }] });
  const cases = [
    [withKey("sk-\u201cSECRET\u201d"), ["authorization", "Bearer sk-\u201cSECRET\u201d"], "provider_invalid_header", "`apiKey`: character 4 "],
    [withKey("sk-SEC\nRET"), ["authorization", "Bearer sk-SEC\nRET"], "provider_invalid_header", "`apiKey`: character 7 "],
    [withKey("sk-\u043a\u043bSECRET"), ["authorization", "Bearer sk-\u043a\u043bSECRET"], "provider_invalid_header", "`apiKey`: character 4 "],
    [withProviderHeader("x-proxy-token", "tok\u2019SECRET"), ["x-proxy-token", "tok\u2019SECRET"], "provider_invalid_header", "header `x-proxy-token`: character 4 "],
    [withProviderHeader("X Proxy", "SECRET"), ["X Proxy", "SECRET"], "provider_invalid_header", "header name `X Proxy`: character 2 "],
    [withServerHeader("authorization", "Bearer \u201cSECRET"), ["authorization", "Bearer \u201cSECRET"], "mcp_invalid_header", "header `authorization`: character 8 "],
    [withServerHeader("x-key:", "SECRET"), ["x-key:", "SECRET"], "mcp_invalid_header", "header name `x-key:`: character 6 "],
    [withKey(" sk-SECRET\t\n"), ["authorization", "Bearer  sk-SECRET\t\n"], "none"],
    [withProviderHeader("x-note", " caf\u00e9 \t"), ["x-note", " caf\u00e9 \t"], "none"],
    [withServerHeader("x-note", "\tcaf\u00e9\u00ff\r\n"), ["x-note", "\tcaf\u00e9\u00ff\r\n"], "none"],
  ];
  const outcomes = await constructWithFetchStubbed(cases.map(([agentConfig]) => agentConfig));
  const browserTakes = await page.evaluate((headers) => headers.map((header) => {
    try {
      new Headers([header]);
      return true;
    } catch {
      return false;
    }
  }), cases.map(([, header]) => header));
  outcomes.forEach((outcome, index) => {
    const [, header, code, problem] = cases[index];
    const label = JSON.stringify(header);
    assert.equal(outcome.code, code, `${label}: ${JSON.stringify(outcome)}`);
    assert.equal(browserTakes[index], code === "none", `${label}: the browser's verdict`);
    assert.deepEqual(outcome.recorded, [], `${label} made no request`);
    if (code === "none") return;
    assert.ok(outcome.message.includes(problem), `${label}: ${outcome.message}`);
    assert.doesNotMatch(outcome.message, /SECRET/, "the value is not quoted");
  });
  const client = await page.evaluate((url) => {
    try {
      new window.agentWasm.McpClient({ url, allowInsecureLocalUrls: true, headers: { authorization: "Bearer SEC\r\nRET" } });
      return { code: "none" };
    } catch (error) {
      return { code: error.code, message: error.message };
    }
  }, `${env.mcpTestUrl}/json/x`);
  assert.equal(client.code, "mcp_invalid_header", JSON.stringify(client));
  assert.ok(client.message.includes("header `authorization`: character 11 "), client.message);
});

test("a timeout longer than setTimeout takes (idleTimeoutMs, toolTimeoutMs) waits instead of ending at once", bounded, async () => {
  // setTimeout reads its delay as a 32-bit integer: Number.MAX_SAFE_INTEGER, a page's "never",
  // became -1, so every wait ended at once: the server was left out with mcp_timeout and the
  // model call failed with provider_idle_timeout.
  const call = { id: "call_echo", name: "echo", arguments: { message: "hi" } };
  await scriptProvider([{ toolCalls: [call], delay: 100 }, { text: "echoed after a pause", delay: 100 }]);
  const never = Number.MAX_SAFE_INTEGER;
  const agentConfig = config({ servers: [testServer("json", "test")], idleTimeoutMs: never, toolTimeoutMs: never });
  const run = await runInPage(page, agentConfig, question);
  assert.deepEqual(eventsOf(run, "serverError"), []);
  assert.equal(assertCompleted(run).text, "echoed after a pause");
  assert.equal(eventsOf(run, "toolResult").length, 1);
});

// ---- abort at each phase

test("abort before start: final aborted at once, messages intact, no model call", bounded, async () => {
  // With a server to list, and with none (the listing is ready at once, yet the abort wins).
  for (const servers of [[testServer("json", "test")], []]) {
    await scriptProvider([{ text: "never asked for" }]);
    const run = await runInPage(page, config({ servers }), question, { abortBeforeStart: true });
    assert.deepEqual(run.events.map((event) => event.type), ["final"], `${servers.length} server(s)`);
    const final = run.events.at(-1);
    assert.equal(final.reason, "aborted");
    assert.deepEqual(final.messages, question);
    assert.equal((await providerRequests()).length, 0);
  }
});

test("abort during the model stream: final aborted, messages intact", bounded, async () => {
  await scriptProvider([{ text: "A slow answer, written one small piece at a time.", delay: "100" }]);
  const run = await runInPage(page, config(), question, { abortOn: ["text"] });
  const final = run.events.at(-1);
  assert.equal(final.reason, "aborted");
  assert.deepEqual(final.messages[0], question[0]);
  assert.ok(run.abortMs < 200, `final came ${run.abortMs} ms after the abort`);
});

test("abort during tools: final aborted, each call answered in messages, no further model call", bounded, async () => {
  await scriptProvider([{ toolCalls: [{ id: "call_slow", name: "slow", arguments: { ms: 5000 } }] }, { text: "never asked for" }]);
  const run = await runInPage(page, config({ servers: [testServer("bulk")] }), question, { abortOn: ["toolCall"] });
  const final = run.events.at(-1);
  assert.equal(final.reason, "aborted");
  assert.ok(run.abortMs < 200, `final came ${run.abortMs} ms after the abort`);
  assert.deepEqual(final.messages.map((message) => message.role), ["user", "assistant", "tool"]);
  assert.equal((await providerRequests()).length, 1);
});

test("abort between rounds: final aborted with the first round's results kept", bounded, async () => {
  await scriptProvider([
    { toolCalls: [{ id: "call_echo", name: "echo", arguments: { message: "round one" } }] },
    { text: "A slow second answer.", delay: "200" },
  ]);
  const run = await runInPage(page, config({ servers: [testServer("json", "test")] }), question, { abortOn: ["round"], abortNth: 2 });
  const final = run.events.at(-1);
  assert.equal(final.reason, "aborted");
  const toolMessage = final.messages.find((message) => message.role === "tool");
  assert.equal(toolMessage.tool_call_id, "call_echo");
  assert.match(toolMessage.content, /Echo: round one/);
});

test("abort during an Anthropic answer: its messages sent straight back make a request Anthropic takes", bounded, async () => {
  const event = (data) => `event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`;
  const shown =
    event({ type: "message_start", message: { id: "msg_raw", type: "message", role: "assistant", content: [], model: "scripted", stop_reason: null, usage: { input_tokens: 12, output_tokens: 1 } } }) +
    event({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }) +
    event({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Here is the plan:\n\n" } });
  const rest =
    event({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "1. Wake up." } }) +
    event({ type: "content_block_stop", index: 0 }) +
    event({ type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: 30 } }) +
    event({ type: "message_stop" });
  await scriptProvider([{ raw: shown + rest, chunk: Buffer.byteLength(shown), delay: 2000 }, { raw: anthropicStream({ text: "Go on." }) }]);
  const provider = { id: "anthropic", apiKey: "test-key-123", model: "scripted", baseUrl: providerBaseUrl() };
  const aborted = await runInPage(page, config({ provider }), question, { abortOn: ["text"] });
  const { messages } = aborted.events.at(-1);
  assert.deepEqual(messages, [...question, { role: "assistant", content: "Here is the plan:\n\n" }], "the text shown is kept as shown");
  assertCompleted(await runInPage(page, config({ provider }), messages));
  const sent = (await providerRequests()).at(-1).json.messages;
  // Anthropic refuses a last assistant turn ending with whitespace ("final assistant content
  // cannot end with trailing whitespace"): the prefill goes without it.
  assert.deepEqual(sent.at(-1), { role: "assistant", content: [{ type: "text", text: "Here is the plan:" }] });
});
