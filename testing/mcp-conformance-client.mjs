// The Node entry the MCP conformance harness drives:
//   conformance client --command "node testing/mcp-conformance-client.mjs" --scenario <name>
// The harness appends the server URL as the last argument and names the scenario in
// MCP_CONFORMANCE_SCENARIO. The client is the crate's own WASM package built for Node
// (`wasm-pack build --target nodejs`), found at $MCP_AGENT_WASM_NODE_PKG (default ../pkg-node).
// Exits 0 when the scenario ran to its end, 1 otherwise.

import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const packageDir = process.env.MCP_AGENT_WASM_NODE_PKG ?? path.join(here, "..", "pkg-node");
const { McpClient, browserOAuth } = createRequire(import.meta.url)(path.join(packageDir, "mcp_agent_wasm.js"));

const serverUrl = process.argv.at(-1);
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? "";

// What each scenario expects a client to do once connected: which tool to call, with what.
const CALLS = {
  tools_call: ["add_numbers", { a: 5, b: 3 }],
  "sse-retry": ["test_reconnection", {}],
  "elicitation-sep1034-client-defaults": ["test_client_elicitation_defaults", {}],
};

// Where the authorization server sends the browser back; nothing listens there: `authorize` below
// stops at the redirect to it, as a popup's redirect page would hand its URL back.
const REDIRECT_URI = "http://127.0.0.1:9/oauth-callback";

/**
 * The user's part of the authorization, unattended: the harness's authorization servers approve
 * at once, so following the redirects of the authorization URL up to the redirect URI gives the
 * URL a browser would come back to.
 */
async function authorize(url, { signal }) {
  let next = url;
  for (let hop = 0; hop < 5; hop += 1) {
    const response = await fetch(next, { redirect: "manual", signal });
    const location = response.headers.get("location");
    if (!location) throw new Error(`the authorization page answered ${response.status} without a redirect`);
    next = new URL(location, next).href;
    if (next.startsWith(REDIRECT_URI)) return next;
  }
  throw new Error("the authorization did not come back to the redirect URI");
}

/**
 * The OAuth hook for the auth/* scenarios: a pre-registered client where the harness gives one
 * (MCP_CONFORMANCE_CONTEXT), and the Client ID Metadata Document URL the harness expects from an
 * app that has one (auth/basic-cimd); registration otherwise.
 */
function oauthHook() {
  const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT || "{}");
  return browserOAuth({
    redirectUri: REDIRECT_URI,
    clientName: "mcp-agent-wasm conformance",
    clientId: context.client_id,
    clientSecret: context.client_secret,
    clientMetadataUrl: context.client_id ? undefined : "https://conformance-test.local/client-metadata.json",
    authorize,
    allowInsecureLocalUrls: true,
  });
}

async function main() {
  // The harness's servers are on localhost: the development opt-in is needed. Unattended, the
  // client accepts elicitations with their defaults (what elicitation-sep1034 checks).
  const getAccessToken = scenario.startsWith("auth/") ? oauthHook() : undefined;
  const client = new McpClient({ url: serverUrl, allowInsecureLocalUrls: true, acceptElicitationDefaults: true, getAccessToken });
  await client.connect();
  const tools = await client.listTools();
  console.log(`${scenario}: ${tools.length} tools`);
  // Each auth/* server lists one tool, whose call some scenarios authorize further (scope-step-up).
  const call = CALLS[scenario] ?? (getAccessToken && tools[0] ? [tools[0].name, {}] : undefined);
  if (call) {
    const result = await client.callTool(call[0], call[1], { timeoutMs: 20000 });
    console.log(`${scenario}: ${call[0]} -> ${result.modelText}`);
  }
  await client.close();
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(`${scenario}: ${error.code ?? "error"}: ${error.message}`);
    process.exit(1);
  },
);
