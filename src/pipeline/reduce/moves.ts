// Pass 2: ownership of moves outside button holds (docs/action-reduction.md §C.7).
import type { Draft } from './drafts';
import { resolveDraft } from './drafts';
import type { PreparedEvents } from './prepare';

/** Moves assigned to one surviving draft. */
export type DraftMoves = {
  /** Moves before the draft's first main event (ascending positions). */
  preMove: number[];
  /** Moves after its first main event, before a later event it owns (ascending positions). */
  path: number[];
};

// Assigns each free move run to the step owning the next owned non-move event: as its path when
// that step already started (a scroll group or keyboard run that continues), else as its
// pre-move. Moves after the last owned event are `trailing-move`.
export function assignMoves(
  prepared: PreparedEvents,
  drafts: readonly Draft[],
  ownerOf: Int32Array,
  anchorOf: ReadonlyMap<Draft, number>,
): Map<Draft, DraftMoves> {
  const { events, unowned } = prepared;
  const moves = new Map<Draft, DraftMoves>();
  let next: Draft | null = null;
  let nextAnchor = -1;
  let nextMoves: DraftMoves | null = null;
  for (let pos = events.length - 1; pos >= 0; pos -= 1) {
    if (unowned.has(pos)) {
      continue;
    }
    const owner = drafts[ownerOf[pos] ?? -1] ?? null;
    if (events[pos]?.kind !== 'move') {
      if (owner !== null) {
        next = resolveDraft(owner);
        nextAnchor = anchorOf.get(next) ?? pos;
        nextMoves = moves.get(next) ?? null;
        if (nextMoves === null) {
          nextMoves = { preMove: [], path: [] };
          moves.set(next, nextMoves);
        }
      }
      continue;
    }
    if (owner !== null) {
      // A hold move, already owned by its press.
      continue;
    }
    if (next === null || nextMoves === null) {
      unowned.set(pos, 'trailing-move');
    } else if (nextAnchor < pos) {
      nextMoves.path.push(pos);
    } else {
      nextMoves.preMove.push(pos);
    }
  }
  for (const entry of moves.values()) {
    entry.preMove.reverse();
    entry.path.reverse();
  }
  return moves;
}
