// An in-memory UI Automation for the Windows helper's walking logic: a tree of elements, handles
// that must each be released once, a fake clock that advances on every cross-process call, and
// failures on chosen elements. Implements UiaBackend (src/helpers/win32/uia-backend.ts).
import type { AxBounds } from '../../../src/axtree/model';
import type { UiaBackend, UiaProps } from '../../../src/helpers/win32/uia-backend';

export type FakeNode = {
  controlType?: number;
  name?: string;
  bounds?: AxBounds | null;
  isPassword?: boolean;
  pid?: number;
  focused?: boolean;
  enabled?: boolean;
  failProps?: boolean;
  failParent?: boolean;
  children?: FakeNode[];
};

type Handle = { id: number; node: FakeNode; released: boolean };

export class FakeUia implements UiaBackend<Handle> {
  nowMs = 0;
  calls: string[] = [];
  callTimeouts: number[] = [];
  private nextId = 1;
  private readonly handles: Handle[] = [];
  private readonly parents = new Map<FakeNode, FakeNode>();

  constructor(
    /** The desktop root: its children are the top-level windows. */
    readonly root: FakeNode,
    /** ms each cross-process call takes on the fake clock. */
    readonly costMs = 1,
    readonly pointTarget: (x: number, y: number) => FakeNode | null = () => null,
    public focused: FakeNode | null = null,
  ) {
    const index = (node: FakeNode): void => {
      for (const child of node.children ?? []) {
        this.parents.set(child, node);
        index(child);
      }
    };
    index(root);
  }

  readonly clock = (): number => this.nowMs;

  private handle(node: FakeNode | null | undefined, call: string): Handle | null {
    this.calls.push(call);
    this.nowMs += this.costMs;
    if (node === null || node === undefined) {
      return null;
    }
    const handle = { id: this.nextId++, node, released: false };
    this.handles.push(handle);
    return handle;
  }

  private live(handle: Handle): void {
    if (handle.released) {
      throw new Error(`handle ${handle.id} used after release`);
    }
  }

  outstanding(): number {
    return this.handles.filter((h) => !h.released).length;
  }

  elementFromPoint(x: number, y: number): Handle | null {
    return this.handle(this.pointTarget(x, y), 'ElementFromPointBuildCache');
  }
  focusedElement(): Handle | null {
    return this.handle(this.focused, 'GetFocusedElementBuildCache');
  }
  elementFromHandle(hwnd: bigint): Handle | null {
    return this.handle(this.root.children?.[Number(hwnd)], 'ElementFromHandleBuildCache');
  }
  parent(element: Handle): Handle | null {
    this.live(element);
    if (element.node.failParent) {
      this.calls.push('GetParentElementBuildCache');
      throw new Error('UIA_E_ELEMENTNOTAVAILABLE');
    }
    const parent = this.parents.get(element.node);
    return this.handle(parent === this.root ? null : parent, 'GetParentElementBuildCache');
  }
  firstChild(element: Handle): Handle | null {
    this.live(element);
    return this.handle(element.node.children?.[0], 'GetFirstChildElementBuildCache');
  }
  nextSibling(element: Handle): Handle | null {
    this.live(element);
    const parent = this.parents.get(element.node);
    const siblings = parent?.children ?? [];
    return this.handle(
      siblings[siblings.indexOf(element.node) + 1],
      'GetNextSiblingElementBuildCache',
    );
  }
  props(element: Handle): UiaProps {
    this.live(element);
    const n = element.node;
    if (n.failProps) {
      throw new Error('UIA_E_ELEMENTNOTAVAILABLE');
    }
    // cached: no call, no time
    return {
      controlType: n.controlType ?? 50033,
      name: n.name ?? '',
      bounds: n.bounds ?? null,
      isPassword: n.isPassword ?? false,
      processId: n.pid ?? 0,
      hasKeyboardFocus: n.focused ?? false,
      isEnabled: n.enabled ?? true,
      automationId: '',
      className: '',
    };
  }
  release(element: Handle): void {
    if (element.released) {
      throw new Error(`handle ${element.id} released twice`);
    }
    element.released = true;
  }
  setCallTimeout(ms: number): void {
    this.callTimeouts.push(ms);
  }
}

/** A node with `count` leaf children named `prefix0…`. */
export function withLeaves(node: FakeNode, count: number, prefix = 'item'): FakeNode {
  node.children = Array.from({ length: count }, (_, i) => ({
    controlType: 50007,
    name: `${prefix}${i}`,
  }));
  return node;
}
