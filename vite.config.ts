// Builds the payment screen's browser bundle (widget/screen/client.tsx) into dist/client.
// The server renders the HTML itself and finds the hashed file names in the manifest
// (dist/client/.vite/manifest.json); it serves dist/client/assets at /assets/.
// The widget loader has its own build: vite.widget.config.ts.

import { gzipSync } from 'node:zlib';
import preact from '@preact/preset-vite';
import { defineConfig, type Plugin } from 'vite';

// Customers on slow phones pay for every byte before they can pay; the build fails rather
// than drift. Totals over all emitted files of each kind, gzip -9.
const BUDGET = { js: 30 * 1024, css: 6 * 1024 };

function budget(): Plugin {
  return {
    name: 'screen-budget',
    apply: 'build',
    generateBundle(_, bundle) {
      const totals = { js: 0, css: 0 };
      for (const file of Object.values(bundle)) {
        const kind = file.fileName.endsWith('.js') ? 'js' : file.fileName.endsWith('.css') ? 'css' : null;
        if (!kind) continue;
        const source = file.type === 'chunk' ? file.code : file.source;
        totals[kind] += gzipSync(source, { level: 9 }).length;
      }
      this.info(`gzip -9: js ${totals.js} B (budget ${BUDGET.js}), css ${totals.css} B (budget ${BUDGET.css})`);
      for (const kind of ['js', 'css'] as const) {
        if (totals[kind] > BUDGET[kind]) this.error(`${kind} is ${totals[kind]} B gzipped, over the ${BUDGET[kind]} B budget`);
      }
    },
  };
}

/**
 * Vite wraps each dynamic import in its preload helper (about 700 B gzip here) to fetch the
 * chunk's dependencies and CSS alongside it. With modulePreload off and no CSS in the lazy
 * chunks (the frame bridge, the challenge dialog) it has nothing to fetch: the wrapper only
 * calls the import, so that is all it does here.
 */
function plainDynamicImports(): Plugin {
  const helper = '\0vite/preload-helper.js';
  return {
    name: 'plain-dynamic-imports',
    apply: 'build',
    enforce: 'pre',
    resolveId: (id) => (id === helper ? helper : null),
    load: (id) => (id === helper ? 'export const __vitePreload = (load) => load();' : null),
    generateBundle(_, bundle) {
      // The real helper would fetch a lazy chunk's CSS: without it, such CSS would never load.
      for (const file of Object.values(bundle)) {
        if (file.type === 'chunk' && file.isDynamicEntry && file.viteMetadata?.importedCss.size) {
          this.error(`${file.fileName} imports CSS, which plainDynamicImports() would not load: import it from the entry instead`);
        }
      }
    },
  };
}

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
    plainDynamicImports(),
    budget(),
  ],
  build: {
    outDir: 'dist/client',
    assetsDir: 'assets',
    emptyOutDir: true,
    manifest: true,
    copyPublicDir: false,
    target: 'es2022',
    // Terser (three passes over the whole module) writes the page's script about 100 B gzip
    // smaller than Vite's default minifier (docs/performance-changelog.md, seventh session).
    // Not for the widget loader, where it comes out larger (vite.widget.config.ts).
    minify: 'terser',
    terserOptions: { ecma: 2020, module: true, toplevel: true, compress: { passes: 3 } },
    sourcemap: false,
    // The preload helper would inject <link rel=modulepreload> tags without the CSP nonce;
    // the one lazy chunk (the embed bridge) is small enough to fetch on demand.
    modulePreload: false,
    rollupOptions: {
      input: 'widget/screen/client.tsx',
    },
  },
});
