// A minimal MCP server over Streamable HTTP (JSON responses, no server-initiated stream) whose one
// tool, `sleep`, answers after a fixed delay: the tool latency L of the parallel-tools benchmark.
// Listens on 127.0.0.1 only; records how many calls were in flight at once. `spawnSleepServer` runs
// it in a process of its own, so that its work does not share the measured process's event loop.
import { fork } from "node:child_process";
import http from "node:http";
import { fileURLToPath } from "node:url";

const PROTOCOL_VERSION = "2025-06-18";

const SLEEP_TOOL = {
  name: "sleep",
  description: "Waits a fixed time, then answers.",
  inputSchema: { type: "object", properties: { label: { type: "string" } } },
};

function readBody(request) {
  return new Promise((resolve, reject) => {
    const parts = [];
    request.on("data", (part) => parts.push(part));
    request.on("end", () => resolve(Buffer.concat(parts).toString("utf8")));
    request.on("error", reject);
  });
}

/** Milliseconds since the epoch with sub-millisecond precision, comparable between processes. */
export function epochNow() {
  return performance.timeOrigin + performance.now();
}

/** Calls seen since the last reset; times are `epochNow()`. */
function emptyStats() {
  return { calls: 0, inFlight: 0, maxInFlight: 0, firstCallStarted: undefined, lastCallStarted: 0, lastCallEnded: 0 };
}

/** Starts the server on a free loopback port; `close()` stops it. */
export async function startSleepServer({ delayMs }) {
  const stats = emptyStats();

  async function answer(message) {
    switch (message.method) {
      case "initialize":
        return {
          protocolVersion: message.params?.protocolVersion ?? PROTOCOL_VERSION,
          capabilities: { tools: {} },
          serverInfo: { name: "bench-sleep-server", version: "1.0.0" },
        };
      case "ping":
        return {};
      case "tools/list":
        return { tools: [SLEEP_TOOL] };
      case "tools/call": {
        const started = epochNow();
        stats.firstCallStarted ??= started;
        stats.lastCallStarted = started;
        stats.calls += 1;
        stats.inFlight += 1;
        stats.maxInFlight = Math.max(stats.maxInFlight, stats.inFlight);
        await new Promise((resolve) => setTimeout(resolve, delayMs));
        stats.inFlight -= 1;
        stats.lastCallEnded = epochNow();
        return { content: [{ type: "text", text: `slept ${delayMs} ms` }], isError: false };
      }
      default:
        return undefined;
    }
  }

  const server = http.createServer(async (request, response) => {
    if (request.method === "DELETE") {
      response.writeHead(200).end();
      return;
    }
    if (request.method !== "POST") {
      response.writeHead(405, { allow: "POST, DELETE" }).end();
      return;
    }
    const message = JSON.parse(await readBody(request));
    if (message.id === undefined) {
      response.writeHead(202).end();
      return;
    }
    const result = await answer(message);
    const reply =
      result === undefined
        ? { jsonrpc: "2.0", id: message.id, error: { code: -32601, message: `no method ${message.method}` } }
        : { jsonrpc: "2.0", id: message.id, result };
    response.writeHead(200, { "content-type": "application/json", "mcp-session-id": "bench-session" });
    response.end(JSON.stringify(reply));
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    stats,
    resetStats() {
      Object.assign(stats, emptyStats());
    },
    close() {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

/**
 * The same server in a child process. `stats()` and `resetStats()` ask it over IPC; `close()`
 * ends it.
 */
export async function spawnSleepServer({ delayMs }) {
  const child = fork(fileURLToPath(import.meta.url), [String(delayMs)], { stdio: "inherit" });
  const replies = [];
  child.on("message", (message) => replies.shift()?.(message));
  const ask = (request) =>
    new Promise((resolve) => {
      replies.push(resolve);
      child.send(request);
    });
  const { url } = await ask("url");
  return {
    url,
    stats: () => ask("stats"),
    resetStats: () => ask("reset"),
    close() {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill();
      return exited;
    },
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const server = await startSleepServer({ delayMs: Number(process.argv[2]) });
  process.on("message", (request) => {
    if (request === "reset") server.resetStats();
    process.send(request === "url" ? { url: server.url } : { ...server.stats });
  });
}
