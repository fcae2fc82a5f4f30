// Vitest setup: waitFor and findBy wait for the DOM to show what a test
// needs; on a loaded 2-core machine that can take longer than
// testing-library's default of one second. The bound only ends a test
// that hangs.
import { configure } from '@testing-library/svelte';

configure({ asyncUtilTimeout: 30_000 });

// jsdom has <dialog> but not its methods. The least that Modal.svelte
// needs: showModal and close toggle `open`, and close fires `close`. (No
// focus trap or inert page: the browser tests cover those.)
if (typeof HTMLDialogElement !== 'undefined' && !HTMLDialogElement.prototype.showModal) {
  HTMLDialogElement.prototype.showModal = function (this: HTMLDialogElement) {
    this.open = true;
  };
  HTMLDialogElement.prototype.close = function (this: HTMLDialogElement) {
    if (!this.open) return;
    this.open = false;
    this.dispatchEvent(new Event('close'));
  };
}

// jsdom has no object URLs. Made-up ones are enough: jsdom loads no
// images. Tests that count revocations spy on these.
if (typeof URL.createObjectURL !== 'function') {
  let n = 0;
  URL.createObjectURL = () => `blob:test/${++n}`;
  URL.revokeObjectURL = () => {};
}
