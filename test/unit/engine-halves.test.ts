import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// npm test runs the use-case and API tiers once per engine (vitest.config.ts), and CI fails
// a run in which a test ran in both halves (.ci/summary.mjs): the same full name in both. A
// suite taken through ENGINES must therefore name its engine in its title, or its two cases
// would look like one test run twice; and a test that loops over ENGINES itself would see
// only its half's engine.

const TIERS = ['api', 'usecase'];
const ROOT = join(import.meta.dirname, '..');

const files = TIERS.flatMap((tier) =>
  readdirSync(join(ROOT, tier))
    .filter((name) => name.endsWith('.test.ts'))
    .map((name) => ({ name: `${tier}/${name}`, text: readFileSync(join(ROOT, tier, name), 'utf8') })),
);

/** Each use of ENGINES outside the imports, up to the end of its line. */
const uses = (text: string) => [...text.replace(/^import\b[\s\S]*?from\s*['"][^'"]*['"];?$/gm, '').matchAll(/\bENGINES\b.{0,80}/g)].map((m) => m[0]);
/** A suite taken through ENGINES and named for its engine, or a test of whether the run has one. */
const NAMED = /^ENGINES\)\(\s*(['"`])(?:(?!\1).)*%s|^ENGINES\.includes\(/;

/** The source of each describeWithSqlite(…) call, to its closing parenthesis (string contents included, as counted). */
function sqliteOnlySuites(text: string): string[] {
  return [...text.matchAll(/\bdescribeWithSqlite\(/g)].map((m) => {
    let depth = 0;
    for (let i = m.index; i < text.length; i++) {
      if (text[i] === '(') depth++;
      if (text[i] === ')' && --depth === 0) return text.slice(m.index, i + 1);
    }
    return text.slice(m.index);
  });
}

describe('the tiers run once per engine', () => {
  it('finds the suites it checks', () => {
    expect(files.length).toBeGreaterThan(100);
    expect(files.filter((f) => uses(f.text).length > 0).length).toBeGreaterThan(50);
  });

  it('every suite taken through ENGINES names the engine in its title (%s)', () => {
    const unnamed = files.flatMap((f) => uses(f.text).filter((use) => !NAMED.test(use)).map((use) => `${f.name}: ${use}`));
    expect(unnamed).toEqual([]);
  });

  it('a suite run with the SQLite half alone takes nothing through ENGINES: its PostgreSQL case would never run', () => {
    const inside = files.flatMap((f) => sqliteOnlySuites(f.text).filter((suite) => /\bENGINES\b/.test(suite)).map((suite) => `${f.name}: ${suite.slice(0, 80)}`));
    expect(inside).toEqual([]);
    expect(sqliteOnlySuites(`describeWithSqlite('a (b)', () => {\n  describe.each(ENGINES)('on %s', () => {});\n});\ndescribe.each(ENGINES)`)).toEqual([
      `describeWithSqlite('a (b)', () => {\n  describe.each(ENGINES)('on %s', () => {});\n})`,
    ]);
  });

  it('tells a title that does not name its engine from one that does', () => {
    const check = (source: string) => uses(source).every((use) => NAMED.test(use));
    expect(check(`describe.each(ENGINES)('sales on %s', (engine) => {`)).toBe(true);
    expect(check(`describe.each(ENGINES)('sales', (engine) => {`)).toBe(false);
    expect(check(`for (const engine of ENGINES) {`)).toBe(false);
    expect(check(`describe.skipIf(!ENGINES.includes('postgres'))('across engines', () => {`)).toBe(true);
    expect(check(`import {\n  ENGINES,\n  startTestService,\n} from './harness';\ndescribe.each(ENGINES)('sales', () => {`)).toBe(false);
    expect(check(`import { ENGINES, startTestService } from './harness';`)).toBe(true);
  });
});
