// The response bodies every stream consumer reads: the largest real OpenAI-compatible captures in
// ../shared/fixtures (framed as their provider sends them, see that folder's README.md) and one
// generated long stream of parallel tool calls whose arguments arrive one character per chunk.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const FIXTURES = fileURLToPath(new URL("../../shared/fixtures/", import.meta.url));

/** The fixtures measured, with the shape of work each one stresses. */
const FIXTURE_FILES = [
  { path: "openai/text.chunks.txt", label: "OpenAI text (gpt-4.1-nano)" },
  { path: "openai-compatible/deepseek-reasoning.chunks.txt", label: "DeepSeek reasoning", reasoning: true },
  { path: "openai-compatible/xai-tool-call.chunks.txt", label: "xAI reasoning + tool call", reasoning: true },
  { path: "openai/parallel-tool-calls.sse", label: "OpenAI parallel tool calls (gpt-4o)" },
];

/** `*.chunks.txt` holds one payload per line: frame each as `data: …` and end with `[DONE]`. */
function frameChunks(text) {
  const lines = text.split("\n").filter((line) => line.trim() !== "");
  return lines.map((line) => `data: ${line}\n\n`).join("") + "data: [DONE]\n\n";
}

function countEvents(text) {
  return text.split("\n\n").filter((block) => block.startsWith("data: ") && block !== "data: [DONE]").length;
}

function toolNames(text) {
  return [...new Set([...text.matchAll(/"name":"([^"]+)"/g)].map((match) => match[1]))];
}

function body(label, text, reasoning) {
  return {
    label,
    bytes: new TextEncoder().encode(text),
    chunks: countEvents(text),
    reasoning: Boolean(reasoning),
    toolNames: toolNames(text),
  };
}

export function fixtureBodies() {
  return FIXTURE_FILES.map(({ path, label, reasoning }) => {
    const raw = readFileSync(FIXTURES + path, "utf8");
    return body(label, path.endsWith(".sse") ? raw : frameChunks(raw), reasoning);
  });
}

/** Characters of argument text, chosen to exercise escapes (quote, backslash, newline) and non-ASCII. */
const ARGUMENT_TEXT = 'Lorem ipsum "dolor" sit amet, café \\ naïve\nconsectetur adipiscing elit. ';

export function sseChunk(delta, finishReason = null) {
  const payload = {
    id: "chatcmpl-generated",
    object: "chat.completion.chunk",
    created: 1767225600,
    model: "generated",
    choices: [{ index: 0, delta, finish_reason: finishReason }],
  };
  return `data: ${JSON.stringify(payload)}\n\n`;
}

/**
 * An OpenAI chat stream of at least `minBytes` bytes: a short text preamble, then `callCount`
 * parallel tool calls, round-robin, each argument string sent one character per chunk.
 */
export function generatedParallelToolCalls(minBytes = 5_500_000, callCount = 8) {
  const parts = [];
  let size = 0;
  const push = (chunk) => {
    parts.push(chunk);
    size += chunk.length;
  };
  push(sseChunk({ role: "assistant", content: "" }));
  for (const word of "I will write the files in parallel now.".split(/(?= )/)) push(sseChunk({ content: word }));
  const argumentTexts = [];
  for (let index = 0; index < callCount; index += 1) {
    push(
      sseChunk({
        tool_calls: [{ index, id: `call_${index}`, type: "function", function: { name: "write_file", arguments: "" } }],
      }),
    );
    argumentTexts.push("");
  }
  const opening = (index) => `{"path":"/tmp/out-${index}.txt","content":"`;
  let step = 0;
  while (size < minBytes) {
    const index = step % callCount;
    let piece;
    if (argumentTexts[index] === "") {
      piece = opening(index);
    } else {
      const character = ARGUMENT_TEXT[Math.floor(step / callCount) % ARGUMENT_TEXT.length];
      piece = JSON.stringify(character).slice(1, -1);
    }
    for (const character of piece) {
      push(sseChunk({ tool_calls: [{ index, function: { arguments: character } }] }));
    }
    argumentTexts[index] += piece;
    step += 1;
  }
  for (let index = 0; index < callCount; index += 1) {
    for (const character of '"}') push(sseChunk({ tool_calls: [{ index, function: { arguments: character } }] }));
  }
  push(sseChunk({}, "tool_calls"));
  push(
    `data: ${JSON.stringify({ id: "chatcmpl-generated", object: "chat.completion.chunk", created: 1767225600, model: "generated", choices: [], usage: { prompt_tokens: 120, completion_tokens: 30000, total_tokens: 30120 } })}\n\n`,
  );
  push("data: [DONE]\n\n");
  const generated = body("", parts.join(""), false);
  generated.label = `generated: ${callCount} parallel calls, 1 char/chunk (${(generated.bytes.length / 1e6).toFixed(1)} MB)`;
  return generated;
}

export function allBodies() {
  return [...fixtureBodies(), generatedParallelToolCalls()];
}
