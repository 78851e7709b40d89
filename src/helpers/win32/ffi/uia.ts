// UI Automation over koffi (COM through vtables, com.ts): CUIAutomation8 or CUIAutomation, the
// transaction and connection timeouts through IUIAutomation2 (about 1 s), one cache request with
// the properties of CACHED_PROPERTIES (never Value), the control-view walker's …BuildCache
// methods, and the cached property getters. Implements UiaBackend<bigint> (uia-backend.ts).
// docs/helper-protocol.md §6.
import type { UiaBackend, UiaProps } from '../uia-backend';
import { CACHED_PROPERTIES, FORBIDDEN_IDS, rectToBounds } from '../uia-backend';
import type { ComApi } from './com';
import { ComError, E_FAIL, outPointer } from './com';
import { win32Types } from './koffi';
import { VTABLE } from './vtables';

/** CLSID_CUIAutomation. */
export const CLSID_CUIAUTOMATION = 'ff48dba4-60ef-4201-aa87-54103eef594e';
/** CLSID_CUIAutomation8 (Windows 8+: IUIAutomation2 and later). */
export const CLSID_CUIAUTOMATION8 = 'e22ad333-b25f-460c-83d0-0581107395c9';
/** IID_IUIAutomation. */
export const IID_IUIAUTOMATION = '30cbe57d-d9d0-452a-ab13-7ac5ac4825ee';
/** IID_IUIAutomation2 (TransactionTimeout, ConnectionTimeout). */
export const IID_IUIAUTOMATION2 = '34723aff-0c9d-49d0-9896-7ab52df8cd8a';
/** TreeScope_Element. */
const TREESCOPE_ELEMENT = 1;

/** A UI Automation session: the backend plus its cleanup. */
export type UiaSession = {
  backend: UiaBackend<bigint>;
  /** Which class answered and whether the timeouts were set (for the log line). */
  info: { clsid: string; timeouts: boolean };
  /** Releases the walker, cache request, root and automation objects. */
  close(): void;
};

/** Creates CUIAutomation and everything the walking logic needs; throws ComError on failure. */
export function createUiaSession(com: ComApi, callTimeoutMs: number): UiaSession {
  const { koffi } = com;
  const types = win32Types(koffi);
  const OUT_PTR = koffi.out(koffi.pointer('void *'));
  const OUT_I32 = koffi.out(koffi.pointer('int32_t'));
  // (this, void **out)
  const P_OUT = koffi.proto('int32_t', ['void *', OUT_PTR]);
  // (this, int32)
  const P_I32 = koffi.proto('int32_t', ['void *', 'int32_t']);
  // (this, int32 *out)
  const P_OUT_I32 = koffi.proto('int32_t', ['void *', OUT_I32]);
  // (this, RECT *out)
  const P_OUT_RECT = koffi.proto('int32_t', ['void *', koffi.out(koffi.pointer(types.RECT))]);
  // (this, void *a, void **out)
  const P_PTR_OUT = koffi.proto('int32_t', ['void *', 'void *', OUT_PTR]);
  // (this, void *a, void *b, void **out)
  const P_PTR_PTR_OUT = koffi.proto('int32_t', ['void *', 'void *', 'void *', OUT_PTR]);
  // (this, POINT pt, void *cacheRequest, void **out)
  const P_POINT_PTR_OUT = koffi.proto('int32_t', ['void *', types.POINT, 'void *', OUT_PTR]);
  // (this, void *a, void *b, BOOL *out)
  const P_PTR_PTR_OUTI32 = koffi.proto('int32_t', ['void *', 'void *', 'void *', OUT_I32]);

  const A = VTABLE.IUIAutomation;
  const A2 = VTABLE.IUIAutomation2;
  const EL = VTABLE.IUIAutomationElement;
  const CR = VTABLE.IUIAutomationCacheRequest;
  const TW = VTABLE.IUIAutomationTreeWalker;

  let clsid = CLSID_CUIAUTOMATION8;
  let automation: bigint;
  try {
    automation = com.createInstance(CLSID_CUIAUTOMATION8, IID_IUIAUTOMATION);
  } catch {
    clsid = CLSID_CUIAUTOMATION;
    automation = com.createInstance(CLSID_CUIAUTOMATION, IID_IUIAUTOMATION);
  }
  const owned: bigint[] = [automation];
  const getOut = (
    name: string,
    object: bigint,
    slot: number,
    ...args: unknown[]
  ): bigint | null => {
    const out: unknown[] = [null];
    com.check(
      name,
      object,
      slot,
      args.length === 0 ? P_OUT : args.length === 1 ? P_PTR_OUT : P_PTR_PTR_OUT,
      ...args,
      out,
    );
    return outPointer(out[0]);
  };
  try {
    let timeouts = false;
    const automation2 = com.queryInterface(automation, IID_IUIAUTOMATION2);
    if (automation2 !== null) {
      try {
        com.check(
          'put_ConnectionTimeout',
          automation2,
          A2.put_ConnectionTimeout,
          P_I32,
          callTimeoutMs,
        );
        com.check(
          'put_TransactionTimeout',
          automation2,
          A2.put_TransactionTimeout,
          P_I32,
          callTimeoutMs,
        );
        timeouts = true;
      } catch {
        timeouts = false;
      }
      owned.push(automation2);
    }
    const walker = getOut('get_ControlViewWalker', automation, A.get_ControlViewWalker);
    if (walker === null) {
      throw new ComError('get_ControlViewWalker', E_FAIL);
    }
    owned.push(walker);
    const cacheRequest = getOut('CreateCacheRequest', automation, A.CreateCacheRequest);
    if (cacheRequest === null) {
      throw new ComError('CreateCacheRequest', E_FAIL);
    }
    owned.push(cacheRequest);
    for (const id of CACHED_PROPERTIES) {
      if (FORBIDDEN_IDS.includes(id)) {
        throw new Error(`property ${id} must never be requested (docs/helper-protocol.md §6)`);
      }
      com.check('AddProperty', cacheRequest, CR.AddProperty, P_I32, id);
    }
    com.check('put_TreeScope', cacheRequest, CR.put_TreeScope, P_I32, TREESCOPE_ELEMENT);
    const root = getOut(
      'GetRootElementBuildCache',
      automation,
      A.GetRootElementBuildCache,
      cacheRequest,
    );
    if (root !== null) {
      owned.push(root);
    }

    const isRoot = (element: bigint): boolean => {
      if (root === null) {
        return false;
      }
      const same = [0];
      com.check(
        'CompareElements',
        automation,
        A.CompareElements,
        P_PTR_PTR_OUTI32,
        element,
        root,
        same,
      );
      return (same[0] ?? 0) !== 0;
    };
    const int = (name: string, element: bigint, slot: number): number => {
      const out = [0];
      com.check(name, element, slot, P_OUT_I32, out);
      return out[0] ?? 0;
    };
    const bstr = (name: string, element: bigint, slot: number): string => {
      const out: unknown[] = [null];
      com.check(name, element, slot, P_OUT, out);
      return com.takeBstr(out[0]);
    };

    const backend: UiaBackend<bigint> = {
      elementFromPoint(x, y) {
        const out: unknown[] = [null];
        com.check(
          'ElementFromPointBuildCache',
          automation,
          A.ElementFromPointBuildCache,
          P_POINT_PTR_OUT,
          { x, y },
          cacheRequest,
          out,
        );
        const element = outPointer(out[0]);
        if (element !== null && isRoot(element)) {
          com.release(element); // the bare desktop: no application there (protocol §3: null)
          return null;
        }
        return element;
      },
      focusedElement() {
        return getOut(
          'GetFocusedElementBuildCache',
          automation,
          A.GetFocusedElementBuildCache,
          cacheRequest,
        );
      },
      elementFromHandle(hwnd) {
        return getOut(
          'ElementFromHandleBuildCache',
          automation,
          A.ElementFromHandleBuildCache,
          hwnd,
          cacheRequest,
        );
      },
      parent(element) {
        const parent = getOut(
          'GetParentElementBuildCache',
          walker,
          TW.GetParentElementBuildCache,
          element,
          cacheRequest,
        );
        if (parent !== null && isRoot(parent)) {
          com.release(parent);
          return null;
        }
        return parent;
      },
      firstChild(element) {
        return getOut(
          'GetFirstChildElementBuildCache',
          walker,
          TW.GetFirstChildElementBuildCache,
          element,
          cacheRequest,
        );
      },
      nextSibling(element) {
        return getOut(
          'GetNextSiblingElementBuildCache',
          walker,
          TW.GetNextSiblingElementBuildCache,
          element,
          cacheRequest,
        );
      },
      props(element): UiaProps {
        const rect: Record<string, number> = {};
        com.check(
          'get_CachedBoundingRectangle',
          element,
          EL.get_CachedBoundingRectangle,
          P_OUT_RECT,
          rect,
        );
        return {
          controlType: int('get_CachedControlType', element, EL.get_CachedControlType),
          name: bstr('get_CachedName', element, EL.get_CachedName),
          bounds: rectToBounds({
            left: rect.left ?? 0,
            top: rect.top ?? 0,
            right: rect.right ?? 0,
            bottom: rect.bottom ?? 0,
          }),
          isPassword: int('get_CachedIsPassword', element, EL.get_CachedIsPassword) !== 0,
          processId: int('get_CachedProcessId', element, EL.get_CachedProcessId),
          hasKeyboardFocus:
            int('get_CachedHasKeyboardFocus', element, EL.get_CachedHasKeyboardFocus) !== 0,
          isEnabled: int('get_CachedIsEnabled', element, EL.get_CachedIsEnabled) !== 0,
          automationId: bstr('get_CachedAutomationId', element, EL.get_CachedAutomationId),
          className: bstr('get_CachedClassName', element, EL.get_CachedClassName),
        };
      },
      release(element) {
        com.release(element);
      },
      setCallTimeout(ms) {
        if (automation2 !== null && timeouts) {
          com.check(
            'put_TransactionTimeout',
            automation2,
            A2.put_TransactionTimeout,
            P_I32,
            Math.max(1, Math.round(ms)),
          );
        }
      },
    };
    return {
      backend,
      info: { clsid, timeouts },
      close() {
        for (const object of owned.reverse()) {
          try {
            com.release(object);
          } catch {
            // releasing at exit is best effort
          }
        }
        owned.length = 0;
      },
    };
  } catch (error) {
    for (const object of owned.reverse()) {
      com.release(object);
    }
    throw error;
  }
}
