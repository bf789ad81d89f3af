// Sums the JSON reports of every suite (Vitest, Playwright) into one closing line, and
// gives each tier's wall time (issue 48: the suite's time is tracked run by run).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.argv[2] ?? 'reports';
let passed = 0;
let failed = 0;
// Not a failed test, but a run that fails: see ranTwice.
let ranInBoth = 0;
const seconds = (ms) => `${Math.round(ms / 1000)} s`;

/** A test that ran: passed or failed, not skipped. */
const ran = (f) => f.assertionResults.filter((a) => a.status === 'passed' || a.status === 'failed');
const tierOf = (f) => /\/test\/([^/]+)\//.exec(f.name)?.[1] ?? 'other';
const HALVES = new Set(['usecase', 'api']);

/**
 * npm test runs each use-case and API file in two halves, SQLite then PostgreSQL
 * (vitest.config.ts), one group after the other: a file's second report is its PostgreSQL
 * half, and every report from the first of those on belongs to that half.
 */
function postgresHalf(results) {
  const seen = new Set();
  let from = Infinity;
  for (const f of [...results].sort((a, b) => a.startTime - b.startTime)) {
    if (!HALVES.has(tierOf(f))) continue;
    if (seen.has(f.name)) from = Math.min(from, f.startTime);
    seen.add(f.name);
  }
  return (f) => HALVES.has(tierOf(f)) && f.startTime >= from;
}

/** Tests that ran in both halves of their file (the same full name): run twice, or a suite whose title does not name its engine. */
function ranTwice(results, onPostgres) {
  const first = new Map();
  const twice = [];
  for (const f of results.filter((r) => HALVES.has(tierOf(r)) && !onPostgres(r))) first.set(f.name, new Set(ran(f).map((a) => a.fullName)));
  for (const f of results.filter(onPostgres)) for (const a of ran(f)) if (first.get(f.name)?.has(a.fullName)) twice.push(`${f.name}: ${a.fullName}`);
  return twice;
}

/**
 * Vitest's tiers by folder (test/<tier>/), the use-case and API tiers' halves apart: run one
 * after the other (groupOrder), so each has a wall time of its own. And the quick tier's:
 * `npm run test:quick` runs the unit tier and the use-case and API tiers' SQLite halves, which
 * npm test runs first, so their span is its time without its start-up.
 */
function vitestTiers(results, onPostgres) {
  const tiers = new Map();
  for (const f of results) {
    // A file whose tests all ran in its other half (or none ran) costs this half nothing.
    if (ran(f).length === 0) continue;
    // The two tiers' PostgreSQL halves run as one group (the project `postgres`).
    const tier = onPostgres(f) ? 'usecase and api on PostgreSQL' : tierOf(f);
    const t = tiers.get(tier) ?? { start: Infinity, end: 0, summed: 0, files: 0 };
    t.start = Math.min(t.start, f.startTime);
    t.end = Math.max(t.end, f.endTime);
    t.summed += f.endTime - f.startTime;
    t.files += 1;
    tiers.set(tier, t);
  }
  for (const [tier, t] of [...tiers].sort(([, a], [, b]) => a.start - b.start)) {
    console.log(`  ${tier}: ${seconds(t.end - t.start)} of wall time, ${t.files} files, ${seconds(t.summed)} summed over them`);
  }
  const quick = ['unit', 'usecase', 'api'].map((name) => tiers.get(name)).filter(Boolean);
  if (quick.length === 3) {
    const span = Math.max(...quick.map((t) => t.end)) - Math.min(...quick.map((t) => t.start));
    console.log(`  quick tier (npm run test:quick's tests: unit, and use case and API on SQLite): ${seconds(span)} of wall time`);
  }
}

/** Every result's duration, retries included: what the workers spent on tests. */
function playwrightSummed(suites) {
  let ms = 0;
  for (const suite of suites) {
    ms += playwrightSummed(suite.suites ?? []);
    for (const spec of suite.specs ?? []) for (const test of spec.tests) for (const result of test.results) ms += result.duration;
  }
  return ms;
}

const files = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.json')) : [];
for (const file of files) {
  const report = JSON.parse(readFileSync(join(dir, file), 'utf8'));
  if ('numPassedTests' in report) {
    // Vitest
    passed += report.numPassedTests;
    failed += report.numFailedTests;
    // A file that failed to load has no test results but is a failure.
    failed += (report.testResults ?? []).filter((f) => f.status === 'failed' && f.assertionResults.length === 0).length;
    console.log(`${file}: ${report.numPassedTests} passed, ${report.numFailedTests} failed`);
    const results = report.testResults ?? [];
    const onPostgres = postgresHalf(results);
    vitestTiers(results, onPostgres);
    const twice = ranTwice(results, onPostgres);
    if (twice.length > 0) {
      console.log(`  ${twice.length} tests ran in both halves (describeWithSqlite in test/api/harness.ts runs a suite once, with the SQLite half; a suite taken through ENGINES names its engine):`);
      for (const name of twice) console.log(`    ${name}`);
      ranInBoth += twice.length;
    }
  } else if (report.stats) {
    // Playwright
    const p = report.stats.expected + report.stats.flaky;
    const f = report.stats.unexpected;
    passed += p;
    failed += f;
    console.log(`${file}: ${p} passed, ${f} failed`);
    console.log(`  e2e: ${seconds(report.stats.duration)} of wall time, ${seconds(playwrightSummed(report.suites ?? []))} summed over its tests`);
  }
}
if (files.length === 0) {
  console.log('no test reports found');
  failed += 1;
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 || ranInBoth > 0 ? 1 : 0);
