// Part 2: bytes a browser downloads. This package's release build for the web (`*_bg.wasm` and its
// JS glue) next to esbuild bundles of what a developer would ship instead.
// Usage: node bench/size.mjs <pkg/web dir> <output .json>
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import { build } from "esbuild";

const [webPackageDir, outputPath] = process.argv.slice(2);
if (!webPackageDir || !outputPath) {
  console.error("usage: node bench/size.mjs <pkg/web dir> <output .json>");
  process.exit(2);
}

/** What each peer bundle must contain to do this package's job: a model stream with tools, and MCP. */
const PEERS = [
  {
    name: "ai@7 + @ai-sdk/openai@4 + @ai-sdk/mcp@2",
    short: "AI SDK: ai + openai + mcp",
    entry: [
      'export { streamText, jsonSchema } from "ai";',
      'export { createOpenAI } from "@ai-sdk/openai";',
      'export { createMCPClient } from "@ai-sdk/mcp";',
    ].join("\n"),
  },
  {
    name: "@modelcontextprotocol/sdk Client + Streamable HTTP + SSE transports",
    short: "MCP TypeScript SDK: Client + 2 transports",
    entry: [
      'export { Client } from "@modelcontextprotocol/sdk/client/index.js";',
      'export { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";',
      'export { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";',
    ].join("\n"),
  },
];

/** Raw, gzip -9 (the measure) and brotli at quality 11 (what most CDNs serve). */
function sizes(bytes) {
  const brotli = brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length;
  return { raw: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length, brotli };
}

/** The sizes of files downloaded together: each compressed on its own, as a server sends them. */
function summed(...files) {
  const each = files.map(sizes);
  const total = (key) => each.reduce((sum, file) => sum + file[key], 0);
  return { raw: total("raw"), gzip: total("gzip"), brotli: total("brotli") };
}

async function bundle(entry, minify = true) {
  const result = await build({
    stdin: { contents: entry, resolveDir: import.meta.dirname, loader: "js" },
    bundle: true,
    minify,
    format: "esm",
    platform: "browser",
    write: false,
    logLevel: "error",
  });
  return result.outputFiles[0].contents;
}

const rows = [];
const wasmPath = join(webPackageDir, "mcp_agent_wasm_bg.wasm");
const gluePath = join(webPackageDir, "mcp_agent_wasm.js");
if (existsSync(wasmPath) && existsSync(gluePath)) {
  const wasm = readFileSync(wasmPath);
  const glue = readFileSync(gluePath);
  const minifiedGlue = await bundle(glue.toString("utf8"));
  rows.push({ name: "this package: mcp_agent_wasm_bg.wasm", ours: true, ...sizes(wasm) });
  rows.push({ name: "this package: JS glue (as shipped)", ours: true, ...sizes(glue) });
  rows.push({
    name: "this package: wasm + glue (as shipped)",
    short: "this package: wasm + JS glue",
    ours: true,
    total: true,
    ...summed(wasm, glue),
  });
  rows.push({ name: "this package: wasm + glue minified by esbuild", ours: true, ...summed(wasm, minifiedGlue) });
} else {
  console.log(`no release build in ${webPackageDir}: measuring the peers only`);
}
for (const peer of PEERS) {
  rows.push({ name: peer.name, short: peer.short, ours: false, ...sizes(await bundle(peer.entry)) });
}
for (const row of rows) {
  console.log(
    `${row.name.padEnd(70)} ${String(row.raw).padStart(9)} raw ${String(row.gzip).padStart(8)} gzip -9 ${String(row.brotli).padStart(8)} brotli 11`,
  );
}
writeFileSync(outputPath, JSON.stringify({ gzipLevel: 9, rows }, null, 2));
