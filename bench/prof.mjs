import { allBodies } from "./inputs.mjs";
import { loadPackage, oursConsumer } from "./ours.mjs";
const which = Number(process.argv[2]);
const c = await oursConsumer(loadPackage("/tmp/agent-pkg"));
const b = allBodies()[which];
const t = performance.now();
for (let i = 0; i < (which === 4 ? 4 : 200); i++) await c.run(b.bytes);
console.log("ms", performance.now() - t);
await c.close();
