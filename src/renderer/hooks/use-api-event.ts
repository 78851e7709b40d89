// Subscribes a component to one contract push event for its lifetime.
import { useEffect, useEffectEvent } from 'react';
import type { ApiEvent, ApiEvents } from '../../shared/contract';
import { getApiClient } from '../api';

// Calls `handler` for every `event` while the component is mounted (latest handler wins).
export function useApiEvent<E extends ApiEvent>(
  event: E,
  handler: (payload: ApiEvents[E]) => void,
): void {
  const onEvent = useEffectEvent(handler);
  useEffect(() => getApiClient().on(event, (payload) => onEvent(payload)), [event]);
}
