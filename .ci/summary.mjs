// Sums the JSON reports of every suite (Vitest, Playwright) into one closing line, and
// gives each tier's wall time (issue 48: the suite's time is tracked run by run).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.argv[2] ?? 'reports';
let passed = 0;
let failed = 0;
const seconds = (ms) => `${Math.round(ms / 1000)} s`;

/** Vitest's tiers by folder (test/<tier>/): run one after the other (groupOrder), so each has a wall time of its own. */
function vitestTiers(results) {
  const tiers = new Map();
  for (const f of results) {
    const tier = /\/test\/([^/]+)\//.exec(f.name)?.[1] ?? 'other';
    const t = tiers.get(tier) ?? { start: Infinity, end: 0, summed: 0, files: 0 };
    t.start = Math.min(t.start, f.startTime);
    t.end = Math.max(t.end, f.endTime);
    t.summed += f.endTime - f.startTime;
    t.files += 1;
    tiers.set(tier, t);
  }
  for (const [tier, t] of tiers) {
    console.log(`  ${tier}: ${seconds(t.end - t.start)} of wall time, ${t.files} files, ${seconds(t.summed)} summed over them`);
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
    vitestTiers(report.testResults ?? []);
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
process.exit(failed > 0 ? 1 : 0);
