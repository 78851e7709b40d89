// The chat-completions shapes the CoT pipeline sends and gets back (docs/cot.md "The model
// client"), written once for both sides: src/pipeline/cot/types.ts declares the port
// (`ChatClient`) over them and src/infra/openai/ implements it over HTTP; neither layer may import
// the other.

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
