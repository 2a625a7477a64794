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
const { McpClient } = createRequire(import.meta.url)(path.join(packageDir, "mcp_agent_wasm.js"));

const serverUrl = process.argv.at(-1);
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? "";

// What each scenario expects a client to do once connected: which tool to call, with what.
const CALLS = {
  tools_call: ["add_numbers", { a: 5, b: 3 }],
  "sse-retry": ["test_reconnection", {}],
  "elicitation-sep1034-client-defaults": ["test_client_elicitation_defaults", {}],
};

async function main() {
  // The harness's servers are on localhost: the development opt-in is needed. Unattended, the
  // client accepts elicitations with their defaults (what elicitation-sep1034 checks).
  const client = new McpClient({ url: serverUrl, allowInsecureLocalUrls: true, acceptElicitationDefaults: true });
  await client.connect();
  const tools = await client.listTools();
  console.log(`${scenario}: ${tools.length} tools`);
  const call = CALLS[scenario];
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
