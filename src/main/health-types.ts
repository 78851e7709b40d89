// The health check shape of the contract (`system:health` checks), for the host's own checks.
import type { SystemHealthDto } from '../shared/contract';

/** One check of `system:health`. */
export type HealthCheckDto = SystemHealthDto['checks'][number];
