// The npm package as users get it: `npm pack`, installed into a fresh project, bundled with
// esbuild and run in headless Chromium; imported in plain Node, and through its bundler entry as a
// wasm ES module; its types checked with tsc.
// Traffic: the scripted provider and server-everything on 127.0.0.1 only.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { agentConfig, collectSource, launchBrowser, scriptProvider } from "./agent-harness.mjs";

const testing = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const root = path.dirname(testing);
const bin = (name) => path.join(testing, "node_modules", ".bin", name);
const work = fs.mkdtempSync(path.join(os.tmpdir(), "mcp-agent-wasm-consumer-"));
after(() => fs.rmSync(work, { recursive: true, force: true }));

const twoRounds = [
  { toolCalls: [{ id: "call_sum", name: "get-sum", arguments: { a: 2, b: 3 } }] },
  { text: "2 + 3 = 5" },
];
const question = [{ role: "user", content: "What is 2 + 3?" }];

function installPackedPackage() {
  const tarball = execFileSync("npm", ["pack", path.join(root, "pkg"), "--pack-destination", work, "--silent"], {
    encoding: "utf8",
  })
    .trim()
    .split("\n")
    .at(-1);
  const project = path.join(work, "project");
  fs.mkdirSync(project);
  fs.writeFileSync(path.join(project, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }));
  execFileSync("npm", ["install", path.join(work, tarball), "--offline", "--no-audit", "--no-fund", "--silent"], {
    cwd: project,
  });
  return project;
}

const project = installPackedPackage();

function assertFullRun(run) {
  assert.equal(run.error, undefined, JSON.stringify(run.error));
  const result = run.events.find((event) => event.type === "toolResult");
  assert.match(result.text, /5/);
  const final = run.events.at(-1);
  assert.equal(final.type, "final");
  assert.equal(final.reason, "completed");
  assert.equal(final.text, "2 + 3 = 5");
  assert.deepEqual(
    final.messages.map((message) => message.role),
    ["user", "assistant", "tool", "assistant"],
  );
}

test("bundled with esbuild from the installed tarball, a full loop runs in Chromium", async () => {
  const out = path.join(project, "out");
  fs.mkdirSync(out);
  fs.writeFileSync(
    path.join(project, "entry.js"),
    `import init, * as agentWasm from "mcp-agent-wasm";\n${collectSource}\n` +
      `window.runAgent = async (config, messages) => { await init(); return collect(agentWasm, config, messages); };\n`,
  );
  execFileSync(bin("esbuild"), ["entry.js", "--bundle", "--minify", "--format=esm", "--platform=browser", "--outfile=out/bundle.js"], {
    cwd: project,
  });
  // The web target fetches its wasm next to the module that imports it (import.meta.url).
  fs.copyFileSync(path.join(project, "node_modules/mcp-agent-wasm/web/mcp_agent_wasm_bg.wasm"), path.join(out, "mcp_agent_wasm_bg.wasm"));
  fs.writeFileSync(path.join(out, "index.html"), `<!doctype html><script type="module" src="bundle.js"></script>`);
  const types = { ".html": "text/html", ".js": "text/javascript", ".wasm": "application/wasm" };
  const server = http.createServer((request, response) => {
    const file = path.join(out, path.basename(new URL(request.url, "http://127.0.0.1").pathname) || "index.html");
    if (!fs.existsSync(file)) return response.writeHead(404).end();
    response.writeHead(200, { "content-type": types[path.extname(file)] ?? "application/octet-stream" });
    response.end(fs.readFileSync(file));
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const browser = await launchBrowser();
  try {
    const page = await browser.newPage();
    await page.goto(`http://127.0.0.1:${server.address().port}/index.html`);
    await page.waitForFunction(() => typeof window.runAgent === "function");
    await scriptProvider(twoRounds);
    assertFullRun(await page.evaluate(([config, messages]) => window.runAgent(config, messages), [agentConfig(), question]));
  } finally {
    await browser.close();
    server.close();
  }
});

/** Runs a full loop in a Node process of its own, importing the package by `specifier`. */
function runInNode(specifier, nodeOptions = []) {
  const script = `import init, * as agentWasm from "${specifier}";\n${collectSource}\nawait init();\n` +
    `process.stdout.write(JSON.stringify(await collect(agentWasm, ${JSON.stringify(agentConfig())}, ${JSON.stringify(question)})));\n`;
  fs.writeFileSync(path.join(project, "node-run.mjs"), script);
  const output = execFileSync(process.execPath, [...nodeOptions, "node-run.mjs"], { cwd: project, encoding: "utf8", timeout: 60000 });
  return JSON.parse(output);
}

test("imported in plain Node from the installed tarball, a full loop runs", async () => {
  await scriptProvider(twoRounds);
  assertFullRun(runInNode("mcp-agent-wasm"));
});

// The bundler target imports its wasm as an ES module, as webpack and Vite's wasm plugins link it;
// Node links it the same way behind a flag, which runs that target's glue for real.
test("the bundler entry, linked as a wasm ES module, runs a full loop", async () => {
  await scriptProvider(twoRounds);
  assertFullRun(runInNode("mcp-agent-wasm/bundler", ["--experimental-wasm-modules", "--no-warnings"]));
});

test("a TypeScript consumer of every event type passes tsc --noEmit --strict", () => {
  execFileSync(bin("tsc"), ["--project", path.join(testing, "types", "tsconfig.json")], { encoding: "utf8" });
});
