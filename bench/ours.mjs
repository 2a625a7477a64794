// This package as a stream consumer: one model round through the real web path (fetch body → SSE →
// provider parser → assembler → events into JS), driven by the public `Agent` of the Node build.
import { createRequire } from "node:module";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { emptySummary, PROVIDER_BASE_URL, replayFetch } from "./consumers.mjs";

/** The Node build of the package (`cargo xtask build` → pkg/nodejs), or null when absent or without `Agent`. */
export function loadPackage(packageDir) {
  const entry = join(packageDir, "mcp_agent_wasm.js");
  if (!existsSync(entry)) return null;
  const module = createRequire(import.meta.url)(entry);
  return typeof module.Agent === "function" ? module : null;
}

/**
 * Routes requests to the provider's base URL to `providerFetch` and everything else (the local
 * MCP server of part 3) to the real fetch; restored by the returned function.
 */
export function installFetch(providerFetch) {
  const realFetch = globalThis.fetch;
  globalThis.fetch = (input, init) => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    return url.startsWith(PROVIDER_BASE_URL) ? providerFetch(input, init) : realFetch(input, init);
  };
  return () => {
    globalThis.fetch = realFetch;
  };
}

export function newAgent(module, extra = {}) {
  return new module.Agent({
    provider: { id: "openai", apiKey: "k", model: "gpt-4o-mini", baseUrl: PROVIDER_BASE_URL },
    mcpServers: [],
    toolPrompt: false,
    allowInsecureLocalUrls: true,
    ...extra,
  });
}

/** Adds one agent event to a summary comparable with the other consumers'. */
export function addEvent(summary, event) {
  summary.events += 1;
  switch (event.type) {
    case "text":
      summary.text += event.text;
      break;
    case "reasoning":
      summary.reasoning += event.text;
      break;
    case "toolCall":
      summary.toolCalls.push({ name: event.name, input: event.arguments });
      break;
    default:
      break;
  }
}

/** An empty final answer, for the loop's closing model call after a round with tool calls. */
const EMPTY_ANSWER = new TextEncoder().encode(
  'data: {"choices":[{"index":0,"delta":{"content":""},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n',
);

/**
 * One model round over `bytes`. With no MCP server, every call in it is answered with an
 * "unknown tool" error; the round cap of 1 then makes the loop close with one last model call
 * without tools, which gets an empty answer.
 */
export async function ours(module, bytes) {
  const firstRound = replayFetch(bytes);
  const closingCall = replayFetch(EMPTY_ANSWER);
  let requests = 0;
  const restore = installFetch((input, init) => {
    requests += 1;
    return requests === 1 ? firstRound(input, init) : closingCall(input, init);
  });
  const agent = newAgent(module, { maxRounds: 1 });
  const summary = emptySummary();
  try {
    for await (const event of agent.run([{ role: "user", content: "benchmark" }])) {
      addEvent(summary, event);
    }
  } finally {
    agent.free();
    restore();
  }
  return summary;
}
