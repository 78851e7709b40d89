// Tracks an element's content size with a ResizeObserver.
import { useEffect, useState, type RefObject } from 'react';

/** A measured size in CSS pixels. */
export type ElementSize = { width: number; height: number };

// The size of `ref`'s element (0×0 until measured).
export function useElementSize(ref: RefObject<HTMLElement | null>): ElementSize {
  const [size, setSize] = useState<ElementSize>({ width: 0, height: 0 });
  useEffect(() => {
    const el = ref.current;
    if (!el) {
      return;
    }
    const observer = new ResizeObserver((entries) => {
      const box = entries[0]?.contentRect;
      if (box) {
        setSize((prev) =>
          prev.width === box.width && prev.height === box.height
            ? prev
            : { width: box.width, height: box.height },
        );
      }
    });
    observer.observe(el);
    return () => observer.disconnect();
  }, [ref]);
  return size;
}
