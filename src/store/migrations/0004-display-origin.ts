// Version 4: the coordinate contract (docs/architecture.md §5 "Coordinates"). Every recording
// stores where its recorded display sits in the virtual desktop (physical px, negative left of
// or above the primary monitor) beside its size and scale; events and accessibility bounds are
// relative to that corner. Existing rows were recorded on Linux (the whole X screen) or
// imported: 0,0.
import type { Migration } from './index';

const SQL = `
ALTER TABLE recordings ADD COLUMN display_x INTEGER NOT NULL DEFAULT 0;
ALTER TABLE recordings ADD COLUMN display_y INTEGER NOT NULL DEFAULT 0;
`;

/** Adds the recorded display's origin to recordings. */
export const migration0004: Migration = {
  version: 4,
  name: 'display-origin',
  up: (db) => {
    db.exec(SQL);
  },
};
