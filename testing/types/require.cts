// Type-checked in testing/tests/package.test.mjs against the installed package under node16: a
// CommonJS consumer gets the nodejs target's declarations through the `require` condition.
import agentWasm = require("mcp-agent-wasm");

const events: agentWasm.AgentEvent[] = [];
const agent: agentWasm.Agent = new agentWasm.Agent({ provider: { id: "ollama", model: "qwen3" } });
console.log(agentWasm.listProviders().map((provider) => provider.id), events.length, agent);
