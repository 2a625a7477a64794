// Type-checked by `tsc --noEmit --strict` in testing/tests/package.test.mjs: a consumer that
// handles every event type of the public API, with no `any`.
import init, { Agent, McpClient, browserOAuth, finishOAuthRedirect, listProviders, sanitizeJsonSchema, buildToolNames, validateToolArguments } from "mcp-agent-wasm";
import type { AgentConfig, AgentError, AgentErrorCode, AgentEvent, ChatMessage, McpTool, McpToolResult, ToolInfo } from "mcp-agent-wasm";
import type { McpGetPromptResult, McpPrompt, McpPromptMessage, McpReadResourceResult, McpResource, McpResourceTemplate } from "mcp-agent-wasm";
import type { McpCompleteResult, McpLoggingLevel, McpNotification } from "mcp-agent-wasm";

function describe(event: AgentEvent): string {
  switch (event.type) {
    case "round":
      return `round ${event.round}`;
    case "text":
    case "reasoning":
      return event.text;
    case "toolInputStart":
      return `${event.id}: writing a call of ${event.name}`;
    case "toolInputDelta":
      return `${event.id}: ${event.delta}`;
    case "toolInputDiscarded":
      return `${event.id}: cut off, asked for again`;
    case "toolCall":
      return `${event.name} on ${event.server}/${event.tool} with ${JSON.stringify(event.arguments)}`;
    case "toolEta":
      return `${event.id} in ~${event.etaMs} ms`;
    case "toolProgress":
      return `${event.id}: ${event.progress}/${event.total ?? "?"} ${event.message ?? ""}`;
    case "toolResult":
      return `${event.id}: ${event.text} (${event.content.length} blocks, error: ${event.isError})`;
    case "toolError": {
      const code: AgentErrorCode | undefined = event.code;
      return `${event.id} failed: ${event.message}${code ? ` (${code})` : ""}`;
    }
    case "usage":
      return `${event.inputTokens} in, ${event.outputTokens} out`;
    case "serverError":
      return `${event.server}: ${event.code} ${event.message}`;
    case "final": {
      const messages: ChatMessage[] = event.messages;
      const cut = event.finishReason === "length" ? " (cut at the token limit)" : "";
      return `${event.reason}: ${event.text} after ${messages.length} messages${cut}`;
    }
  }
}

export async function main(signal: AbortSignal): Promise<ChatMessage[]> {
  await init();
  const providers = listProviders().map((provider) => provider.id);
  const config: AgentConfig = {
    provider: { id: providers[0] ?? "openai", apiKey: "key", model: "gpt-4o-mini", extraBody: { reasoning_effort: "low" } },
    mcpServers: [{ name: "everything", url: "https://example.invalid/mcp", transport: "auto" }],
    maxRounds: 3,
    maxRetries: 0,
    roots: [{ uri: "file:///home/ada/project", name: "project" }, { uri: "file:///tmp" }],
    onNotification: (notification: McpNotification, { server }) => console.log(server, notification.method, notification.params),
    approveToolCall: async (call, { signal }) => call.annotations?.["readOnlyHint"] === true || (!signal.aborted && confirm(`Run ${call.tool}?`)),
    tools: {
      selection: {
        description: "The text the user selected",
        inputSchema: { type: "object", properties: { maxChars: { type: "integer" } } },
        execute: async ({ maxChars }, { signal, toolCallId, onProgress }) => {
          onProgress({ progress: 1, total: 1, message: toolCallId });
          const text = signal.aborted ? "" : String(getSelection() ?? "");
          return typeof maxChars === "number" ? text.slice(0, maxChars) : text;
        },
        annotations: { readOnlyHint: true },
      },
      navigate: { execute: ({ url }) => { location.assign(String(url)); } },
    },
  };
  const agent = new Agent(config);
  const tools: ToolInfo[] = await agent.listTools({ signal });
  const names = buildToolNames(tools.map((tool) => ({ server: tool.server, name: tool.tool })));
  const checked = validateToolArguments(tools[0]?.parameters ?? {}, {});
  const sanitized = sanitizeJsonSchema({ type: "object" }, "openai-strict");
  console.log(names.length, checked.ok, sanitized.warnings.length);
  try {
    for await (const event of agent.run([{ role: "user", content: "hi" }], { signal })) {
      console.log(describe(event));
      if (event.type === "final") return event.messages;
    }
  } catch (error) {
    const failure = error as AgentError;
    if (failure.code === "provider_rate_limited") console.log("try again later");
    // @ts-expect-error: a code no error carries is not an AgentErrorCode
    const misspelt: AgentErrorCode = "provider_ratelimited";
    console.log(misspelt);
    return failure.messages ?? [];
  } finally {
    await agent.close();
    agent.free();
  }
  return [];
}

/** The options arguments may be left out; one server's client used directly. */
export async function direct(agent: Agent): Promise<string> {
  const tools: ToolInfo[] = await agent.listTools();
  for await (const event of agent.run([{ role: "user", content: "hi" }])) console.log(describe(event));
  const client = new McpClient({ url: "https://example.invalid/mcp" });
  const listed: McpTool[] = await client.listTools();
  const first: McpToolResult = await client.callTool(listed[0]?.name ?? "echo");
  const second: McpToolResult = await client.callTool("echo", { message: "hi" }, { timeoutMs: 1000 });
  await client.close();
  client.free();
  return `${tools.length} ${first.modelText} ${second.blocks.length} ${second.isError}`;
}

/** Resources and prompts, each entry and result as the server sent it. */
export async function catalog(client: McpClient): Promise<string[]> {
  const resources: McpResource[] = await client.listResources();
  const templates: McpResourceTemplate[] = await client.listResourceTemplates({ signal: AbortSignal.timeout(1000) });
  const read: McpReadResourceResult = await client.readResource(resources[0]?.uri ?? "demo://r", { timeoutMs: 1000 });
  const parts = read.contents.map((part) => ("text" in part ? part.text : `${part.blob.length} base64 characters`));
  const prompts: McpPrompt[] = await client.listPrompts();
  const required = prompts.flatMap((prompt) => prompt.arguments ?? []).filter((argument) => argument.required);
  const prompt: McpGetPromptResult = await client.getPrompt("args-prompt", { city: "Oslo" });
  const messages: McpPromptMessage[] = prompt.messages;
  const bare: McpGetPromptResult = await client.getPrompt("simple-prompt");
  const level: McpLoggingLevel = "warning";
  await client.setLoggingLevel(level);
  await client.subscribeResource(resources[0]?.uri ?? "demo://r");
  await client.unsubscribeResource(resources[0]?.uri ?? "demo://r", { timeoutMs: 1000 });
  const completed: McpCompleteResult = await client.complete({
    ref: { type: "ref/prompt", name: "completable-prompt" },
    argument: { name: "department", value: "S" },
    context: { arguments: { team: "a" } },
  });
  const task = (await client.listTools()).find((tool) => tool.execution?.["taskSupport"] === "required");
  return [...parts, `${templates.length} ${required.length} ${messages[0]?.role} ${bare.description ?? ""}`, ...completed.completion.values, task?.name ?? ""];
}

/** What the types refuse: each line must be a type error, or tsc fails on the unused directive. */
export function typeErrors(): void {
  // @ts-expect-error a misspelt provider id
  new Agent({ provider: { id: "open-ai" } });
  // @ts-expect-error an unknown schema dialect
  sanitizeJsonSchema({ type: "object" }, "strict");
  const client = new McpClient({ url: "https://example.invalid/mcp" });
  // @ts-expect-error a prompt's arguments are strings
  void client.getPrompt("args-prompt", { count: 3 });
  // @ts-expect-error not a logging level
  void client.setLoggingLevel("warn");
  // @ts-expect-error a completion's ref is a prompt or a resource template
  void client.complete({ ref: { type: "ref/tool", name: "echo" }, argument: { name: "a", value: "" } });
}

/** browserOAuth's hook fits `getAccessToken`; its options are checked. */
export function withOAuth(url: string): AgentConfig {
  const getAccessToken = browserOAuth({ redirectUri: "https://app.example/oauth-callback.html", clientName: "My app", storage: localStorage });
  const custom = browserOAuth({ redirectUri: "https://app.example/cb", authorize: async (address, { signal }) => `${address}${signal?.aborted}` });
  const preRegistered = browserOAuth({ redirectUri: "https://app.example/cb", clientId: "app", clientSecret: "s", clientMetadataUrl: "https://app.example/client.json" });
  // @ts-expect-error clientSecret is a string
  browserOAuth({ redirectUri: "https://app.example/cb", clientId: "app", clientSecret: 1 });
  const finished: boolean = finishOAuthRedirect();
  // @ts-expect-error redirectUri is required
  browserOAuth({ clientName: "x" });
  return { provider: { id: "openai", apiKey: "k", model: "m" }, mcpServers: [{ name: `a${finished}`, url, getAccessToken }, { name: "b", url, getAccessToken: custom }, { name: "c", url, getAccessToken: preRegistered }] };
}
