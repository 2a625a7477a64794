// The stream consumers compared in part 1. Each reads one response body through a `fetch`
// replacement that serves it from memory, and returns the same summary (text, reasoning, completed
// tool calls with parsed arguments), so that the runner can check they all did the same work.
import { createParser } from "eventsource-parser";
import { jsonSchema, streamText } from "ai";
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";

/** Bytes per read: network reads deliver a few KiB at a time (the native bench uses the same). */
export const PIECE_BYTES = 4096;

/** The base URL every consumer is pointed at; the fetch replacement answers it from memory. */
export const PROVIDER_BASE_URL = "http://127.0.0.1:1/v1";

function pieces(bytes) {
  const views = [];
  for (let start = 0; start < bytes.length; start += PIECE_BYTES) {
    views.push(bytes.subarray(start, start + PIECE_BYTES));
  }
  return views;
}

/** A `fetch` that answers every request with `bytes` as an event stream, read in PIECE_BYTES reads. */
export function replayFetch(bytes) {
  const views = pieces(bytes);
  return async (_input, init) => {
    if (init?.body && typeof init.body.cancel === "function") await init.body.cancel();
    let next = 0;
    const body = new ReadableStream({
      pull(controller) {
        if (next < views.length) {
          controller.enqueue(views[next]);
          next += 1;
        } else {
          controller.close();
        }
      },
    });
    return new Response(body, { status: 200, headers: { "content-type": "text/event-stream" } });
  };
}

export function emptySummary() {
  return { text: "", reasoning: "", toolCalls: [], events: 0 };
}

/**
 * The practical limit of the JS side: eventsource-parser, JSON.parse per event, and tool-call
 * deltas accumulated by index by hand, as a careful developer would write it without a library.
 */
export async function plainJs(bytes) {
  const response = await replayFetch(bytes)(`${PROVIDER_BASE_URL}/chat/completions`, { method: "POST" });
  const summary = emptySummary();
  const calls = [];
  const parser = createParser({
    onEvent(event) {
      if (event.data === "[DONE]") return;
      const chunk = JSON.parse(event.data);
      summary.events += 1;
      for (const choice of chunk.choices ?? []) {
        const delta = choice.delta ?? {};
        if (typeof delta.content === "string") summary.text += delta.content;
        if (typeof delta.reasoning_content === "string") summary.reasoning += delta.reasoning_content;
        for (const call of delta.tool_calls ?? []) {
          const index = call.index ?? calls.length;
          const entry = (calls[index] ??= { id: "", name: "", arguments: "" });
          if (call.id) entry.id = call.id;
          if (call.function?.name) entry.name += call.function.name;
          if (call.function?.arguments) entry.arguments += call.function.arguments;
        }
      }
    },
  });
  const decoder = new TextDecoder();
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parser.feed(decoder.decode(value, { stream: true }));
  }
  parser.feed(decoder.decode());
  summary.toolCalls = calls
    .filter(Boolean)
    .map((call) => ({ name: call.name, input: JSON.parse(call.arguments || "{}") }));
  return summary;
}

/** Tools declared without `execute`, so that streamText parses and validates calls and stops. */
function declaredTools(names) {
  const tools = {};
  for (const name of names) {
    tools[name] = { description: name, inputSchema: jsonSchema({ type: "object" }) };
  }
  return tools;
}

async function consumeAiSdkStream(model, body) {
  const result = streamText({
    model,
    prompt: "benchmark",
    tools: declaredTools(body.toolNames),
    maxRetries: 0,
  });
  const summary = emptySummary();
  for await (const part of result.stream) {
    summary.events += 1;
    switch (part.type) {
      case "text-delta":
        summary.text += part.text;
        break;
      case "reasoning-delta":
        summary.reasoning += part.text;
        break;
      case "tool-call":
        summary.toolCalls.push({ name: part.toolName, input: part.input });
        break;
      case "error":
        throw part.error;
      default:
        break;
    }
  }
  return summary;
}

/** Vercel AI SDK: streamText over `@ai-sdk/openai`'s chat model (which ignores `reasoning_content`). */
export function aiSdkOpenAi(body) {
  const provider = createOpenAI({ apiKey: "k", baseURL: PROVIDER_BASE_URL, fetch: replayFetch(body.bytes) });
  return consumeAiSdkStream(provider.chat("gpt-4o-mini"), body);
}

/** Vercel AI SDK: streamText over `@ai-sdk/openai-compatible`, which also streams reasoning. */
export function aiSdkOpenAiCompatible(body) {
  const provider = createOpenAICompatible({
    name: "bench",
    apiKey: "k",
    baseURL: PROVIDER_BASE_URL,
    fetch: replayFetch(body.bytes),
    includeUsage: true,
  });
  return consumeAiSdkStream(provider.chatModel("deepseek-reasoner"), body);
}
