// The dashboard's charts as SVG in Node (`hub stats --svg DIR`, docs/team-mode.md §18): each
// Vega-Lite spec of src/shared/dashboard-charts.ts compiled to Vega and rendered headless
// (renderer 'none' + toSVG: no canvas, no native code). Files are written atomically.
import { rename, writeFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import * as vega from 'vega';
import * as vegaLite from 'vega-lite';
import type { HubStats } from '../../shared/contract/hub-stats';
import { dashboardFigures, figureCsv } from '../../shared/dashboard-charts';

/** One Vega-Lite spec → SVG text. */
export async function specToSvg(spec: Record<string, unknown>): Promise<string> {
  const compiled = vegaLite.compile(spec as unknown as vegaLite.TopLevelSpec).spec;
  const view = new vega.View(vega.parse(compiled), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

async function writeAtomic(file: string, text: string): Promise<void> {
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, text);
  await rename(tmp, file);
}

/** Writes NAME.svg, NAME.csv and NAME.vl.json for every figure into `dir`; returns the names. */
export async function writeDashboardSvgs(stats: HubStats, dir: string): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  const written: string[] = [];
  for (const f of dashboardFigures(stats)) {
    await writeAtomic(path.join(dir, `${f.name}.svg`), await specToSvg(f.spec));
    await writeAtomic(path.join(dir, `${f.name}.csv`), figureCsv(f));
    await writeAtomic(path.join(dir, `${f.name}.vl.json`), `${JSON.stringify(f.spec, null, 2)}\n`);
    written.push(f.name);
  }
  return written;
}
