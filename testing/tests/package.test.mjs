// The npm package as users get it: `npm pack`, installed into a fresh project, bundled with
// esbuild and run in headless Chromium; imported in plain Node, required from CommonJS, and through
// its bundler entry as a wasm ES module; its types checked with tsc, as each entry resolves them.
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

/** The paths `npm pack` of pkg/ would put in the tarball. */
function packedFiles() {
  const [report] = JSON.parse(execFileSync("npm", ["pack", path.join(root, "pkg"), "--dry-run", "--json"], { encoding: "utf8" }));
  return report.files.map((file) => file.path);
}

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

/** Every string in `value`: the targets of package.json's `exports`, however nested. */
function strings(value) {
  if (typeof value === "string") return [value];
  return Object.values(value ?? {}).flatMap(strings);
}

// wasm-pack writes a `.gitignore` of `*` into each target folder, which `npm pack` obeys.
test("the tarball holds every target and every file package.json names", () => {
  const packed = new Set(packedFiles());
  for (const target of ["web", "bundler", "nodejs"]) {
    for (const suffix of [".js", "_bg.wasm", ".d.ts"]) {
      assert.ok(packed.has(`${target}/mcp_agent_wasm${suffix}`), `${target}/mcp_agent_wasm${suffix} is not packed`);
    }
  }
  const manifest = JSON.parse(fs.readFileSync(path.join(root, "pkg", "package.json"), "utf8"));
  for (const named of [manifest.main, manifest.types, ...strings(manifest.exports)]) {
    assert.ok(packed.has(named.replace(/^\.\//, "")), `${named} is named in package.json but not packed`);
  }
});

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

// Without require(esm) (on by default only from Node 20.19 and 22.12), `require` has to reach the
// nodejs target's CommonJS glue itself.
test("required from CommonJS without require(esm), a full loop runs", async () => {
  await scriptProvider(twoRounds);
  const script = `const agentWasm = require("mcp-agent-wasm");\n${collectSource}\n` +
    `collect(agentWasm, ${JSON.stringify(agentConfig())}, ${JSON.stringify(question)}).then((run) => process.stdout.write(JSON.stringify(run)));\n`;
  fs.writeFileSync(path.join(project, "node-run.cjs"), script);
  const output = execFileSync(process.execPath, ["--no-experimental-require-module", "node-run.cjs"], {
    cwd: project,
    encoding: "utf8",
    timeout: 60000,
  });
  assertFullRun(JSON.parse(output));
});

// The bundler target imports its wasm as an ES module, as webpack and Vite's wasm plugins link it;
// Node links it the same way behind a flag, which runs that target's glue for real.
test("the bundler entry, linked as a wasm ES module, runs a full loop", async () => {
  await scriptProvider(twoRounds);
  assertFullRun(runInNode("mcp-agent-wasm/bundler", ["--experimental-wasm-modules", "--no-warnings"]));
});

/** Runs tsc, failing with its report (which it prints to stdout). */
function tsc(args) {
  try {
    execFileSync(bin("tsc"), args, { encoding: "utf8" });
  } catch (error) {
    assert.fail(`tsc ${args.join(" ")}:\n${error.stdout}${error.stderr}`);
  }
}

test("a TypeScript consumer of every event type passes tsc --noEmit --strict", () => {
  tsc(["--project", path.join(testing, "types", "tsconfig.json")]);
});

/** The README's quick start, with what it leaves to the page declared. */
function readmeExample() {
  const readme = fs.readFileSync(path.join(root, "README.md"), "utf8");
  const [, code] = readme.match(/## Quickstart \(JS\)\s+```js\n([\s\S]*?)```/);
  return `import type { ChatMessage } from "mcp-agent-wasm";\ndeclare const apiKey: string;\ndeclare const output: HTMLElement;\n` +
    `let history: ChatMessage[] = [];\n${code}console.log(history.length);\n`;
}

// Under node16 the package's types are node.d.mts (import) and the nodejs target's (require); under
// bundler, bundler.d.mts: none of them may promise the web target's initSync or init() result.
test("strict TypeScript consumers under node16 and bundler resolution get the types of the entry they load", () => {
  const types = path.join(testing, "types");
  fs.writeFileSync(path.join(project, "readme.ts"), readmeExample());
  for (const file of ["example.ts", "no-init-sync.ts", "require.cts"]) fs.copyFileSync(path.join(types, file), path.join(project, file));
  const lib = ["ES2022", "ESNext.Disposable", "DOM", "DOM.AsyncIterable"];
  const consumers = [
    { moduleResolution: "node16", module: "node16", files: ["readme.ts", "example.ts", "no-init-sync.ts", "require.cts"] },
    { moduleResolution: "bundler", module: "ES2022", files: ["readme.ts", "example.ts", "no-init-sync.ts"] },
  ];
  for (const { moduleResolution, module, files } of consumers) {
    const compilerOptions = { strict: true, noEmit: true, target: "ES2022", module, moduleResolution, lib, skipLibCheck: false };
    const config = path.join(project, `tsconfig.${moduleResolution}.json`);
    fs.writeFileSync(config, JSON.stringify({ compilerOptions, files }));
    tsc(["--project", config]);
  }
});
