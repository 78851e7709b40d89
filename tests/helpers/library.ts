// Temp libraries and a snapshot of everything in one, to prove a failed operation changed nothing.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openLibrary, type Library } from '../../src/services/library/library';

/** A fresh library in a temp folder plus its cleanup. */
export function tempLibrary(): { lib: Library; dir: string; cleanup: () => void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cua-lib-'));
  const lib = openLibrary(dir);
  return {
    lib,
    dir,
    cleanup: () => {
      lib.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

function listFiles(root: string, rel = ''): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(path.join(root, rel), { withFileTypes: true })) {
    const p = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory()) {
      out.push(`${p}/`, ...listFiles(root, p));
    } else if (!/^library\.sqlite(-wal|-shm)?$/.test(p)) {
      out.push(`${p} ${fs.statSync(path.join(root, p)).size}`);
    }
  }
  return out.sort();
}

/** Every file (except the SQLite files) and the row count of every table. */
export function librarySnapshot(lib: Library): { files: string[]; rows: Record<string, number> } {
  const tables = lib.db
    .prepare(`SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`)
    .all() as { name: string }[];
  const rows: Record<string, number> = {};
  for (const { name } of tables) {
    rows[name] = (lib.db.prepare(`SELECT COUNT(*) AS n FROM "${name}"`).get() as { n: number }).n;
  }
  return { files: listFiles(lib.dir), rows };
}
