// The offline demo's model: a SCRIPTED stand-in for an LLM, not a language model. It speaks the
// OpenAI Chat Completions streaming wire format (the framing of shared/fixtures/openai/
// parallel-tool-calls.sse: `data: {chunk}` events, tool-call deltas split over several chunks, a
// finish_reason, a usage chunk with `choices: []`, `data: [DONE]`) and picks real server-everything
// tools from fixed rules over the user's last message, then answers from the tool results.
// Usage: PORT=N node testing/demo-model-server.mjs   (listens on 127.0.0.1 only)
import http from "node:http";

const port = Number(process.env.PORT);
const MODEL_ID = "scripted-demo";
/** Pause between streamed chunks, so that the page visibly streams. */
const CHUNK_DELAY_MS = 12;

const cors = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "GET, POST, OPTIONS",
  "access-control-allow-headers": "authorization, content-type",
  "access-control-max-age": "600",
};

const NUMBER = String.raw`(-?\d+(?:\.\d+)?)`;

/**
 * The rules, in the order their calls are made. Each finds every request for its tool in the
 * user's words and returns the arguments of each call. `tool` is server-everything's own name.
 */
const RULES = [
  {
    tool: "get-sum",
    find(words) {
      const calls = [];
      const patterns = [
        new RegExp(String.raw`\b(?:add|sum(?:\s+of)?)\s+${NUMBER}\s*(?:and|to|plus|\+|,)\s*${NUMBER}`, "gi"),
        new RegExp(String.raw`${NUMBER}\s*(?:\+|plus)\s*${NUMBER}`, "gi"),
      ];
      for (const pattern of patterns) {
        for (const match of words.matchAll(pattern)) {
          const call = { a: Number(match[1]), b: Number(match[2]) };
          if (!calls.some((seen) => seen.a === call.a && seen.b === call.b)) calls.push(call);
        }
      }
      return calls;
    },
  },
  {
    tool: "echo",
    find(words) {
      const calls = [];
      // Quoted text is taken whole; unquoted text ends at `,` `;` `. ` ` and ` ` then `.
      const pattern = /\becho\s+(?:"([^"]*)"|'([^']*)'|(.+?))(?=\s*(?:[,;]|\.(?:\s|$)|\s(?:and|then)\s|$))/gi;
      for (const match of words.matchAll(pattern)) {
        calls.push({ message: match[1] ?? match[2] ?? match[3] });
      }
      return calls;
    },
  },
  {
    tool: "trigger-long-running-operation",
    find(words) {
      if (!/\b(long|progress|slow)\b/i.test(words)) return [];
      const seconds = /(\d+(?:\.\d+)?)\s*(?:s\b|sec|second)/i.exec(words);
      const steps = /(\d+)\s*steps?\b/i.exec(words);
      return [{
        duration: seconds ? Math.min(Number(seconds[1]), 60) : 3,
        steps: steps ? Math.min(Number(steps[1]), 50) : 6,
      }];
    },
  },
  {
    // The server asks the page's model for a completion (MCP sampling), which the page approves.
    tool: "trigger-sampling-request",
    find: (words) => (/\bsampl(e|ing)\b/i.test(words) ? [{ prompt: "a one-line greeting for the demo", maxTokens: 60 }] : []),
  },
  {
    // The server asks the person through the page (MCP elicitation) before it answers.
    tool: "trigger-elicitation-request",
    find: (words) => (/\b(form|survey)\b/i.test(words) ? [{}] : []),
  },
  {
    // The project's MCP test server's /sampling/ tool (page tests add that server): the server
    // asks this model in turn, offering it a tool of its own (MCP sampling with tools).
    tool: "forecast",
    find: (words) => (/\bforecast\b/i.test(words) ? [{ question: "Weather in Paris?" }] : []),
  },
  {
    tool: "get-tiny-image",
    find: (words) => (/\b(image|picture|logo)\b/i.test(words) ? [{}] : []),
  },
  {
    tool: "get-structured-content",
    find(words) {
      const city = ["New York", "Chicago", "Los Angeles"].find((name) =>
        words.toLowerCase().includes(name.toLowerCase()));
      return /\bweather\b/i.test(words) ? [{ location: city ?? "Chicago" }] : [];
    },
  },
];

const HELP = [
  "I am the **scripted demo model**: fixed rules, not an LLM. I understand:",
  "",
  "- `add 2 and 3` → `get-sum`",
  "- `echo hello` → `echo`",
  "- `run a long operation` (optionally `5 seconds`, `10 steps`) → `trigger-long-running-operation`",
  "- `show the image` → `get-tiny-image`",
  "- `weather in Chicago` → `get-structured-content`",
  "- `fill in a form` → `trigger-elicitation-request` (the server asks you a few questions)",
  "- `let the server sample` → `trigger-sampling-request` (the server asks this model, once you allow it)",
  "",
  "Ask for several at once (`add 2 and 3 and echo hi`) and I call them in parallel.",
].join("\n");

/** Text of a message's content, whether a string or an array of parts. */
function contentText(content) {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content.map((part) => (part?.type === "text" ? part.text : "")).join("");
  }
  return "";
}

/**
 * The function name the model sees for a server-everything tool: the tool's own name when it is
 * offered, else the name the library gave it on a collision (`{tool}_{server}`).
 */
function offeredName(tools, tool) {
  const names = (tools ?? []).map((entry) => entry?.function?.name).filter(Boolean);
  return names.find((name) => name === tool) ?? names.find((name) => name.startsWith(`${tool}_`));
}

/** What the scripted model does next: call tools, or answer in text. */
function decide(request) {
  const messages = Array.isArray(request.messages) ? request.messages : [];
  const lastUser = messages.findLastIndex((message) => message.role === "user");
  const words = lastUser >= 0 ? contentText(messages[lastUser].content) : "";
  // A server's sampling request, which the page's Agent sends whole and without tools.
  if (request.stream === false && !request.tools) {
    return { answer: `Hello from the scripted demo model, sampled for the server (it asked: "${words}").` };
  }
  const sinceUser = messages.slice(lastUser + 1);
  const results = sinceUser.filter((message) => message.role === "tool");
  if (results.length > 0) return { answer: summarize(sinceUser) };

  const calls = [];
  const missing = [];
  for (const rule of RULES) {
    for (const args of rule.find(words)) {
      const name = offeredName(request.tools, rule.tool);
      if (name) calls.push({ name, args });
      else if (!missing.includes(rule.tool)) missing.push(rule.tool);
    }
  }
  if (calls.length > 0) {
    const plan = calls.map((call) => `${call.name}(${JSON.stringify(call.args)})`).join(", ");
    return { reasoning: `Scripted rules matched your words. Plan: ${plan}.`, calls };
  }
  if (missing.length > 0) {
    return {
      answer: `I would call ${missing.map((tool) => `\`${tool}\``).join(", ")}, but no such tool ` +
        "is offered. Check that the server-everything MCP server is listed and connected.",
    };
  }
  return { answer: HELP };
}

/** The final answer: one line per tool call of the last round, quoting its result. */
function summarize(sinceUser) {
  const lines = ["Here is what the tools returned:", ""];
  const calls = sinceUser.flatMap((message) => message.tool_calls ?? []);
  for (const call of calls) {
    const result = sinceUser.find((message) => message.role === "tool" && message.tool_call_id === call.id);
    const text = result ? contentText(result.content).replace(/\s+/g, " ").trim() : "";
    const shown = text.length > 300 ? `${text.slice(0, 300)}…` : text;
    const hasImage = Array.isArray(result?.content) && result.content.some((part) => part?.type === "image_url");
    lines.push(`- **${call.function.name}**: ${shown || (hasImage ? "an image (shown in its card)" : "no text")}`);
  }
  lines.push("", "_Scripted demo model: these lines are assembled by rules, not written by an LLM._");
  return lines.join("\n");
}

/** Cuts `text` into pieces of at most `size` characters. */
function pieces(text, size) {
  const parts = [];
  for (let start = 0; start < text.length; start += size) parts.push(text.slice(start, start + size));
  return parts.length > 0 ? parts : [""];
}

let completionCount = 0;

/** The chunks of one streamed completion, as JSON objects. */
function completionChunks(request, decision) {
  completionCount += 1;
  const base = {
    id: `chatcmpl-scripted-${completionCount}`,
    object: "chat.completion.chunk",
    created: Math.floor(Date.now() / 1000),
    model: MODEL_ID,
  };
  const chunk = (delta, finishReason = null) => ({
    ...base,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
  });
  const chunks = [chunk({ role: "assistant", content: null })];
  let output = "";
  for (const part of pieces(decision.reasoning ?? "", 24)) {
    if (part) chunks.push(chunk({ reasoning_content: part }));
    output += part;
  }
  if (decision.calls) {
    decision.calls.forEach((call, index) => {
      const id = `call_scripted_${completionCount}_${index}`;
      chunks.push(chunk({
        tool_calls: [{ index, id, type: "function", function: { name: call.name, arguments: "" } }],
      }));
      const args = JSON.stringify(call.args);
      for (const part of pieces(args, 6)) {
        chunks.push(chunk({ tool_calls: [{ index, function: { arguments: part } }] }));
      }
      output += call.name + args;
    });
    chunks.push(chunk({}, "tool_calls"));
  } else {
    for (const part of pieces(decision.answer, 8)) chunks.push(chunk({ content: part }));
    output += decision.answer;
    chunks.push(chunk({}, "stop"));
  }
  const promptTokens = Math.ceil(JSON.stringify(request.messages ?? []).length / 4);
  const completionTokens = Math.ceil(output.length / 4);
  chunks.push({
    ...base,
    choices: [],
    usage: {
      prompt_tokens: promptTokens,
      completion_tokens: completionTokens,
      total_tokens: promptTokens + completionTokens,
      // OpenAI caches prompt prefixes in blocks of 128 tokens past the first 1024; a smaller
      // stand-in here, so that the page has a cached count to show.
      prompt_tokens_details: { cached_tokens: Math.floor(promptTokens / 128) * 128 },
    },
  });
  return chunks;
}

/** The same completion in one JSON body, for clients that ask for `stream: false`. */
function completionBody(request, decision) {
  const chunks = completionChunks(request, decision);
  const message = { role: "assistant", content: decision.answer ?? null };
  if (decision.reasoning) message.reasoning_content = decision.reasoning;
  if (decision.calls) {
    message.tool_calls = decision.calls.map((call, index) => ({
      id: `call_scripted_${completionCount}_${index}`,
      type: "function",
      function: { name: call.name, arguments: JSON.stringify(call.args) },
    }));
  }
  const last = chunks[chunks.length - 1];
  return {
    id: last.id,
    object: "chat.completion",
    created: last.created,
    model: MODEL_ID,
    choices: [{ index: 0, message, finish_reason: decision.calls ? "tool_calls" : "stop" }],
    usage: last.usage,
  };
}

async function streamCompletion(request, response) {
  response.writeHead(200, {
    ...cors,
    "content-type": "text/event-stream",
    "cache-control": "no-store",
  });
  let closed = false;
  response.on("close", () => {
    closed = true;
  });
  for (const chunk of completionChunks(request, decide(request))) {
    if (closed) return;
    response.write(`data: ${JSON.stringify(chunk)}\n\n`);
    await new Promise((resolve) => setTimeout(resolve, CHUNK_DELAY_MS));
  }
  if (!closed) response.end("data: [DONE]\n\n");
}

function sendJson(response, status, body) {
  response.writeHead(status, { ...cors, "content-type": "application/json" });
  response.end(JSON.stringify(body));
}

async function readJson(request) {
  const parts = [];
  for await (const part of request) parts.push(part);
  return JSON.parse(Buffer.concat(parts).toString("utf8"));
}

http
  .createServer(async (request, response) => {
    const { pathname } = new URL(request.url, "http://127.0.0.1");
    if (request.method === "OPTIONS") {
      response.writeHead(204, cors).end();
      return;
    }
    if (request.method === "GET" && pathname.endsWith("/models")) {
      sendJson(response, 200, {
        object: "list",
        data: [{ id: MODEL_ID, object: "model", owned_by: "scripted rules, not an LLM" }],
      });
      return;
    }
    if (request.method !== "POST" || !pathname.endsWith("/chat/completions")) {
      sendJson(response, 404, { error: { message: `no route ${request.method} ${pathname}` } });
      return;
    }
    let body;
    try {
      body = await readJson(request);
    } catch (error) {
      sendJson(response, 400, { error: { message: `invalid JSON body: ${error.message}` } });
      return;
    }
    if (body.stream) await streamCompletion(body, response);
    else sendJson(response, 200, completionBody(body, decide(body)));
  })
  .listen(port, "127.0.0.1");
