// Type-checked in testing/tests/package.test.mjs against the installed package under node16 and
// bundler resolution: the Node and bundler entries load their wasm on import, so they have no
// initSync and their init() resolves to nothing. Each line below must be a type error.
// @ts-expect-error initSync is the web target's alone
import { initSync } from "mcp-agent-wasm";
import init from "mcp-agent-wasm";

// @ts-expect-error init() resolves to nothing, not to the wasm's exports
console.log(initSync, (await init()).memory);
