//! The TypeScript types of the public API, hand-written (wasm-bindgen puts them in the `.d.ts`).
//! Exported functions name these types through `unchecked_param_type`/`unchecked_return_type`.

use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const TYPES: &str = r#"
/** JSON values, as they cross between the model, MCP servers and the page. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

/** Every provider the package can call (`listProviders()` describes each). */
export type ProviderId =
  | "openai" | "openai_responses" | "anthropic" | "google" | "deepseek" | "ollama" | "grok" | "mistral" | "azure_openai"
  | "alibaba" | "moonshot" | "ibm" | "siliconflow" | "modelscope" | "unbound" | "openrouter"
  | "groq" | "openai_compatible";

/** Which LLM to call. `apiKey` is sent only to this provider's origin. */
export interface ProviderConfig {
  id: ProviderId;
  apiKey?: string | undefined;
  model?: string | undefined;
  baseUrl?: string | undefined;
  temperature?: number | undefined;
  maxTokens?: number | undefined;
  headers?: Record<string, string> | undefined;
  /** IBM watsonx: the project the call is billed to. */
  projectId?: string | undefined;
  /** Azure `api-version` / watsonx `version`. */
  apiVersion?: string | undefined;
  /** Turns on reasoning where it is opt-in (Anthropic, Gemini, Ollama). */
  thinkingBudget?: number | undefined;
  /** IBM watsonx: the IAM token endpoint. */
  iamUrl?: string | undefined;
  /**
   * Members merged into every request body, for what the settings do not name (the OpenAI SDK's
   * `extra_body`): `{ reasoning_effort: "low" }` (OpenAI), `{ options: { num_ctx: 32768 } }`
   * (Ollama), `{ generationConfig: { topP: 0.9 } }` (Gemini). An object is merged into the object
   * already there, except Anthropic's `thinking` (`{ type: "adaptive" }`) and Gemini's
   * `generationConfig.thinkingConfig` (`{ thinkingLevel: "low" }`), which replace
   * `thinkingBudget`'s; `model`, watsonx's `model_id` and `project_id`, `messages`, `contents`,
   * `system`, `systemInstruction`, `tools`, `tool_choice` and `stream` are refused
   * (`provider_reserved_body_member`).
   */
  extraBody?: JsonObject | undefined;
}

export interface McpServerConfig {
  /** Unique among the Agent's servers; tool name collisions get this as a suffix. */
  name: string;
  url: string;
  /** Sent to this server only. */
  headers?: Record<string, string> | undefined;
  transport?: "auto" | "streamable-http" | "sse" | undefined;
  /**
   * Only these tools of the server (as it names them) are offered to the model and listed by
   * `listTools`; `[]` offers none. A name the server does not list is a `serverError` event
   * (`mcp_unknown_allowed_tool`) of each run, which goes on. Default: every tool.
   */
  allowedTools?: string[] | undefined;
  /**
   * The bearer token for this server, asked before each session and after a 401 (or a 403
   * `insufficient_scope`); the page runs the OAuth flow itself. Not with an `Authorization` header.
   */
  getAccessToken?: GetAccessToken | undefined;
}

export interface AgentConfig {
  provider: ProviderConfig;
  mcpServers?: McpServerConfig[] | undefined;
  /** Tool rounds before one last answer without tools. Default 10. */
  maxRounds?: number | undefined;
  /**
   * False: a run that reaches `maxRounds` ends with that round's tool results, without the last
   * answer (`final` has `reason: "exhausted"` and no text), as the AI SDK's `stopWhen:
   * stepCountIs(n)` does. Default true.
   */
  answerAfterMaxRounds?: boolean | undefined;
  systemPrompt?: string | undefined;
  /** Prepend the tool-use preamble (tool names, date, guidance) when the run offers tools. Default true. */
  toolPrompt?: boolean | undefined;
  /** Development only: allow `http:` and loopback/private MCP server addresses. Default false. */
  allowInsecureLocalUrls?: boolean | undefined;
  /** Per tool call; restarted by each progress notification. Default 120000. */
  toolTimeoutMs?: number | undefined;
  /** Longest silence of the provider (before its answer starts, within a stream, for a whole answer) before the run fails (`provider_idle_timeout`). Default 60000. */
  idleTimeoutMs?: number | undefined;
  /** Tool results longer than this are cut for the model, with a note; events keep all. Default 100000. */
  maxToolResultChars?: number | undefined;
  /** IANA time zone for the tool prompt's date. Default: the browser's. */
  timeZone?: string | undefined;
  /** At most this many tool calls of a round at once. Default: no limit. */
  maxConcurrentTools?: number | undefined;
  /** For models without native function calling: tools described in the system prompt. */
  promptToolMode?: boolean | undefined;
  /** False for a model that cannot take `tools`: plain generation. Default true. */
  toolsSupported?: boolean | undefined;
  /** Calls that arrive without ids: made-up ids (default) or a non-streaming re-request. */
  missingIdStrategy?: "synthesize" | "reRequestWithoutStreaming" | undefined;
  /**
   * The tool use the first model call of each run asks for (the AI SDK's `toolChoice`): any
   * tool (`"required"`), none (`"none"`) or one (`toolName`: its function name as offered, or
   * its MCP name when one server has it). Later rounds are `"auto"`, so that a forced choice does
   * not call tools until `maxRounds`. Default `"auto"`.
   */
  toolChoice?: "auto" | "required" | "none" | { type: "tool"; toolName: string } | undefined;
  /**
   * How many times a model call is sent again after a 408, 409, 429 or 5xx answer, a failed
   * connection or a stream cut before anything reached the page, all from this one budget (the
   * AI SDK's `maxRetries`). 0 sends each call once. Default 2.
   */
  maxRetries?: number | undefined;
  /** The roots every MCP server may work in (MCP "Roots": `file://` URIs), sent to its `roots/list`; declares `roots`. */
  roots?: McpRoot[] | undefined;
  /**
   * Asked before each tool call runs (MCP asks hosts for the user's consent before a tool is
   * invoked). Only `true`, or a promise of it, runs the call; any other answer, a throw or a
   * rejection declines it: the model gets an error result and the page a `toolError` event. The
   * calls of a round are asked about together (up to `maxConcurrentTools` at a time); `signal`
   * aborts with the run. Default: every call runs.
   */
  approveToolCall?: ((call: ToolApprovalRequest, context: { signal: AbortSignal }) => boolean | Promise<boolean>) | undefined;
  /**
   * Answers the MCP servers' elicitations (a server asking the user for a few values, or to open
   * a URL, in the middle of a tool call): every server is told the client takes form and URL
   * mode. `context.server` names the server that asks. The answer is checked before it is
   * sent (a wrong one, a throw or a rejection sends the server an error); the call's timeout
   * restarts when the question arrives and when it is answered. Default: elicitations are
   * refused, and servers offer no tools that need them.
   */
  onElicitation?: OnElicitation | undefined;
  /**
   * Told each notification a server sends but progress (which becomes `toolProgress`), with the
   * server's name: logging (`notifications/message`), `notifications/resources/updated`,
   * `notifications/elicitation/complete`, list changes, … What it returns or throws is ignored.
   */
  onNotification?: OnNotification | undefined;
  /**
   * Lets the MCP servers sample this Agent's model (MCP sampling: a server's tool asks the
   * client's model for a completion): every server is told the client takes sampling requests,
   * with tools unless `toolsSupported` is false or `promptToolMode` is on (`sampling.tools`),
   * each is put to this function first (`request` as the server sent it: `messages`,
   * `systemPrompt`, `maxTokens`, `tools`, …; `server` names the server), and only `true` has the
   * Agent's provider and model answer it within `maxTokens`, offering only the request's tools
   * (whose calls go back to the server, which runs them). Any other answer, a throw or a
   * rejection refuses it (the server gets the spec's "user rejected" error, -1). Default:
   * sampling requests are refused, and servers offer no tools that need them.
   */
  approveSampling?: ((request: SamplingRequest, context: { signal: AbortSignal; server: string }) => boolean | Promise<boolean>) | undefined;
  /**
   * Tools the page implements (read the page, the selection, app state, navigate…), keyed by
   * name as the AI SDK's `tools` are, offered beside the MCP servers' tools and treated alike:
   * listed after them with `server: "page"` (a name a server's tool already has gets the suffix
   * `_page`; no `mcpServers` entry may then be named `page`), schemas sanitized per provider,
   * counted in the provider's tool limit, put to `approveToolCall`, arguments checked against
   * `inputSchema`, run concurrently under `maxConcurrentTools`, `toolTimeoutMs` and the run's
   * abort (both abort `signal` and end the call at once).
   */
  tools?: Record<string, PageTool> | undefined;
}

/** One of the page's own tools (`AgentConfig.tools`). Other members are refused (`invalid_config`). */
export interface PageTool {
  description?: string | undefined;
  /** A plain JSON Schema object, or the AI SDK's `jsonSchema(schema)` of one (for a Zod schema, `z.toJSONSchema(schema)`: a Zod schema itself is refused). Default `{ type: "object" }`. */
  inputSchema?: JsonObject | { readonly jsonSchema: JsonObject } | undefined;
  /**
   * Runs the tool with the checked arguments, called on this object (`this` is the tool). The answer, or what its promise resolves to: a
   * string is one text block; an MCP `CallToolResult` (`{ content: ContentBlock[], isError?,
   * structuredContent? }`, each block an object with a `type`) is taken as an MCP server's result
   * (images included); `undefined` is
   * no content; any other value is its JSON text, and also `structuredContent` when it is an
   * object. A throw or a rejection is a `toolError` event, and the model reads `Error: <message>`.
   */
  execute(input: JsonObject, context: PageToolContext): unknown;
  /** MCP tool annotations (`readOnlyHint`, …), shown to `approveToolCall` and in `listTools()`. */
  annotations?: JsonObject | undefined;
}

export interface PageToolContext {
  /** Aborted when the run is, and when `toolTimeoutMs` passes without an answer or progress. */
  signal: AbortSignal;
  /** The same signal, under the AI SDK's name. */
  abortSignal: AbortSignal;
  toolCallId: string;
  /**
   * What the model was sent to make this call, as the AI SDK's `messages`: the run's messages and
   * what earlier rounds added, without the system prompt or the assistant message that made the
   * call. A copy, shared by the round's page tool calls: changing it changes nothing in the run.
   */
  messages: ChatMessage[];
  /** A `toolProgress` event; also restarts `toolTimeoutMs`. */
  onProgress(update: { progress: number; total?: number; message?: string }): void;
}

/** What `approveToolCall` is asked about: the call as its `toolCall` event showed it, and the
 * tool's MCP annotations (`readOnlyHint`, `destructiveHint`, …) when it has some. */
export interface ToolApprovalRequest {
  id: string;
  name: string;
  server: string;
  tool: string;
  arguments: JsonValue;
  annotations?: JsonObject;
}

/** The JSON Schema subset `sanitizeJsonSchema` writes for. */
export type SchemaDialect = "openai" | "openai-strict" | "gemini" | "anthropic";

export interface RunOptions {
  signal?: AbortSignal | undefined;
}

export type TextPart = { type: "text"; text: string };
export type ImagePart = { type: "image_url"; image_url: { url: string; detail?: string } };

export interface ToolCallMessagePart {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
  /** Gemini thought signature, echoed on the next turn. */
  thought_signature?: string;
}

/**
 * Reasoning to echo on the next turn, each wire only its own: Anthropic's thinking with its
 * signature or redacted, a Responses API reasoning item's summary and encrypted content, the
 * signature Gemini gave its text, or OpenRouter's `reasoning_details` as it sent them.
 */
export type ThinkingBlock =
  | { type: "thinking"; thinking: string; signature: string }
  | { type: "redacted_thinking"; data: string }
  | { type: "reasoning"; summary: string; encrypted_content: string }
  | { type: "thought_signature"; signature: string }
  | { type: "reasoning_details"; details: JsonObject[] };

/** An OpenAI-style chat message. */
export interface ChatMessage {
  role: "system" | "user" | "assistant" | "tool";
  content?: string | Array<TextPart | ImagePart> | null;
  tool_calls?: ToolCallMessagePart[];
  tool_call_id?: string;
  name?: string;
  /** DeepSeek-style reasoning, echoed to providers that need it. */
  reasoning_content?: string;
  /** Anthropic, Responses API and OpenRouter reasoning blocks, echoed on the next turn. */
  thinking_blocks?: ThinkingBlock[];
}

/** An MCP content block (text, image, audio, resource_link, resource). */
export type ContentBlock = { type: string } & JsonObject;

/** A server's `sampling/createMessage` params (MCP 2025-11-25), as `approveSampling` gets them. */
export interface SamplingRequest {
  messages: SamplingMessage[];
  systemPrompt?: string;
  maxTokens: number;
  temperature?: number;
  stopSequences?: string[];
  modelPreferences?: JsonObject;
  includeContext?: "none" | "thisServer" | "allServers";
  metadata?: JsonObject;
  /** The server's tools (`sampling.tools`): the model may call them; the server runs them. */
  tools?: McpTool[];
  /** Default `auto`; `required`: some tool; `none`: no tool. */
  toolChoice?: { mode?: "auto" | "required" | "none" };
  _meta?: JsonObject;
}
export interface SamplingMessage {
  role: "user" | "assistant";
  content: SamplingContent | SamplingContent[];
  _meta?: JsonObject;
}
/** A sampling message's block: an assistant's `tool_use`, a user's `tool_result` (only results in that message, one per use of the message before). */
export type SamplingContent =
  | { type: "text"; text: string }
  | { type: "image" | "audio"; data: string; mimeType: string }
  | { type: "tool_use"; id: string; name: string; input: JsonObject }
  | { type: "tool_result"; toolUseId: string; content: ContentBlock[]; structuredContent?: JsonObject; isError?: boolean };

export type AgentEvent =
  | { type: "round"; round: number }
  /** A piece of the answer: the tokens that arrived together (in one network read) come as one. */
  | { type: "text"; text: string }
  /** A piece of the reasoning, kept apart from the answer; merged like `text`. */
  | { type: "reasoning"; text: string }
  /**
   * A tool call the model is writing, once it has named it, under the `id` of the `toolCall`
   * that follows when the model's answer is complete (the AI SDK's `tool-input-start`). An
   * answer asked for again after its stream was cut ends each call it had shown with a
   * `toolInputDiscarded`, then starts its calls again (the same `id` when the provider gives
   * calls none of their own); a run that fails or is aborted mid-answer leaves them without a
   * `toolCall`. Arguments a provider sends whole (Gemini, Ollama) come as one `toolInputDelta`
   * with their JSON text, as the AI SDK shows them.
   */
  | { type: "toolInputStart"; id: string; name: string }
  /** Arguments text of a call being written, in order: joined, the text the model wrote (the pieces one network read brings come as one). */
  | { type: "toolInputDelta"; id: string; delta: string }
  /** A call shown by `toolInputStart` whose answer's stream was cut: it will not be made as shown, and the answer is asked for again. */
  | { type: "toolInputDiscarded"; id: string }
  | { type: "toolCall"; id: string; name: string; server: string; tool: string; arguments: JsonValue }
  | { type: "toolEta"; id: string; etaMs: number }
  | { type: "toolProgress"; id: string; progress: number; total?: number; message?: string }
  | {
      type: "toolResult";
      id: string;
      text: string;
      content: ContentBlock[];
      structuredContent?: JsonValue;
      isError: boolean;
    }
  /**
   * The call gave no result; the model reads `Error: <message>`. `code`, for a failed MCP call:
   * the client's error code, `mcp_invalid_structured_content` for a result that breaks the
   * tool's `outputSchema` (no `structuredContent`, or content that does not match).
   */
  | { type: "toolError"; id: string; message: string; code?: AgentErrorCode }
  /** Tokens so far in this run: running totals over its model calls (with its model's answers to a server's sampling requests during its tool calls), not one call's. */
  | {
      type: "usage";
      /** Summed over the run's model calls, cached prompt tokens included. */
      inputTokens: number;
      /** Summed over the run's model calls, reasoning tokens included. */
      outputTokens: number;
      /** Of `inputTokens`, read from the prompt cache (billed lower); absent if not reported. */
      cachedInputTokens?: number;
      /** Of `outputTokens`, spent reasoning; absent if not reported (Anthropic). */
      reasoningTokens?: number;
    }
  | { type: "serverError"; server: string; code: AgentErrorCode; message: string; resourceMetadataUrl?: string; scope?: string }
  | {
      type: "final";
      text: string;
      reason: "completed" | "exhausted" | "aborted";
      messages: ChatMessage[];
      /**
       * Why the run's last finished model call stopped, in the AI SDK's names: `length` (the
       * answer was cut at the token limit: raise `maxTokens`), `content-filter` (the provider's
       * filter stopped it), `tool-calls`, `stop`, or `other`; absent when no call finished or
       * the provider said nothing.
       */
      finishReason?: "stop" | "length" | "content-filter" | "tool-calls" | "other";
    };

/** The stream `run()` returns: a ReadableStream that is async-iterable in every browser. */
export type AgentEventStream = ReadableStream<AgentEvent> & AsyncIterable<AgentEvent>;

/** The stable `code` of every error the library throws, rejects with or errors a run's stream with. */
export type AgentErrorCode =
  // what a call was given
  | "invalid_config" | "invalid_options" | "invalid_messages" | "invalid_time_zone"
  | "invalid_argument" | "unknown_dialect" | "aborted"
  // the provider's settings, checked by `new Agent`
  | "provider_unknown" | "provider_missing_api_key" | "provider_missing_base_url"
  | "provider_missing_model" | "provider_missing_setting" | "provider_reserved_body_member" | "provider_invalid_url"
  | "provider_invalid_header" | "provider_access_token_required"
  // a model call
  | "provider_invalid_conversation" | "provider_images_unsupported" | "provider_auth"
  | "provider_model_not_found" | "provider_rate_limited" | "provider_http_status"
  | "provider_network" | "provider_idle_timeout" | "provider_invalid_response"
  | "provider_stream_error" | "provider_aborted" | "provider_too_many_tools"
  | "provider_unknown_tool_choice" | "provider_tool_choice_unsupported"
  // browserOAuth's getAccessToken (the MCP client reports them as mcp_unauthorized)
  | "oauth_invalid_options" | "oauth_discovery_failed" | "oauth_registration_failed"
  | "oauth_popup_blocked" | "oauth_popup_closed" | "oauth_denied" | "oauth_state_mismatch"
  | "oauth_issuer_mismatch" | "oauth_token_failed"
  // an MCP server
  | "mcp_invalid_options" | "mcp_url_refused" | "mcp_invalid_header" | "mcp_legacy_endpoint_refused"
  | "mcp_http_status" | "mcp_unauthorized" | "mcp_forbidden" | "mcp_session_expired" | "mcp_cors_header_missing" | "mcp_network"
  | "mcp_jsonrpc_error" | "mcp_unsupported_protocol_version" | "mcp_invalid_message"
  | "mcp_stream_ended" | "mcp_timeout" | "mcp_aborted" | "mcp_closed" | "mcp_cursor_loop"
  | "mcp_listing_too_large" | "mcp_capability_missing" | "mcp_both_transports_failed"
  | "mcp_unknown_allowed_tool" | "mcp_invalid_structured_content" | "mcp_task_required";

/** Every error the library throws or a run's stream errors with. */
export interface AgentError extends Error {
  /**
   * Stable across versions, for programs to branch on; the message is for people. For example
   * `provider_auth` (the key was refused), `mcp_url_refused` (the URL policy refused a server),
   * `provider_invalid_header` / `mcp_invalid_header` (a key or header `fetch` cannot send).
   */
  code: AgentErrorCode;
  /** On a run's fatal error: the conversation so far, complete messages only. */
  messages?: ChatMessage[];
  /** HTTP status, when an HTTP answer caused the error. */
  status?: number;
  /** The body of that answer, with the API key taken out. */
  body?: string;
  /** MCP server name, when one server caused the error. */
  server?: string;
  /**
   * `mcp_unauthorized`, `mcp_forbidden`: the challenge's `resource_metadata` (RFC 9728), where an
   * OAuth flow starts, when the page could read the server's `WWW-Authenticate` header.
   */
  resourceMetadataUrl?: string;
  /** `mcp_unauthorized`, `mcp_forbidden`: the scopes the server's challenge asks for. */
  scope?: string;
}

export interface ToolInfo {
  /** The function name the model sees. */
  name: string;
  /** The MCP server's name, or `"page"` for a tool of `AgentConfig.tools`. */
  server: string;
  /** The tool's name on its server. */
  tool: string;
  description?: string;
  /** The sanitized JSON Schema sent to the provider (OpenAI dialect). */
  parameters: JsonObject;
  annotations?: JsonObject;
}
"#;
