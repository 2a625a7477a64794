// Serves the demo page on 127.0.0.1: `/` from www/, `/pkg/` from the built package (pkg/web/), and
// `/demo-config.json`, the page's defaults, from the local servers' URLs in the environment
// (MCP_EVERYTHING_URL, DEMO_MODEL_URL, as `cargo xtask demo` sets them; 404 when unset).
// Usage: PORT=N node testing/static-server.mjs <www dir> <pkg dir>
import http from "node:http";
import fs from "node:fs/promises";
import path from "node:path";

const port = Number(process.env.PORT);
const [wwwRoot, pkgRoot] = process.argv.slice(2).map((dir) => path.resolve(dir));
const types = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".wasm": "application/wasm",
  ".json": "application/json",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ts": "text/plain; charset=utf-8",
};

function resolveFile(urlPath) {
  const [root, rest] = urlPath.startsWith("/pkg/")
    ? [pkgRoot, urlPath.slice("/pkg/".length)]
    : [wwwRoot, urlPath.slice(1) || "index.html"];
  const file = path.resolve(root, decodeURIComponent(rest));
  return file.startsWith(root + path.sep) ? file : null;
}

/** The offline demo's defaults, or `null` when the local servers' URLs were not given. */
function demoConfig() {
  const { MCP_EVERYTHING_URL: mcpUrl, DEMO_MODEL_URL: modelUrl } = process.env;
  if (!mcpUrl || !modelUrl) return null;
  return { mcpServers: [{ name: "everything", url: mcpUrl }], modelUrl };
}

http
  .createServer(async (request, response) => {
    const urlPath = new URL(request.url, "http://127.0.0.1").pathname;
    if (urlPath === "/demo-config.json") {
      const config = demoConfig();
      response.writeHead(config ? 200 : 404, {
        "content-type": "application/json",
        "cache-control": "no-store",
      });
      response.end(JSON.stringify(config ?? { error: "MCP_EVERYTHING_URL and DEMO_MODEL_URL unset" }));
      return;
    }
    const file = resolveFile(urlPath);
    try {
      if (!file) throw new Error("outside the served folders");
      const body = await fs.readFile(file);
      response.writeHead(200, {
        "content-type": types[path.extname(file)] ?? "application/octet-stream",
        "cache-control": "no-store",
      });
      response.end(body);
    } catch {
      response.writeHead(404, { "content-type": "text/plain" }).end("not found");
    }
  })
  .listen(port, "127.0.0.1");
