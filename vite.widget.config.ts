// Builds /widget.js alone: an IIFE with no imports, into its own folder so the screen's
// build (dist/client) and this one never empty each other's output.

import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { defineConfig, type Plugin } from 'vite';

const OUT_DIR = 'dist/widget';
const FILE = 'widget.js';
// Merchants pay for every byte on every page view; the build fails rather than drift.
// 2,048 until the overlay learned the frame's language (32 B, issue 29's review); 2,080
// until the loader was rewritten smaller (2,075 -> 1,900 B, docs/performance-changelog.md,
// "widget loader weight"); 1,900 until the frame's page drew the overlay's dialog (issue
// 29's 1,400: 1,390 B, docs/performance-changelog.md, "widget loader to 1,400 B"). Any
// growth is a decision.
const GZIP_BUDGET = 1400;

/** Writes manifest.json: the content hash for the versioned URL and an SRI value. */
function budgetAndManifest(): Plugin {
  return {
    name: 'widget-budget-manifest',
    apply: 'build',
    writeBundle() {
      const code = readFileSync(`${OUT_DIR}/${FILE}`);
      const gzip = gzipSync(code, { level: 9 }).length;
      const manifest = {
        file: FILE,
        hash: createHash('sha256').update(code).digest('hex').slice(0, 8),
        integrity: 'sha384-' + createHash('sha384').update(code).digest('base64'),
        bytes: code.length,
        gzip,
      };
      writeFileSync(`${OUT_DIR}/manifest.json`, JSON.stringify(manifest, null, 2) + '\n');
      this.info(`${FILE}: ${code.length} B, ${gzip} B gzip -9 (budget ${GZIP_BUDGET})`);
      if (gzip > GZIP_BUDGET) this.error(`${FILE} is ${gzip} B gzipped, over the ${GZIP_BUDGET} B budget`);
    },
  };
}

export default defineConfig({
  publicDir: false,
  plugins: [budgetAndManifest()],
  build: {
    outDir: OUT_DIR,
    emptyOutDir: true,
    // Merchant pages: browsers with <dialog> (2022+) already support ES2020.
    target: 'es2020',
    minify: true,
    sourcemap: false,
    copyPublicDir: false,
    lib: {
      entry: 'widget/embed/loader.ts',
      formats: ['iife'],
      name: 'CheckoutWidget',
      fileName: () => FILE,
    },
  },
});
