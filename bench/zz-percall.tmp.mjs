// temporary: CPU per tools/call, package McpClient vs bare fetch, 8 concurrent, delay 0
import { createRequire } from "node:module";
import { spawnSleepServer } from "./mcp-sleep-server.mjs";
const pkgDir = process.argv[2] ?? "../pkg/nodejs";
const pkg = createRequire(import.meta.url)(new URL(pkgDir + "/mcp_agent_wasm.js", import.meta.url).pathname);
const server = await spawnSleepServer({ delayMs: 0 });
const client = new pkg.McpClient({ url: server.url, allowInsecureLocalUrls: true });
await client.connect();
const headers = { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-session-id": "bench-session", "mcp-protocol-version": "2025-06-18" };
const variants = {
  ours: (i) => client.callTool("sleep", { label: `call ${i}` }, undefined),
  fetch: async (i) => {
    const body = { jsonrpc: "2.0", id: i + 1, method: "tools/call", params: { name: "sleep", arguments: { label: `call ${i}` } } };
    const r = await fetch(server.url, { method: "POST", headers, body: JSON.stringify(body) });
    return r.json();
  },
};
const N = 8, ROUNDS = Number(process.argv[3] ?? 300);
const only = process.argv[4];
for (let pass = 0; pass < 3; pass++) {
  for (const [name, call] of Object.entries(variants).filter(([n]) => !only || n === only)) {
    const c0 = process.cpuUsage(); const t0 = performance.now();
    for (let r = 0; r < ROUNDS; r++) await Promise.all(Array.from({ length: N }, (_, i) => call(i)));
    const c = process.cpuUsage(c0); const t = performance.now() - t0;
    console.log(pass, name, "cpu/call", ((c.user + c.system) / 1000 / (ROUNDS * N)).toFixed(3), "ms", "wall/round", (t / ROUNDS).toFixed(2), "ms");
  }
}
await client.close(); client.free(); await server.close(); process.exit(0);
