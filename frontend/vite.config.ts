import { defineConfig } from 'vitest/config';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { svelteTesting } from '@testing-library/svelte/vite';

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
    environment: 'jsdom',
    include: ['src/**/*.test.ts'],
    // Shared 2-core machines: a loaded run must not fail on the default 5 s,
    // nor a waitFor on testing-library's default 1 s (src/test-setup.ts).
    testTimeout: 60_000,
    // Vitest's default on 2 cores is one worker: two halve the wall time
    // (215 s to 124 s measured), each file still in its own environment.
    maxWorkers: 2,
    setupFiles: ['src/test-setup.ts'],
    // Vitest empties CSS imports, even ?raw ones; the palette's contrast
    // test (src/lib/contrast.test.ts) reads app.css.
    css: { include: [/src\/app\.css/] },
  },
});
