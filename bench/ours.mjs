// This package as a stream consumer: one model round through the real web path (fetch body → SSE →
// provider parser → assembler → events into JS), driven by the public `Agent` of the Node build.
import { createRequire } from "node:module";
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { emptySummary, PROVIDER_BASE_URL, replayFetch } from "./consumers.mjs";
import { startSleepServer } from "./mcp-sleep-server.mjs";

/** The Node build of the package (`cargo xtask build` → pkg/nodejs), or null when absent or without `Agent`. */
export function loadPackage(packageDir) {
  const entry = join(resolve(packageDir), "mcp_agent_wasm.js");
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

/** The benchmark Agent's configuration: the in-process provider, `extra` on top. */
export function agentConfig(extra = {}) {
  return {
    provider: { id: "openai", apiKey: "k", model: "gpt-4o-mini", baseUrl: PROVIDER_BASE_URL },
    mcpServers: [],
    toolPrompt: false,
    allowInsecureLocalUrls: true,
    ...extra,
  };
}

export function newAgent(module, extra = {}) {
  return new module.Agent(agentConfig(extra));
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

/** An empty final answer, for the loop's last model call after a round with tool calls. */
const EMPTY_ANSWER = new TextEncoder().encode(
  'data: {"choices":[{"index":0,"delta":{"content":""},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n',
);

/**
 * This package as a stream consumer: one Agent, reused by every run, with one MCP server whose
 * single tool (`sleep`) makes the Agent offer tools, so that the model's calls are shown while
 * written (`toolInputStart`, `toolInputDelta`), assembled and announced (`toolCall`). The streams call other tool names, so each call is answered at once with
 * an "unknown tool" error and nothing runs. The round cap is 1 and, by default, the run ends with
 * that round (`answerAfterMaxRounds: false`): one model round, as the AI SDK's `streamText` makes
 * one step. With `lastAnswer`, the loop makes its last model call without tools after a round with
 * calls, as an Agent does by default; that call gets an empty answer. No MCP traffic happens during
 * runs: the tool listing is fetched once, here. `toolPrompt` sends the tool preamble, as an Agent
 * does by default.
 */
export async function oursConsumer(module, { lastAnswer = false, toolPrompt = false } = {}) {
  const server = await startSleepServer({ delayMs: 0 });
  const agent = newAgent(module, {
    toolPrompt,
    maxRounds: 1,
    answerAfterMaxRounds: lastAnswer,
    mcpServers: [{ name: "bench", url: server.url }],
  });
  await agent.listTools();
  const lastCall = replayFetch(EMPTY_ANSWER);
  return {
    async run(bytes) {
      const firstRound = replayFetch(bytes);
      let requests = 0;
      const restore = installFetch((input, init) => {
        requests += 1;
        return requests === 1 ? firstRound(input, init) : lastCall(input, init);
      });
      const summary = emptySummary();
      try {
        for await (const event of agent.run([{ role: "user", content: "benchmark" }])) {
          addEvent(summary, event);
        }
      } finally {
        restore();
      }
      return summary;
    },
    async close() {
      agent.free();
      await server.close();
    },
  };
}
