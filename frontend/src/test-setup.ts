// Vitest setup: waitFor and findBy wait for the DOM to show what a test
// needs; on a loaded 2-core machine that can take longer than
// testing-library's default of one second. The bound only ends a test
// that hangs.
import { configure } from '@testing-library/svelte';

configure({ asyncUtilTimeout: 30_000 });
