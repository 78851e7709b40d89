// The typed field readers of the importer (src/pipeline/io/json-fields.ts, valibot schemas since
// issue 31 item 6): what each accepts, and the IMPORT_INVALID message naming the field and value.
import { describe, expect, it } from 'vitest';
import {
  booleanField,
  coordinateField,
  finiteNumberField,
  integerField,
  optionalFiniteNumberField,
  optionalStringField,
  positiveIntegerField,
  stringField,
} from '../../../src/pipeline/io/json-fields';
import { isAppError } from '../../../src/shared/errors';

const loc = { file: 'events.jsonl', line: 4 };

function problemOf(read: () => unknown): string {
  try {
    read();
  } catch (error) {
    expect(isAppError(error, 'IMPORT_INVALID')).toBe(true);
    return (error as Error).message;
  }
  throw new Error('no error');
}

describe('json field readers', () => {
  it('read what fits and refuse what does not, naming the field and the value', () => {
    expect(integerField({ n: -3 }, 'n', loc)).toBe(-3);
    expect(problemOf(() => integerField({ n: 1.5 }, 'n', loc))).toBe(
      'events.jsonl:4: field "n" must be an integer, got number 1.5',
    );
    expect(problemOf(() => integerField({ n: '1' }, 'n', loc))).toMatch(/must be an integer/);
    expect(positiveIntegerField({ n: 1 }, 'n', loc)).toBe(1);
    expect(problemOf(() => positiveIntegerField({ n: 0 }, 'n', loc))).toMatch(
      /must be a positive integer/,
    );
    expect(stringField({ s: '' }, 's', loc)).toBe('');
    expect(problemOf(() => stringField({ s: 1 }, 's', loc))).toMatch(/field "s" must be a string/);
    expect(optionalStringField({}, 's', loc)).toBeNull();
    expect(optionalStringField({ s: null }, 's', loc)).toBeNull();
    expect(problemOf(() => optionalStringField({ s: false }, 's', loc))).toMatch(
      /must be a string/,
    );
    expect(booleanField({ b: false }, 'b', loc)).toBe(false);
    expect(problemOf(() => booleanField({ b: 0 }, 'b', loc))).toMatch(/must be a boolean/);
    expect(finiteNumberField({ x: -0.5 }, 'x', loc)).toBe(-0.5);
    expect(problemOf(() => finiteNumberField({ x: '1' }, 'x', loc))).toMatch(
      /field "x" must be a number/,
    );
    expect(problemOf(() => finiteNumberField({ x: NaN }, 'x', loc))).toMatch(
      /field "x" is not a finite number \(NaN\)/,
    );
    expect(optionalFiniteNumberField({ x: null }, 'x', loc)).toBeNull();
    expect(problemOf(() => optionalFiniteNumberField({ x: -Infinity }, 'x', loc))).toMatch(
      /not a finite number \(-Infinity\)/,
    );
    expect(coordinateField({ x: -32768 }, 'x', loc)).toBe(-32768);
    expect(coordinateField({ x: 32767 }, 'x', loc)).toBe(32767);
    expect(problemOf(() => coordinateField({ x: 32767.5 }, 'x', loc))).toMatch(
      /field "x" is 32767.5, outside the virtual screen range/,
    );
    expect(problemOf(() => integerField({}, 'n', loc))).toBe('events.jsonl:4: missing field "n"');
  });
});
