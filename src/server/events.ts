// Event hub and Server-Sent Events stream (`GET /api/events`): contract events pushed to every
// connected browser, with heartbeats so proxies and dead peers are noticed.
import type http from 'node:http';
import { API_EVENTS, type ApiEvent, type ApiEvents } from '../shared/contract';

/** Default interval between SSE heartbeat comments, ms. */
export const DEFAULT_HEARTBEAT_MS = 15_000;

type Listener = (event: ApiEvent, payload: unknown) => void;

/** Fan-out of contract events; the ServiceContext's `emit` feeds it, SSE clients read it. */
export type EventHub = {
  /** Publishes one event to every subscriber; names outside API_EVENTS are dropped. */
  emit: <E extends ApiEvent>(event: E, payload: ApiEvents[E]) => void;
  /** Subscribes to every event; returns the unsubscribe function. */
  subscribe: (listener: Listener) => () => void;
};

// Creates an event hub.
export function createEventHub(): EventHub {
  const listeners = new Set<Listener>();
  const known: readonly string[] = API_EVENTS;
  return {
    emit: (event, payload) => {
      if (!known.includes(event)) {
        return;
      }
      for (const l of [...listeners]) {
        l(event, payload);
      }
    },
    subscribe: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

// Formats one SSE message (`id`, `event`, one `data` line of JSON).
export function formatSseEvent(id: number, event: string, payload: unknown): string {
  // JSON.stringify never emits raw newlines, so one data line is enough
  return `id: ${id}\nevent: ${event}\ndata: ${JSON.stringify(payload ?? null)}\n\n`;
}

/** The open SSE streams of one server. */
export type SseStreams = {
  /** Turns an authorised `GET /api/events` into a stream. */
  open: (req: http.IncomingMessage, res: http.ServerResponse) => void;
  /** Ends every stream (shutdown). */
  closeAll: () => void;
  /** Number of open streams. */
  count: () => number;
};

// Creates the SSE stream registry over a hub.
export function createSseStreams(hub: EventHub, heartbeatMs = DEFAULT_HEARTBEAT_MS): SseStreams {
  const open = new Set<http.ServerResponse>();
  let nextId = 1;
  return {
    open: (req, res) => {
      req.socket.setTimeout(0);
      req.socket.setNoDelay(true);
      res.writeHead(200, {
        'Content-Type': 'text/event-stream; charset=utf-8',
        'Cache-Control': 'no-store, no-transform',
        Connection: 'keep-alive',
        // nginx and friends must not buffer the stream
        'X-Accel-Buffering': 'no',
      });
      res.write('retry: 3000\n: connected\n\n');
      open.add(res);
      const unsubscribe = hub.subscribe((event, payload) => {
        res.write(formatSseEvent(nextId++, event, payload));
      });
      const heartbeat = setInterval(() => res.write(': ping\n\n'), heartbeatMs);
      heartbeat.unref();
      const cleanup = () => {
        clearInterval(heartbeat);
        unsubscribe();
        open.delete(res);
      };
      res.on('close', cleanup);
      req.on('close', cleanup);
    },
    closeAll: () => {
      for (const res of [...open]) {
        res.end();
      }
    },
    count: () => open.size,
  };
}
