// Shared pieces of the Agent tests: a Chromium page with the package loaded, the scripted
// provider's control routes, and event collection. All traffic stays on 127.0.0.1.
import { after, before } from "node:test";
import { chromium } from "playwright-core";

export const env = {
  demoUrl: process.env.DEMO_URL,
  providerUrl: process.env.PROVIDER_SERVER_URL,
  everythingUrl: process.env.MCP_EVERYTHING_URL,
  mcpTestUrl: process.env.MCP_TEST_SERVER_URL,
};

export async function launchBrowser() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_BINARY,
    args: process.env.CHROMIUM_ARGS.split(" "),
  });
}

/** A page on the static server with the web package imported as `window.agentWasm`. */
export async function openPackagePage(browser) {
  const page = await browser.newPage();
  page.on("pageerror", (error) => console.error("page error:", error.message));
  await page.goto(env.demoUrl);
  await page.evaluate(async () => {
    const module = await import("/pkg/mcp_agent_wasm.js");
    await module.default();
    window.agentWasm = module;
  });
  await page.addScriptTag({ content: `${collectSource}\nwindow.collect = collect;` });
  return page;
}

/** The browser and page of the calling test file, set by `useSharedPage()` (live bindings). */
export let browser;
export let page;

/** One browser and package page for all tests of a file, opened before them and closed after. */
export function useSharedPage() {
  before(async () => {
    browser = await launchBrowser();
    page = await openPackagePage(browser);
  });
  after(async () => browser?.close());
}

/** Scripts the provider's next model calls (OpenAI SSE wire format, as in the fixtures). */
export async function scriptProvider(rounds) {
  await fetch(`${env.providerUrl}/__reset`, { method: "POST" });
  const response = await fetch(`${env.providerUrl}/__script`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ rounds }),
  });
  if (!response.ok) throw new Error(`scripting the provider failed: ${response.status}`);
}

/** Every model call the provider recorded since the last reset. */
export async function providerRequests() {
  const response = await fetch(`${env.providerUrl}/__requests`);
  return response.json();
}

/** The MCP test server's log of requests whose path starts with `prefix`. */
export async function mcpLog(prefix) {
  const response = await fetch(`${env.mcpTestUrl}/__log?path=${encodeURIComponent(prefix)}`);
  return response.json();
}

/** A path on the MCP test server that no other test uses, for reading only this test's traffic. */
let pathCounter = 0;
export function mcpTestPath(mode) {
  pathCounter += 1;
  return `/${mode}/t${Date.now()}-${pathCounter}`;
}

/** Base URL of an OpenAI-compatible provider on the scripted server, with replay options. */
export function providerBaseUrl(options) {
  const prefix = options ? `/_/${encodeURIComponent(new URLSearchParams(options).toString())}` : "";
  return `${env.providerUrl}${prefix}/v1`;
}

/** Node test options that bound a page test, so that a hang fails it instead of the run. */
export const bounded = { timeout: 30_000 };

/** The events of one type a run collected. */
export const eventsOf = (run, type) => run.events.filter((event) => event.type === type);

/** A config whose provider URL carries the scripted server's fault options and whose MCP servers are `servers`. */
export function faultConfig({ faults, servers = [], ...overrides } = {}) {
  return agentConfig({
    provider: { id: "openai_compatible", apiKey: "test-key-123", model: "scripted", baseUrl: providerBaseUrl(faults) },
    mcpServers: servers,
    ...overrides,
  });
}

export function agentConfig(overrides = {}) {
  return {
    provider: { id: "openai_compatible", apiKey: "test-key-123", model: "scripted", baseUrl: providerBaseUrl() },
    mcpServers: [{ name: "everything", url: env.everythingUrl }],
    allowInsecureLocalUrls: true,
    toolPrompt: false,
    ...overrides,
  };
}

/**
 * The source of a function run in the page (or a worker): runs the agent and returns its events,
 * or the error the stream ended with. `stopWhen(event)` aborts the run when it returns true, and
 * `abortedAt`/`finalAt` measure how fast the final event follows the abort. `plan.abortNth` picks
 * the nth event of an `abortOn` type (default the first); `plan.abortBeforeStart` aborts the signal
 * before `run` is called; `plan.abortAfterMs` aborts that long after `run` is called.
 */
export const collectSource = `
async function collect(agentWasm, config, messages, plan = {}) {
  const agent = new agentWasm.Agent(config);
  const controller = new AbortController();
  const events = [];
  let abortedAt, finalAt, error;
  let matching = 0;
  if (plan.abortBeforeStart) controller.abort();
  try {
    const stream = agent.run(messages, { signal: controller.signal });
    if (plan.abortAfterMs !== undefined) {
      setTimeout(() => {
        abortedAt = performance.now();
        controller.abort();
      }, plan.abortAfterMs);
    }
    for await (const event of stream) {
      events.push(event);
      if (event.type === "final") finalAt = performance.now();
      if (plan.abortOn && plan.abortOn.includes(event.type)) matching += 1;
      if (plan.abortOn && plan.abortOn.includes(event.type) && matching === (plan.abortNth ?? 1) && abortedAt === undefined) {
        abortedAt = performance.now();
        controller.abort();
      }
      if (plan.breakOn && plan.breakOn.includes(event.type)) break;
      if (plan.pauseMs) await new Promise((resolve) => setTimeout(resolve, plan.pauseMs));
    }
  } catch (thrown) {
    error = { code: thrown.code, message: thrown.message, messages: thrown.messages, status: thrown.status, body: thrown.body };
  }
  await agent.close();
  agent.free();
  return { events, error, abortMs: abortedAt === undefined ? undefined : finalAt - abortedAt };
}
`;

export async function runInPage(page, config, messages, plan) {
  return page.evaluate(
    ({ config, messages, plan }) => window.collect(window.agentWasm, config, messages, plan),
    { config, messages, plan },
  );
}
