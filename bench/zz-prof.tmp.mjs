import { allBodies } from "./inputs.mjs";
import { loadPackage, oursConsumer } from "./ours.mjs";
const [dir, which, seconds] = process.argv.slice(2);
const c = await oursConsumer(loadPackage(dir));
const body = allBodies().find((b) => b.label.startsWith(which));
const end = Date.now() + 1000 * +(seconds ?? 8);
let n = 0;
while (Date.now() < end) { await c.run(body.bytes); n++; }
console.log(body.label, body.bytes.length, "runs", n);
await c.close();
