// DecoderStderrMonitor on ffmpeg's real banner text: readiness from "Stream mapping:", the output
// frame size from the rawvideo stream line (also when split across chunks), and the tail.
import { describe, expect, it } from 'vitest';
import { DecoderStderrMonitor } from '../../../../src/pipeline/media/decoder/stderr-monitor';

const BANNER = [
  "Input #0, mov,mp4,m4a,3gp,3g2,mj2, from 'clip.mp4':",
  '  Stream #0:0[0x1](und): Video: h264 (High) (avc1 / 0x31637661), yuv420p, 64x48, 10 fps',
  'Stream mapping:',
  '  Stream #0:0 -> #0:0 (h264 (native) -> rawvideo (native))',
  "Output #0, rawvideo, to 'pipe:':",
  '  Stream #0:0: Video: rawvideo (RGB[24] / 0x18424752), rgb24(pc, gbr/bt709/bt709), 64x48, q=2-31',
  '',
].join('\n');

describe('DecoderStderrMonitor', () => {
  it('signals readiness, then the output size, once each', () => {
    const monitor = new DecoderStderrMonitor();
    expect(monitor.push(BANNER)).toEqual([
      { kind: 'ready' },
      { kind: 'output-size', width: 64, height: 48 },
    ]);
    // the input stream line before "Output #0" is not taken for the output size
    expect(monitor.push('  Stream #0:0: Video: rawvideo (RGB[24]), rgb24, 32x16\n')).toEqual([]);
  });

  it('finds lines split across chunks and CRLF endings', () => {
    const monitor = new DecoderStderrMonitor();
    const text = BANNER.replaceAll('\n', '\r\n');
    const signals = [];
    for (let i = 0; i < text.length; i += 7) {
      signals.push(...monitor.push(text.slice(i, i + 7)));
    }
    expect(signals).toEqual([{ kind: 'ready' }, { kind: 'output-size', width: 64, height: 48 }]);
  });

  it('quotes the last 8 lines, each once, and nothing when stderr was empty', () => {
    const monitor = new DecoderStderrMonitor();
    expect(monitor.tailLines()).toBe('');
    expect(monitor.tailSuffix()).toBe('.');
    monitor.push(Array.from({ length: 12 }, (_, i) => `line ${i}`).join('\n'));
    expect(monitor.tailLines().split('\n')).toEqual([
      'line 4',
      'line 5',
      'line 6',
      'line 7',
      'line 8',
      'line 9',
      'line 10',
      'line 11',
    ]);
    expect(monitor.tailSuffix()).toMatch(/^:\nline 4\n/);
  });
});
