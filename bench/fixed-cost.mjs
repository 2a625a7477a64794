// The fixed CPU cost of one `Agent.run`, side by side in one process: runs of one or more builds
// of this package (each a pkg/nodejs folder) over the parallel-calls body and over an empty body
// (`data: [DONE]` only), and the plain-JS consumer over the same two bodies, in interleaved
// rounds, timed with process CPU time. Builds compared in one process see the same machine load.
//
//   node bench/fixed-cost.mjs [--rounds N] [--runs N] [--tool-prompt] label=pkg/nodejs [label=other/nodejs ...]
// `--tool-prompt` runs the Agents with the tool preamble, their default (the bench has none).
import { fixtureBodies } from "./inputs.mjs";
import { plainJs } from "./consumers.mjs";
import { loadPackage, oursConsumer } from "./ours.mjs";

function argument(name, fallback) {
  const index = process.argv.indexOf(name);
  return index === -1 ? fallback : Number(process.argv[index + 1]);
}

const ROUNDS = argument("--rounds", 15);
const RUNS = argument("--runs", 200);
const builds = process.argv
  .slice(2)
  .filter((entry) => entry.includes("="))
  .map((entry) => {
    const [label, dir] = entry.split("=");
    const module = loadPackage(dir);
    if (!module) throw new Error(`no Node build at ${dir}`);
    return { label, module };
  });
if (builds.length === 0) builds.push({ label: "pkg", module: loadPackage("pkg/nodejs") });

const parallel = fixtureBodies().find((body) => body.label.includes("parallel"));
const empty = new TextEncoder().encode("data: [DONE]\n\n");

/** CPU milliseconds per call of `run` over `RUNS` calls. */
async function cpuPerRun(run) {
  const start = process.cpuUsage();
  for (let index = 0; index < RUNS; index += 1) await run();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000 / RUNS;
}

const cases = [];
for (const { label, module } of builds) {
  const consumer = await oursConsumer(module, { toolPrompt: process.argv.includes("--tool-prompt") });
  const check = await consumer.run(parallel.bytes);
  if (check.toolCalls.length === 0) throw new Error(`${label}: no tool calls read`);
  cases.push({ name: `${label} body`, run: () => consumer.run(parallel.bytes), consumer });
  cases.push({ name: `${label} empty`, run: () => consumer.run(empty) });
}
cases.push({ name: "plain JS body", run: () => plainJs(parallel.bytes) });
cases.push({ name: "plain JS empty", run: () => plainJs(empty) });

const samples = new Map(cases.map(({ name }) => [name, []]));
for (const { run } of cases) await cpuPerRun(run); // warm-up
for (let round = 0; round < ROUNDS; round += 1) {
  // Each round in another order, so that no case always follows the same one.
  const order = round % 2 === 0 ? cases : [...cases].reverse();
  for (const { name, run } of order) samples.get(name).push(await cpuPerRun(run));
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};
const quantile = (values, q) => [...values].sort((a, b) => a - b)[Math.round(q * (values.length - 1))];
const plainBody = median(samples.get("plain JS body"));
console.log(`${ROUNDS} rounds of ${RUNS} runs; CPU ms per run: median [p10–p90]`);
for (const { name } of cases) {
  const values = samples.get(name);
  const line = `${name.padEnd(24)} ${median(values).toFixed(4)} [${quantile(values, 0.1).toFixed(4)}–${quantile(values, 0.9).toFixed(4)}]`;
  const ratio = name.endsWith(" body") && !name.startsWith("plain") ? `  ratio ${(plainBody / median(values)).toFixed(3)}×` : "";
  console.log(line + ratio);
}
// Paired per round (the cases of one round ran seconds apart, under the same load): each build's
// time against the first build's, and plain JS's against each build's.
for (const { label } of builds) {
  for (const kind of ["body", "empty"]) {
    const mine = samples.get(`${label} ${kind}`);
    const first = samples.get(`${builds[0].label} ${kind}`);
    const plain = samples.get(`plain JS ${kind}`);
    const againstFirst = median(mine.map((value, round) => value / first[round]));
    const plainRatio = median(mine.map((value, round) => plain[round] / value));
    console.log(`${label} ${kind}: ${againstFirst.toFixed(3)}× the time of ${builds[0].label} (median of rounds), plain JS ratio ${plainRatio.toFixed(3)}×`);
  }
}
for (const { consumer } of cases) await consumer?.close();
