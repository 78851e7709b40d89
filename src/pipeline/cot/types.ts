// The CoT pipeline's port to a chat model (docs/cot.md "The model client"): what it sends and what
// it needs back. src/infra/openai/ implements it over HTTP (infra may not import the pipeline, so
// the two meet structurally); the tests script it.

/** One part of a message: text, or an image as a URL (JPEG data URLs here, as upstream sends). */
export type ChatContentPart =
  | { type: 'text'; text: string }
  | { type: 'image_url'; image_url: { url: string; detail?: 'low' | 'high' | 'auto' } };

/** One chat message as OpenAI's chat-completions API takes it. */
export type ChatMessage = {
  role: 'system' | 'user' | 'assistant';
  content: string | readonly ChatContentPart[];
};

/** The answer's format, sent as `response_format` (omitted when not given). */
export type ChatResponseFormat =
  | { type: 'text' }
  | { type: 'json_object' }
  | {
      type: 'json_schema';
      json_schema: { name: string; schema: Record<string, unknown>; strict?: boolean };
    };

/** One completion request (the model and the endpoint belong to the client). */
export type ChatRequest = {
  messages: readonly ChatMessage[];
  /** Sampling temperature; the pipeline sends 0, as upstream's call_llm does. */
  temperature: number;
  /** Most tokens of the answer (the server's default when absent). */
  maxTokens?: number;
  responseFormat?: ChatResponseFormat;
};

/** Tokens one call used, from the response's `usage` (0 when the server sent none). */
export type ChatUsage = { promptTokens: number; completionTokens: number };

/** The first choice's text and the call's usage. */
export type ChatResult = { text: string; usage: ChatUsage };

/** Anything that completes chats: the HTTP client, or a scripted one in tests. */
export interface ChatClient {
  complete(req: ChatRequest, signal?: AbortSignal): Promise<ChatResult>;
}
