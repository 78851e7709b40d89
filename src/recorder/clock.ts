// The shared session clock: CLOCK_MONOTONIC in ms, identical across the processes of a session.

// Now on CLOCK_MONOTONIC, in milliseconds (float, sub-ms resolution).
export function monotonicNowMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}
