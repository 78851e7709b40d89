// `get_action_type`: the ordered substring dispatch of docs/agentnet-raw-format.md §12.2.

/** What a description converts to (`press` may still yield writes under the shift rule). */
export type DescriptionType =
  | 'click'
  | 'doubleClick'
  | 'tripleClick'
  | 'rightClick'
  | 'middleClick'
  | 'write'
  | 'press'
  | 'dragTo'
  | 'scroll'
  | 'terminate';

/** Lower-cased substrings → type; first match wins, in this order. */
const DISPATCH: readonly (readonly [readonly string[], DescriptionType])[] = [
  [['single right click'], 'rightClick'],
  // a double right click becomes a single rightClick
  [['double right click'], 'rightClick'],
  [['single left click', 'single x1 click'], 'click'],
  [['double left click'], 'doubleClick'],
  [['single middle click'], 'middleClick'],
  [['triple left click'], 'tripleClick'],
  [['mouse long press left button'], 'click'],
  [['mouse long press right button'], 'rightClick'],
  [['mouse long press middle button'], 'middleClick'],
  [['type'], 'write'],
  [['press'], 'press'],
  [['drag'], 'dragTo'],
  [['scroll'], 'scroll'],
  [['terminate'], 'terminate'],
];

// The conversion type of a description, or null where the reference raises ValueError.
export function descriptionType(description: string): DescriptionType | null {
  const lower = description.toLowerCase();
  for (const [needles, type] of DISPATCH) {
    if (needles.some((needle) => lower.includes(needle))) {
      return type;
    }
  }
  return null;
}
