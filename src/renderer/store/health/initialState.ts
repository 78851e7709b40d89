// State of the health page: the machine's checks as `system:health` last answered.
import type { SystemHealthDto } from '../../../shared/contract';

/** A failed call, shown as code, message and fix. */
export type HealthError = { code: string; message: string; fix: string | null };

/** Health page state (plain serialisable data). */
export type HealthState = {
  health: SystemHealthDto | null;
  status: 'idle' | 'loading' | 'ready' | 'error';
  error: HealthError | null;
  /** Date.now() of the last answer, ms (0 before). */
  checkedAtMs: number;
};

// A fresh health state.
export function initialHealthState(): HealthState {
  return { health: null, status: 'idle', error: null, checkedAtMs: 0 };
}
