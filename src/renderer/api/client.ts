// The renderer's one api client: typed by the contract, one transport underneath, Results
// unwrapped into values or ApiErrors.
import type { ApiEvent, ApiEvents, ApiMethod, ApiMethods } from '../../shared/contract';
import { ApiError, apiErrorFromWire } from './api-error';
import type { Transport } from './transport';

/** Typed access to every contract method and event. */
export type ApiClient = {
  /** Which transport is in use. */
  transportKind: Transport['kind'];
  /** Calls a method; resolves with its output or rejects with an {@link ApiError}. */
  call: <M extends ApiMethod>(
    method: M,
    input: ApiMethods[M]['input'],
  ) => Promise<ApiMethods[M]['output']>;
  /** Subscribes to an event; returns the unsubscribe function. */
  on: <E extends ApiEvent>(event: E, listener: (payload: ApiEvents[E]) => void) => () => void;
};

// A client over one transport.
export function createApiClient(transport: Transport): ApiClient {
  return {
    transportKind: transport.kind,
    call: async <M extends ApiMethod>(method: M, input: ApiMethods[M]['input']) => {
      const result = await transport.invoke(method, input);
      if (result.ok) {
        return result.value as ApiMethods[M]['output'];
      }
      throw apiErrorFromWire(result.error);
    },
    on: <E extends ApiEvent>(event: E, listener: (payload: ApiEvents[E]) => void) =>
      transport.subscribe(event, (payload) => listener(payload as ApiEvents[E])),
  };
}

export { ApiError };
