// The one dispatcher every host binds (IPC, HTTP): method name + payload in, Result envelope out,
// never a throw. Unknown method → UNKNOWN_METHOD; payload fails its validator → INVALID_PAYLOAD
// naming the field; AppError → its code; anything else → INTERNAL (stack logged, never sent).
import { isApiMethod, METHOD_VALIDATORS } from '../shared/contract';
import { isAppError } from '../shared/errors';
import { err, ok, type Result } from '../shared/result';
import type { ServiceContext } from './context';
import { handlers } from './handlers';

type AnyHandler = (input: unknown, ctx: ServiceContext) => Promise<unknown>;

function defaultLog(line: string): void {
  process.stderr.write(`${line}\n`);
}

// Validates and runs one contract call; always resolves to a Result envelope.
export async function dispatch(
  ctx: ServiceContext,
  method: string,
  payload: unknown,
): Promise<Result<unknown>> {
  if (typeof method !== 'string' || !isApiMethod(method)) {
    return err({
      code: 'UNKNOWN_METHOD',
      message: `Unknown method ${JSON.stringify(String(method)).slice(0, 120)}; see API_METHODS for the contract's methods.`,
      details: { method: String(method).slice(0, 120) },
    });
  }
  const checked = METHOD_VALIDATORS[method](payload);
  if (!checked.ok) {
    return err({
      code: 'INVALID_PAYLOAD',
      message: `Invalid ${method} payload: ${checked.field} ${checked.message}`,
      details: { method, field: checked.field },
    });
  }
  try {
    const handler = handlers[method] as AnyHandler;
    return ok(await handler(checked.value, ctx));
  } catch (e) {
    if (isAppError(e)) {
      return err({
        code: e.code,
        message: e.message,
        ...(e.details === undefined ? {} : { details: e.details }),
        ...(e.fix === undefined ? {} : { fix: e.fix }),
      });
    }
    const stack = e instanceof Error ? (e.stack ?? `${e.name}: ${e.message}`) : String(e);
    (ctx.log ?? defaultLog)(`dispatch ${method} failed: ${stack}`);
    return err({
      code: 'INTERNAL',
      message: `${method} failed unexpectedly; the details are in the service log.`,
    });
  }
}
