// Part 1: stream pipeline throughput of this package, the Vercel AI SDK and a plain-JS baseline,
// on the same bodies, in one process, served from memory (no network).
// Usage: node bench/stream.mjs <package dir (pkg/nodejs)> <output .json>
import { writeFileSync } from "node:fs";
import { allBodies } from "./inputs.mjs";
import { aiSdkOpenAi, aiSdkOpenAiCompatible, plainJs, PIECE_BYTES } from "./consumers.mjs";
import { loadPackage, oursConsumer } from "./ours.mjs";

const [packageDir, outputPath] = process.argv.slice(2);
if (!packageDir || !outputPath) {
  console.error("usage: node bench/stream.mjs <package dir> <output .json>");
  process.exit(2);
}

/** Each consumer runs in ROUNDS interleaved rounds of at least ROUND_MS; the median round counts. */
const ROUNDS = 3;
const ROUND_MS = 300;
/** A consumer slower than this per body runs once: the whole command must stay within minutes. */
const SINGLE_RUN_ABOVE_MS = 2000;
/** The AI SDK is about twice as slow cold: every consumer first runs this long on the small bodies. */
const WARM_UP_MS = 3000;

const agentModule = loadPackage(packageDir);
const agentConsumer = agentModule && (await oursConsumer(agentModule));
const lastAnswerConsumer = agentModule && (await oursConsumer(agentModule, { lastAnswer: true }));
const consumers = [
  agentConsumer && { name: "this package", run: (body) => agentConsumer.run(body.bytes) },
  lastAnswerConsumer && {
    name: "this package, run with its last answer",
    run: (body) => lastAnswerConsumer.run(body.bytes),
    toolCallsOnly: true,
  },
  { name: "AI SDK (@ai-sdk/openai)", run: aiSdkOpenAi, dropsReasoning: true },
  { name: "AI SDK (@ai-sdk/openai-compatible)", run: aiSdkOpenAiCompatible, reasoningOnly: true },
  { name: "plain JS (eventsource-parser)", run: (body) => plainJs(body.bytes) },
].filter(Boolean);
if (!agentModule) console.log(`no Agent in ${packageDir}: measuring the other consumers only`);

/** JSON with object keys sorted, so that arguments compare equal whatever order a consumer keeps. */
function canonicalJson(value) {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value && typeof value === "object") {
    const keys = Object.keys(value).sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key])}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/** The work every consumer must agree on; the AI SDK's openai chat model drops reasoning by design. */
function fingerprint(summary, withReasoning) {
  const calls = summary.toolCalls.map((call) => `${call.name}:${canonicalJson(call.input)}`).sort();
  return JSON.stringify({ text: summary.text, reasoning: withReasoning ? summary.reasoning : "", calls });
}

/**
 * Milliseconds of process CPU time (user + system) per run, and of wall time: the machine is shared
 * (load averages above 10 were seen), so CPU time is the figure that means something here.
 */
async function timeRounds(consumer, body, milliseconds) {
  let runs = 0;
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  let elapsed = 0;
  do {
    await consumer.run(body);
    runs += 1;
    elapsed = performance.now() - started;
  } while (elapsed < milliseconds);
  const cpu = process.cpuUsage(cpuBefore);
  return { cpu: (cpu.user + cpu.system) / 1e3 / runs, wall: elapsed / runs };
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

const bodies = allBodies();
const small = bodies.filter((body) => body.bytes.length < 1_000_000);
for (const consumer of consumers) {
  const started = performance.now();
  while (performance.now() - started < WARM_UP_MS) {
    for (const body of small) await consumer.run(body);
  }
}

const results = [];
for (const body of bodies) {
  const baseline = await plainJs(body.bytes);
  const perConsumer = new Map();
  for (const consumer of consumers) {
    if (consumer.reasoningOnly && !body.reasoning) continue;
    if (consumer.toolCallsOnly && !baseline.toolCalls.length) continue;
    const summary = await consumer.run(body);
    const withReasoning = !consumer.dropsReasoning;
    if (fingerprint(summary, withReasoning) !== fingerprint(baseline, withReasoning)) {
      throw new Error(`${consumer.name} disagrees with the baseline on ${body.label}`);
    }
    perConsumer.set(consumer, { rounds: [], events: summary.events });
  }
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const [consumer, entry] of perConsumer) {
      if (round > 0 && entry.rounds[0].wall > SINGLE_RUN_ABOVE_MS) continue;
      entry.rounds.push(await timeRounds(consumer, body, ROUND_MS));
    }
  }
  for (const [consumer, entry] of perConsumer) {
    const milliseconds = median(entry.rounds.map((round) => round.cpu));
    const row = {
      body: body.label,
      bytes: body.bytes.length,
      chunks: body.chunks,
      consumer: consumer.name,
      cpuMilliseconds: milliseconds,
      wallMilliseconds: median(entry.rounds.map((round) => round.wall)),
      megabytesPerSecond: body.bytes.length / 1e6 / (milliseconds / 1e3),
      chunksPerSecond: body.chunks / (milliseconds / 1e3),
      eventsDelivered: entry.events,
      reasoningDropped: Boolean(consumer.dropsReasoning && body.reasoning),
    };
    results.push(row);
    console.log(
      `${body.label.padEnd(52)} ${consumer.name.padEnd(36)} ${row.megabytesPerSecond.toFixed(2).padStart(8)} MB/s ${Math.round(row.chunksPerSecond).toString().padStart(9)} chunks/s`,
    );
  }
}

await agentConsumer?.close();
await lastAnswerConsumer?.close();
writeFileSync(
  outputPath,
  JSON.stringify({ node: process.version, pieceBytes: PIECE_BYTES, consumers: consumers.map((c) => c.name), results }, null, 2),
);
