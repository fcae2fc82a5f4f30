import { defineConfig } from 'vitest/config';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { svelteTesting } from '@testing-library/svelte/vite';

// The test files that need no DOM run in the 'logic' project below. A file
// stays in 'dom' when it renders, or when what it tests reads the DOM or
// works otherwise without one: prefs.ts keeps nothing where there is no
// localStorage, turns.svelte.ts falls back to timers where there is no
// requestAnimationFrame (turns.test.ts proves the frames), uploads and
// images read files with FileReader.
const LOGIC = [
  'src/lib/chart.test.ts',
  'src/lib/contrast.test.ts',
  'src/lib/dates.test.ts',
  'src/lib/diff.test.ts',
  'src/lib/evals.test.ts',
  'src/lib/fake-arena.test.ts',
  'src/lib/fake-tree.test.ts',
  'src/lib/format.test.ts',
  'src/lib/models.test.ts',
  'src/lib/route.test.ts',
  'src/lib/runsettings.test.ts',
  'src/lib/stores/app.test.ts',
  'src/lib/stores/damaged.test.ts',
  'src/lib/stores/evalprogress.test.ts',
  'src/lib/stores/focus.test.ts',
  'src/lib/stores/imagecache.test.ts',
  'src/lib/stores/knowledge.test.ts',
  'src/lib/stores/meter.svelte.test.ts',
  'src/lib/stores/navigation.test.ts',
  'src/lib/stores/paste.test.ts',
  'src/lib/stores/prompts.test.ts',
  'src/lib/stores/reducer.test.ts',
  'src/lib/stores/running.test.ts',
  'src/lib/stores/sections.test.ts',
  'src/lib/stores/sessions.test.ts',
  'src/lib/stores/sidebyside.test.ts',
  'src/lib/stores/turnschanged.test.ts',
  'src/lib/virtual.test.ts',
  'src/lib/waterfall.test.ts',
];

export default defineConfig({
  plugins: [svelte(), svelteTesting()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // Everything loads from our own origin; nothing is fetched from a CDN.
    assetsInlineLimit: 0,
    // vega (charts) is one lazily loaded chunk of ~850 kB; the app itself is far smaller.
    chunkSizeWarningLimit: 1000,
  },
  test: {
    // Shared 2-core machines: a loaded run must not fail on the default 5 s,
    // nor a waitFor on testing-library's default 1 s (src/test-setup.ts).
    testTimeout: 60_000,
    // Vitest's default on 2 cores is one worker: two halve the wall time
    // (215 s to 124 s measured), each file still in its own environment.
    maxWorkers: 2,
    // Vitest empties CSS imports, even ?raw ones; the palette's contrast
    // test (src/lib/contrast.test.ts) reads app.css.
    css: { include: [/src\/app\.css/] },
    projects: [
      {
        extends: true,
        test: {
          name: 'dom',
          environment: 'jsdom',
          include: ['src/**/*.test.ts'],
          exclude: LOGIC,
          setupFiles: ['src/test-setup.ts'],
        },
      },
      {
        // The stores and the pure logic, which render nothing: Node's
        // globals, no jsdom (its set-up, about 3 s a file, was most of
        // vitest's time), modules transformed for the client as the app
        // ships them (vitest-env-runes.ts).
        extends: true,
        test: { name: 'logic', environment: './vitest-env-runes.ts', include: LOGIC },
      },
    ],
  },
});
