// Part 3: N tool calls in one round, each taking L ms on a local MCP server: wall time of the tool
// phase (first `toolCall` event to last `toolResult` event) divided by L, run in parallel as the
// Agent does by default, and one after another (`maxConcurrentTools: 1`).
// Usage: node bench/parallel.mjs <package dir (pkg/nodejs)> <output .json>
import { writeFileSync } from "node:fs";
import { sseChunk } from "./inputs.mjs";
import { startSleepServer } from "./mcp-sleep-server.mjs";
import { installFetch, loadPackage, newAgent } from "./ours.mjs";

const [packageDir, outputPath] = process.argv.slice(2);
if (!packageDir || !outputPath) {
  console.error("usage: node bench/parallel.mjs <package dir> <output .json>");
  process.exit(2);
}

const LATENCY_MS = 300;
const CALL_COUNTS = [1, 4, 8, 16];
/** Parallel runs per N; the median counts. Sequential runs take N × L each, so they run once. */
const PARALLEL_REPEATS = 3;

const agentModule = loadPackage(packageDir);
if (!agentModule) {
  console.log(`no Agent in ${packageDir}: parallel tools not measured`);
  writeFileSync(outputPath, JSON.stringify({ latencyMs: LATENCY_MS, results: [] }, null, 2));
  process.exit(0);
}

function eventStream(text) {
  const bytes = new TextEncoder().encode(text);
  return new Response(
    new ReadableStream({
      start(controller) {
        controller.enqueue(bytes);
        controller.close();
      },
    }),
    { status: 200, headers: { "content-type": "text/event-stream" } },
  );
}

/** A provider that asks for `callCount` calls of `functionName` in round 1 and answers after. */
function scriptedProvider(functionName, callCount) {
  return async (_input, init) => {
    const request = JSON.parse(typeof init?.body === "string" ? init.body : "{}");
    const toolResultsSent = (request.messages ?? []).some((message) => message.role === "tool");
    if (toolResultsSent) {
      return eventStream(sseChunk({ role: "assistant", content: "all done" }) + sseChunk({}, "stop") + "data: [DONE]\n\n");
    }
    let body = sseChunk({ role: "assistant", content: null });
    for (let index = 0; index < callCount; index += 1) {
      const call = { index, id: `call_${index}`, type: "function" };
      call.function = { name: functionName, arguments: JSON.stringify({ label: `call ${index}` }) };
      body += sseChunk({ tool_calls: [call] });
    }
    return eventStream(body + sseChunk({}, "tool_calls") + "data: [DONE]\n\n");
  };
}

async function toolPhase(server, callCount, extraConfig) {
  const config = { mcpServers: [{ name: "sleepy", url: server.url }], maxRounds: 3, ...extraConfig };
  const agent = newAgent(agentModule, config);
  try {
    const tools = await agent.listTools();
    const restore = installFetch(scriptedProvider(tools[0].name, callCount));
    server.resetStats();
    let firstCall;
    let lastResult;
    let results = 0;
    let finalReason;
    try {
      for await (const event of agent.run([{ role: "user", content: "benchmark" }])) {
        const now = performance.now();
        if (event.type === "toolCall") firstCall ??= now;
        if (event.type === "toolResult") {
          lastResult = now;
          results += 1;
        }
        if (event.type === "toolError") throw new Error(`tool error: ${event.message}`);
        if (event.type === "final") finalReason = event.reason;
      }
    } finally {
      restore();
    }
    if (results !== callCount || finalReason !== "completed") {
      throw new Error(`expected ${callCount} results and a completed run, got ${results}, ${finalReason}`);
    }
    return { milliseconds: lastResult - firstCall, maxInFlight: server.stats.maxInFlight };
  } finally {
    agent.free();
  }
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

const server = await startSleepServer({ delayMs: LATENCY_MS });
const results = [];
try {
  await toolPhase(server, 1, {});
  for (const callCount of CALL_COUNTS) {
    const parallel = [];
    let maxInFlight = 0;
    for (let repeat = 0; repeat < PARALLEL_REPEATS; repeat += 1) {
      const phase = await toolPhase(server, callCount, {});
      parallel.push(phase.milliseconds);
      maxInFlight = Math.max(maxInFlight, phase.maxInFlight);
    }
    const sequential = await toolPhase(server, callCount, { maxConcurrentTools: 1 });
    const row = {
      calls: callCount,
      parallelOverLatency: median(parallel) / LATENCY_MS,
      sequentialOverLatency: sequential.milliseconds / LATENCY_MS,
      parallelMaxInFlight: maxInFlight,
      sequentialMaxInFlight: sequential.maxInFlight,
    };
    results.push(row);
    console.log(
      `N=${String(callCount).padStart(2)}  parallel ${row.parallelOverLatency.toFixed(3)} × L (max ${maxInFlight} in flight)   one after another ${row.sequentialOverLatency.toFixed(2)} × L (max ${sequential.maxInFlight} in flight)`,
    );
  }
} finally {
  await server.close();
}
writeFileSync(outputPath, JSON.stringify({ latencyMs: LATENCY_MS, results }, null, 2));
