// The chat-completions shapes the CoT pipeline sends and gets back (docs/cot.md "The model
// client"). src/pipeline/cot/types.ts declares the same `ChatClient` for the pipeline; infra may
// not import the pipeline, so the two meet structurally (tests/infra/openai/chat-client.test.ts
// checks that the client fits it).

/** One part of a message: text, or an image as a URL (the CoT pipeline sends JPEG data URLs). */
export type ChatContentPart =
  | { type: 'text'; text: string }
  | { type: 'image_url'; image_url: { url: string; detail?: 'low' | 'high' | 'auto' } };

/** One chat message as OpenAI's API takes it. */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string | readonly ChatContentPart[];
}

/** The answer's format, sent as `response_format` (omitted when not given). */
export type ChatResponseFormat =
  | { type: 'text' }
  | { type: 'json_object' }
  | {
      type: 'json_schema';
      json_schema: { name: string; schema: Record<string, unknown>; strict?: boolean };
    };

/** One completion request (the model and endpoint belong to the client). */
export interface ChatRequest {
  messages: readonly ChatMessage[];
  /** The CoT pipeline sends 0, as upstream does. */
  temperature: number;
  maxTokens?: number;
  responseFormat?: ChatResponseFormat;
}

/** Tokens one call used, from the response's `usage` (0 when the server sent none). */
export interface ChatUsage {
  promptTokens: number;
  completionTokens: number;
}

/** The first choice's text and the call's usage. */
export interface ChatResult {
  text: string;
  usage: ChatUsage;
}

/** Anything that completes chats: the HTTP client here, or a scripted one in tests. */
export interface ChatClient {
  complete(req: ChatRequest, signal?: AbortSignal): Promise<ChatResult>;
}
