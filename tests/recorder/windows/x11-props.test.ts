import { describe, expect, it } from 'vitest';
import {
  parseActiveWindowLine,
  parseXpropOutput,
  parseXpropStrings,
  parseXwininfoGeometry,
  unescapeXprop,
  xpropCardinal,
  xpropString,
} from '../../../src/recorder/windows/x11-props';

// Output captured from xprop / xwininfo (x11-utils 7.7) on Xvfb + openbox, C.UTF-8 locale.
const XPROP_ID = [
  '_NET_WM_NAME(UTF8_STRING) = "Café \\"quoted\\" \\\\ back\\nnl ☃"',
  'WM_NAME(COMPOUND_TEXT) = "Café "quoted" \\ back\\012nl ☃"',
  'WM_CLASS(STRING) = "gtk-form.py", "Gtk-form.py"',
  '_NET_WM_PID(CARDINAL) = 26745',
  '_NET_FRAME_EXTENTS(CARDINAL) = 1, 1, 20, 5',
].join('\n');

const XWININFO = `
xwininfo: Window id: 0x800003 "Café "quoted" \\ back
nl ☃"

  Absolute upper-left X:  601
  Absolute upper-left Y:  70
  Relative upper-left X:  1
  Relative upper-left Y:  20
  Width: 420
  Height: 460
  Depth: 24
`;

describe('parseActiveWindowLine', () => {
  it.each([
    ['_NET_ACTIVE_WINDOW(WINDOW): window id # 0x800003', '0x800003'],
    ['_NET_ACTIVE_WINDOW(WINDOW): window id # 0x40000A', '0x40000a'],
    ['_NET_ACTIVE_WINDOW(WINDOW): window id # 0x0', null],
    ['_NET_ACTIVE_WINDOW:  not found.', null],
    ['something else', undefined],
  ])('%s → %s', (line, expected) => {
    expect(parseActiveWindowLine(line)).toBe(expected);
  });
});

describe('xprop properties', () => {
  const props = parseXpropOutput(XPROP_ID);

  it('keeps type and raw value per property', () => {
    expect(props.get('WM_CLASS')).toEqual({ type: 'STRING', raw: '"gtk-form.py", "Gtk-form.py"' });
    expect(props.has('_NET_WM_ICON')).toBe(false);
  });

  it('decodes escaped UTF-8 titles', () => {
    expect(xpropString(props, '_NET_WM_NAME')).toBe('Café "quoted" \\ back\nnl ☃');
  });

  it('keeps COMPOUND_TEXT quotes as one string', () => {
    expect(xpropString(props, 'WM_NAME')).toBe('Café "quoted" \\ back\nnl ☃');
  });

  it('splits string lists', () => {
    expect(parseXpropStrings(props.get('WM_CLASS')?.raw ?? '')).toEqual([
      'gtk-form.py',
      'Gtk-form.py',
    ]);
    expect(parseXpropStrings('"a \\"b\\"", "c"')).toEqual(['a "b"', 'c']);
  });

  it('reads cardinals', () => {
    expect(xpropCardinal(props, '_NET_WM_PID')).toBe(26745);
    expect(xpropCardinal(props, '_NET_FRAME_EXTENTS')).toBe(1);
    expect(xpropCardinal(props, 'NOPE')).toBeNull();
  });

  it('decodes octal escapes as UTF-8 bytes (C locale output)', () => {
    expect(unescapeXprop('Caf\\303\\251')).toBe('Café');
    expect(unescapeXprop('tab\\there')).toBe('tab\there');
    expect(unescapeXprop('odd \\q end\\')).toBe('odd \\q end\\');
  });
});

describe('parseXwininfoGeometry', () => {
  it('reads the absolute client rectangle even when the title has newlines', () => {
    expect(parseXwininfoGeometry(XWININFO)).toEqual({ x: 601, y: 70, width: 420, height: 460 });
  });

  it('handles negative positions and missing fields', () => {
    expect(
      parseXwininfoGeometry(
        '  Absolute upper-left X:  -5\n  Absolute upper-left Y:  -20\n  Width: 10\n  Height: 1\n',
      ),
    ).toEqual({ x: -5, y: -20, width: 10, height: 1 });
    expect(parseXwininfoGeometry('X Error of failed request:  BadWindow')).toBeNull();
  });
});
