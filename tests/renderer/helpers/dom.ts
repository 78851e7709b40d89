// Component and page test setup (tests/renderer/{components,pages}, run under happy-dom): the
// store and api-client resets of ./setup plus unmounting whatever a test rendered. Import it
// first; vitest's globals are off, so Testing Library cannot register its own cleanup.
import './setup';
import { cleanup } from '@testing-library/react';
import { afterEach } from 'vitest';

// vitest runs after-each hooks last registered first: the tree unmounts before the stores reset
afterEach(() => {
  cleanup();
});

// happy-dom 21 tests a number field's step with a float remainder (0.75 % 0.0001 is not 0), so
// every typed 4-decimal coordinate counts as a step mismatch and blocks the form's submit.
// Browsers compare in decimal (HTML's "allowed value step": value − step base is a whole
// number of steps); so does this, to 1e-9 of a step.
Object.defineProperty(window.ValidityState.prototype, 'stepMismatch', {
  configurable: true,
  // happy-dom's ValidityState keeps its field as `element`
  get(this: { element: HTMLElement }): boolean {
    const input = this.element;
    if (
      !(input instanceof HTMLInputElement) ||
      (input.type !== 'number' && input.type !== 'range') ||
      input.value === ''
    ) {
      return false;
    }
    const stepText = input.getAttribute('step');
    if (stepText === 'any') {
      return false;
    }
    const step = stepText === null ? 1 : Number(stepText);
    const base = Number(input.getAttribute('min') ?? 0);
    const steps = (Number(input.value) - base) / step;
    return Math.abs(steps - Math.round(steps)) > 1e-9;
  },
});
