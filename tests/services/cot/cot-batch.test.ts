// The `cot` batch refuses a remote endpoint without a key before any request or library read, and
// says which variables it read; the key itself never appears in an error.
import { describe, expect, it } from 'vitest';
import { cotRecordings } from '../../../src/services/cot/cot-batch';
import type { Library } from '../../../src/services/library/library';

describe('cotRecordings', () => {
  it('COT_API_KEY_MISSING for a remote endpoint without CUA_COT_API_KEY or OPENAI_API_KEY', async () => {
    const untouched = new Proxy({} as Library, {
      get: () => {
        throw new Error('the library was read before the key check');
      },
    });
    await expect(
      cotRecordings(untouched, ['x'], {
        model: 'm',
        baseUrl: 'https://api.example.com/v1',
        env: { OPENAI_API_KEY: '', CUA_COT_API_KEY: undefined },
      }),
    ).rejects.toMatchObject({
      code: 'COT_API_KEY_MISSING',
      message: expect.stringContaining('CUA_COT_API_KEY nor OPENAI_API_KEY') as unknown,
      fix: expect.stringContaining('export OPENAI_API_KEY') as unknown,
    });
  });
});
