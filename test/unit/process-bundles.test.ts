import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { upToDate } from '../server-bundle';

// The process tests' bundles are made again only when something they were made from changed
// (test/server-bundle.ts): a stale bundle would test yesterday's code without a word.

describe('whether the process bundles are up to date', () => {
  let dir: string;
  let record: string;
  const startedAt = Date.parse('2026-12-07T12:00:00Z');
  const at = (file: string, iso: string) => utimesSync(file, new Date(iso), new Date(iso));

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'bundles-'));
    record = join(dir, 'built.json');
    for (const name of ['main.js', 'a.ts', 'b.ts']) writeFileSync(join(dir, name), name);
    at(join(dir, 'a.ts'), '2026-12-07T11:00:00Z');
    at(join(dir, 'b.ts'), '2026-12-07T11:59:59Z');
    writeFileSync(record, JSON.stringify({ startedAt, inputs: [join(dir, 'a.ts'), join(dir, 'b.ts')], outputs: ['main.js'] }));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('are when every input is older than the build and every output is there', () => {
    expect(upToDate(record)).toBe(true);
  });

  it('are not when an input changed at or after the build started', () => {
    at(join(dir, 'b.ts'), '2026-12-07T12:00:00Z');
    expect(upToDate(record)).toBe(false);
  });

  it('are not when an input is gone, an output is missing, or there is no record to read', () => {
    rmSync(join(dir, 'a.ts'));
    expect(upToDate(record)).toBe(false);
    writeFileSync(join(dir, 'a.ts'), 'a');
    at(join(dir, 'a.ts'), '2026-12-07T11:00:00Z');
    rmSync(join(dir, 'main.js'));
    expect(upToDate(record)).toBe(false);
    expect(upToDate(join(dir, 'none.json'))).toBe(false);
    writeFileSync(record, '{"startedAt":"yesterday"}');
    expect(upToDate(record)).toBe(false);
  });
});
