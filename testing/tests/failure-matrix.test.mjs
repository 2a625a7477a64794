// What a user keeps when a run fails or is stopped, phase by phase: the run ends exactly once (a
// `final` event or an error, then the stream ends), its messages hold everything complete so far,
// and those messages, passed straight back to `run()`, make a request the provider takes: every
// assistant tool call answered by its tool result right after it (OpenAI refuses anything else
// with HTTP 400). The provider is testing/provider-server.mjs, the tools testing/mcp-test-server.mjs.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  bounded,
  eventsOf,
  faultConfig as config,
  env,
  mcpTestPath,
  providerBaseUrl,
  providerRequests,
  runInPage,
  scriptProvider,
  page,
  useSharedPage,
} from "./agent-harness.mjs";

useSharedPage();

const question = [{ role: "user", content: "Use the tools if you need them." }];

const bulkServer = () => ({ name: "bulk", url: `${env.mcpTestUrl}${mcpTestPath("bulk")}` });

/** The run ended once: by its error, or by one `final` event as its last event. */
function endOf(run) {
  const finals = eventsOf(run, "final");
  if (run.error) {
    assert.equal(finals.length, 0, "an errored run sends no final event");
    return { messages: run.error.messages };
  }
  assert.equal(finals.length, 1, JSON.stringify(run.events.map((event) => event.type)));
  assert.equal(run.events.at(-1).type, "final");
  return finals[0];
}

/** Every assistant tool call is answered right after its message, each id once. */
function assertCallsAnswered(messages) {
  messages.forEach((message, index) => {
    const ids = (message.tool_calls ?? []).map((call) => call.id);
    if (message.role !== "assistant" || ids.length === 0) return;
    const answers = messages.slice(index + 1, index + 1 + ids.length);
    assert.deepEqual(
      answers.map((answer) => [answer.role, answer.tool_call_id]),
      ids.map((id) => ["tool", id]),
      JSON.stringify(messages),
    );
  });
}

/** Sends `messages` and a new question back to `run()`; returns what the provider received. */
async function passBack(messages) {
  await scriptProvider([{ text: "Going on." }]);
  const next = await runInPage(page, config({ servers: [bulkServer()] }), [...messages, { role: "user", content: "Go on." }]);
  assert.equal(endOf(next).reason, "completed", JSON.stringify(next.error));
  const sent = (await providerRequests())[0].json.messages;
  assertCallsAnswered(sent);
  return sent;
}

test("a model call failing in round two keeps round one's calls and results, ready to send back", bounded, async () => {
  await scriptProvider([
    { toolCalls: [{ id: "call_echo", name: "echo", arguments: { message: "round one" } }] },
    { status: 400, errorBody: { error: { message: "This model's maximum context length is 128000 tokens.", type: "invalid_request_error" } } },
  ]);
  const run = await runInPage(page, config({ servers: [bulkServer()] }), question);
  assert.equal(run.error?.code, "provider_http_status", JSON.stringify(run.error));
  assert.equal(run.error.status, 400);
  assert.match(run.error.message, /answered HTTP 400: This model's maximum context length/);
  assert.match(run.error.body, /invalid_request_error/);
  const { messages } = endOf(run);
  assert.deepEqual(messages.map((message) => message.role), ["user", "assistant", "tool"]);
  assert.equal(messages[2].content, "Echo: round one");
  const sent = await passBack(messages);
  assert.equal(sent.filter((message) => message.role === "tool").length, 1);
});

test("one of several parallel calls failing: the others' results and its error are all kept, in call order", bounded, async () => {
  await scriptProvider([
    {
      toolCalls: [
        { id: "call_slow", name: "slow", arguments: { ms: 300 } },
        { id: "call_fail", name: "fail-500", arguments: {} },
        { id: "call_echo", name: "echo", arguments: { message: "fine" } },
      ],
    },
    { text: "Two of three worked." },
  ]);
  const run = await runInPage(page, config({ servers: [bulkServer()] }), question);
  const { messages, reason } = endOf(run);
  assert.equal(reason, "completed");
  assert.deepEqual(eventsOf(run, "toolError").map((event) => event.id), ["call_fail"]);
  const results = messages.filter((message) => message.role === "tool");
  assert.deepEqual(results.map((message) => message.tool_call_id), ["call_slow", "call_fail", "call_echo"]);
  assert.match(results[1].content, /^Error: .*HTTP 500/);
  assertCallsAnswered(messages);
});

test("an abort with calls running and queued answers every call, and the messages go back as they are", bounded, async () => {
  await scriptProvider([
    {
      toolCalls: [
        { id: "call_quick", name: "echo", arguments: { message: "done in time" } },
        { id: "call_long", name: "slow", arguments: { ms: 5000 } },
        { id: "call_queued", name: "slow", arguments: { ms: 5000 } },
      ],
    },
    { text: "never asked for" },
  ]);
  const run = await runInPage(page, config({ servers: [bulkServer()], maxConcurrentTools: 2 }), question, { abortOn: ["toolResult"] });
  const { messages, reason } = endOf(run);
  assert.equal(reason, "aborted");
  assert.ok(run.abortMs < 200, `final came ${run.abortMs} ms after the abort`);
  assert.deepEqual(
    messages.filter((message) => message.role === "tool").map((message) => message.content),
    ["Echo: done in time", "Error: aborted by the user", "Error: aborted by the user"],
  );
  await passBack(messages);
});

test("an abort while reasoning streams keeps the reasoning; the messages go back as they are", bounded, async () => {
  await scriptProvider([{ reasoning: "Thinking it through, one small piece at a time.", delay: 100 }]);
  const run = await runInPage(page, config(), question, { abortOn: ["reasoning"], abortNth: 2 });
  const { messages, reason } = endOf(run);
  assert.equal(reason, "aborted");
  const shown = eventsOf(run, "reasoning").map((event) => event.text).join("");
  assert.deepEqual(messages, [...question, { role: "assistant", reasoning_content: shown }]);
  await passBack(messages);
});

test("an abort while the servers are still connecting ends the run at once, before any model call", bounded, async () => {
  await scriptProvider([{ text: "never asked for" }]);
  // The stall mode never answers: the abort surely comes while connecting, however late it fires.
  const servers = [{ name: "stalled", url: `${env.mcpTestUrl}${mcpTestPath("stall")}` }];
  const run = await runInPage(page, config({ servers }), question, { abortAfterMs: 100 });
  const { messages, reason } = endOf(run);
  assert.equal(reason, "aborted");
  assert.deepEqual(messages, question);
  assert.ok(run.abortMs < 200, `final came ${run.abortMs} ms after the abort`);
  assert.equal((await providerRequests()).length, 0);
});

test("an abort while a Retry-After wait runs ends the run at once, with no further request", bounded, async () => {
  // The abort comes 1.5 s into the 20 s wait: after the 429 arrived, even on a loaded machine.
  await scriptProvider([{ status: 429, retryAfter: 20 }, { text: "never asked for" }]);
  const run = await runInPage(page, config(), question, { abortAfterMs: 1500 });
  const { messages, reason } = endOf(run);
  assert.equal(reason, "aborted", JSON.stringify(run.error));
  assert.deepEqual(messages, question);
  assert.ok(run.abortMs < 200, `final came ${run.abortMs} ms after the abort`);
  await new Promise((resolve) => setTimeout(resolve, 300));
  assert.equal((await providerRequests()).length, 1);
});

test("errors the provider sends inside its stream end the run with provider_stream_error and its words", bounded, async () => {
  const openAiChunk = (delta) => `data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", created: 1, model: "m", choices: [{ index: 0, delta, finish_reason: null }] })}\n\n`;
  const anthropicEvent = (data) => `event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`;
  const rows = [
    {
      id: "openai_compatible",
      raw: openAiChunk({ role: "assistant", content: "Hel" }) + `data: ${JSON.stringify({ error: { message: "The server had an error while processing your request.", type: "server_error" } })}\n\n`,
      words: /server_error: The server had an error/,
    },
    {
      id: "anthropic",
      raw:
        anthropicEvent({ type: "message_start", message: { id: "m", type: "message", role: "assistant", content: [], model: "c", stop_reason: null, usage: { input_tokens: 5, output_tokens: 1 } } }) +
        anthropicEvent({ type: "error", error: { type: "overloaded_error", message: "Overloaded" } }),
      words: /overloaded_error: Overloaded/,
    },
  ];
  for (const row of rows) {
    await scriptProvider([{ raw: row.raw }]);
    const provider = { id: row.id, apiKey: "test-key-123", model: "scripted", baseUrl: providerBaseUrl() };
    const run = await runInPage(page, config({ provider }), question);
    assert.equal(run.error?.code, "provider_stream_error", `${row.id}: ${JSON.stringify(run.error ?? run.events.at(-1))}`);
    assert.match(run.error.message, row.words);
    assert.deepEqual(endOf(run).messages, question);
  }
});

test("close() while text streams ends the run aborted with the text shown; free() lets a run finish", bounded, async () => {
  const answer = "A slow answer, written one small piece at a time.";
  const outcome = async (action) => {
    await scriptProvider([{ text: answer, delay: 60 }]);
    return page.evaluate(
      async ({ config, action }) => {
        const agent = new window.agentWasm.Agent(config);
        const events = [];
        for await (const event of agent.run([{ role: "user", content: "Q" }])) {
          events.push(event);
          if (events.length === 2 && action === "close") agent.close();
          if (events.length === 2 && action === "free") agent.free();
        }
        if (action === "close") agent.free();
        return events;
      },
      { config: config(), action },
    );
  };
  const closed = await outcome("close");
  const closedFinal = closed.at(-1);
  assert.equal(closedFinal.reason, "aborted");
  const shown = closed.filter((event) => event.type === "text").map((event) => event.text).join("");
  assert.deepEqual(closedFinal.messages.at(-1), { role: "assistant", content: shown });
  // free() lets go of the handle only: the run holds what it needs and ends as it would have.
  const freed = await outcome("free");
  assert.equal(freed.filter((event) => event.type === "final").length, 1);
  assert.equal(freed.at(-1).reason, "completed");
  assert.equal(freed.at(-1).text, answer);
});
