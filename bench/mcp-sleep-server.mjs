// A minimal MCP server over Streamable HTTP (JSON responses, no server-initiated stream) whose one
// tool, `sleep`, answers after a fixed delay: the tool latency L of the parallel-tools benchmark.
// Listens on 127.0.0.1 only; records how many calls were in flight at once. Answers CORS
// preflights, so that a page may call it. Speaks HTTP/1.1, or HTTP/2 over TLS when given a key
// and certificate (browsers open at most 6 HTTP/1.1 connections per server, but multiplex
// HTTP/2). `spawnSleepServer` runs it in a process of its own, so that its work does not share the
// measured process's event loop.
import { fork } from "node:child_process";
import { readFileSync } from "node:fs";
import http from "node:http";
import http2 from "node:http2";
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

const CORS_HEADERS = {
  "access-control-allow-origin": "*",
  "access-control-expose-headers": "mcp-session-id",
};

const PREFLIGHT_HEADERS = {
  ...CORS_HEADERS,
  "access-control-allow-methods": "POST, GET, DELETE",
  "access-control-allow-headers": "content-type, accept, mcp-session-id, mcp-protocol-version, last-event-id",
  // Preflights are cached by the browser for this long, so that the measured calls need none.
  "access-control-max-age": "600",
};

/**
 * Starts the server on a free loopback port; `close()` stops it. With `tls` (`{ keyPath,
 * certPath }`) it speaks HTTP/2 over TLS (and HTTP/1.1 to clients that ask for it).
 */
export async function startSleepServer({ delayMs, tls }) {
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

  async function handle(request, response) {
    if (request.method === "OPTIONS") {
      response.writeHead(204, PREFLIGHT_HEADERS).end();
      return;
    }
    if (request.method === "DELETE") {
      response.writeHead(200, CORS_HEADERS).end();
      return;
    }
    if (request.method !== "POST") {
      response.writeHead(405, { ...CORS_HEADERS, allow: "POST, DELETE" }).end();
      return;
    }
    const message = JSON.parse(await readBody(request));
    if (message.id === undefined) {
      response.writeHead(202, CORS_HEADERS).end();
      return;
    }
    const result = await answer(message);
    const reply =
      result === undefined
        ? { jsonrpc: "2.0", id: message.id, error: { code: -32601, message: `no method ${message.method}` } }
        : { jsonrpc: "2.0", id: message.id, result };
    response.writeHead(200, { ...CORS_HEADERS, "content-type": "application/json", "mcp-session-id": "bench-session" });
    response.end(JSON.stringify(reply));
  }

  const server = tls
    ? http2.createSecureServer(
        { key: readFileSync(tls.keyPath), cert: readFileSync(tls.certPath), allowHTTP1: true },
        handle,
      )
    : http.createServer(handle);
  const sessions = new Set();
  server.on("session", (session) => {
    sessions.add(session);
    session.once("close", () => sessions.delete(session));
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  return {
    url: `${tls ? "https" : "http"}://127.0.0.1:${port}/mcp`,
    stats,
    resetStats() {
      Object.assign(stats, emptyStats());
    },
    close() {
      server.closeAllConnections?.();
      for (const session of sessions) session.destroy();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

/**
 * The same server in a child process. `stats()` and `resetStats()` ask it over IPC; `close()`
 * ends it.
 */
export async function spawnSleepServer({ delayMs, tls }) {
  const tlsArguments = tls ? [tls.keyPath, tls.certPath] : [];
  const child = fork(fileURLToPath(import.meta.url), [String(delayMs), ...tlsArguments], { stdio: "inherit" });
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
  const [delayMs, keyPath, certPath] = process.argv.slice(2);
  const server = await startSleepServer({ delayMs: Number(delayMs), tls: keyPath ? { keyPath, certPath } : undefined });
  // A parent that ends without closing the server (a crash, Ctrl-C) ends it too.
  process.on("disconnect", () => process.exit(0));
  process.on("message", (request) => {
    if (request === "reset") server.resetStats();
    process.send(request === "url" ? { url: server.url } : { ...server.stats });
  });
}
