// The current time (Date.now()), re-rendering every `intervalMs` while `isRunning`.
import { useEffect, useState } from 'react';

// Date.now() as of the last tick; ticks only while `isRunning` (a live clock on screen).
export function useNow(isRunning: boolean, intervalMs = 250): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!isRunning) {
      return;
    }
    const timer = setInterval(() => setNow(Date.now()), intervalMs);
    return () => clearInterval(timer);
  }, [isRunning, intervalMs]);
  return now;
}
