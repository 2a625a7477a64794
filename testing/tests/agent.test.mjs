// Full agent runs in headless Chromium: the built web package, the scripted provider (OpenAI SSE
// wire format as in ../shared/fixtures) and the real server-everything MCP server on 127.0.0.1.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  agentConfig,
  eventsOf,
  collectSource,
  env,
  mcpLog,
  mcpTestPath,
  providerBaseUrl,
  providerRequests,
  runInPage,
  scriptProvider,
  page,
  useSharedPage,
} from "./agent-harness.mjs";

useSharedPage();

const question = [{ role: "user", content: "Add 2 and 3, and echo hi." }];

test("a two-round run: parallel calls report in completion order, tool messages keep call order", async () => {
  await scriptProvider([
    {
      toolCalls: [
        { id: "call_slow", name: "trigger-long-running-operation", arguments: { duration: 1, steps: 2 } },
        { id: "call_fast", name: "echo", arguments: { message: "hi" } },
      ],
    },
    { text: "The operation finished and the echo said hi." },
  ]);
  const run = await runInPage(page, agentConfig(), question);
  assert.equal(run.error, undefined, JSON.stringify(run.error));
  const types = run.events.map((event) => event.type).filter((type) => !type.startsWith("toolInput"));
  assert.deepEqual(types.slice(0, 3), ["round", "toolCall", "toolCall"]);
  const results = eventsOf(run, "toolResult");
  assert.deepEqual(results.map((event) => event.id), ["call_fast", "call_slow"], "completion order");
  assert.match(results[0].text, /hi/);
  assert.ok(eventsOf(run, "toolProgress").some((event) => event.id === "call_slow"), "progress of the slow call");
  const final = run.events.at(-1);
  assert.equal(final.type, "final");
  assert.equal(final.reason, "completed");
  assert.equal(final.text, "The operation finished and the echo said hi.");
  assert.deepEqual(
    final.messages.map((message) => [message.role, message.tool_call_id ?? null]),
    [
      ["user", null],
      ["assistant", null],
      ["tool", "call_slow"],
      ["tool", "call_fast"],
      ["assistant", null],
    ],
  );
  const requests = await providerRequests();
  assert.equal(requests.length, 2);
  assert.deepEqual(
    requests[0].json.tools.map((tool) => tool.function.name).filter((name) => ["echo", "get-sum"].includes(name)),
    ["echo", "get-sum"],
  );
  assert.equal(requests[1].json.messages.filter((message) => message.role === "tool").length, 2);
});

/** Each `toolCall` of `run` with what the page was shown of it before: its start and its argument text. */
function shownWhileWritten(run) {
  return eventsOf(run, "toolCall").map((call) => {
    const at = run.events.indexOf(call);
    const startAt = run.events.findLastIndex((event, index) => index < at && event.type === "toolInputStart" && event.id === call.id);
    const pieces = run.events.slice(startAt + 1, at).filter((event) => event.type === "toolInputDelta" && event.id === call.id);
    return { call, start: run.events[startAt], text: pieces.map((event) => event.delta).join(""), pieces: pieces.length };
  });
}

test("a tool call shows while the model writes it: toolInputStart, then its arguments' text, before its toolCall", async () => {
  const args = { message: "a message long enough to come in several pieces" };
  await scriptProvider([
    { toolCalls: [{ id: "call_echo", name: "echo", arguments: args }, { id: "call_sum", name: "get-sum", arguments: { a: 2, b: 3 } }] },
    { toolCalls: [{ name: "echo", arguments: { message: "again" } }], noIds: true },
    { text: "Done." },
  ]);
  const run = await runInPage(page, agentConfig(), question);
  assert.equal(run.error, undefined, JSON.stringify(run.error));
  const shown = shownWhileWritten(run);
  assert.deepEqual(shown.map(({ call }) => call.id), ["call_echo", "call_sum", "call_2_0"], "the loop's id where the provider gave none");
  for (const { call, start, text } of shown) {
    assert.ok(start, `a toolInputStart before the toolCall of ${call.id}`);
    assert.equal(start.name, call.name);
    assert.deepEqual(JSON.parse(text), call.arguments, `the pieces of ${call.id} join to its arguments`);
  }
  const starts = eventsOf(run, "toolInputStart").map((event) => event.id);
  assert.deepEqual(starts, ["call_echo", "call_sum", "call_2_0"], "one start per call");
  const firstCall = run.events.findIndex((event) => event.type === "toolCall");
  const lastDelta = run.events.findLastIndex((event, index) => index < firstCall && event.type === "toolInputDelta");
  assert.ok(lastDelta > 0, "the first round's pieces come before its calls are announced");
});

test("openai_responses: a reasoning model's run over the Responses API keeps its encrypted reasoning across rounds", async () => {
  await scriptProvider([
    {
      reasoning: "I need the sum and the echo.",
      encryptedReasoning: "gAAAAABscript-encrypted-1",
      toolCalls: [
        { id: "call_sum", name: "get-sum", arguments: { a: 2, b: 3 } },
        { id: "call_echo", name: "echo", arguments: { message: "hi" } },
      ],
      usage: { prompt_tokens: 120, completion_tokens: 40, cached_tokens: 100, reasoning_tokens: 30 },
    },
    { text: "2 + 3 = 5, and the echo said hi." },
  ]);
  const config = agentConfig({
    provider: { id: "openai_responses", apiKey: "test-key-123", model: "gpt-6.1-sol", baseUrl: providerBaseUrl() },
  });
  const run = await runInPage(page, config, question);
  assert.equal(run.error, undefined, JSON.stringify(run.error));
  assert.equal(eventsOf(run, "reasoning").map((event) => event.text).join(""), "I need the sum and the echo.");
  assert.match(eventsOf(run, "toolResult").find((event) => event.id === "call_sum").text, /5/);
  const final = run.events.at(-1);
  assert.equal(final.reason, "completed");
  assert.equal(final.text, "2 + 3 = 5, and the echo said hi.");
  assert.deepEqual(final.messages[1].thinking_blocks, [
    { type: "reasoning", summary: "I need the sum and the echo.", encrypted_content: "gAAAAABscript-encrypted-1" },
  ]);
  const usage = eventsOf(run, "usage").at(-1);
  assert.equal(usage.cachedInputTokens, 100);
  assert.equal(usage.reasoningTokens, 30);

  const requests = await providerRequests();
  assert.deepEqual(requests.map((request) => request.path), ["/v1/responses", "/v1/responses"]);
  const [first, second] = requests.map((request) => request.json);
  assert.equal(first.store, false);
  assert.deepEqual(first.include, ["reasoning.encrypted_content"]);
  const echo = first.tools.find((tool) => tool.name === "echo");
  assert.equal(echo.type, "function");
  assert.equal(typeof echo.strict, "boolean");
  // The second request carries the reasoning back, then the calls, then their results.
  const items = second.input.slice(1).map((item) => item.type ?? item.role);
  assert.deepEqual(items, ["reasoning", "function_call", "function_call", "function_call_output", "function_call_output"]);
  assert.deepEqual(second.input[1], {
    type: "reasoning",
    summary: [{ type: "summary_text", text: "I need the sum and the echo." }],
    encrypted_content: "gAAAAABscript-encrypted-1",
  });
  assert.deepEqual(second.input[2], { type: "function_call", call_id: "call_sum", name: "get-sum", arguments: '{"a":2,"b":3}' });
  assert.equal(second.input[4].call_id, "call_sum");
  assert.match(second.input[4].output, /5/);
});

/** One OpenRouter chunk as it streams it: `delta` under choice 0, OpenRouter's own members beside. */
function openRouterChunk(delta, finishReason = null) {
  const chunk = {
    id: "gen-1790802700-gemini",
    provider: "Google AI Studio",
    model: "google/gemini-3.5-flash",
    object: "chat.completion.chunk",
    created: 1790802700,
    choices: [{ index: 0, delta: { role: "assistant", content: "", ...delta }, finish_reason: finishReason, native_finish_reason: finishReason && "STOP", logprobs: null }],
  };
  return `data: ${JSON.stringify(chunk)}\n\n`;
}

// OpenRouter's docs ("Reasoning Tokens": "Preserving reasoning blocks") ask for the
// `reasoning_details` of a tool-calling turn back unmodified; Gemini 3's thought signature rides in
// the encrypted one, named by its call's id (without it: 400 "Function call is missing a
// thought_signature", cline/cline#7551). The stream is written as OpenRouter sends it.
test("openrouter: a run keeps the reasoning_details of a tool round and sends them back, also from final.messages", async () => {
  const format = "google-gemini-v1";
  const text = (piece) => ({ type: "reasoning.text", text: piece, format, index: 0 });
  const encrypted = { id: "tool_get_sum_1", format, index: 1, type: "reasoning.encrypted", data: "CiQBVKhc7gGeminiSignature==" };
  const call = { type: "function", index: 0, id: "tool_get_sum_1", function: { name: "get-sum", arguments: '{"a":2,"b":3}' } };
  const toolRound = [
    ": OPENROUTER PROCESSING\n\n",
    openRouterChunk({ reasoning: "I add ", reasoning_details: [text("I add ")] }),
    openRouterChunk({ reasoning: "2 and 3.", reasoning_details: [text("2 and 3.")] }),
    openRouterChunk({ tool_calls: [call], reasoning_details: [encrypted] }),
    openRouterChunk({}, "tool_calls"),
    "data: [DONE]\n\n",
  ].join("");
  await scriptProvider([{ raw: toolRound }, { text: "2 + 3 = 5." }, { text: "Still 5." }]);
  const config = agentConfig({
    provider: { id: "openrouter", apiKey: "test-key-123", model: "google/gemini-3.5-flash", baseUrl: providerBaseUrl() },
  });
  const run = await runInPage(page, config, [{ role: "user", content: "Add 2 and 3." }]);
  assert.equal(run.error, undefined, JSON.stringify(run.error));
  assert.equal(eventsOf(run, "reasoning").map((event) => event.text).join(""), "I add 2 and 3.");
  const details = [text("I add 2 and 3."), encrypted];
  const final = run.events.at(-1);
  assert.equal(final.text, "2 + 3 = 5.");
  assert.deepEqual(final.messages[1].thinking_blocks, [{ type: "reasoning_details", details }]);
  // The page's copy of the conversation goes back as it came, for the next run.
  const again = await runInPage(page, config, [...final.messages, { role: "user", content: "Sure?" }]);
  assert.equal(again.error, undefined, JSON.stringify(again.error));

  const requests = (await providerRequests()).map((request) => request.json);
  assert.equal(requests.length, 3);
  for (const body of requests.slice(1)) {
    const assistant = body.messages.find((message) => message.role === "assistant");
    assert.equal(assistant.tool_calls[0].id, "tool_get_sum_1");
    assert.deepEqual(assistant.reasoning_details, details);
  }
});

test("toolChoice asks the run's first call only; a tool it cannot name fails the run before any call", async () => {
  await scriptProvider([
    { toolCalls: [{ id: "call_echo", name: "echo", arguments: { message: "hi" } }] },
    { text: "The echo said hi." },
  ]);
  const run = await runInPage(page, agentConfig({ toolChoice: { type: "tool", toolName: "echo" } }), question);
  assert.equal(run.error, undefined, JSON.stringify(run.error));
  assert.equal(run.events.at(-1).text, "The echo said hi.");
  const requests = await providerRequests();
  assert.deepEqual(
    requests.map((request) => request.json.tool_choice),
    [{ type: "function", function: { name: "echo" } }, "auto"],
  );

  await scriptProvider([{ text: "unused" }]);
  const refused = await runInPage(page, agentConfig({ toolChoice: { type: "tool", toolName: "no-such-tool" } }), question);
  assert.equal(refused.error?.code, "provider_unknown_tool_choice", JSON.stringify(refused.error));
  assert.match(refused.error.message, /`no-such-tool` names no tool the run offers/);
  assert.deepEqual(refused.error.messages, question, "the conversation comes back");
  assert.equal((await providerRequests()).length, 0);
});

/** `collect` in the page with `approveToolCall` set there (a function cannot cross from Node): it
 * records what it was asked, waits `delayMs`, then answers `answer(call)`, or throws. */
async function runWithApproval(config, { answer, delayMs = 0, plan }) {
  return page.evaluate(
    async ({ config, messages, answerSource, delayMs, plan }) => {
      const answer = new Function("call", `return (${answerSource})(call);`);
      const asked = [];
      const signals = [];
      config.approveToolCall = async (call, { signal }) => {
        asked.push(call);
        signals.push(signal);
        await new Promise((resolve) => setTimeout(resolve, delayMs));
        return answer(call);
      };
      const run = await window.collect(window.agentWasm, config, messages, plan);
      return { ...run, asked, signalsAborted: signals.map((signal) => signal instanceof AbortSignal && signal.aborted) };
    },
    { config, messages: question, answerSource: answer.toString(), delayMs, plan },
  );
}

test("approveToolCall: a read-only call runs, a declined one is never sent and the model is told", async () => {
  const path = mcpTestPath("json");
  await scriptProvider([
    {
      toolCalls: [
        { id: "call_echo", name: "echo", arguments: { message: "hi" } },
        { id: "call_add", name: "add", arguments: { a: 2, b: 3 } },
      ],
    },
    { text: "Echoed; the sum was declined." },
  ]);
  const config = agentConfig({
    mcpServers: [
      { name: "everything", url: env.everythingUrl },
      { name: "local", url: `${env.mcpTestUrl}${path}` },
    ],
  });
  // A page's usual policy: tools that say they only read run without asking.
  const run = await runWithApproval(config, { answer: (call) => call.annotations?.readOnlyHint === true, delayMs: 20 });
  assert.equal(run.error, undefined, JSON.stringify(run.error));
  const asked = Object.fromEntries(run.asked.map((call) => [call.id, call]));
  assert.deepEqual(Object.keys(asked).sort(), ["call_add", "call_echo"]);
  assert.deepEqual(
    { ...asked.call_echo, annotations: undefined },
    { id: "call_echo", name: "echo", server: "everything", tool: "echo", arguments: { message: "hi" }, annotations: undefined },
  );
  assert.equal(asked.call_echo.annotations.readOnlyHint, true, "the tool's MCP annotations");
  assert.deepEqual([asked.call_add.server, asked.call_add.tool], ["local", "add"]);
  assert.deepEqual(run.signalsAborted, [false, false]);
  assert.match(eventsOf(run, "toolResult").find((event) => event.id === "call_echo").text, /hi/);
  assert.deepEqual(eventsOf(run, "toolError"), [{ type: "toolError", id: "call_add", message: "the user declined this tool call" }]);
  const calls = (await mcpLog(path)).filter((entry) => entry.body?.method === "tools/call");
  assert.deepEqual(calls, [], "the declined call never reached its server");
  const toolMessages = (await providerRequests())[1].json.messages.filter((message) => message.role === "tool");
  assert.deepEqual(
    toolMessages.map((message) => [message.tool_call_id, message.content.startsWith("Error: the user declined")]),
    [["call_echo", false], ["call_add", true]],
  );
  assert.equal(run.events.at(-1).reason, "completed");
});

test("approveToolCall: a throw declines with its message; an abort while it is asked ends the run and aborts its signal", async () => {
  await scriptProvider([{ toolCalls: [{ id: "call_echo", name: "echo", arguments: { message: "hi" } }] }, { text: "done" }]);
  const threw = await runWithApproval(agentConfig(), {
    answer: () => {
      throw new Error("no dialog available");
    },
  });
  assert.deepEqual(eventsOf(threw, "toolError").map((event) => event.message), ["approveToolCall failed: no dialog available"]);
  assert.equal(threw.events.at(-1).reason, "completed");

  await scriptProvider([{ toolCalls: [{ id: "call_echo", name: "echo", arguments: { message: "hi" } }] }, { text: "done" }]);
  const aborted = await runWithApproval(agentConfig(), { answer: () => true, delayMs: 5_000, plan: { abortOn: ["toolCall"] } });
  const final = aborted.events.at(-1);
  assert.equal(final.reason, "aborted");
  assert.ok(aborted.abortMs < 200, `final came ${aborted.abortMs} ms after the abort`);
  assert.deepEqual(aborted.signalsAborted, [true], "the page can close its question");
  assert.equal(eventsOf(aborted, "toolResult").length, 0);
  assert.deepEqual(final.messages.at(-1), { role: "tool", tool_call_id: "call_echo", content: "Error: aborted by the user" });
});

test("tools: a page tool reading the document runs beside an MCP tool, and the model reads both results", async () => {
  await scriptProvider([
    {
      toolCalls: [
        { id: "call_heading", name: "read_heading", arguments: { selector: "#report-heading" } },
        { id: "call_echo", name: "echo", arguments: { message: "hi" } },
      ],
    },
    { text: "The heading says Quarterly report." },
  ]);
  // Set in the page: a function cannot cross from Node.
  const run = await page.evaluate(async ({ config, messages }) => {
    const heading = document.createElement("h1");
    heading.id = "report-heading";
    heading.textContent = "Quarterly report";
    document.body.append(heading);
    config.tools = {
      read_heading: {
        description: "The text of the element the selector names",
        inputSchema: { type: "object", properties: { selector: { type: "string" } }, required: ["selector"] },
        execute: ({ selector }) => document.querySelector(selector)?.textContent ?? "",
      },
    };
    try {
      return await window.collect(window.agentWasm, config, messages);
    } finally {
      heading.remove();
    }
  }, { config: agentConfig(), messages: question });
  assert.equal(run.error, undefined, JSON.stringify(run.error));
  assert.deepEqual(
    eventsOf(run, "toolCall").map((event) => [event.id, event.server, event.tool]),
    [["call_heading", "page", "read_heading"], ["call_echo", "everything", "echo"]],
  );
  const toolMessages = (await providerRequests())[1].json.messages.filter((message) => message.role === "tool");
  assert.deepEqual(toolMessages[0], { role: "tool", tool_call_id: "call_heading", content: "Quarterly report" });
  assert.match(toolMessages[1].content, /hi/);
  assert.equal(run.events.at(-1).reason, "completed");
});

test("onElicitation: server-everything's form tool is offered, asks the page mid-call, and gets its answer", async () => {
  await scriptProvider([
    { toolCalls: [{ id: "call_form", name: "trigger-elicitation-request", arguments: {} }] },
    { text: "Thanks, Ada." },
  ]);
  // Set in the page: a function cannot cross from Node.
  const run = await page.evaluate(async ({ config, messages }) => {
    const asked = [];
    config.onElicitation = async (request, { signal, server }) => {
      asked.push({ mode: request.mode, message: request.message, required: request.requestedSchema.required, server, aborted: signal.aborted });
      return { action: "accept", content: { name: "Ada", integer: 7 } };
    };
    return { ...(await window.collect(window.agentWasm, config, messages)), asked };
  }, { config: agentConfig(), messages: question });
  assert.equal(run.error, undefined, JSON.stringify(run.error));
  assert.deepEqual(run.asked, [
    { mode: "form", message: "Please provide inputs for the following fields:", required: ["name"], server: "everything", aborted: false },
  ]);
  const [result] = eventsOf(run, "toolResult");
  assert.equal(result.id, "call_form");
  assert.match(result.text, /- Name: Ada/);
  assert.match(result.text, /- Favorite Integer: 7/);
  const [first] = await providerRequests();
  assert.ok(first.json.tools.some((tool) => tool.function.name === "trigger-elicitation-request"), "offered once the client declares elicitation");
  assert.equal(run.events.at(-1).reason, "completed");
});

/** A run whose page answers `approveSampling` with `answer`, recording what it was asked. */
async function runWithSampling(answer) {
  return page.evaluate(async ({ config, messages, answer }) => {
    const asked = [];
    config.approveSampling = (request, { signal, server }) => {
      asked.push({ request, server, aborted: signal.aborted });
      return answer;
    };
    return { ...(await window.collect(window.agentWasm, config, messages)), asked };
  }, { config: agentConfig(), messages: question, answer });
}

test("approveSampling: server-everything's sampling tool gets the Agent's model's answer, without tools", async () => {
  await scriptProvider([
    { toolCalls: [{ id: "call_sample", name: "trigger-sampling-request", arguments: { prompt: "Say hi", maxTokens: 20 } }] },
    { text: "Hi from the Agent's model.", usage: { prompt_tokens: 7, completion_tokens: 3 } },
    { text: "The server's tool got its answer." },
  ]);
  const run = await runWithSampling(true);
  assert.equal(run.error, undefined, JSON.stringify(run.error));
  assert.equal(run.asked.length, 1);
  assert.equal(run.asked[0].server, "everything");
  assert.equal(run.asked[0].request.maxTokens, 20);
  assert.equal(run.asked[0].request.systemPrompt, "You are a helpful test server.");
  const [result] = eventsOf(run, "toolResult");
  assert.equal(result.id, "call_sample");
  assert.match(result.text, /Hi from the Agent's model\./);
  assert.match(result.text, /"model": "scripted"/);
  assert.match(result.text, /"stopReason": "endTurn"/);
  const requests = await providerRequests();
  assert.equal(requests.length, 3);
  const sampled = requests[1].json;
  assert.equal(sampled.stream, false);
  assert.equal(sampled.tools, undefined, "a sampling request offers no tools");
  assert.equal(sampled.temperature, 0.7);
  assert.equal(sampled.max_tokens ?? sampled.max_completion_tokens, 20);
  assert.deepEqual(sampled.messages, [
    { role: "system", content: "You are a helpful test server." },
    { role: "user", content: "Resource trigger-sampling-request context: Say hi" },
  ]);
  assert.ok(requests[0].json.tools.some((tool) => tool.function.name === "trigger-sampling-request"), "offered once the client declares sampling");
  assert.equal(run.events.at(-1).reason, "completed");
  // The sampling answer was the run's model on the run's key: its tokens (7 in, 3 out) count in
  // the run's totals once the call's reply came. The run's own streamed rounds report none here
  // (this provider's requests do not ask for `include_usage`), so that count is the only one.
  const totals = eventsOf(run, "usage").map((event) => [event.inputTokens, event.outputTokens]);
  assert.deepEqual(totals, [[7, 3]]);
  const sampledAt = run.events.findIndex((event) => event.type === "usage");
  assert.ok(sampledAt < run.events.indexOf(result), "counted before the call's result is shown");
});

test("approveSampling: a refusal reaches the server as the spec's user-rejected error, and the model is not called", async () => {
  await scriptProvider([
    { toolCalls: [{ id: "call_sample", name: "trigger-sampling-request", arguments: { prompt: "Say hi" } }] },
    { text: "The server could not sample." },
  ]);
  const run = await runWithSampling(false);
  assert.equal(run.error, undefined, JSON.stringify(run.error));
  assert.equal(run.asked.length, 1);
  const outcome = [...eventsOf(run, "toolResult"), ...eventsOf(run, "toolError")].find((event) => event.id === "call_sample");
  assert.match(JSON.stringify(outcome), /the user rejected the sampling request/);
  assert.equal((await providerRequests()).length, 2, "no model call for the refused sampling");
});

test("onNotification: a server's notification reaches the page with the server's name, progress does not", async () => {
  await scriptProvider([
    {
      toolCalls: [
        { id: "call_add", name: "add-tool", arguments: { name: "weather", via: "response" } },
        { id: "call_progress", name: "progress", arguments: { steps: 2, intervalMs: 10 } },
      ],
    },
    { text: "Added." },
  ]);
  const servers = [
    { name: "changing", url: `${env.mcpTestUrl}${mcpTestPath("changing")}` },
    { name: "steps", url: `${env.mcpTestUrl}${mcpTestPath("sse")}` },
  ];
  const run = await page.evaluate(async ({ config, messages }) => {
    const told = [];
    config.onNotification = (notification, context) => {
      told.push({ notification, context });
      throw new Error("a throw is the page's own");
    };
    return { ...(await window.collect(window.agentWasm, config, messages)), told };
  }, { config: agentConfig({ mcpServers: servers }), messages: question });
  assert.equal(run.error, undefined, JSON.stringify(run.error));
  assert.equal(run.events.at(-1).reason, "completed");
  assert.equal(eventsOf(run, "toolProgress").length, 2, "progress stays a toolProgress event");
  assert.deepEqual(run.told, [
    { notification: { method: "notifications/tools/list_changed" }, context: { server: "changing" } },
  ]);
});

test("McpClient onNotification: server-everything's simulated logging reaches the page", { timeout: 30_000 }, async () => {
  const outcome = await page.evaluate(async (url) => {
    const told = [];
    const client = new window.agentWasm.McpClient({ url, allowInsecureLocalUrls: true, onNotification: (notification, context) => told.push({ notification, context }) });
    try {
      await client.listTools();
      await client.callTool("toggle-simulated-logging");
      // It sends one at once (on the standalone stream, if already open) and one every 5 s.
      for (let waited = 0; waited < 12_000 && !told.length; waited += 50) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return { told };
    } finally {
      // Stopped before the session ends: the server's timer would write to a closed session.
      await client.callTool("toggle-simulated-logging");
      await client.close();
      client.free();
    }
  }, env.everythingUrl);
  assert.ok(outcome.told.length > 0, "a log message arrived within 12 s");
  const [{ notification, context }] = outcome.told;
  assert.equal(notification.method, "notifications/message");
  assert.match(notification.params.level, /^(debug|info|notice|warning|error|critical|alert|emergency)$/);
  // One of eight texts, one spelt "Alert level-message" by the server.
  assert.match(notification.params.data, /^\w+[- ]level[- ]message - SessionId /);
  assert.deepEqual(context, {});
});

test("McpClient on server-everything: setLoggingLevel, subscribeResource with its updates, complete", { timeout: 30_000 }, async () => {
  const outcome = await page.evaluate(async ({ url, plainUrl }) => {
    const told = [];
    const client = new window.agentWasm.McpClient({ url, allowInsecureLocalUrls: true, onNotification: (notification) => told.push(notification) });
    const refusal = (call) => call.then((value) => ({ settled: value }), (error) => ({ code: error.code, message: error.message }));
    try {
      const levelSet = await client.setLoggingLevel("debug");
      const badLevel = await refusal(client.setLoggingLevel("loud"));
      const [resource] = await client.listResources();
      const subscribed = await client.subscribeResource(resource.uri);
      await client.callTool("toggle-subscriber-updates");
      const updated = () => told.some((notification) => notification.method === "notifications/resources/updated");
      // One at once (on the standalone stream, if already open), then one every 5 s.
      for (let waited = 0; waited < 12_000 && !updated(); waited += 50) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      await client.callTool("toggle-subscriber-updates");
      const unsubscribed = await client.unsubscribeResource(resource.uri);
      const departments = await client.complete({ ref: { type: "ref/prompt", name: "completable-prompt" }, argument: { name: "department", value: "S" } });
      const names = await client.complete({
        ref: { type: "ref/prompt", name: "completable-prompt" },
        argument: { name: "name", value: "" },
        context: { arguments: { department: "Sales" } },
      });
      const badComplete = await refusal(client.complete({ ref: { type: "ref/tool", name: "echo" }, argument: { name: "a", value: "" } }));
      const plain = new window.agentWasm.McpClient({ url: plainUrl, allowInsecureLocalUrls: true });
      const undeclared = await refusal(plain.setLoggingLevel("info"));
      await plain.close();
      plain.free();
      return { levelSet, badLevel, uri: resource.uri, subscribed, unsubscribed, told, departments, names, badComplete, undeclared };
    } finally {
      await client.close();
      client.free();
    }
  }, { url: env.everythingUrl, plainUrl: `${env.mcpTestUrl}${mcpTestPath("json")}` });
  assert.equal(outcome.levelSet, undefined);
  assert.equal(outcome.subscribed, undefined);
  assert.equal(outcome.unsubscribed, undefined);
  assert.equal(outcome.badLevel.code, "mcp_invalid_options");
  assert.match(outcome.badLevel.message, /the level is one of debug, info, notice/);
  const updates = outcome.told.filter((notification) => notification.method === "notifications/resources/updated");
  assert.ok(updates.length > 0, JSON.stringify(outcome.told));
  assert.equal(updates[0].params.uri, outcome.uri);
  assert.ok(
    outcome.told.some((notification) => notification.method === "notifications/message" && /Received Subscribe Resource request/.test(notification.params.data)),
    "the server logs the subscription at info, which the debug level lets through",
  );
  assert.deepEqual(outcome.departments.completion.values, ["Sales", "Support"]);
  assert.deepEqual(outcome.names.completion.values, ["David", "Eve", "Frank"]);
  assert.equal(outcome.badComplete.code, "mcp_invalid_options");
  assert.match(outcome.badComplete.message, /`ref` is/);
  assert.equal(outcome.undeclared.code, "mcp_capability_missing");
  assert.match(outcome.undeclared.message, /`logging` capability, which logging\/setLevel needs/);
});

test("final.finishReason tells an answer cut at the token limit from a whole one (the AI SDK's names)", async () => {
  for (const [finishReason, expected] of [["length", "length"], ["content_filter", "content-filter"], [undefined, "stop"]]) {
    await scriptProvider([{ text: "An answer that", ...(finishReason ? { finishReason } : {}) }]);
    const run = await runInPage(page, agentConfig({ mcpServers: [] }), question);
    assert.equal(run.error, undefined, JSON.stringify(run.error));
    const final = run.events.at(-1);
    assert.equal(final.reason, "completed");
    assert.equal(final.finishReason, expected, finishReason);
  }
});

test("a tool that runs only as a task is listed by McpClient, refused by callTool and not offered by an Agent", async () => {
  const outcome = await page.evaluate(async ({ url, config }) => {
    const client = new window.agentWasm.McpClient({ url, allowInsecureLocalUrls: true, onElicitation: () => ({ action: "decline" }) });
    const agent = new window.agentWasm.Agent(config);
    try {
      const listed = (await client.listTools()).find((tool) => tool.name === "simulate-research-query");
      const call = await client.callTool("simulate-research-query", { topic: "tides" }).then(
        () => ({ settled: "resolved" }),
        (error) => ({ code: error.code, message: error.message }),
      );
      const offered = (await agent.listTools()).map((tool) => tool.tool);
      return { execution: listed?.execution, call, offered };
    } finally {
      await client.close();
      client.free();
      await agent.close();
      agent.free();
    }
  }, { url: env.everythingUrl, config: agentConfig() });
  assert.deepEqual(outcome.execution, { taskSupport: "required" });
  assert.equal(outcome.call.code, "mcp_task_required", JSON.stringify(outcome.call));
  assert.match(outcome.call.message, /^tool `simulate-research-query` runs only as a task/);
  assert.ok(outcome.offered.includes("get-sum"), JSON.stringify(outcome.offered));
  assert.ok(!outcome.offered.includes("simulate-research-query"), JSON.stringify(outcome.offered));
});

test("roots: server-everything's get-roots-list, offered once roots are declared, reads the page's roots", async () => {
  const roots = [{ uri: "file:///home/ada/notes", name: "notes" }, { uri: "file:///tmp/scratch" }];
  const outcome = await page.evaluate(async ({ url, roots }) => {
    const client = new window.agentWasm.McpClient({ url, allowInsecureLocalUrls: true, roots });
    const plain = new window.agentWasm.McpClient({ url, allowInsecureLocalUrls: true });
    try {
      const offered = (await client.listTools()).map((tool) => tool.name);
      const offeredWithout = (await plain.listTools()).map((tool) => tool.name);
      // The server asks for the roots on the standalone stream, which opens after initialize.
      await new Promise((resolve) => setTimeout(resolve, 300));
      const listed = await client.callTool("get-roots-list", {}, { timeoutMs: 20000 });
      let refused;
      try {
        new window.agentWasm.McpClient({ url, allowInsecureLocalUrls: true, roots: [{ uri: "https://example.com/" }] });
      } catch (error) {
        refused = { code: error.code, message: error.message };
      }
      return { offered, offeredWithout, text: listed.modelText, refused };
    } finally {
      await client.close();
      client.free();
      await plain.close();
      plain.free();
    }
  }, { url: env.everythingUrl, roots });
  assert.ok(outcome.offered.includes("get-roots-list"), JSON.stringify(outcome.offered));
  assert.ok(!outcome.offeredWithout.includes("get-roots-list"), "offered only to clients that declare roots");
  assert.match(outcome.text, /file:\/\/\/home\/ada\/notes/);
  assert.match(outcome.text, /file:\/\/\/tmp\/scratch/);
  assert.equal(outcome.refused?.code, "mcp_invalid_options");
  assert.match(outcome.refused.message, /roots\[0\]: `uri` must be a file:\/\/ URI/);
});

test("onElicitation: not a function is refused as the Agent is made", async () => {
  const error = await page.evaluate((config) => {
    try {
      new window.agentWasm.Agent({ ...config, onElicitation: "accept" });
      return null;
    } catch (error) {
      return { code: error.code, message: error.message };
    }
  }, agentConfig());
  assert.equal(error?.code, "invalid_config");
  assert.match(error.message, /`onElicitation` must be a function/);
});

test("provider.extraBody reaches the request body; a member each request writes is refused", async () => {
  await scriptProvider([{ text: "ok" }]);
  const base = agentConfig({ mcpServers: [] });
  const config = {
    ...base,
    provider: { ...base.provider, extraBody: { reasoning_effort: "low", stream_options: { include_obfuscation: false } } },
  };
  const run = await runInPage(page, config, question);
  assert.equal(run.error, undefined, JSON.stringify(run.error));
  const [request] = await providerRequests();
  assert.equal(request.json.reasoning_effort, "low");
  assert.equal(request.json.stream_options.include_obfuscation, false);
  assert.equal(request.json.stream, true);
  assert.equal(request.json.model, "scripted");
  const refused = await page.evaluate((config) => {
    try {
      new window.agentWasm.Agent(config);
      return null;
    } catch (error) {
      return { code: error.code, message: error.message };
    }
  }, { ...base, provider: { ...base.provider, extraBody: { messages: [] } } });
  assert.equal(refused?.code, "provider_reserved_body_member");
  assert.match(refused.message, /`extraBody` cannot set `messages`/);
});

test("abort during the model stream ends the run with reason aborted within 200 ms", async () => {
  await fetch(`${env.providerUrl}/__reset`, { method: "POST" });
  const config = agentConfig({
    provider: {
      id: "openai_compatible",
      apiKey: "k",
      model: "scripted",
      baseUrl: providerBaseUrl({ fixture: "openai/text.chunks.txt", chunk: "40", delay: "100" }),
    },
  });
  const run = await runInPage(page, config, question, { abortOn: ["text"] });
  const final = run.events.at(-1);
  assert.equal(final.type, "final");
  assert.equal(final.reason, "aborted");
  assert.ok(run.abortMs < 200, `final came ${run.abortMs} ms after the abort`);
  assert.deepEqual(final.messages[0], question[0], "the conversation is kept");
});

test("abort during a long tool call ends the run within 200 ms with complete messages", async () => {
  await scriptProvider([
    { toolCalls: [{ id: "call_long", name: "trigger-long-running-operation", arguments: { duration: 20, steps: 20 } }] },
    { text: "never asked for" },
  ]);
  const run = await runInPage(page, agentConfig(), question, { abortOn: ["toolProgress"] });
  const final = run.events.at(-1);
  assert.equal(final.reason, "aborted");
  assert.ok(run.abortMs < 200, `final came ${run.abortMs} ms after the abort`);
  const toolMessage = final.messages.find((message) => message.role === "tool");
  assert.equal(toolMessage.tool_call_id, "call_long");
  assert.match(toolMessage.content, /^Error: /);
  assert.equal((await providerRequests()).length, 1, "no model call after the abort");
});

test("break out of for-await cancels the run", async () => {
  await scriptProvider([
    { toolCalls: [{ id: "call_long", name: "trigger-long-running-operation", arguments: { duration: 1, steps: 2 } }] },
    { text: "never asked for" },
  ]);
  const run = await runInPage(page, agentConfig(), question, { breakOn: ["toolCall"] });
  assert.equal(run.events.at(-1).type, "toolCall");
  // The tool takes 1 s; had the run gone on, the model would have been called again by now.
  await new Promise((resolve) => setTimeout(resolve, 1500));
  assert.equal((await providerRequests()).length, 1, "the cancelled run made no further model call");
});

test("without ReadableStream's own async iterator (Safari), the run's stream brings one that iterates and cancels on break", async () => {
  await scriptProvider([
    { toolCalls: [{ id: "call_long", name: "trigger-long-running-operation", arguments: { duration: 1, steps: 2 } }] },
    { text: "never asked for" },
  ]);
  const seen = await page.evaluate(async ({ config, messages }) => {
    const proto = ReadableStream.prototype;
    const native = Object.getOwnPropertyDescriptor(proto, Symbol.asyncIterator);
    delete proto[Symbol.asyncIterator];
    try {
      const stream = new window.agentWasm.Agent(config).run(messages);
      const types = [];
      for await (const event of stream) {
        types.push(event.type);
        if (event.type === "toolCall") break;
      }
      return { own: Object.hasOwn(stream, Symbol.asyncIterator), types };
    } finally {
      Object.defineProperty(proto, Symbol.asyncIterator, native);
    }
  }, { config: agentConfig(), messages: question });
  assert.ok(seen.own, "the stream got an iterator of its own");
  assert.equal(seen.types.at(-1), "toolCall");
  await new Promise((resolve) => setTimeout(resolve, 1500));
  assert.equal((await providerRequests()).length, 1, "the break cancelled the run");
});

test("the round cap makes one last call without tools and ends exhausted", async () => {
  await scriptProvider([
    { toolCalls: [{ id: "call_1", name: "echo", arguments: { message: "one" } }] },
    { text: "Here is what I found." },
  ]);
  const run = await runInPage(page, agentConfig({ maxRounds: 1 }), question);
  const final = run.events.at(-1);
  assert.equal(final.reason, "exhausted");
  assert.equal(final.text, "Here is what I found.");
  const requests = await providerRequests();
  assert.equal(requests.length, 2);
  assert.ok(requests[0].json.tools.length > 0);
  assert.equal(requests[1].json.tools, undefined, "the last call has no tools");
});

test("answerAfterMaxRounds: false ends at the round cap with the results, without a last call", async () => {
  await scriptProvider([
    { toolCalls: [{ id: "call_1", name: "echo", arguments: { message: "one" } }] },
    { text: "never asked for" },
  ]);
  const run = await runInPage(page, agentConfig({ maxRounds: 1, answerAfterMaxRounds: false }), question);
  const final = run.events.at(-1);
  assert.equal(final.type, "final");
  assert.equal(final.reason, "exhausted");
  assert.equal(final.text, "");
  const result = run.events.find((event) => event.type === "toolResult");
  assert.equal(result?.id, "call_1", "the round's tool ran");
  assert.deepEqual(
    final.messages.map((message) => message.role),
    ["user", "assistant", "tool"],
    "the conversation ends with the result",
  );
  assert.equal((await providerRequests()).length, 1, "no last model call");
});

test("an auth failure errors the stream with a code and the conversation", async () => {
  const config = agentConfig({
    provider: { id: "openai_compatible", apiKey: "wrong-key", model: "m", baseUrl: providerBaseUrl({ status: "401" }) },
  });
  const run = await runInPage(page, config, question);
  assert.equal(run.error?.code, "provider_auth");
  assert.deepEqual(run.error.messages, question);
  assert.ok(!run.error.message.includes("wrong-key"), "the key never appears in errors");
  assert.equal(run.error.status, 401, "the HTTP status, as AgentError declares it");
  assert.match(run.error.body, /injected HTTP 401/);
  assert.ok(!run.error.body.includes("wrong-key"));
});

test("a failure met while the reader is busy with an earlier event still errors the stream", { timeout: 30_000 }, async () => {
  // The 401 reaches the run while the page is still handling the `round` event: the stream's
  // next pull finds nothing but the failure waiting.
  const config = agentConfig({
    provider: { id: "openai_compatible", apiKey: "wrong-key", model: "m", baseUrl: providerBaseUrl({ status: "401" }) },
  });
  const run = await runInPage(page, config, question, { pauseMs: 400 });
  assert.deepEqual(run.events.map((event) => event.type), ["round"]);
  assert.equal(run.error?.code, "provider_auth");
  assert.deepEqual(run.error.messages, question);
});

test("two runs of one Agent in flight at once", async () => {
  await scriptProvider([{ text: "first answer" }, { text: "second answer" }]);
  const finals = await page.evaluate(async (config) => {
    const agent = new window.agentWasm.Agent(config);
    const finish = async (stream) => {
      let last;
      for await (const event of stream) last = event;
      return last;
    };
    const both = await Promise.all([
      finish(agent.run([{ role: "user", content: "one" }])),
      finish(agent.run([{ role: "user", content: "two" }])),
    ]);
    agent.free();
    return both.map((event) => event.text).sort();
  }, agentConfig({ mcpServers: [] }));
  assert.deepEqual(finals, ["first answer", "second answer"]);
});

test("five runs started together on a new Agent share one listing of the server's tools", async () => {
  const answers = ["one", "two", "three", "four", "five"];
  await scriptProvider(answers.map((text) => ({ text })));
  const path = mcpTestPath("json");
  const finals = await page.evaluate(async ({ config, questions }) => {
    const agent = new window.agentWasm.Agent(config);
    const finish = async (stream) => {
      let last;
      for await (const event of stream) last = event;
      return last;
    };
    const all = await Promise.all(questions.map((content) => finish(agent.run([{ role: "user", content }]))));
    await agent.close();
    agent.free();
    return all.map((event) => event.text).sort();
  }, { config: agentConfig({ mcpServers: [{ name: "test", url: `${env.mcpTestUrl}${path}` }] }), questions: answers });
  assert.deepEqual(finals, [...answers].sort());
  const posted = (await mcpLog(path)).filter((entry) => entry.method === "POST").map((entry) => entry.body?.method);
  assert.equal(posted.filter((method) => method === "initialize").length, 1, JSON.stringify(posted));
  assert.equal(posted.filter((method) => method === "tools/list").length, 3, "one listing of three pages");
  const offered = (await providerRequests()).map((request) => request.json.tools.map((tool) => tool.function.name));
  assert.equal(offered.length, 5);
  for (const tools of offered) assert.deepEqual(tools, offered[0], "every run offers the listed tools");
  assert.equal(offered[0].length, 6);
});

test("runs of one Agent one after another offer the same tools and call them alike", async () => {
  await scriptProvider([
    { toolCalls: [{ id: "call_a", name: "echo", arguments: { message: "first" } }] },
    { text: "first done" },
    { toolCalls: [{ id: "call_b", name: "echo", arguments: { message: "second" } }] },
    { text: "second done" },
  ]);
  const runs = await page.evaluate(async (config) => {
    const agent = new window.agentWasm.Agent(config);
    const results = [];
    for (const content of ["one", "two"]) {
      const events = [];
      for await (const event of agent.run([{ role: "user", content }])) events.push(event);
      results.push(events.filter((event) => ["toolResult", "final"].includes(event.type)));
    }
    agent.free();
    return results;
  }, agentConfig());
  assert.deepEqual(
    runs.map((events) => events.map((event) => (event.type === "final" ? event.text : event.text.includes(event.id === "call_a" ? "first" : "second")))),
    [
      [true, "first done"],
      [true, "second done"],
    ],
  );
  const requests = await providerRequests();
  assert.equal(requests.length, 4);
  assert.ok(requests[0].json.tools.length > 5, "server-everything's tools are offered");
  assert.deepEqual(requests[2].json.tools, requests[0].json.tools, "the second run reuses the first run's tools");
  assert.deepEqual(requests[1].json.tools, requests[0].json.tools, "every round of a run offers the same tools");
});

test("a full run inside a dedicated Web Worker", async () => {
  await scriptProvider([
    { toolCalls: [{ id: "call_sum", name: "get-sum", arguments: { a: 2, b: 3 } }] },
    { text: "2 + 3 = 5" },
  ]);
  const run = await page.evaluate(
    async ({ source, config, messages }) => {
      const code = `
        ${source}
        self.onmessage = async ({ data }) => {
          const agentWasm = await import(data.packageUrl);
          await agentWasm.default();
          self.postMessage({ hasWindow: typeof window !== "undefined", ...(await collect(agentWasm, data.config, data.messages)) });
        };`;
      const worker = new Worker(URL.createObjectURL(new Blob([code], { type: "text/javascript" })), { type: "module" });
      const packageUrl = new URL("/pkg/mcp_agent_wasm.js", location.href).href;
      const result = await new Promise((resolve, reject) => {
        worker.onmessage = ({ data }) => resolve(data);
        worker.onerror = (error) => reject(new Error(error.message));
        worker.postMessage({ packageUrl, config, messages });
      });
      worker.terminate();
      return result;
    },
    { source: collectSource, config: agentConfig(), messages: question },
  );
  assert.equal(run.hasWindow, false);
  assert.equal(run.error, undefined, JSON.stringify(run.error));
  const result = run.events.find((event) => event.type === "toolResult");
  assert.match(result.text, /5/);
  assert.equal(run.events.at(-1).text, "2 + 3 = 5");
});

test("listTools rejects at once when its signal aborts while a server is still answering", async () => {
  // The scripted provider answers the initialize POST with an SSE stream that sends one byte and
  // then never ends, so the listing is still waiting when the abort comes.
  const options = encodeURIComponent("fixture=openai/parallel-tool-calls.sse&hangAfter=1");
  const slowServer = `${env.providerUrl}/_/${options}/mcp`;
  const result = await page.evaluate(async (config) => {
    const agent = new window.agentWasm.Agent(config);
    const controller = new AbortController();
    const listing = agent.listTools({ signal: controller.signal });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const abortedAt = performance.now();
    controller.abort();
    try {
      await listing;
      return { settled: "resolved" };
    } catch (error) {
      return { code: error.code, ms: performance.now() - abortedAt };
    } finally {
      agent.free();
    }
  }, agentConfig({ mcpServers: [{ name: "slow", url: slowServer }] }));
  assert.equal(result.code, "aborted", JSON.stringify(result));
  assert.ok(result.ms < 200, `rejected ${result.ms} ms after the abort`);
});

test("McpClient from JS on server-everything: listTools, callTool with and without args, bad args and options", async () => {
  const outcome = await page.evaluate(async (url) => {
    const client = new window.agentWasm.McpClient({ url, allowInsecureLocalUrls: true });
    try {
      const tools = await client.listTools();
      const echo = await client.callTool("echo", { message: "from the page" }, { timeoutMs: 20000 });
      const image = await client.callTool("get-tiny-image");
      const refusal = (call) =>
        call.then(
          () => ({ settled: "resolved" }),
          (error) => ({ code: error.code, message: error.message }),
        );
      const badArgs = await refusal(client.callTool("echo", { message: 1n }));
      const notObjects = await Promise.all(["hello", [1], 5].map((args) => refusal(client.callTool("echo", args))));
      const badOptions = {
        signal: await refusal(client.callTool("echo", { message: "x" }, { signal: "stop" })),
        onProgress: await refusal(client.callTool("echo", { message: "x" }, { onProgress: true })),
        timeoutMs: await refusal(client.callTool("echo", { message: "x" }, { timeoutMs: -1 })),
        notAnObject: await refusal(client.callTool("echo", { message: "x" }, 42)),
      };
      return {
        badOptions,
        echoSchema: tools.find((tool) => tool.name === "echo")?.inputSchema,
        echo,
        imageTypes: image.blocks.map((block) => block.type),
        imageText: image.modelText,
        badArgs,
        notObjects,
      };
    } finally {
      await client.close();
      client.free();
    }
  }, env.everythingUrl);
  assert.equal(outcome.echoSchema?.type, "object", JSON.stringify(outcome.echoSchema));
  assert.ok(outcome.echoSchema.properties.message, "the schema as the server listed it");
  assert.equal(outcome.echo.isError, false);
  assert.match(outcome.echo.modelText, /from the page/);
  assert.equal(outcome.echo.blocks[0].type, "text");
  assert.ok(outcome.imageTypes.includes("image"), JSON.stringify(outcome.imageTypes));
  assert.doesNotMatch(outcome.imageText, /iVBOR/, "binary blocks are referenced, not inlined, for the model");
  assert.equal(outcome.badArgs?.code, "mcp_invalid_options", JSON.stringify(outcome.badArgs));
  assert.match(outcome.badArgs.message, /^invalid arguments: not JSON data/);
  for (const refused of outcome.notObjects) {
    assert.equal(refused.code, "mcp_invalid_options", JSON.stringify(refused));
    assert.match(refused.message, /arguments are an object/);
  }
  for (const [option, pattern] of [
    ["signal", /^invalid options: `signal` must be an AbortSignal$/],
    ["onProgress", /^invalid options: `onProgress` must be a function$/],
    ["timeoutMs", /^invalid options: `timeoutMs` must be a number of milliseconds, 0 or more$/],
    ["notAnObject", /^invalid options: the options are an object such as \{ signal, timeoutMs, onProgress \}$/],
  ]) {
    const refused = outcome.badOptions[option];
    assert.equal(refused.code, "mcp_invalid_options", `${option}: ${JSON.stringify(refused)}`);
    assert.match(refused.message, pattern, option);
  }
});

test("the tool preamble is sent only when the run offers tools", async () => {
  const systemOf = async (overrides) => {
    await scriptProvider([{ text: "hello" }]);
    const run = await runInPage(page, agentConfig({ toolPrompt: true, ...overrides }), [{ role: "user", content: "hi" }]);
    assert.equal(run.error, undefined, JSON.stringify(run.error));
    const [request] = await providerRequests();
    return { system: request.json.messages.find((message) => message.role === "system")?.content ?? "", tools: request.json.tools };
  };
  const offered = await systemOf({});
  assert.ok(offered.tools?.length > 0);
  assert.match(offered.system, /You can call these tools: .*echo/);
  for (const overrides of [{ toolsSupported: false }, { maxRounds: 0 }]) {
    const plain = await systemOf(overrides);
    assert.equal(plain.tools, undefined, JSON.stringify(overrides));
    assert.doesNotMatch(plain.system, /You can call these tools/, JSON.stringify(overrides));
  }
});

test("the tool preamble gives the date and time in the Agent's timeZone, in each run of one Agent", async () => {
  const timeZone = "Pacific/Kiritimati";
  const dateIn = (zone) => new Intl.DateTimeFormat("en-CA", { timeZone: zone, year: "numeric", month: "2-digit", day: "2-digit" }).format(new Date());
  await scriptProvider([{ text: "one" }, { text: "two" }]);
  const datesBefore = [dateIn(timeZone)];
  const failures = await page.evaluate(async (config) => {
    const agent = new window.agentWasm.Agent(config);
    const failures = [];
    for (let run = 0; run < 2; run += 1) {
      for await (const event of agent.run([{ role: "user", content: "hi" }])) {
        if (event.type === "error") failures.push(event);
      }
    }
    await agent.close();
    agent.free();
    return failures;
  }, agentConfig({ toolPrompt: true, timeZone }));
  assert.deepEqual(failures, []);
  const dates = [...datesBefore, dateIn(timeZone)];
  const requests = await providerRequests();
  assert.equal(requests.length, 2);
  for (const request of requests) {
    const system = request.json.messages.find((message) => message.role === "system")?.content ?? "";
    const stated = system.match(/^Current date and time: \w+, (\d{4}-\d{2}-\d{2}), \d{2}:\d{2} \(Pacific\/Kiritimati\)\./);
    assert.ok(stated, system.slice(0, 120));
    assert.ok(dates.includes(stated[1]), `${stated[1]} is not today in ${timeZone} (${dates})`);
  }
});

test("a closed Agent refuses later runs and listings with mcp_closed", async () => {
  await scriptProvider([]);
  const outcome = await page.evaluate(async (config) => {
    const agent = new window.agentWasm.Agent(config);
    await agent.listTools();
    await agent.close();
    const refusal = (error) => ({ code: error.code, message: error.message });
    let run;
    try {
      agent.run([{ role: "user", content: "hi" }]);
      run = { threw: false };
    } catch (error) {
      run = refusal(error);
    }
    const listing = await agent.listTools().then(() => ({ resolved: true }), refusal);
    agent.free();
    return { run, listing };
  }, agentConfig());
  for (const refused of [outcome.run, outcome.listing]) {
    assert.equal(refused.code, "mcp_closed", JSON.stringify(outcome));
    assert.match(refused.message, /closed: create a new Agent/);
  }
  assert.equal((await providerRequests()).length, 0, "no model call");
});

test("close() ends what is still going: a tool call rejects with mcp_closed, a run ends aborted", { timeout: 30_000 }, async () => {
  await scriptProvider([{ toolCalls: [{ id: "call_hang", name: "hang", arguments: {} }] }, { text: "never asked for" }]);
  const outcome = await page.evaluate(async ({ config, url }) => {
    const { Agent, McpClient } = window.agentWasm;
    const client = new McpClient({ url, allowInsecureLocalUrls: true });
    await client.listTools();
    const pending = client.callTool("hang", {}).then(
      () => ({ settled: "resolved" }),
      (error) => ({ code: error.code }),
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    const started = performance.now();
    await client.close();
    const call = { ...(await pending), ms: performance.now() - started };
    client.free();

    const agent = new Agent({ ...config, mcpServers: [{ name: "test", url }] });
    const events = [];
    let closedAt;
    for await (const event of agent.run([{ role: "user", content: "hang" }])) {
      events.push(event);
      if (event.type === "toolCall") {
        closedAt = performance.now();
        await agent.close();
      }
    }
    const run = { types: events.map((event) => event.type), reason: events.at(-1).reason, ms: performance.now() - closedAt };
    agent.free();
    return { call, run };
  }, { config: agentConfig(), url: `${env.mcpTestUrl}${mcpTestPath("json")}` });
  assert.equal(outcome.call.code, "mcp_closed", JSON.stringify(outcome));
  assert.ok(outcome.call.ms < 2000, `the call ended ${outcome.call.ms} ms after close`);
  assert.equal(outcome.run.reason, "aborted", JSON.stringify(outcome.run));
  assert.ok(outcome.run.ms < 2000, `the run ended ${outcome.run.ms} ms after close`);
  assert.equal((await providerRequests()).length, 1, "no model call after close");
});

test("a bad config, bad messages or bad client options throw at once with a code and the field", async () => {
  const outcomes = await page.evaluate((config) => {
    const { Agent, McpClient, validateToolArguments } = window.agentWasm;
    const attempt = (make) => {
      try {
        make();
        return { threw: false };
      } catch (error) {
        return { code: error.code, message: error.message };
      }
    };
    const agent = new Agent(config);
    const outcomes = {
      missingProvider: attempt(() => new Agent({ ...config, provider: undefined })),
      unknownField: attempt(() => new Agent({ ...config, maxRoundz: 3 })),
      wrongType: attempt(() => new Agent({ ...config, maxRounds: "three" })),
      undefinedConfig: attempt(() => new Agent(undefined)),
      bigintConfig: attempt(() => new Agent({ ...config, maxRounds: 3n })),
      // Members that are undefined are left out, as JSON leaves them: this one is valid.
      undefinedMember: attempt(() => new Agent({ ...config, systemPrompt: undefined }).free()),
      approvalNotFunction: attempt(() => new Agent({ ...config, approveToolCall: true })),
      approvalFunction: attempt(() => new Agent({ ...config, approveToolCall: () => true }).free()),
      messagesNotArray: attempt(() => agent.run({ role: "user", content: "hi" })),
      messageWithoutRole: attempt(() => agent.run([{ content: "hi" }])),
      clientWithoutUrl: attempt(() => new McpClient({ headers: {} })),
      clientUnknownTransport: attempt(() => new McpClient({ url: "https://example.com/mcp", transport: "ftp" })),
      clientFlagNotBoolean: attempt(() => new McpClient({ url: "https://example.com/mcp", allowInsecureLocalUrls: "yes" })),
      clientHeadersNotObject: attempt(() => new McpClient({ url: "https://example.com/mcp", headers: ["x-a"] })),
      // A misspelt member (the key meant for the server) was ignored, and the server answered 401.
      clientMisspeltMember: attempt(() => new McpClient({ url: "https://example.com/mcp", header: { authorization: "Bearer x" } })),
      clientHookNotFunction: attempt(() => new McpClient({ url: "https://example.com/mcp", getAccessToken: "tok" })),
      clientHookAndHeader: attempt(() => new McpClient({ url: "https://example.com/mcp", getAccessToken: () => "t", headers: { Authorization: "Bearer secret-x" } })),
      clientHook: attempt(() => new McpClient({ url: "https://example.com/mcp", getAccessToken: () => "t" }).free()),
      // A lone surrogate (half an emoji) is read as U+FFFD, as a TextEncoder reads it, not refused.
      loneSurrogate: attempt(() => validateToolArguments({ type: "object" }, { s: "cut \ud83d" })),
      cyclicSchema: attempt(() => {
        const schema = { type: "object" };
        schema.properties = { self: schema };
        return validateToolArguments(schema, {});
      }),
    };
    agent.free();
    return outcomes;
  }, agentConfig());
  const expect = (name, code, pattern) => {
    assert.equal(outcomes[name].code, code, `${name}: ${JSON.stringify(outcomes[name])}`);
    assert.match(outcomes[name].message, pattern, name);
    assert.doesNotMatch(outcomes[name].message, /at line \d+ column/, `${name}: no position in JSON we made`);
  };
  expect("missingProvider", "invalid_config", /missing field `provider`/);
  expect("unknownField", "invalid_config", /unknown field `maxRoundz`/);
  expect("wrongType", "invalid_config", /invalid type: string "three", expected u32/);
  expect("undefinedConfig", "invalid_config", /new Agent\(config\) takes an object: \{ provider/);
  expect("bigintConfig", "invalid_config", /not JSON data/);
  assert.deepEqual(outcomes.undefinedMember, { threw: false });
  expect("approvalNotFunction", "invalid_config", /approveToolCall must be a function/);
  assert.deepEqual(outcomes.approvalFunction, { threw: false });
  assert.deepEqual(outcomes.loneSurrogate, { threw: false });
  expect("messagesNotArray", "invalid_messages", /invalid messages: invalid type: map, expected a sequence/);
  expect("messageWithoutRole", "invalid_messages", /role/);
  expect("clientWithoutUrl", "mcp_invalid_options", /missing field `url`/);
  expect("clientUnknownTransport", "mcp_invalid_options", /unknown variant `ftp`, expected one of `auto`, `streamable-http`, `sse`/);
  expect("clientFlagNotBoolean", "mcp_invalid_options", /invalid type: string "yes", expected a boolean/);
  expect("clientHeadersNotObject", "mcp_invalid_options", /invalid type: sequence, expected a map/);
  expect("clientMisspeltMember", "mcp_invalid_options", /unknown field `header`, expected one of `url`, `headers`/);
  expect("clientHookNotFunction", "mcp_invalid_options", /^invalid options: `getAccessToken` must be a function/);
  expect("clientHookAndHeader", "mcp_invalid_options", /`getAccessToken` and an `Authorization` header are both given/);
  assert.doesNotMatch(outcomes.clientHookAndHeader.message, /secret-x/);
  assert.deepEqual(outcomes.clientHook, { threw: false });
  expect("cyclicSchema", "invalid_argument", /invalid schema: not JSON data \(.*circular/i);
});
