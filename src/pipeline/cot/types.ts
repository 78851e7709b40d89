// The CoT pipeline's port to a chat model (docs/cot.md "The model client"). The shapes it sends
// and gets back are in src/shared/chat.ts; src/infra/openai/chat-client.ts implements the port
// over HTTP (infra may not import the pipeline, so the two meet structurally:
// tests/infra/openai/chat-client.test.ts checks that the client fits it); the tests script it.
import type { ChatRequest, ChatResult } from '../../shared/chat';

/** Anything that completes chats: the HTTP client, or a scripted one in tests. */
export interface ChatClient {
  complete(req: ChatRequest, signal?: AbortSignal): Promise<ChatResult>;
}
