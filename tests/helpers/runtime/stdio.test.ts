// A helper in Electron's utility process reads its requests from parentPort messages: the
// protocol loop answers them and ends on the stdin-end message, as it does on stdin EOF.
import { EventEmitter } from 'node:events';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { serveHelper } from '../../../src/helpers/runtime/serve';
import { helperInput } from '../../../src/helpers/runtime/stdio';

describe('helper input from parentPort messages', () => {
  it('feeds cua:stdin text to the loop and ends on cua:stdin-end', async () => {
    const port = new EventEmitter();
    const output = new PassThrough();
    let printed = '';
    output.on('data', (chunk: Buffer) => (printed += chunk.toString()));
    const served = serveHelper({
      name: 'test-helper',
      os: 'test',
      capabilities: ['displays'],
      handlers: { displays: () => [] },
      input: helperInput(port),
      output,
    });
    port.emit('message', { data: { type: 'cua:stdin', data: '{"id":1,"method":"disp' } });
    port.emit('message', { data: { type: 'cua:stdin', data: 'lays","params":{}}\n' } });
    port.emit('message', { data: { type: 'something-else' } });
    port.emit('message', { data: { type: 'cua:stdin-end' } });
    expect(await served.done).toBe('eof');
    const lines = printed
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as unknown);
    expect(lines.slice(1)).toEqual([{ id: 1, ok: true, result: [] }]);
  });
});
