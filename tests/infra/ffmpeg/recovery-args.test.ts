// Argument lists of the crash-recovery runs: the remux to a faststart MP4 and the decode check.
import { describe, expect, it } from 'vitest';
import { buildDecodeCheckArgs } from '../../../src/infra/ffmpeg/probe';
import { buildRemuxArgs } from '../../../src/infra/ffmpeg/remux';

describe('recovery argument lists', () => {
  it('remuxes to a faststart MP4 and decode-checks with -progress', () => {
    expect(buildRemuxArgs('in.mp4', '/d/.out.tmp')).toEqual([
      '-hide_banner',
      '-nostdin',
      '-loglevel',
      'error',
      '-i',
      'in.mp4',
      '-map',
      '0',
      '-c',
      'copy',
      '-movflags',
      '+faststart',
      '-f',
      'mp4',
      '-y',
      '/d/.out.tmp',
    ]);
    expect(buildDecodeCheckArgs('x.mp4')).toEqual([
      '-hide_banner',
      '-nostdin',
      '-nostats',
      '-loglevel',
      'error',
      '-progress',
      'pipe:1',
      '-i',
      'x.mp4',
      '-map',
      '0:v:0',
      '-f',
      'null',
      '-',
    ]);
  });
});
