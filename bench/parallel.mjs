// Part 3: N tool calls in one round, each taking L ms on a local MCP server: wall time of the tool
// phase divided by L, for this package and, side by side, for what a developer would write instead:
// the MCP TypeScript SDK's `Client` (N `callTool`s under `Promise.all`) and bare `fetch` (N
// JSON-RPC POSTs by hand, the floor of any client). The phase runs from the moment the first
// `tools/call` request is handed to `fetch` (for the SDK and by hand: from the moment the calls are
// made) to the moment the last result is in the caller's hands (for this package: its last
// `toolResult` event). In Node, over HTTP/1.1; in headless Chromium (when CHROMIUM_BINARY is set),
// over HTTP/2 with TLS and over HTTP/1.1, where the browser opens at most 6 connections per server.
// This package also runs one call after another (`maxConcurrentTools: 1`), in Node.
// Every client is warmed up by one round first (tools listed, MCP session open, CORS preflight
// cached), as in a conversation's later rounds. The MCP servers run in processes of their own.
// Usage: node bench/parallel.mjs <package dir (pkg/nodejs)> <output .json>
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import http from "node:http";
import { createRequire } from "node:module";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { PROVIDER_BASE_URL } from "./consumers.mjs";
import { sseChunk } from "./inputs.mjs";
import { spawnSleepServer } from "./mcp-sleep-server.mjs";
import { agentConfig, loadPackage } from "./ours.mjs";

const [packageDir, outputPath] = process.argv.slice(2);
if (!packageDir || !outputPath) {
  console.error("usage: node bench/parallel.mjs <package dir> <output .json>");
  process.exit(2);
}

const LATENCY_MS = 300;
const CALL_COUNTS = [1, 4, 8, 16];
/** Runs per N and client, interleaved; the median counts. One after another runs once (N × L). */
const REPEATS = 5;

/**
 * One tool phase of a warm Agent: the in-process provider asks for `callCount` calls in round 1
 * and answers after; MCP requests go out through the real fetch. Self-contained, because it also
 * runs in a page, sent there as source.
 */
async function agentToolPhase(agent, { providerBaseUrl, toolCallBody, closingBody, callCount }) {
  const now = () => performance.timeOrigin + performance.now();
  const realFetch = globalThis.fetch;
  const stream = (text) => new Response(text, { status: 200, headers: { "content-type": "text/event-stream" } });
  let started;
  // Requests are told apart by their text, so that the benchmark adds no JSON parsing of its own.
  globalThis.fetch = (input, init) => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    const body = typeof init?.body === "string" ? init.body : "";
    if (url.startsWith(providerBaseUrl)) {
      const toolResultsSent = body.includes('"role":"tool"');
      return Promise.resolve(stream(toolResultsSent ? closingBody : toolCallBody));
    }
    if (body.includes('"method":"tools/call"')) started ??= now();
    return realFetch(input, init);
  };
  let ended;
  let results = 0;
  let finalReason;
  try {
    for await (const event of agent.run([{ role: "user", content: "benchmark" }])) {
      if (event.type === "toolResult") {
        ended = now();
        results += 1;
      }
      if (event.type === "toolError") throw new Error(`tool error: ${event.message}`);
      if (event.type === "final") finalReason = event.reason;
    }
  } finally {
    globalThis.fetch = realFetch;
  }
  if (results !== callCount || finalReason !== "completed" || started === undefined) {
    throw new Error(`expected ${callCount} tools/call requests and results and a completed run, got ${results} results, ${finalReason}`);
  }
  return { started, ended };
}

/** The same calls as JSON-RPC POSTs by hand. Self-contained, like `agentToolPhase`. */
async function fetchToolPhase({ url, callCount }) {
  const now = () => performance.timeOrigin + performance.now();
  const headers = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-session-id": "bench-session",
    "mcp-protocol-version": "2025-06-18",
  };
  const call = async (index) => {
    const body = { jsonrpc: "2.0", id: index + 1, method: "tools/call", params: { name: "sleep", arguments: { label: `call ${index}` } } };
    const response = await fetch(url, { method: "POST", headers, body: JSON.stringify(body) });
    const reply = await response.json();
    if (!reply.result) throw new Error(`tools/call failed: ${JSON.stringify(reply)}`);
    return now();
  };
  const started = now();
  const endings = await Promise.all(Array.from({ length: callCount }, (_, index) => call(index)));
  return { started, ended: Math.max(...endings) };
}

async function sdkToolPhase(client, callCount) {
  const call = async (index) => {
    const result = await client.callTool({ name: "sleep", arguments: { label: `call ${index}` } });
    if (result.isError) throw new Error("tools/call failed");
    return performance.timeOrigin + performance.now();
  };
  const started = performance.timeOrigin + performance.now();
  const endings = await Promise.all(Array.from({ length: callCount }, (_, index) => call(index)));
  return { started, ended: Math.max(...endings) };
}

/** What the scripted provider streams: `callCount` calls of `functionName`, and a closing answer. */
function providerBodies(functionName, callCount) {
  let toolCallBody = sseChunk({ role: "assistant", content: null });
  for (let index = 0; index < callCount; index += 1) {
    const call = { index, id: `call_${index}`, type: "function" };
    call.function = { name: functionName, arguments: JSON.stringify({ label: `call ${index}` }) };
    toolCallBody += sseChunk({ tool_calls: [call] });
  }
  toolCallBody += sseChunk({}, "tool_calls") + "data: [DONE]\n\n";
  const closingBody = sseChunk({ role: "assistant", content: "all done" }) + sseChunk({}, "stop") + "data: [DONE]\n\n";
  return { providerBaseUrl: PROVIDER_BASE_URL, toolCallBody, closingBody, callCount };
}

/** A warm Agent of the Node build as a client: `phase(callCount)` runs one tool phase. */
async function nodeAgentClient(agentModule, server, extraConfig = {}) {
  const agent = new agentModule.Agent(agentConfig({ mcpServers: [{ name: "sleepy", url: server.url }], maxRounds: 3, ...extraConfig }));
  const [tool] = await agent.listTools();
  const phase = (callCount) => agentToolPhase(agent, providerBodies(tool.name, callCount));
  await phase(1);
  return { phase, close: () => agent.free() };
}

async function nodeSdkClient(server) {
  const client = new Client({ name: "bench", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
  const phase = (callCount) => sdkToolPhase(client, callCount);
  await phase(1);
  return { phase, close: () => client.close() };
}

async function nodeFetchClient(server) {
  const phase = (callCount) => fetchToolPhase({ url: server.url, callCount });
  await phase(1);
  return { phase, close() {} };
}

/** A self-signed certificate for 127.0.0.1 in `directory`, or null without `openssl`. */
function selfSignedCertificate(directory) {
  mkdirSync(directory, { recursive: true });
  const keyPath = path.join(directory, "key.pem");
  const certPath = path.join(directory, "cert.pem");
  try {
    execFileSync(
      "openssl",
      ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2",
        "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", keyPath, "-out", certPath],
      { stdio: "ignore" },
    );
  } catch {
    return null;
  }
  return { keyPath, certPath };
}

/** Serves an empty page and the web build (`/pkg/…`) on 127.0.0.1. */
async function startPageServer(webPackageDir) {
  const types = { ".js": "text/javascript", ".wasm": "application/wasm" };
  const server = http.createServer((request, response) => {
    const urlPath = new URL(request.url, "http://127.0.0.1").pathname;
    if (urlPath === "/") {
      response.writeHead(200, { "content-type": "text/html" }).end("<!doctype html><title>parallel tools</title>");
      return;
    }
    const file = path.join(webPackageDir, path.basename(urlPath));
    if (!urlPath.startsWith("/pkg/") || !existsSync(file)) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { "content-type": types[path.extname(file)] ?? "application/octet-stream" });
    response.end(readFileSync(file));
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${server.address().port}/`, close: () => server.close() };
}

/**
 * Headless Chromium on a page with the web build loaded, or a reason why not. Uses the
 * playwright-core of testing/ (installed by `cargo xtask test` and `build`).
 */
async function openBrowserPage(webPackageDir) {
  const binary = process.env.CHROMIUM_BINARY;
  if (!binary || !existsSync(binary)) return { reason: `no Chromium at CHROMIUM_BINARY (${binary ?? "not set"})` };
  if (!existsSync(path.join(webPackageDir, "mcp_agent_wasm.js"))) return { reason: `no web build in ${webPackageDir}` };
  let chromium;
  try {
    ({ chromium } = createRequire(path.resolve("testing/package.json"))("playwright-core"));
  } catch {
    return { reason: "playwright-core is not installed in testing/" };
  }
  const pageServer = await startPageServer(webPackageDir);
  const browser = await chromium.launch({
    executablePath: binary,
    args: (process.env.CHROMIUM_ARGS ?? "--headless").split(" "),
  });
  // The HTTP/2 server's certificate is self-signed.
  const context = await browser.newContext({ ignoreHTTPSErrors: true });
  const page = await context.newPage();
  await page.goto(pageServer.url);
  await page.evaluate(async () => {
    const module = await import("/pkg/mcp_agent_wasm.js");
    await module.default();
    window.benchPackage = module;
    window.benchAgents = [];
  });
  return {
    page,
    async close() {
      await browser.close();
      pageServer.close();
    },
  };
}

async function pageAgentClient(page, server) {
  const config = agentConfig({ mcpServers: [{ name: "sleepy", url: server.url }], maxRounds: 3 });
  const { slot, functionName } = await page.evaluate(async (config) => {
    const agent = new window.benchPackage.Agent(config);
    const [tool] = await agent.listTools();
    window.benchAgents.push(agent);
    return { slot: window.benchAgents.length - 1, functionName: tool.name };
  }, config);
  const phase = (callCount) =>
    page.evaluate(
      ([source, slot, bodies]) => (0, eval)(`(${source})`)(window.benchAgents[slot], bodies),
      [agentToolPhase.toString(), slot, providerBodies(functionName, callCount)],
    );
  await phase(1);
  return { phase, close: () => page.evaluate((slot) => window.benchAgents[slot].free(), slot) };
}

async function pageFetchClient(page, server) {
  const phase = (callCount) =>
    page.evaluate(([source, options]) => (0, eval)(`(${source})`)(options), [fetchToolPhase.toString(), { url: server.url, callCount }]);
  await phase(1);
  return { phase, close() {} };
}

/** Median of `REPEATS` interleaved tool phases per client, and the most calls the server saw at once. */
async function measure(clients, callCount) {
  const phases = clients.map(() => []);
  for (let repeat = 0; repeat < REPEATS; repeat += 1) {
    for (const [index, client] of clients.entries()) {
      phases[index].push(await timedPhase(client, callCount));
    }
  }
  return Object.fromEntries(
    clients.map((client, index) => {
      const sorted = phases[index].sort((a, b) => a.overLatency - b.overLatency);
      const maxInFlight = Math.max(...sorted.map((phase) => phase.maxInFlight));
      return [client.key, { overLatency: sorted[Math.floor(sorted.length / 2)].overLatency, maxInFlight }];
    }),
  );
}

async function timedPhase(client, callCount) {
  await client.server.resetStats();
  const { started, ended } = await client.phase(callCount);
  const stats = await client.server.stats();
  if (stats.calls !== callCount) throw new Error(`${client.key}: the server saw ${stats.calls} calls, not ${callCount}`);
  return { overLatency: (ended - started) / LATENCY_MS, maxInFlight: stats.maxInFlight };
}

const agentModule = loadPackage(packageDir);
if (!agentModule) {
  console.log(`no Agent in ${packageDir}: parallel tools not measured`);
  writeFileSync(outputPath, JSON.stringify({ latencyMs: LATENCY_MS, clients: [], results: [] }, null, 2));
  process.exit(0);
}

const servers = [];
const closers = [];
const clients = [];
const notes = [];
try {
  const http1Server = await spawnSleepServer({ delayMs: LATENCY_MS });
  servers.push(http1Server);
  const add = async (key, label, server, opened) => {
    const client = await opened;
    closers.push(client.close);
    clients.push({ key, label, server, phase: client.phase });
  };
  await add("node/this-package", "this package", http1Server, nodeAgentClient(agentModule, http1Server));
  await add("node/mcp-sdk", "MCP SDK Client", http1Server, nodeSdkClient(http1Server));
  await add("node/fetch", "fetch by hand", http1Server, nodeFetchClient(http1Server));
  const sequential = await nodeAgentClient(agentModule, http1Server, { maxConcurrentTools: 1 });
  closers.push(sequential.close);

  const browser = await openBrowserPage(path.join(path.dirname(path.resolve(packageDir)), "web"));
  if (browser.page) {
    closers.push(browser.close);
    const certificate = selfSignedCertificate(path.join(path.dirname(path.resolve(outputPath)), "tls"));
    if (certificate) {
      const http2Server = await spawnSleepServer({ delayMs: LATENCY_MS, tls: certificate });
      servers.push(http2Server);
      await add("chromium-h2/this-package", "this package", http2Server, pageAgentClient(browser.page, http2Server));
      await add("chromium-h2/fetch", "fetch by hand", http2Server, pageFetchClient(browser.page, http2Server));
    } else {
      notes.push("Chromium over HTTP/2 not measured: `openssl` could not make a certificate");
    }
    await add("chromium-h1/this-package", "this package", http1Server, pageAgentClient(browser.page, http1Server));
    await add("chromium-h1/fetch", "fetch by hand", http1Server, pageFetchClient(browser.page, http1Server));
  } else {
    notes.push(`Chromium not measured: ${browser.reason}`);
  }
  for (const note of notes) console.log(note);

  const results = [];
  for (const callCount of CALL_COUNTS) {
    const row = { calls: callCount, clients: await measure(clients, callCount) };
    const oneAfterAnother = await timedPhase({ key: "sequential", server: http1Server, phase: sequential.phase }, callCount);
    row.sequentialOverLatency = oneAfterAnother.overLatency;
    row.sequentialMaxInFlight = oneAfterAnother.maxInFlight;
    results.push(row);
    const figures = clients.map(({ key }) => `${key} ${row.clients[key].overLatency.toFixed(3)} (${row.clients[key].maxInFlight})`);
    console.log(`N=${String(callCount).padStart(2)} × L: ${figures.join("  ")}  one after another ${row.sequentialOverLatency.toFixed(2)}`);
  }
  const clientList = clients.map(({ key, label }) => ({ key, label }));
  writeFileSync(outputPath, JSON.stringify({ latencyMs: LATENCY_MS, repeats: REPEATS, node: process.version, clients: clientList, notes, results }, null, 2));
} finally {
  for (const close of closers.reverse()) await close();
  for (const server of servers) await server.close();
}
