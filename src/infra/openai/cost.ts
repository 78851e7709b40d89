// Token accounting for a run of model calls: the responses' `usage` fields summed, a cost
// estimate from prices per million tokens, and a stop once the estimate reaches `maxCost`.

import { AppError } from '../../shared/errors';
import type { ChatUsage } from '../../shared/chat';

/** Prices per million tokens, in the currency `maxCost` is in. */
export interface TokenPrices {
  inputPerMillion: number;
  outputPerMillion: number;
}

/** What a run has used so far. */
export interface UsageTotals {
  calls: number;
  promptTokens: number;
  completionTokens: number;
  /** Calls whose response had no usage (their tokens are not counted). */
  callsWithoutUsage: number;
  /** Estimated from the prices; 0 when none were given. */
  cost: number;
}

export interface CostMeter {
  /** Adds one answered call (usage undefined: the server sent none). */
  add(usage: ChatUsage | undefined): void;
  /** Throws MODEL_COST_LIMIT once the estimate has reached the limit. */
  checkBudget(): void;
  totals(): UsageTotals;
  readonly maxCost: number | undefined;
}

export function costOf(usage: ChatUsage, prices: TokenPrices | undefined): number {
  if (!prices) {
    return 0;
  }
  return (
    (usage.promptTokens * prices.inputPerMillion +
      usage.completionTokens * prices.outputPerMillion) /
    1_000_000
  );
}

export function createCostMeter(
  options: { prices?: TokenPrices; maxCost?: number } = {},
): CostMeter {
  const { prices, maxCost } = options;
  if (maxCost !== undefined) {
    if (!Number.isFinite(maxCost) || maxCost <= 0) {
      throw new AppError(
        'USAGE',
        `the cost limit must be a positive number (got ${maxCost})`,
        undefined,
        'Pass --max-cost as an amount such as 2.50.',
      );
    }
    if (!prices) {
      throw new AppError(
        'USAGE',
        'a cost limit needs the model’s prices to estimate the cost',
        undefined,
        'Pass --price-in and --price-out (per million tokens) with --max-cost.',
      );
    }
  }
  for (const [name, value] of Object.entries(prices ?? {})) {
    if (!Number.isFinite(value) || value < 0) {
      throw new AppError('USAGE', `price ${name} must be 0 or more (got ${value})`);
    }
  }
  const totals: UsageTotals = {
    calls: 0,
    promptTokens: 0,
    completionTokens: 0,
    callsWithoutUsage: 0,
    cost: 0,
  };
  return {
    maxCost,
    add(usage) {
      totals.calls += 1;
      if (!usage) {
        totals.callsWithoutUsage += 1;
        return;
      }
      totals.promptTokens += usage.promptTokens;
      totals.completionTokens += usage.completionTokens;
      totals.cost += costOf(usage, prices);
    },
    checkBudget() {
      if (maxCost !== undefined && totals.cost >= maxCost) {
        throw new AppError(
          'MODEL_COST_LIMIT',
          `the cost limit is reached: about ${totals.cost.toFixed(4)} of ${maxCost} spent on ` +
            `${totals.calls} calls (${totals.promptTokens} prompt and ` +
            `${totals.completionTokens} completion tokens)`,
          { ...totals, maxCost },
          'Raise --max-cost and run the command again: the steps already done are kept and ' +
            'not paid for twice.',
        );
      }
    },
    totals: () => ({ ...totals }),
  };
}
