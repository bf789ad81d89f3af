import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { openApiDocument } from '../../server/api/index';
import { API_VERSIONS, CURRENT_VERSION } from '../../server/http/versions';
import { incompatibleChanges, RELEASE_ORIGIN } from './compatibility';

// npm run lint:openapi: fails when the document the service would publish now breaks a
// client written against the last released one (test/openapi/released/<version>.json).
// Given a file (lint.sh's, as write-document.ts wrote it for the linters), it compares that
// document: the one the linters read, without importing the routes a second time.
// A breaking change needs a new version in server/http/versions.ts and docs/changelog.md;
// `--release` then writes the current document as that version's snapshot.

const snapshot = (version: string) => new URL(`./released/${version}.json`, import.meta.url);

const file = process.argv.slice(2).find((arg) => !arg.startsWith('--'));
const current = JSON.parse(file ? readFileSync(file, 'utf8') : JSON.stringify(openApiDocument(RELEASE_ORIGIN))) as unknown;
if (process.argv.includes('--release')) {
  writeFileSync(snapshot(CURRENT_VERSION), `${JSON.stringify(current, null, 2)}\n`);
  console.log(`wrote test/openapi/released/${CURRENT_VERSION}.json`);
} else {
  const released = [...API_VERSIONS].reverse().find((v) => existsSync(snapshot(v)));
  if (!released) throw new Error('no released document under test/openapi/released/');
  const changes = incompatibleChanges(JSON.parse(readFileSync(snapshot(released), 'utf8')), current);
  if (changes.length) {
    console.error(`The document breaks clients of version ${released} (${changes.length} changes):`);
    for (const change of changes.slice(0, 40)) console.error(`  ${change}`);
    console.error('Make the change compatible, or release a new version (server/http/versions.ts, docs/changelog.md, --release).');
    process.exit(1);
  }
  console.log(`compatible with the released version ${released}`);
}
