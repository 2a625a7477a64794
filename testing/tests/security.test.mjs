// Issue #11's security checks in Chromium: the API key reaches only the provider, and each MCP
// server's own headers reach only that server. Every request is read back from what the scripted
// provider (testing/provider-server.mjs) and the MCP test server (testing/mcp-test-server.mjs) record.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  agentConfig,
  bounded,
  env,
  mcpLog,
  mcpTestPath,
  providerBaseUrl,
  providerRequests,
  runInPage,
  scriptProvider,
  page,
  useSharedPage,
} from "./agent-harness.mjs";

useSharedPage();

const apiKey = "sk-canary-7f3a9c1e5b";
const question = [{ role: "user", content: "Echo something." }];

function config(faults, servers) {
  return agentConfig({
    provider: { id: "openai_compatible", apiKey, model: "scripted", baseUrl: providerBaseUrl(faults) },
    mcpServers: servers,
  });
}

test("the API key never appears in an MCP request, an event or an error message", bounded, async () => {
  const path = mcpTestPath("json");
  const servers = [{ name: "test", url: `${env.mcpTestUrl}${path}` }];
  await scriptProvider([
    { toolCalls: [{ id: "call_echo", name: "echo", arguments: { message: "hello" } }, { id: "call_missing", name: "missing", arguments: {} }] },
    { text: "done" },
  ]);
  const completed = await runInPage(page, config(undefined, servers), question);
  assert.equal(completed.events.at(-1).reason, "completed", JSON.stringify(completed.error));
  const modelCalls = await providerRequests();
  assert.ok(modelCalls.every((call) => call.headers.authorization === `Bearer ${apiKey}`), "the provider got the key");

  // Providers that echo the key in their error bodies: the library must not pass it on.
  const echoingBody = JSON.stringify({ error: { message: `Incorrect API key provided: ${apiKey}` } });
  const failures = [];
  for (const status of ["401", "429", "500"]) {
    await scriptProvider([]);
    failures.push(await runInPage(page, config({ status, retryAfter: "0", errorBody: echoingBody }, servers), question));
  }
  // The same, reported inside a stream that began with 200 (OpenRouter and LiteLLM do so), and
  // as a payload that does not parse.
  for (const raw of [`data: ${echoingBody}\n\n`, `data: oops ${apiKey}\n\n`]) {
    await scriptProvider([{ raw }]);
    failures.push(await runInPage(page, config(undefined, servers), question));
  }
  for (const failure of failures) assert.ok(failure.error?.code, JSON.stringify(failure));

  const mcpRequests = await mcpLog(path);
  assert.ok(mcpRequests.length > 0, "the MCP server was used");
  for (const [what, value] of [
    ["MCP requests", mcpRequests],
    ["events", [completed, ...failures].map((run) => run.events)],
    ["errors", failures.map((run) => [run.error.message, run.error.messages])],
  ]) {
    assert.ok(!JSON.stringify(value).includes(apiKey), `the key appears in ${what}`);
  }
});

test("per-server headers reach only their own server, never the provider", bounded, async () => {
  const alphaPath = mcpTestPath("json");
  const betaPath = mcpTestPath("json");
  const servers = [
    { name: "alpha", url: `${env.mcpTestUrl}${alphaPath}`, headers: { authorization: "Bearer alpha-secret" } },
    { name: "beta", url: `${env.mcpTestUrl}${betaPath}`, headers: { authorization: "Bearer beta-secret" } },
  ];
  await scriptProvider([
    { toolCalls: [{ id: "call_a", name: "add", arguments: { a: 1, b: 2 } }] },
    { text: "3" },
  ]);
  const run = await runInPage(page, config(undefined, servers), question);
  assert.equal(run.events.at(-1).reason, "completed", JSON.stringify(run.error));
  for (const [path, own, other] of [
    [alphaPath, "alpha-secret", "beta-secret"],
    [betaPath, "beta-secret", "alpha-secret"],
  ]) {
    const requests = await mcpLog(path);
    assert.ok(requests.length >= 2, `${path} was contacted`);
    for (const request of requests) {
      assert.equal(request.allHeaders.authorization, `Bearer ${own}`, `${request.method} ${path}`);
      assert.ok(!JSON.stringify(request).includes(other), `${other} reached ${path}`);
      assert.ok(!JSON.stringify(request).includes(apiKey), `the API key reached ${path}`);
    }
  }
  const modelCalls = JSON.stringify(await providerRequests());
  assert.ok(!modelCalls.includes("alpha-secret") && !modelCalls.includes("beta-secret"), "no server header reached the provider");
});

test("a redirect is refused, not followed: nothing reaches where it points", bounded, async () => {
  // An MCP server that passed the URL policy must not lead the client elsewhere (with its body
  // and its headers), nor a provider's base URL lead the key to another origin.
  const redirectPath = mcpTestPath("redirect");
  const targetPath = redirectPath.replace(/^\/redirect\//, "/json/");
  await scriptProvider([{ text: "answered without tools" }]);
  const servers = [{ name: "moved", url: `${env.mcpTestUrl}${redirectPath}`, headers: { authorization: "Bearer server-secret" } }];
  const run = await runInPage(page, config(undefined, servers), question);
  const serverError = run.events.find((event) => event.type === "serverError");
  assert.equal(serverError?.code, "mcp_network", JSON.stringify(run.events));
  assert.match(serverError.message, /redirect, which is not followed/);
  assert.ok((await mcpLog(redirectPath)).length > 0, "the server was asked");
  assert.deepEqual(await mcpLog(targetPath), [], "nothing reached the redirect's target");

  await scriptProvider([{ text: "never asked for" }]);
  const moved = await runInPage(page, config({ redirect: `${env.providerUrl}/v1/chat/completions` }, []), question);
  assert.equal(moved.error?.code, "provider_network", JSON.stringify(moved.error));
  const asked = (await providerRequests()).map((request) => request.url);
  assert.ok(asked.length > 0 && asked.every((url) => url.startsWith("/_/")), `requests: ${asked.join(", ")}`);
});
