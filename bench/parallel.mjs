// Part 3: N tool calls in one round, each taking L ms on a local MCP server: wall time of the tool
// phase (first `toolCall` event to last `toolResult` event) divided by L, run in parallel as the
// Agent does by default, and one after another (`maxConcurrentTools: 1`). Each Agent is warmed
// up by one run first (tools listed, MCP session open), as in a conversation's later rounds. The
// MCP server runs in a process of its own, as a real one would, so that answering the calls does
// not take turns with the Agent on one event loop.
// Usage: node bench/parallel.mjs <package dir (pkg/nodejs)> <output .json>
import { writeFileSync } from "node:fs";
import { sseChunk } from "./inputs.mjs";
import { epochNow, spawnSleepServer } from "./mcp-sleep-server.mjs";
import { installFetch, loadPackage, newAgent } from "./ours.mjs";

const [packageDir, outputPath] = process.argv.slice(2);
if (!packageDir || !outputPath) {
  console.error("usage: node bench/parallel.mjs <package dir> <output .json>");
  process.exit(2);
}

const LATENCY_MS = 300;
const CALL_COUNTS = [1, 4, 8, 16];
/** Parallel runs per N; the median counts. Sequential runs take N × L each, so they run once. */
const PARALLEL_REPEATS = 5;

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

/** An Agent on the sleep server, its tools listed and its MCP session opened by one warm-up run. */
async function warmAgent(server, extraConfig) {
  const config = { mcpServers: [{ name: "sleepy", url: server.url }], maxRounds: 3, ...extraConfig };
  const agent = newAgent(agentModule, config);
  const [tool] = await agent.listTools();
  const warm = { agent, functionName: tool.name };
  await toolPhase(server, warm, 1);
  return warm;
}

async function toolPhase(server, { agent, functionName }, callCount) {
  const restore = installFetch(scriptedProvider(functionName, callCount));
  await server.resetStats();
  let firstCall;
  let lastResult;
  let results = 0;
  let finalReason;
  try {
    for await (const event of agent.run([{ role: "user", content: "benchmark" }])) {
      const now = epochNow();
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
  const stats = await server.stats();
  return {
    milliseconds: lastResult - firstCall,
    maxInFlight: stats.maxInFlight,
    // Where the time beyond L goes: before the server saw every call, and after it answered the last.
    dispatchMilliseconds: stats.lastCallStarted - firstCall,
    deliveryMilliseconds: lastResult - stats.lastCallEnded,
  };
}

const server = await spawnSleepServer({ delayMs: LATENCY_MS });
const results = [];
const agents = [];
try {
  const parallelAgent = await warmAgent(server, {});
  const sequentialAgent = await warmAgent(server, { maxConcurrentTools: 1 });
  agents.push(parallelAgent.agent, sequentialAgent.agent);
  for (const callCount of CALL_COUNTS) {
    const phases = [];
    for (let repeat = 0; repeat < PARALLEL_REPEATS; repeat += 1) {
      phases.push(await toolPhase(server, parallelAgent, callCount));
    }
    phases.sort((a, b) => a.milliseconds - b.milliseconds);
    const typical = phases[Math.floor(phases.length / 2)];
    const maxInFlight = Math.max(...phases.map((phase) => phase.maxInFlight));
    const sequential = await toolPhase(server, sequentialAgent, callCount);
    const row = {
      calls: callCount,
      parallelOverLatency: typical.milliseconds / LATENCY_MS,
      parallelDispatchMilliseconds: typical.dispatchMilliseconds,
      parallelDeliveryMilliseconds: typical.deliveryMilliseconds,
      sequentialOverLatency: sequential.milliseconds / LATENCY_MS,
      parallelMaxInFlight: maxInFlight,
      sequentialMaxInFlight: sequential.maxInFlight,
    };
    results.push(row);
    console.log(
      `N=${String(callCount).padStart(2)}  parallel ${row.parallelOverLatency.toFixed(3)} × L (max ${maxInFlight} in flight; last call reached the server after ${typical.dispatchMilliseconds.toFixed(0)} ms, last result event ${typical.deliveryMilliseconds.toFixed(0)} ms after its answer)   one after another ${row.sequentialOverLatency.toFixed(2)} × L (max ${sequential.maxInFlight} in flight)`,
    );
  }
} finally {
  for (const agent of agents) agent.free();
  await server.close();
}
writeFileSync(outputPath, JSON.stringify({ latencyMs: LATENCY_MS, results }, null, 2));
