// browserOAuth in Chromium: the whole MCP authorization flow (MCP spec 2025-11-25,
// "Authorization") against the MCP test server's /auth/ paths and its authorization server,
// with the default popup and www/oauth-callback.html as the redirect page.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { agentConfig, bounded, env, eventsOf, mcpLog, mcpTestPath, page, scriptProvider, useSharedPage } from "./agent-harness.mjs";

useSharedPage();

/** Runs an Agent whose one MCP server at `url` gets its token from `browserOAuth`; `store`
 * names a storage object kept on the page, shared by the runs that name it. */
async function runWithOAuth(url, { store, clientName = "oauth test", byNode = false, onPopupOpened }) {
  await scriptProvider([{ toolCalls: [{ id: "call_echo", name: "echo", arguments: { message: "hi" } }] }, { text: "done" }]);
  const popups = [];
  const onPopup = (popup) => {
    popups.push(popup);
    onPopupOpened?.(popup);
  };
  page.on("popup", onPopup);
  const config = agentConfig({ mcpServers: [] });
  const run = await page.evaluate(
    async ({ config, url, store, clientName, redirectUri, byNode }) => {
      window.oauthStores ??= {};
      const items = (window.oauthStores[store] ??= new Map());
      const storage = {
        getItem: (key) => items.get(key) ?? null,
        setItem: (key, value) => items.set(key, String(value)),
        removeItem: (key) => items.delete(key),
      };
      const { browserOAuth } = window.agentWasm;
      const authorize = byNode ? { authorize: (address, { signal }) => window.authorizeInNode(address, signal instanceof AbortSignal) } : {};
      const getAccessToken = browserOAuth({ redirectUri, clientName, storage, allowInsecureLocalUrls: true, ...authorize });
      config.mcpServers = [{ name: "linear", url, getAccessToken }];
      const run = await window.collect(window.agentWasm, config, [{ role: "user", content: "echo hi" }]);
      return { ...run, stored: [...items.keys()] };
    },
    { config, url, store, clientName, redirectUri: new URL("/oauth-callback.html", env.demoUrl).href, byNode },
  );
  page.off("popup", onPopup);
  return { ...run, popups: popups.length };
}

test("a run against a server that needs OAuth registers, authorizes in a popup and calls the tool", bounded, async () => {
  const path = mcpTestPath("auth");
  const url = `${env.mcpTestUrl}${path}`;
  const before = (await mcpLog("/oauth/")).length;
  const run = await runWithOAuth(url, { store: "whole" });
  assert.equal(run.error, undefined, JSON.stringify(run.error));
  assert.deepEqual(eventsOf(run, "serverError"), []);
  assert.equal(eventsOf(run, "toolResult").length, 1, JSON.stringify(run.events));
  assert.equal(run.popups, 1);
  const keys = run.stored.sort();
  assert.ok(keys.every((key) => key.startsWith("mcp-agent-wasm:oauth:")), keys.join());
  assert.equal(keys.length, 2, "the client and the tokens");

  const oauth = (await mcpLog("/oauth/")).slice(before);
  const register = oauth.find((entry) => entry.path === "/oauth/register");
  assert.deepEqual(register.body, {
    client_name: "oauth test",
    redirect_uris: [new URL("/oauth-callback.html", env.demoUrl).href],
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: "none",
  });
  const authorize = Object.fromEntries(new URLSearchParams(oauth.find((entry) => entry.path === "/oauth/authorize").query));
  assert.equal(authorize.code_challenge_method, "S256");
  assert.match(authorize.code_challenge, /^[A-Za-z0-9_-]{43}$/);
  assert.equal(authorize.resource, url);
  // The challenge's scope (the /auth/ 401 asks for mcp:tools).
  assert.equal(authorize.scope, "mcp:tools");
  const token = Object.fromEntries(new URLSearchParams(oauth.find((entry) => entry.path === "/oauth/token").body));
  assert.equal(token.grant_type, "authorization_code");
  assert.equal(token.resource, url);
  assert.equal(createHash("sha256").update(token.code_verifier).digest("base64url"), authorize.code_challenge);
  assert.equal((await mcpLog("/.well-known/oauth-authorization-server")).length > 0, true);

  // A second Agent with the same storage connects with the stored token: no popup, no flow.
  const again = await runWithOAuth(url, { store: "whole" });
  assert.equal(again.error, undefined, JSON.stringify(again.error));
  assert.equal(eventsOf(again, "toolResult").length, 1);
  assert.equal(again.popups, 0);
  assert.equal((await mcpLog("/oauth/")).slice(before).length, oauth.length);
  const initialize = (await mcpLog(path)).filter((entry) => entry.body?.method === "initialize");
  assert.equal(initialize.at(-1).headers.authorization, "Bearer good");

  // An expired token is refreshed before the session (RFC 6749 §6), again without a popup.
  const refreshToken = await page.evaluate(() => {
    const items = window.oauthStores.whole;
    const key = [...items.keys()].find((name) => name.startsWith("mcp-agent-wasm:oauth:tokens:"));
    const grant = JSON.parse(items.get(key));
    items.set(key, JSON.stringify({ ...grant, expires_at: 1 }));
    return grant.refresh_token;
  });
  const refreshed = await runWithOAuth(url, { store: "whole" });
  assert.equal(refreshed.error, undefined, JSON.stringify(refreshed.error));
  assert.equal(eventsOf(refreshed, "toolResult").length, 1);
  assert.equal(refreshed.popups, 0);
  const [refresh, ...more] = (await mcpLog("/oauth/")).slice(before + oauth.length);
  assert.deepEqual(more, []);
  assert.deepEqual(Object.fromEntries(new URLSearchParams(refresh.body)), {
    grant_type: "refresh_token",
    refresh_token: refreshToken,
    client_id: token.client_id,
    resource: url,
  });
});

// After a 401 to the stored token, the hook refreshes it once (RFC 6749 §6) instead of running
// the whole flow again.
test("a refused stored token is refreshed, without a popup", bounded, async () => {
  const path = mcpTestPath("auth");
  const url = `${env.mcpTestUrl}${path}`;
  const first = await runWithOAuth(url, { store: "rotate" });
  assert.equal(first.error, undefined, JSON.stringify(first.error));
  assert.equal(first.popups, 1);
  await fetch(`${env.mcpTestUrl}/oauth/__rotate?path=${encodeURIComponent(path)}&token=fresh`, { method: "POST" });
  const before = (await mcpLog("/oauth/")).length;
  const run = await runWithOAuth(url, { store: "rotate" });
  assert.equal(run.error, undefined, JSON.stringify(run.error));
  assert.deepEqual(eventsOf(run, "serverError"), []);
  assert.equal(eventsOf(run, "toolResult").length, 1);
  assert.equal(run.popups, 0);
  const oauth = (await mcpLog("/oauth/")).slice(before);
  assert.deepEqual(oauth.map((entry) => entry.path), ["/oauth/token"]);
  assert.equal(new URLSearchParams(oauth[0].body).get("grant_type"), "refresh_token");
  const sent = (await mcpLog(path)).map((entry) => entry.headers.authorization);
  assert.equal(sent.at(-1), "Bearer fresh");
});

/** Makes the stored token of `store` expired, and refreshes fail with `answer` (until a
 * request without it); the stored grant (JSON text) before. */
/**
 * The page's `browserOAuth` hook asked directly, as the MCP client asks it after a 401, with
 * `context` beside `url` and `reason`: its token, or its error's code and message.
 */
function askForToken(url, clientName, context = {}) {
  const redirectUri = new URL("/oauth-callback.html", env.demoUrl).href;
  return page.evaluate(
    async ({ url, clientName, redirectUri, context }) => {
      const getAccessToken = window.agentWasm.browserOAuth({ redirectUri, clientName, allowInsecureLocalUrls: true });
      try {
        return { token: await getAccessToken({ url, reason: "unauthorized", ...context }) };
      } catch (error) {
        return { code: error.code, message: error.message };
      }
    },
    { url, clientName, redirectUri, context },
  );
}

async function expireWithFailingRefresh(store, answer) {
  await fetch(`${env.mcpTestUrl}/oauth/__refresh-fails?answer=${answer}`, { method: "POST" });
  return page.evaluate((store) => {
    const items = window.oauthStores[store];
    const key = [...items.keys()].find((name) => name.startsWith("mcp-agent-wasm:oauth:tokens:"));
    items.set(key, JSON.stringify({ ...JSON.parse(items.get(key)), expires_at: 1 }));
    return items.get(key);
  }, store);
}

/** The stored grant (JSON text) of `store`, or undefined. */
function storedGrant(store) {
  return page.evaluate((store) => {
    const items = window.oauthStores[store];
    const key = [...items.keys()].find((name) => name.startsWith("mcp-agent-wasm:oauth:tokens:"));
    return key && items.get(key);
  }, store);
}

// A transient failure of the token endpoint (no answer, a 5xx, or a 200 that is a proxy's page:
// RFC 6749 §5.2 errors are 400 or 401) must not sign the user out: the tokens stay, that attempt
// fails, the next refreshes.
test("a refresh that gets no answer, a server error or no token response keeps the tokens and fails that attempt", bounded, async () => {
  const url = `${env.mcpTestUrl}${mcpTestPath("auth")}`;
  const first = await runWithOAuth(url, { store: "transient" });
  assert.equal(first.error, undefined, JSON.stringify(first.error));
  for (const answer of ["503", "drop", "html200"]) {
    const kept = await expireWithFailingRefresh("transient", answer);
    const run = await runWithOAuth(url, { store: "transient" });
    const failure = serverFailure(run);
    assert.equal(failure?.code, "mcp_unauthorized", `${answer}: ${JSON.stringify(run)}`);
    assert.match(failure.message, /the tokens could not be refreshed .*they are kept for the next attempt/, answer);
    assert.equal(run.popups, 0, answer);
    assert.equal(await storedGrant("transient"), kept, `${answer}: the stored tokens are kept`);
  }
  await fetch(`${env.mcpTestUrl}/oauth/__refresh-fails`, { method: "POST" });
  const before = (await mcpLog("/oauth/token")).length;
  const again = await runWithOAuth(url, { store: "transient" });
  assert.equal(again.error, undefined, JSON.stringify(again.error));
  assert.equal(eventsOf(again, "toolResult").length, 1);
  assert.equal(again.popups, 0);
  const [refresh] = (await mcpLog("/oauth/token")).slice(before);
  assert.equal(new URLSearchParams(refresh.body).get("grant_type"), "refresh_token");
});

// RFC 6749 §5.2: `invalid_grant` (the refresh token is revoked or expired) and `invalid_client`
// say the grant is dead: it is forgotten and the flow runs again.
test("a refresh refused with invalid_grant or invalid_client forgets the tokens and runs the flow", bounded, async () => {
  const url = `${env.mcpTestUrl}${mcpTestPath("auth")}`;
  const first = await runWithOAuth(url, { store: "dead" });
  assert.equal(first.error, undefined, JSON.stringify(first.error));
  for (const answer of ["invalid_grant", "invalid_client"]) {
    const dead = await expireWithFailingRefresh("dead", answer);
    const run = await runWithOAuth(url, { store: "dead" });
    assert.equal(run.error, undefined, `${answer}: ${JSON.stringify(run.error)}`);
    assert.deepEqual(eventsOf(run, "serverError"), [], answer);
    assert.equal(eventsOf(run, "toolResult").length, 1, answer);
    assert.equal(run.popups, 1, answer);
    const renewed = JSON.parse(await storedGrant("dead"));
    assert.notEqual(renewed.refresh_token, JSON.parse(dead).refresh_token, answer);
  }
  await fetch(`${env.mcpTestUrl}/oauth/__refresh-fails`, { method: "POST" });
});

// `authorize(url, { signal })` replaces the popup: here the test runner follows the
// authorization server's redirect and hands its Location back.
test("the page's authorize shows the authorization and gives the redirect URL back", bounded, async () => {
  const seen = [];
  await page.exposeFunction("authorizeInNode", async (address, hasSignal) => {
    seen.push({ address, hasSignal });
    const response = await fetch(address, { redirect: "manual" });
    return response.headers.get("location");
  });
  const run = await runWithOAuth(`${env.mcpTestUrl}${mcpTestPath("auth")}`, { store: "by-node", byNode: true });
  assert.equal(run.error, undefined, JSON.stringify(run.error));
  assert.equal(eventsOf(run, "toolResult").length, 1);
  assert.equal(run.popups, 0);
  assert.equal(seen.length, 1);
  assert.ok(seen[0].address.startsWith(`${env.mcpTestUrl}/oauth/authorize?response_type=code&`), seen[0].address);
  assert.equal(seen[0].hasSignal, true);
});

test("an authorize that never settles is given up when the hook's signal aborts", bounded, async () => {
  const outcome = await page.evaluate(
    async ({ url, redirectUri }) => {
      let asked = false;
      const getAccessToken = window.agentWasm.browserOAuth({
        redirectUri,
        clientName: "never settles",
        allowInsecureLocalUrls: true,
        authorize: () => {
          asked = true;
          return new Promise(() => {});
        },
      });
      const controller = new AbortController();
      const answer = getAccessToken({ url, reason: "unauthorized", signal: controller.signal });
      for (let waited = 0; waited < 10_000 && !asked; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
      controller.abort();
      const pending = new Promise((resolve) => setTimeout(() => resolve("still pending 2 s after the abort"), 2000));
      const settled = await Promise.race([answer.then(() => "resolved", (error) => error.code ?? String(error)), pending]);
      return { asked, settled };
    },
    { url: `${env.mcpTestUrl}${mcpTestPath("auth")}`, redirectUri: new URL("/oauth-callback.html", env.demoUrl).href },
  );
  assert.equal(outcome.asked, true);
  assert.equal(outcome.settled, "aborted");
});

// The user closes the popup on the authorization server's page (another origin's, or one of
// the page's own): the flow ends at once, not after the long wait for a popup that COOP cut off
// before its first page.
for (const [where, clientName] of [["another origin", "hold"], ["the page's origin", "hold-at-home"]]) {
  test(`a popup closed on ${where} before the redirect ends the wait with the reason`, bounded, async () => {
    const started = Date.now();
    let closedAt;
    const run = await runWithOAuth(`${env.mcpTestUrl}${mcpTestPath("auth")}`, {
      store: `closed ${clientName}`,
      clientName,
      onPopupOpened: async (popup) => {
        await popup.waitForLoadState();
        await new Promise((resolve) => setTimeout(resolve, 500));
        closedAt = Date.now();
        await popup.close();
      },
    });
    assert.ok(Date.now() - closedAt < 3000, `ended ${Date.now() - closedAt} ms after the close (${closedAt - started} ms in)`);
    const failure = serverFailure(run);
    assert.equal(failure?.code, "mcp_unauthorized", JSON.stringify(run));
    assert.match(failure.message, /the authorization popup was closed before it finished/);
    assert.equal(run.popups, 1);
  });
}

// An authorization page sent with `Cross-Origin-Opener-Policy: same-origin` (HTML "Cross-origin
// opener policies") puts the popup in another browsing context group: the opener's `popup.closed`
// reads true while the user signs in, and the redirect page has no `window.opener`. The redirect
// page's answer then comes over a same-origin BroadcastChannel, as MSAL.js v5's redirect bridge
// does it (AzureAD/microsoft-authentication-library-for-js#8118).
test("an authorization page isolated by COOP still ends the flow with its redirect", bounded, async () => {
  let popupClosed;
  const run = await runWithOAuth(`${env.mcpTestUrl}${mcpTestPath("auth")}`, {
    store: "coop",
    clientName: "coop",
    onPopupOpened: (popup) => (popupClosed = new Promise((resolve) => popup.on("close", resolve))),
  });
  assert.equal(run.error, undefined, JSON.stringify(run.error));
  assert.deepEqual(eventsOf(run, "serverError"), []);
  assert.equal(eventsOf(run, "toolResult").length, 1, JSON.stringify(run.events));
  assert.equal(run.popups, 1);
  // The redirect page, opened by script, still closes itself.
  await popupClosed;
});

/** The server's error for the run's one server: a `serverError` event or the run's error. */
function serverFailure(run) {
  const [event] = eventsOf(run, "serverError");
  return event ?? run.error;
}

test("a denied authorization fails the server with mcp_unauthorized quoting the denial", bounded, async () => {
  const run = await runWithOAuth(`${env.mcpTestUrl}${mcpTestPath("auth")}`, { store: "denied", clientName: "deny" });
  const failure = serverFailure(run);
  assert.equal(failure?.code, "mcp_unauthorized", JSON.stringify(run));
  assert.match(failure.message, /the authorization was refused: access_denied \(the user refused\)/);
  assert.doesNotMatch(failure.message, /good|refresh-/);
});

test("a redirect whose state is not the one sent is refused", bounded, async () => {
  const before = (await mcpLog("/oauth/token")).length;
  const run = await runWithOAuth(`${env.mcpTestUrl}${mcpTestPath("auth")}`, { store: "forged", clientName: "wrong-state" });
  const failure = serverFailure(run);
  assert.equal(failure?.code, "mcp_unauthorized", JSON.stringify(run));
  assert.match(failure.message, /state is not the one sent/);
  assert.equal((await mcpLog("/oauth/token")).length, before, "no code exchanged");
});

// RFC 9207 §2.4 (the mix-up attack of §1: one page talks to several MCP servers' authorization
// servers): the redirect's `iss` must be the metadata's `issuer`, and must be there when the
// metadata says `authorization_response_iss_parameter_supported`; else no code is exchanged.
test("a redirect from another issuer, or without the iss its server sends, is refused before the code exchange", bounded, async () => {
  const url = `${env.mcpTestUrl}${mcpTestPath("auth")}`;
  for (const clientName of ["mix-up", "no-iss"]) {
    const before = (await mcpLog("/oauth/token")).length;
    const outcome = await askForToken(url, clientName);
    assert.equal(outcome.code, "oauth_issuer_mismatch", `${clientName}: ${JSON.stringify(outcome)}`);
    assert.match(outcome.message, clientName === "mix-up" ? /iss `http:\/\/127\.0\.0\.1:1` is not the authorization server's issuer/ : /has no iss/);
    assert.equal((await mcpLog("/oauth/token")).length, before, `${clientName}: no code exchanged`);
  }
});

// RFC 8414 §3.3, which the MCP spec's authorization server discovery makes a MUST (SEP-2468;
// the TypeScript SDK checks it since typescript-sdk#2344): metadata whose `issuer` is not the
// issuer its well-known URL was built from is not used. Else a server could name an issuer whose
// metadata claims another's identity, and the RFC 9207 `iss` check would compare with the lie.
test("authorization server metadata whose issuer is not the one asked for is not used", bounded, async () => {
  const path = mcpTestPath("auth");
  const url = `${env.mcpTestUrl}${path}`;
  const resourceMetadataUrl = `${env.mcpTestUrl}/.well-known/oauth-protected-resource${path}?as=impostor`;
  const before = (await mcpLog("/oauth/")).length;
  let popups = 0;
  const onPopup = () => (popups += 1);
  page.on("popup", onPopup);
  const outcome = await askForToken(url, "impostor", { resourceMetadataUrl });
  page.off("popup", onPopup);
  assert.equal(outcome.code, "oauth_discovery_failed", JSON.stringify(outcome));
  assert.match(outcome.message, /issuer `http:\/\/127\.0\.0\.1:\d+` is not `http:\/\/127\.0\.0\.1:\d+\/impostor`/);
  assert.equal(popups, 0, "no popup opened");
  assert.equal((await mcpLog("/oauth/")).length, before, "no registration nor code exchange");
});

// Protected resource metadata answered 2xx but unusable: an HTML page from a catch-all route, or
// JSON naming no authorization server. The TypeScript SDK (src/client/auth.ts, `authInternal`)
// ignores whatever `discoverOAuthProtectedResourceMetadata` throws and, without an authorization
// server from it, takes the MCP server for its own (MCP 2025-03-26): so does the hook, which then
// finds the metadata at the server's origin and runs the flow there, naming no RFC 8707
// resource, which MCP 2025-03-26 predates (the SDK's `selectResourceURL` names one only from
// protected resource metadata).
test("protected resource metadata answered 2xx but unusable is taken as none: the flow goes on at the server's origin", bounded, async () => {
  for (const mode of ["prm-html", "prm-no-issuer"]) {
    const url = `${env.mcpTestUrl}${mcpTestPath(mode)}`;
    const before = (await mcpLog("/oauth/token")).length;
    const outcome = await askForToken(url, "unusable metadata");
    assert.deepEqual(outcome, { token: "good" }, mode);
    const [exchange] = (await mcpLog("/oauth/token")).slice(before);
    assert.equal(new URLSearchParams(exchange.body).get("resource"), null, mode);
  }
});

// A server with neither protected resource metadata nor authorization server metadata at its
// origin (every well-known lookup 404) is taken for one of MCP 2025-03-26 ("Fallbacks for Servers
// without Metadata Discovery"), whose default endpoints are guesses: when its default
// registration endpoint answers 404 too, the error is discovery's, naming every URL tried.
test("a server with no OAuth metadata and no default endpoints fails discovery, naming every URL tried", bounded, async () => {
  const { url: origin } = await (await fetch(`${env.mcpTestUrl}/__bare`)).json();
  const url = `${origin}/mcp`;
  let popups = 0;
  const onPopup = () => (popups += 1);
  page.on("popup", onPopup);
  const outcome = await askForToken(url, "nothing there");
  page.off("popup", onPopup);
  assert.deepEqual(outcome, {
    code: "oauth_discovery_failed",
    message: `no protected resource metadata found: ${origin}/.well-known/oauth-protected-resource/mcp (404), ` +
      `${origin}/.well-known/oauth-protected-resource (404); ` +
      `and no authorization server metadata at the server's origin (MCP 2025-03-26) found: ` +
      `${origin}/.well-known/oauth-authorization-server (404), ${origin}/.well-known/openid-configuration (404); ` +
      `and the client registration at \`${origin}/register\` answered 404`,
  });
  assert.equal(popups, 0, "no popup opened");
});

// Without `storage`, the hook keeps the client and the tokens in memory, for itself only.
test("without storage the hook keeps its tokens in memory for its next questions", bounded, async () => {
  const url = `${env.mcpTestUrl}${mcpTestPath("auth")}`;
  const redirectUri = new URL("/oauth-callback.html", env.demoUrl).href;
  let popups = 0;
  const onPopup = () => (popups += 1);
  page.on("popup", onPopup);
  const answers = await page.evaluate(
    async ({ url, redirectUri }) => {
      const getAccessToken = window.agentWasm.browserOAuth({ redirectUri, clientName: "in memory", allowInsecureLocalUrls: true });
      const other = window.agentWasm.browserOAuth({ redirectUri, clientName: "in memory", allowInsecureLocalUrls: true });
      const first = await getAccessToken({ url, reason: "unauthorized" });
      const again = await getAccessToken({ url, reason: "connect" });
      return { first, again, other: (await other({ url, reason: "connect" })) ?? null };
    },
    { url, redirectUri },
  );
  page.off("popup", onPopup);
  assert.deepEqual(answers, { first: "good", again: "good", other: null });
  assert.equal(popups, 1);
});

// `crypto.subtle` exists only in secure contexts (https, localhost): on a plain-http page the flow
// must fail with a clear error, not throw through the wasm and leave the hook unanswered.
test("a page without crypto.subtle fails the flow with a coded error", bounded, async () => {
  await page.evaluate(() => Object.defineProperty(globalThis.crypto, "subtle", { value: undefined, configurable: true }));
  try {
    const run = await runWithOAuth(`${env.mcpTestUrl}${mcpTestPath("auth")}`, { store: "no-subtle" });
    const failure = serverFailure(run);
    assert.equal(failure?.code, "mcp_unauthorized", JSON.stringify(run));
    assert.match(failure.message, /crypto\.subtle/);
  } finally {
    await page.evaluate(() => delete globalThis.crypto.subtle);
  }
});

test("browserOAuth refuses options without a redirectUri with oauth_invalid_options", bounded, async () => {
  const outcomes = await page.evaluate(() =>
    [{ clientName: "x" }, { redirectUri: "/oauth-callback.html" }, { redirectUri: "http://localhost:5173/cb" }, { redirectUri: "https://app.example/cb", prompt: "x" }].map((options) => {
      try {
        return typeof window.agentWasm.browserOAuth(options);
      } catch (error) {
        return { code: error.code, message: error.message };
      }
    }),
  );
  assert.deepEqual(outcomes, [
    { code: "oauth_invalid_options", message: "browserOAuth: `redirectUri` is required" },
    { code: "oauth_invalid_options", message: "browserOAuth: `redirectUri` is refused: `/oauth-callback.html` is not a valid URL" },
    // A development server's loopback redirect is a page address, not an endpoint fetched.
    "function",
    { code: "oauth_invalid_options", message: "browserOAuth: unknown option `prompt`" },
  ]);
});

// draft-ietf-oauth-client-id-metadata-document §3: the URL that is the client_id goes out as
// given, so one with a fragment, a root path or a `..` segment is refused when the hook is made.
test("browserOAuth refuses a clientMetadataUrl the Client ID Metadata Document draft forbids, and a clientSecret without clientId", bounded, async () => {
  const base = { redirectUri: "https://app.example/cb" };
  const refused = ["https://app.example/client.json#main", "https://app.example/?v=1", "https://app.example/a/../client.json", "http://app.example/client.json"];
  const outcomes = await page.evaluate(
    (options) =>
      options.map((option) => {
        try {
          return typeof window.agentWasm.browserOAuth(option);
        } catch (error) {
          return error.code;
        }
      }),
    [...refused.map((clientMetadataUrl) => ({ ...base, clientMetadataUrl })), { ...base, clientSecret: "s" }, { ...base, clientMetadataUrl: "https://app.example/oauth/client.json" }],
  );
  assert.deepEqual(outcomes, [...refused.map(() => "oauth_invalid_options"), "oauth_invalid_options", "function"]);
});
