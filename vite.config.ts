// Builds the payment screen's browser bundle (widget/screen/client.tsx) into dist/client.
// The server renders the HTML itself and finds the hashed file names in the manifest
// (dist/client/.vite/manifest.json); it serves dist/client/assets at /assets/.
// The widget loader has its own build: vite.widget.config.ts.

import preact from '@preact/preset-vite';
import { defineConfig } from 'vite';

export default defineConfig({
  // Files land in dist/client/assets/ and are referenced as /assets/<file>.
  base: '/',
  publicDir: false,
  plugins: [
    preact({
      // Hot reload instrumentation has no use under Vitest and would wrap components.
      prefreshEnabled: !process.env.VITEST,
      devToolsEnabled: false,
    }),
  ],
  build: {
    outDir: 'dist/client',
    assetsDir: 'assets',
    emptyOutDir: true,
    manifest: true,
    copyPublicDir: false,
    target: 'es2022',
    sourcemap: false,
    // The preload helper would inject <link rel=modulepreload> tags without the CSP nonce;
    // the one lazy chunk (the embed bridge) is small enough to fetch on demand.
    modulePreload: false,
    rollupOptions: {
      input: 'widget/screen/client.tsx',
    },
  },
});
