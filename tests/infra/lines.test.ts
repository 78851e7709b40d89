// The infrastructure layer's line splitter and tail helpers: chunk boundaries, CR/LF/CRLF,
// partial last lines, limits.
import { describe, expect, it } from 'vitest';
import { LineSplitter, tailLines } from '../../src/infra/lines';
import { HeadBuffer, StderrTail, TailBuffer } from '../../src/infra/stderr-tail';

describe('LineSplitter', () => {
  it('splits LF, CRLF and CR lines across arbitrary chunk boundaries', () => {
    const splitter = new LineSplitter();
    const lines = [
      ...splitter.push('frame=1\nfps='),
      ...splitter.push('0.00\r'),
      ...splitter.push('\nstats 1\rstats 2\r\n'),
      ...splitter.push('tail'),
    ];
    expect(lines).toEqual(['frame=1', 'fps=0.00', 'stats 1', 'stats 2']);
    expect(splitter.flush()).toEqual(['tail']);
    expect(splitter.flush()).toEqual([]);
  });

  it('keeps empty lines, but a CRLF split across chunks is one terminator', () => {
    const splitter = new LineSplitter();
    expect(splitter.push('a\n\nb\r')).toEqual(['a', '', 'b']);
    expect(splitter.push('\n')).toEqual([]);
    expect(splitter.push('\r\n')).toEqual(['']);
    expect(splitter.push('\n')).toEqual(['']);
    expect(splitter.flush()).toEqual([]);
  });

  it('returns nothing for empty chunks and a lone terminator chunk ends the pending line', () => {
    const splitter = new LineSplitter();
    expect(splitter.push('')).toEqual([]);
    expect(splitter.push('par')).toEqual([]);
    expect(splitter.partial).toBe('par');
    expect(splitter.push('tial')).toEqual([]);
    expect(splitter.push('\n')).toEqual(['partial']);
    expect(splitter.partial).toBe('');
  });

  it('handles one character per chunk the same as one big chunk', () => {
    const text = 'one\r\ntwo\rthree\n\nfour\r\r\nfive';
    const whole = new LineSplitter();
    const expected = [...whole.push(text), ...whole.flush()];
    const bytewise = new LineSplitter();
    const got = [...text].flatMap((c) => bytewise.push(c));
    got.push(...bytewise.flush());
    expect(got).toEqual(expected);
    expect(expected).toEqual(['one', 'two', 'three', '', 'four', '', 'five']);
  });

  it('starts afresh after flush (no carried-over CR state)', () => {
    const splitter = new LineSplitter();
    expect(splitter.push('x\r')).toEqual(['x']);
    expect(splitter.flush()).toEqual([]);
    // after a flush a leading LF is a line of its own again
    expect(splitter.push('\ny\n')).toEqual(['', 'y']);
  });

  it('keeps multi-byte characters whole', () => {
    const splitter = new LineSplitter();
    expect(splitter.push('héllo wörld ✓\nnext')).toEqual(['héllo wörld ✓']);
    expect(splitter.flush()).toEqual(['next']);
  });
});

describe('tailLines', () => {
  it('returns the last non-empty lines, right-trimmed', () => {
    expect(tailLines('a\n\nb  \r\nc\n\n', 2)).toBe('b\nc');
    expect(tailLines('only', 5)).toBe('only');
    expect(tailLines('', 3)).toBe('');
    expect(tailLines('a\nb', 0)).toBe('');
  });
});

describe('StderrTail', () => {
  it('keeps the last N non-blank lines, including an unterminated last line', () => {
    const tail = new StderrTail({ maxLines: 2 });
    expect(tail.push('one\ntwo\n\n  \nthr')).toEqual(['one', 'two', '', '  ']);
    expect(tail.lines()).toEqual(['two', 'thr']);
    tail.push('ee\nfour\n');
    expect(tail.lines()).toEqual(['three', 'four']);
    expect(tail.text()).toBe('three\nfour');
  });

  it('accepts single lines and never keeps fewer than one', () => {
    const tail = new StderrTail({ maxLines: 0 });
    tail.pushLine('spawn error: ENOENT  ');
    tail.pushLine('');
    expect(tail.lines()).toEqual(['spawn error: ENOENT']);
  });
});

describe('TailBuffer and HeadBuffer', () => {
  it('TailBuffer keeps the last bytes and starts at a line boundary once cut', () => {
    const tail = new TailBuffer(10);
    tail.push('line 1\nline 2\n');
    tail.push(Buffer.from('line 3\n'));
    expect(tail.isTruncated).toBe(true);
    expect(tail.text()).toBe('line 3\n');
  });

  it('HeadBuffer keeps the first bytes and flags the cut', () => {
    const head = new HeadBuffer(5);
    head.push('abc');
    expect(head.isTruncated).toBe(false);
    head.push('defg');
    head.push('h');
    expect(head.text()).toBe('abcde');
    expect(head.isTruncated).toBe(true);
  });
});
