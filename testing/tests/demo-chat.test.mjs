// The demo page driven like a person would, in Debian's Chromium through playwright-core, against
// the real local servers `cargo xtask test` starts: server-everything (MCP_EVERYTHING_URL), the
// scripted demo model (DEMO_MODEL_URL) and the page itself (DEMO_URL). The page's defaults come
// from /demo-config.json, which this test serves with those URLs. Screenshots of each state go
// to artifacts/ (git-ignored); the finished two-tool run also becomes docs/demo.png.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const artifacts = fileURLToPath(new URL("../../artifacts/", import.meta.url));
const docsScreenshot = fileURLToPath(new URL("../../docs/demo.png", import.meta.url));
const demoConfig = {
  mcpServers: [{ name: "everything", url: process.env.MCP_EVERYTHING_URL }],
  modelUrl: process.env.DEMO_MODEL_URL,
};

let browser;

before(async () => {
  mkdirSync(artifacts, { recursive: true });
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_BINARY,
    args: process.env.CHROMIUM_ARGS.split(" "),
  });
});

after(async () => {
  await browser?.close();
});

/** A fresh page with the demo's defaults, once the default server's tools are listed. */
async function openDemo(viewport = { width: 1280, height: 900 }) {
  const page = await browser.newPage({ viewport });
  const problems = [];
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  page.on("dialog", (dialog) => {
    problems.push(`dialog: ${dialog.message()}`);
    dialog.dismiss();
  });
  await page.route("**/demo-config.json", (route) => route.fulfill({ json: demoConfig }));
  await page.goto(process.env.DEMO_URL);
  await page.waitForSelector('#servers [data-server="everything"][data-status="ok"]', { timeout: 30000 });
  await page.waitForSelector('#tools [data-tool-name="get-sum"]');
  return { page, problems };
}

async function ask(page, text) {
  await page.fill("#prompt", text);
  await page.press("#prompt", "Enter");
}

/** The last assistant turn, once it reached one of the end states. */
async function waitForEnd(page, timeout = 30000) {
  await page.waitForSelector(
    ".turn.assistant:last-child:is([data-state=completed],[data-state=exhausted],[data-state=aborted],[data-state=error])",
    { timeout },
  );
  return page.locator(".turn.assistant").last();
}

test("offline demo is the default and is labelled as a scripted model", async () => {
  const { page, problems } = await openDemo();
  try {
    assert.equal(await page.inputValue("#provider"), "offline-demo");
    assert.match(await page.textContent("#provider option:checked"), /scripted model, not an LLM/);
    assert.equal(await page.isVisible("#mode-badge"), true);
    assert.equal(await page.isVisible("#api-key"), false);
    const providers = await page.$$eval("#provider option", (options) => options.map((option) => option.value));
    assert.ok(providers.includes("openai") && providers.includes("anthropic"), providers.join(","));
    await page.screenshot({ path: `${artifacts}demo-start.png`, fullPage: true });
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

/** Each model answer's token counts, read from the bodies the page receives. Chromium keeps
 * no copy of a body a page reads as a stream, so the answers pass through the test (whole, which
 * the page's SSE reading takes as it takes any split). */
async function recordModelUsage(page) {
  const usages = [];
  await page.route("**/chat/completions", async (route) => {
    const response = await route.fetch();
    const body = await response.text();
    for (const line of body.split("\n").filter((line) => line.startsWith("data: {"))) {
      const usage = JSON.parse(line.slice(6)).usage;
      if (usage) usages.push(usage);
    }
    await route.fulfill({ response, body });
  });
  return usages;
}

test("two tools in one round: both cards complete, the progress bar moves, the answer uses both results", async () => {
  const { page, problems } = await openDemo();
  const usages = await recordModelUsage(page);
  try {
    // Calls being written show in the chat until their cards replace them.
    await page.evaluate(() => {
      window.writtenCalls = [];
      new MutationObserver((changes) => {
        for (const change of changes) {
          for (const node of change.addedNodes) {
            if (node.classList?.contains("tool-writing")) window.writtenCalls.push(node);
          }
        }
      }).observe(document.body, { childList: true, subtree: true });
    });
    await ask(page, "add 2 and 3 and run a long operation for 2 seconds in 4 steps");
    const longCard = page.locator('.tool-card[data-tool="trigger-long-running-operation"]');
    await page.waitForFunction(() => {
      const bar = document.querySelector('.tool-card[data-tool="trigger-long-running-operation"] progress');
      return bar && !bar.hidden && bar.value > 0 && bar.value < bar.max;
    }, null, { timeout: 20000 });
    await page.screenshot({ path: `${artifacts}demo-progress.png`, fullPage: true });

    const turn = await waitForEnd(page);
    assert.equal(await turn.getAttribute("data-state"), "completed");
    const sumCard = page.locator('.tool-card[data-tool="get-sum"]');
    assert.equal(await sumCard.getAttribute("data-status"), "done");
    assert.match(await sumCard.locator(".tool-result").textContent(), /The sum of 2 and 3 is 5/);
    assert.match(await sumCard.locator(".tool-args pre").textContent(), /"a": 2[\s\S]*"b": 3/);
    assert.equal(await longCard.getAttribute("data-status"), "done");
    assert.match(await longCard.locator(".tool-result").textContent(), /Long running operation completed/);
    assert.ok(Number(await longCard.getAttribute("data-progress-updates")) >= 2);
    const bar = await longCard.locator("progress").evaluate((node) => [node.value, node.max]);
    assert.deepEqual(bar, [4, 4]);

    const written = await page.evaluate(() => window.writtenCalls.map((node) => [node.textContent, node.isConnected]));
    assert.ok(written.some(([text]) => /Writing a call of get-sum…[\s\S]*"a"/.test(text)), JSON.stringify(written));
    assert.ok(written.every(([, shown]) => !shown), "each replaced by its card");
    const answer = await turn.locator(".answer").last().textContent();
    assert.match(answer, /The sum of 2 and 3 is 5/);
    assert.match(answer, /Long running operation completed/);
    assert.match(await turn.locator(".round").textContent(), /^Round 2$/);
    // The shown counts are the run's totals: the sum over its two model calls (each usage event
    // holds the running totals, which the page once added up again).
    assert.equal(usages.length, 2);
    const sum = (key) => usages.reduce((total, usage) => total + usage[key], 0);
    const cached = usages.reduce((total, usage) => total + usage.prompt_tokens_details.cached_tokens, 0);
    const cachedText = cached ? ` (${cached} cached)` : "";
    assert.equal(
      await turn.locator(".usage").textContent(),
      `${sum("prompt_tokens")} in${cachedText} · ${sum("completion_tokens")} out tokens`,
    );
    assert.match(await turn.locator(".reasoning-text").textContent(), /Plan: get-sum/);
    await page.screenshot({ path: `${artifacts}demo-two-tools-done.png`, fullPage: true });
    // The README's picture: the finished run beside the servers and the tools the model sees.
    await page.click("#settings-panel > summary");
    await page.screenshot({ path: docsScreenshot });
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

for (const [how, stopRun] of [
  ["the Stop button", (page) => page.click("#stop")],
  ["the Esc key", (page) => page.keyboard.press("Escape")],
]) {
  test(`${how} during a long tool ends the run as aborted`, async () => {
    const { page, problems } = await openDemo();
    try {
      await ask(page, "run a long operation for 30 seconds in 30 steps");
      await page.waitForSelector('.tool-card[data-tool="trigger-long-running-operation"]:not([data-progress-updates="0"])', { timeout: 20000 });
      const stoppedAt = Date.now();
      await stopRun(page);
      const turn = await waitForEnd(page, 5000);
      const elapsed = Date.now() - stoppedAt;
      assert.equal(await turn.getAttribute("data-state"), "aborted");
      assert.equal(await turn.locator(".final-reason").textContent(), "aborted");
      assert.equal(await page.locator(".tool-card").getAttribute("data-status"), "cancelled");
      assert.ok(elapsed < 3000, `aborted after ${elapsed} ms`);
      assert.equal(await page.isDisabled("#stop"), true);
      assert.equal(await page.isEnabled("#send"), true);
      await page.screenshot({ path: `${artifacts}demo-aborted-${how.replaceAll(" ", "-")}.png`, fullPage: true });
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  });
}

test("asking before each tool call: an allowed call runs, a denied one never does and the run goes on", async () => {
  const { page, problems } = await openDemo();
  try {
    await page.check("#ask-tools");
    await ask(page, "add 2 and 3 and echo hi");
    const sumCard = page.locator('.tool-card[data-tool="get-sum"]');
    const echoCard = page.locator('.tool-card[data-tool="echo"]');
    await page.waitForSelector('.tool-card[data-tool="echo"][data-status="approval"] button.deny', { timeout: 20000 });
    await page.waitForSelector('.tool-card[data-tool="get-sum"][data-status="approval"] button.allow');
    assert.equal(await sumCard.locator(".tool-status").textContent(), "waiting for you");
    await page.screenshot({ path: `${artifacts}demo-approval.png`, fullPage: true });
    await echoCard.locator("button.deny").click();
    await sumCard.locator("button.allow").click();
    const turn = await waitForEnd(page);
    assert.equal(await turn.getAttribute("data-state"), "completed");
    assert.equal(await sumCard.getAttribute("data-status"), "done");
    assert.match(await sumCard.locator(".tool-result").textContent(), /The sum of 2 and 3 is 5/);
    assert.equal(await echoCard.getAttribute("data-status"), "declined");
    assert.equal(await echoCard.locator(".tool-result").textContent(), "the user declined this tool call");
    assert.equal(await page.locator(".tool-approval button").count(), 0, "no question left on the page");
    assert.match(await turn.locator(".answer").last().textContent(), /The sum of 2 and 3 is 5/);
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

test("a server's question (MCP elicitation) is a form in the chat; the answer reaches the tool, Stop takes the form away", async () => {
  const { page, problems } = await openDemo();
  try {
    await page.waitForSelector('#tools [data-tool-name="trigger-elicitation-request"]');
    await ask(page, "fill in a form");
    const form = page.locator("form.elicitation");
    await form.waitFor({ timeout: 20000 });
    assert.match(await form.textContent(), /everything asks:\s*Please provide inputs for the following fields:/);
    assert.equal(await form.locator('[data-field="integer"] input').inputValue(), "42", "the schema's default");
    assert.equal(await form.locator('[data-field="untitledMultipleSelectEnum"] input:checked').count(), 1);
    await form.locator('[data-field="name"] input').fill("Ada Lovelace");
    await form.locator('[data-field="check"] input').check();
    await form.locator('[data-field="titledSingleSelectEnum"] select').selectOption("hero-3");
    await page.screenshot({ path: `${artifacts}demo-elicitation.png`, fullPage: true });
    await form.locator('button[type="submit"]').click();
    const turn = await waitForEnd(page);
    assert.equal(await turn.getAttribute("data-state"), "completed");
    const result = await page.locator('.tool-card[data-tool="trigger-elicitation-request"] .tool-result').textContent();
    // The tool's markdown list, as rendered text.
    assert.match(result, /Name: Ada Lovelace/);
    assert.match(result, /Agreed to terms: true/);
    assert.match(result, /"titledSingleSelectEnum": "hero-3"/);
    assert.equal(await page.locator("form.elicitation").count(), 0, "answered: the form is gone");

    await ask(page, "fill in a form again");
    await page.locator("form.elicitation").waitFor({ timeout: 20000 });
    await page.click("#stop");
    const stopped = await waitForEnd(page);
    assert.equal(await stopped.getAttribute("data-state"), "aborted");
    await page.waitForFunction(() => !document.querySelector("form.elicitation"));
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

test("a server's sampling request (MCP sampling) waits for Allow, then the page's model answers it", async () => {
  const { page, problems } = await openDemo();
  try {
    await page.waitForSelector('#tools [data-tool-name="trigger-sampling-request"]');
    await ask(page, "let the server sample");
    const question = page.locator("section.sampling");
    await question.waitFor({ timeout: 20000 });
    assert.match(await question.textContent(), /everything wants the model to answer \(at most 60 tokens\)/);
    assert.match(await question.locator("pre").textContent(), /system: You are a helpful test server\.\nuser: Resource trigger-sampling-request context: a one-line greeting/);
    await question.locator("button.allow").click();
    const turn = await waitForEnd(page);
    assert.equal(await turn.getAttribute("data-state"), "completed");
    const result = await page.locator('.tool-card[data-tool="trigger-sampling-request"] .tool-result').textContent();
    assert.match(result, /Hello from the scripted demo model, sampled for the server/);
    assert.match(result, /"model": "scripted-demo"/);
    assert.equal(await page.locator("section.sampling").count(), 0);
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

/** A server's sampling request with tools (MCP 2025-11-25, "Sampling with Tools": `tools` and
 * `toolChoice` in the params): the person approving it sees which tools the model would get. */
test("a sampling request's offered tools and tool choice are shown for approval", async () => {
  const { page, problems } = await openDemo();
  try {
    // The MCP test server's /sampling/ paths list `forecast`, which samples offering `get.weather`.
    await page.fill("#server-name", "weather");
    await page.fill("#server-url", `${process.env.MCP_TEST_SERVER_URL}/sampling/demo-${Date.now()}`);
    await page.click('#add-server button[type="submit"]');
    await page.waitForSelector('#tools [data-server="weather"][data-tool-name="forecast"]', { timeout: 30000 });
    await ask(page, "ask for the forecast");
    const question = page.locator("section.sampling");
    await question.waitFor({ timeout: 20000 });
    assert.match(await question.locator("pre").textContent(), /user: Weather in Paris\?/);
    assert.match(await question.textContent(), /Tools offered to the model: get\.weather \(tool choice: auto\)/);
    await question.locator("button.deny").click();
    const turn = await waitForEnd(page);
    assert.equal(await turn.getAttribute("data-state"), "completed");
    assert.match(await page.locator('.tool-card[data-tool="forecast"] .tool-result').textContent(), /the user rejected the sampling request/);
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

test("adding a second MCP server lists its tools under their collision-free names", async () => {
  const { page, problems } = await openDemo();
  try {
    const firstCount = await page.locator("#tools li").count();
    await page.fill("#server-name", "everything2");
    await page.fill("#server-url", process.env.MCP_EVERYTHING_URL);
    await page.click('#add-server button[type="submit"]');
    await page.waitForSelector('#servers [data-server="everything2"][data-status="ok"]', { timeout: 30000 });
    await page.waitForSelector('#tools [data-server="everything2"]');
    assert.equal(await page.locator("#tools li").count(), firstCount * 2);
    assert.equal(await page.locator('#tools [data-tool-name="get-sum"]').getAttribute("data-server"), "everything");
    assert.equal(await page.locator('#tools [data-tool-name="get-sum_everything2"]').getAttribute("data-server"), "everything2");
    assert.match(await page.textContent('#servers [data-server="everything2"] .server-status'), new RegExp(`connected, ${firstCount} tools`));
    await page.locator('#tools [data-server="everything2"]').first().scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${artifacts}demo-second-server.png`, fullPage: true });

    await page.click('#servers [aria-label="Remove server everything2"]');
    await page.waitForFunction(() => !document.querySelector('#tools [data-server="everything2"]'));
    assert.equal(await page.locator("#tools li").count(), firstCount);
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

test("a server that needs OAuth is signed in to in a popup when it is added, then lists its tools", async () => {
  const { page, problems } = await openDemo();
  try {
    const popups = [];
    page.on("popup", (popup) => popups.push(popup));
    // The MCP test server's /auth/ paths answer 401 with OAuth metadata naming its own
    // authorization server, which approves at once and sends the popup back to the demo.
    await page.fill("#server-name", "secure");
    await page.fill("#server-url", `${process.env.MCP_TEST_SERVER_URL}/auth/demo-${Date.now()}`);
    await page.click('#add-server button[type="submit"]');
    await page.waitForSelector('#servers [data-server="secure"][data-status="ok"]', { timeout: 30000 });
    // The server's status is set before its tools are drawn, as for any server added.
    await page.waitForSelector('#tools [data-server="secure"]');
    assert.equal(popups.length, 1);
    const stored = await page.evaluate(() => Object.keys(sessionStorage).filter((key) => key.startsWith("mcp-agent-wasm:oauth:")));
    assert.equal(stored.length, 2, "the demo's registration and the server's tokens, for this tab");
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

test("a server that cannot be reached shows its error next to it", async () => {
  const { page, problems } = await openDemo();
  try {
    await page.fill("#server-name", "nowhere");
    await page.fill("#server-url", new URL("/no-such-mcp", process.env.DEMO_MODEL_URL).href);
    await page.click('#add-server button[type="submit"]');
    await page.waitForSelector('#servers [data-server="nowhere"][data-status="error"] .server-error', { timeout: 30000 });
    assert.notEqual((await page.textContent('#servers [data-server="nowhere"] .server-error')).trim(), "");
    assert.equal(await page.getAttribute('#servers [data-server="everything"]', "data-status"), "ok");
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

test("model and tool text with HTML payloads is shown as text, never run", async () => {
  const { page, problems } = await openDemo();
  try {
    const payload = "<img src=x onerror=window.__pwned=1> <script>window.__pwned=2</script> [link](javascript:window.__pwned=3)";
    await ask(page, `echo "${payload}"`);
    const turn = await waitForEnd(page);
    assert.equal(await turn.getAttribute("data-state"), "completed");
    assert.match(await page.locator(".tool-card .tool-result").textContent(), /<img src=x onerror=window.__pwned=1>/);
    assert.match(await turn.locator(".answer").last().textContent(), /<script>window.__pwned=2<\/script>/);
    assert.equal(await page.locator(".transcript img, .transcript script, .transcript [onerror]").count(), 0);
    assert.equal(await page.locator('.transcript a[href^="javascript"]').count(), 0);
    assert.equal(await page.evaluate(() => window.__pwned), undefined);
    await page.screenshot({ path: `${artifacts}demo-safe-rendering.png`, fullPage: true });
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

/**
 * Records every request of `page` that is not for 127.0.0.1 and refuses it, so that a test that
 * picks a real provider can never reach it.
 */
async function refuseOffLoopback(page) {
  const refused = [];
  await page.route(
    (url) => url.hostname !== "127.0.0.1",
    (route) => {
      refused.push(route.request().url());
      return route.abort();
    },
  );
  return refused;
}

test("provider settings: watsonx asks for its project ID, Azure sends the API version it was given", async () => {
  const { page, problems } = await openDemo();
  try {
    const refused = await refuseOffLoopback(page);
    const visible = async () => [await page.isVisible("#project-id"), await page.isVisible("#api-version")];
    await page.selectOption("#provider", "openai");
    assert.deepEqual(await visible(), [false, false]);
    await page.selectOption("#provider", "azure_openai");
    assert.deepEqual(await visible(), [false, true]);
    await page.selectOption("#provider", "ibm");
    assert.deepEqual(await visible(), [true, true]);

    // watsonx without a project: refused when the run starts, before any request.
    await page.fill("#api-key", "test-key");
    await ask(page, "hello");
    let turn = await waitForEnd(page);
    assert.equal(await turn.getAttribute("data-state"), "error");
    assert.match(await turn.locator(".run-error").textContent(), /projectId/);

    // Azure: the API version and the key reach the (scripted, routed) deployment URL. The key
    // typed for watsonx stays with watsonx.
    await page.selectOption("#provider", "azure_openai");
    assert.equal(await page.inputValue("#api-key"), "", "a key follows no provider switch");
    const azureBase = "http://127.0.0.1:9/azure";
    await page.fill("#base-url", azureBase);
    await page.fill("#model", "my-deployment");
    await page.fill("#api-version", "2025-01-01-preview");
    await page.fill("#api-key", "test-key");
    const seen = [];
    await page.route(`${azureBase}/**`, (route) => {
      seen.push({ url: route.request().url(), key: route.request().headers()["api-key"] });
      return route.fulfill({
        status: 200,
        headers: { "content-type": "text/event-stream", "access-control-allow-origin": "*" },
        body:
          'data: {"choices":[{"index":0,"delta":{"role":"assistant","content":"hi from azure"}}]}\n\n' +
          'data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n',
      });
    });
    await ask(page, "hello again");
    turn = await waitForEnd(page);
    assert.equal(await turn.getAttribute("data-state"), "completed");
    assert.match(await turn.locator(".answer").last().textContent(), /hi from azure/);
    assert.deepEqual(seen, [
      {
        url: `${azureBase}/openai/deployments/my-deployment/chat/completions?api-version=2025-01-01-preview`,
        key: "test-key",
      },
    ]);
    assert.deepEqual(refused, []);
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

test("on a phone-sized window the chat comes first and a tool image is shown", async () => {
  const { page, problems } = await openDemo({ width: 390, height: 844 });
  try {
    const chatBox = await page.locator(".chat").boundingBox();
    const sidebarBox = await page.locator(".sidebar").boundingBox();
    assert.ok(chatBox.y < sidebarBox.y, "chat above the settings");
    assert.ok(chatBox.width <= 390);
    await ask(page, "show the image and the weather in New York");
    const turn = await waitForEnd(page);
    assert.equal(await turn.getAttribute("data-state"), "completed");
    const image = page.locator('.tool-card[data-tool="get-tiny-image"] img.tool-image');
    assert.match(await image.getAttribute("src"), /^data:image\/png;base64,/);
    assert.ok(await image.evaluate((node) => node.complete && node.naturalWidth > 0));
    assert.match(await page.locator('.tool-card[data-tool="get-structured-content"] .structured pre').textContent(), /"temperature": 33/);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `page scrolls sideways by ${overflow}px`);
    await page.screenshot({ path: `${artifacts}demo-phone.png`, fullPage: true });
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});
