// Writes BENCHMARKS.md and bench/chart.svg from the JSON results of one `cargo xtask bench` run.
// Usage: node bench/report.mjs <results dir (target/bench)>
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const resultsDir = process.argv[2];
if (!resultsDir) {
  console.error("usage: node bench/report.mjs <results dir>");
  process.exit(2);
}
const root = fileURLToPath(new URL("..", import.meta.url));

function load(name, fallback) {
  const path = join(resultsDir, name);
  return existsSync(path) ? JSON.parse(readFileSync(path, "utf8")) : fallback;
}

const stream = load("stream.json", { results: [], consumers: [] });
const size = load("size.json", { rows: [] });
const parallel = load("parallel.json", { results: [], latencyMs: 300 });
const native = [...load("core_stream.json", []), ...load("core_sanitize.json", [])];
const callgrind = load("callgrind.json", []);

const OURS = "this package";
const OURS_LAST_ANSWER = "this package, run with its last answer";
const AI_SDK = "AI SDK (@ai-sdk/openai)";
const AI_SDK_COMPATIBLE = "AI SDK (@ai-sdk/openai-compatible)";
const PLAIN = "plain JS (eventsource-parser)";
const GOALS = { aiSdk: 5, plain: 0.5, gzipBytes: 130 * 1024, parallelAt8: 1.05 };

const fixed = (value, digits = 2) => (Number.isFinite(value) ? value.toFixed(digits) : "–");
const kilobytes = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;
const geometricMean = (values) =>
  values.length ? Math.exp(values.reduce((sum, value) => sum + Math.log(value), 0) / values.length) : NaN;

const bodies = [...new Set(stream.results.map((row) => row.body))];
const rowFor = (body, consumer) => stream.results.find((row) => row.body === body && row.consumer === consumer);

/** Ours ÷ a peer, in throughput; for reasoning bodies the AI SDK peer is the slower, complete one. */
function ratio(body, peer, oursName = OURS) {
  const ours = rowFor(body, oursName);
  const other = peer === AI_SDK ? (rowFor(body, AI_SDK_COMPATIBLE) ?? rowFor(body, AI_SDK)) : rowFor(body, peer);
  return ours && other ? ours.megabytesPerSecond / other.megabytesPerSecond : NaN;
}

function streamSection() {
  if (!stream.results.length) return "Not measured in this run.\n";
  const lines = [
    "| body | consumer | MB/s | chunks/s | this package ÷ it |",
    "| --- | --- | ---: | ---: | ---: |",
  ];
  for (const body of bodies) {
    const ours = rowFor(body, OURS);
    for (const row of stream.results.filter((entry) => entry.body === body)) {
      const versus = ours && !row.consumer.startsWith(OURS) ? `${fixed(ours.megabytesPerSecond / row.megabytesPerSecond)}×` : "";
      const note = row.reasoningDropped ? " (drops reasoning)" : "";
      lines.push(
        `| ${body} | ${row.consumer}${note} | ${fixed(row.megabytesPerSecond)} | ${Math.round(row.chunksPerSecond)} | ${versus} |`,
      );
    }
  }
  return lines.join("\n") + "\n";
}

function sizeSection() {
  const lines = ["| what a browser downloads | raw | gzip -9 | brotli 11 |", "| --- | ---: | ---: | ---: |"];
  for (const row of size.rows) {
    lines.push(`| ${row.name} | ${kilobytes(row.raw)} | ${kilobytes(row.gzip)} | ${kilobytes(row.brotli ?? NaN)} |`);
  }
  return lines.join("\n") + "\n";
}

/** The parallel-tools clients measured in `runtime` ("node", "chromium-h2", "chromium-h1"). */
const parallelClients = (runtime) => (parallel.clients ?? []).filter((client) => client.key.startsWith(`${runtime}/`));
const overLatency = (row, key) => row?.clients?.[key]?.overLatency ?? NaN;

/** One table per runtime: tool phase ÷ L of each client, and the most calls the server ran at once. */
function parallelTable(runtime, protocol, withSequential) {
  const clients = parallelClients(runtime);
  if (!clients.length) return "";
  const header = [`N calls × L = ${parallel.latencyMs} ms`, ...clients.map((client) => `${client.label}${protocol}`), "most in flight"];
  if (withSequential) header.push("this package, one after another", "speed-up");
  const lines = [`| ${header.join(" | ")} |`, `| ${header.map(() => "---:").join(" | ")} |`];
  for (const row of parallel.results) {
    const inFlight = [...new Set(clients.map((client) => row.clients[client.key].maxInFlight))].join(" / ");
    const cells = [row.calls, ...clients.map((client) => fixed(overLatency(row, client.key), 3)), inFlight];
    if (withSequential) {
      const ours = overLatency(row, `${runtime}/this-package`);
      cells.push(fixed(row.sequentialOverLatency), `${fixed(row.sequentialOverLatency / ours, 1)}×`);
    }
    lines.push(`| ${cells.join(" | ")} |`);
  }
  return lines.join("\n") + "\n";
}

function parallelSection() {
  if (!parallel.results.length) return "Not measured in this run.\n";
  const tables = [`Node ${parallel.node ?? ""}, its built-in \`fetch\` (undici), HTTP/1.1:\n\n${parallelTable("node", "", true)}`];
  const chromium = [parallelTable("chromium-h2", ", HTTP/2", false), parallelTable("chromium-h1", ", HTTP/1.1", false)].filter(Boolean);
  if (chromium.length) {
    tables.push(`Headless Chromium, the web build in a page:\n\n${chromium.join("\n")}`);
  }
  const notes = (parallel.notes ?? []).map((note) => `${note}.\n`);
  return [...tables, ...notes].join("\n");
}

function nativeSection() {
  const lines = ["| workload | rate | instructions per run (callgrind) |", "| --- | ---: | ---: |"];
  for (const figure of native) {
    const counted = callgrind.find((entry) => entry.name === figure.name);
    lines.push(
      `| ${figure.name} | ${fixed(figure.value, 1)} ${figure.unit} | ${counted ? counted.instructions.toLocaleString("en") : ""} |`,
    );
  }
  return lines.join("\n") + "\n";
}

function goalRows() {
  const aiSdkRatios = bodies.map((body) => ratio(body, AI_SDK)).filter(Number.isFinite);
  const plainRatios = bodies.map((body) => ratio(body, PLAIN)).filter(Number.isFinite);
  const lastAnswerRatios = bodies.map((body) => ratio(body, PLAIN, OURS_LAST_ANSWER)).filter(Number.isFinite);
  const lastAnswerNote = lastAnswerRatios.length
    ? `; runs that also make their last answer (bodies with tool calls): ${fixed(Math.min(...lastAnswerRatios))}× (lowest)`
    : "";
  const shipped = size.rows.find((row) => row.total);
  const atEight = parallel.results.find((row) => row.calls === 8);
  const parallelRuntimes = [["node", "Node"], ["chromium-h2", "Chromium HTTP/2"]].filter(([runtime]) => parallelClients(runtime).length);
  const parallelOurs = parallelRuntimes.map(([runtime]) => overLatency(atEight, `${runtime}/this-package`));
  const parallelMeasured = parallelRuntimes
    .map(([runtime, title], index) => {
      const peers = parallelClients(runtime).filter((client) => !client.key.endsWith("/this-package"));
      const figures = peers.map((client) => `${client.label} ${fixed(overLatency(atEight, client.key), 3)}`);
      return `${title} ${fixed(parallelOurs[index], 3)} × L (${figures.join(", ")})`;
    })
    .join("; ");
  const verdict = (measured, met) => (Number.isFinite(measured) ? (met ? "met" : "**missed**") : "not measured");
  const lowest = (values) => Math.min(...values);
  return [
    ["stream throughput ≥ 5× the AI SDK", aiSdkRatios.length ? `${fixed(lowest(aiSdkRatios))}× (lowest), ${fixed(geometricMean(aiSdkRatios))}× (geometric mean)` : "–", verdict(lowest(aiSdkRatios), lowest(aiSdkRatios) >= GOALS.aiSdk)],
    ["stream throughput ≥ 0.5× plain JS", plainRatios.length ? `${fixed(lowest(plainRatios))}× (lowest), ${fixed(geometricMean(plainRatios))}× (geometric mean)${lastAnswerNote}` : "–", verdict(lowest(plainRatios), lowest(plainRatios) >= GOALS.plain)],
    ["shipped wasm + glue ≤ 130 KB gzip", shipped ? kilobytes(shipped.gzip) : "–", verdict(shipped?.gzip ?? NaN, shipped && shipped.gzip <= GOALS.gzipBytes)],
    ["8 parallel tool calls ≤ 1.05 × L", atEight ? parallelMeasured : "–", verdict(atEight ? Math.max(...parallelOurs) : NaN, parallelOurs.every((value) => value <= GOALS.parallelAt8))],
  ];
}

// ---- chart: stream throughput per body (log scale) and shipped size, one SVG, no library ----

const escapeXml = (text) => String(text).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
const COLORS = { [OURS]: "#d9480f", [OURS_LAST_ANSWER]: "#f08c00", [AI_SDK]: "#5c7cfa", [AI_SDK_COMPATIBLE]: "#91a7ff", [PLAIN]: "#868e96" };

function chart() {
  const width = 900;
  const labelWidth = 330;
  const plotWidth = width - labelWidth - 90;
  const barHeight = 11;
  const consumers = stream.consumers;
  const values = stream.results.map((row) => row.megabytesPerSecond);
  const minimum = 10 ** Math.floor(Math.log10(Math.min(...values, 1)));
  const maximum = 10 ** Math.ceil(Math.log10(Math.max(...values, 10)));
  const x = (value) => labelWidth + (Math.log10(value / minimum) / Math.log10(maximum / minimum)) * plotWidth;
  const parts = [];
  let y = 56;
  parts.push(`<text x="16" y="26" font-size="15" font-weight="bold">Stream pipeline throughput, MB/s of response body (log scale, higher is better)</text>`);
  for (let decade = minimum; decade <= maximum; decade *= 10) {
    parts.push(`<line x1="${x(decade)}" x2="${x(decade)}" y1="40" y2="__AXIS_END__" stroke="#dee2e6"/>`);
    parts.push(`<text x="${x(decade)}" y="__AXIS_LABEL__" font-size="10" text-anchor="middle" fill="#495057">${decade}</text>`);
  }
  for (const body of bodies) {
    const rows = consumers.map((consumer) => rowFor(body, consumer)).filter(Boolean);
    const groupHeight = rows.length * (barHeight + 2);
    parts.push(`<text x="${labelWidth - 8}" y="${y + groupHeight / 2 + 4}" font-size="11" text-anchor="end">${escapeXml(body)}</text>`);
    for (const row of rows) {
      parts.push(`<rect x="${labelWidth}" y="${y}" width="${Math.max(1, x(row.megabytesPerSecond) - labelWidth).toFixed(1)}" height="${barHeight}" fill="${COLORS[row.consumer] ?? "#adb5bd"}"/>`);
      parts.push(`<text x="${(x(row.megabytesPerSecond) + 4).toFixed(1)}" y="${y + barHeight - 2}" font-size="9" fill="#212529">${fixed(row.megabytesPerSecond)}</text>`);
      y += barHeight + 2;
    }
    y += 10;
  }
  const axisEnd = y;
  y += 18;
  let legendX = 16;
  for (const consumer of consumers) {
    parts.push(`<rect x="${legendX}" y="${y}" width="10" height="10" fill="${COLORS[consumer] ?? "#adb5bd"}"/>`);
    parts.push(`<text x="${legendX + 14}" y="${y + 9}" font-size="10">${escapeXml(consumer)}</text>`);
    legendX += 14 + consumer.length * 5.2 + 14;
  }
  y += 40;
  parts.push(`<text x="16" y="${y}" font-size="15" font-weight="bold">Shipped size, KB gzip -9 (lower is better)</text>`);
  y += 14;
  const largest = Math.max(...size.rows.map((row) => row.gzip), 1);
  const sizeRows = size.rows.filter((row) => row.total || !row.ours);
  for (const row of sizeRows) {
    const barWidth = (row.gzip / largest) * plotWidth;
    parts.push(`<text x="${labelWidth - 8}" y="${y + 12}" font-size="11" text-anchor="end">${escapeXml(row.short ?? row.name)}</text>`);
    parts.push(`<rect x="${labelWidth}" y="${y}" width="${barWidth.toFixed(1)}" height="16" fill="${row.ours ? COLORS[OURS] : COLORS[AI_SDK]}"/>`);
    parts.push(`<text x="${(labelWidth + barWidth + 4).toFixed(1)}" y="${y + 12}" font-size="10">${(row.gzip / 1024).toFixed(1)}</text>`);
    y += 22;
  }
  const budgetX = labelWidth + (GOALS.gzipBytes / largest) * plotWidth;
  parts.push(`<line x1="${budgetX}" x2="${budgetX}" y1="${y - sizeRows.length * 22 - 4}" y2="${y}" stroke="#212529" stroke-dasharray="4 3"/>`);
  parts.push(`<text x="${budgetX + 4}" y="${y + 10}" font-size="10">budget 130 KB</text>`);
  const height = y + 24;
  const svg = parts.join("\n").replaceAll("__AXIS_END__", axisEnd).replaceAll("__AXIS_LABEL__", axisEnd + 12);
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif">\n<rect width="100%" height="100%" fill="#ffffff"/>\n${svg}\n</svg>\n`;
}

const machine = `${cpus().length} × ${cpus()[0]?.model ?? "unknown CPU"}, Node ${process.version}, load average ${loadavg()
  .map((value) => value.toFixed(1))
  .join(" / ")} when the report was written`;

/** Hand-written reading of the figures (where the time goes), kept apart from the generated ones. */
const analysisPath = join(root, "bench/analysis.md");
const analysis = existsSync(analysisPath) ? `\n${readFileSync(analysisPath, "utf8").trim()}\n` : "";

const markdown = `# Benchmarks

This package side by side with what a web developer would use instead, measured in one run on one
machine with the same inputs. Absolute figures on shared machines are noise; the ratios are what
count. Written by \`cargo xtask bench\` on ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC (${machine}).

![Stream throughput and shipped size](bench/chart.svg)

## Goals

| goal | measured | |
| --- | --- | --- |
${goalRows()
  .map((row) => `| ${row.join(" | ")} |`)
  .join("\n")}

## 1. Stream pipeline throughput (Node, one process)

Each body is served from memory by a \`fetch\` replacement in ${stream.pieceBytes ?? 4096}-byte reads: no
network. Consumers: **this package**, one model round through the public \`Agent\` (fetch body → SSE →
provider parser → tool-call assembler → events into JS). One Agent serves every run; it knows one MCP
tool, so tools are offered and the model's calls are shown while written (\`toolInputStart\`,
\`toolInputDelta\`, as the AI SDK's \`tool-input-start\` and \`tool-input-delta\` parts), then assembled
and announced as \`toolCall\` events, but the streams call other names, so nothing runs (each call gets an "unknown tool" error); the round
cap is 1 and \`answerAfterMaxRounds: false\` ends the run with that round, as \`streamText\` ends after
one step (bench/ours.mjs); the pieces of text one read brings come as one \`text\` event (as in a
page). For the bodies with tool calls, **this package, run with its last answer** is the same Agent
with \`answerAfterMaxRounds\` left at its default: after the round, the loop makes its last model call
without tools (answered with one empty chunk), as a conversation does; it does more work than the
peers and is shown for that reason, not compared; the **Vercel AI SDK**
(\`streamText\`, its full part stream \`stream\`, tools declared without \`execute\`) with \`@ai-sdk/openai\`'s
chat model, and for reasoning streams also \`@ai-sdk/openai-compatible\` (the \`@ai-sdk/openai\` chat model
ignores \`reasoning_content\` and so does less work); **plain JS**: \`eventsource-parser\`, \`JSON.parse\`
per event and tool-call deltas accumulated by hand. Before timing, every consumer's text, reasoning and
parsed tool-call arguments are checked equal to the plain-JS baseline's. Every consumer first warms
up for 3 s; then each runs in 3 interleaved rounds of at least 300 ms (bodies slower than 2 s per run:
once), and the median round counts. Times are process CPU time (user + system), not wall time: the
machine is shared by several people. Ratios against the AI SDK use the complete (openai-compatible)
consumer where there is one.

${streamSection()}
## 2. Shipped size

\`*_bg.wasm\` and JS glue of the release build in \`pkg/web\` next to esbuild bundles
(\`--bundle --minify --format=esm --platform=browser\`) of (a) \`ai\` + \`@ai-sdk/openai\` + \`@ai-sdk/mcp\`
(\`streamText\`, \`jsonSchema\`, \`createOpenAI\`, \`createMCPClient\`) and (b) \`@modelcontextprotocol/sdk\`'s
\`Client\` with its Streamable HTTP and SSE transports. gzip is zlib level 9, the goal's measure; brotli
(quality 11, what most CDNs serve) is shown beside it. Files downloaded together are compressed each
on its own, as a server sends them. \`cargo xtask test\` fails when the wasm grows over the budget
in \`wasm-pack.toml\` (\`max_wasm_gzip_bytes\`).

${sizeSection()}
## 3. Parallel tools

A scripted provider asks for N calls of one tool in one round; the tool sleeps L = ${parallel.latencyMs} ms on a
local MCP server (bench/mcp-sleep-server.mjs: Streamable HTTP with JSON replies, 127.0.0.1, a process
of its own). Side by side with this package: the **MCP TypeScript SDK**'s \`Client\` (N \`callTool\`s
under \`Promise.all\`; Node only) and **fetch by hand** (N JSON-RPC POSTs under \`Promise.all\`, no
library: the floor of any client in that runtime). The tool phase runs from the moment the first
\`tools/call\` request is handed to \`fetch\` (for the SDK and by hand: the moment the calls are made)
to the moment the last result is in the caller's hands (for this package: its last \`toolResult\`
event); the median of ${parallel.repeats ?? 5} interleaved runs per client, divided by L. Every client is warmed up by
one round first (tools listed, MCP session open, CORS preflight cached), as in a conversation's later
rounds. In Chromium (headless, driven by playwright-core) the web build runs in a page against the
same server over HTTP/1.1, and against a second one over HTTP/2 with TLS (a self-signed certificate
made by \`openssl\` for the run): a browser opens at most 6 HTTP/1.1 connections to one server, so
more calls than that wait for a free one whatever the client. "Most in flight" is the largest
number of calls the server ran at once; "one after another" is this package with
\`maxConcurrentTools: 1\`.

${parallelSection()}
## 4. Native core

\`cargo bench --bench core_stream\` and \`--bench core_sanitize\` (plain \`std::time::Instant\`, the release
profile the wasm ships with: \`opt-level = "z"\`, LTO; fastest 20 ms batch of 500 ms). Instruction counts
come from \`valgrind --tool=callgrind\` on one run of the workload, collected only inside the run
(\`--toggle-collect\`, so preparing the input is not counted): they do not depend on the machine's
load, so a regression shows.
"decode+assemble" is SSE framing, provider JSON parsing into model events, and tool-call assembly.

${nativeSection()}${analysis}
## Reproduce

\`\`\`sh
cargo xtask bench               # builds pkg/, runs everything (about 5–10 minutes), rewrites this file
cargo xtask bench --skip-build  # reuses pkg/
cargo bench --bench core_stream # native figures only
\`\`\`

Peers are pinned exactly in \`bench/package.json\` / \`bench/package-lock.json\`; raw results of the run are
in \`target/bench/*.json\`.
`;

writeFileSync(join(root, "BENCHMARKS.md"), markdown);
writeFileSync(join(root, "bench/chart.svg"), chart());
console.log("wrote BENCHMARKS.md and bench/chart.svg");
