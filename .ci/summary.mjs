// Sums the JSON reports of every suite (Vitest, Playwright) into one closing line.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.argv[2] ?? 'reports';
let passed = 0;
let failed = 0;
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
  } else if (report.stats) {
    // Playwright
    const p = report.stats.expected + report.stats.flaky;
    const f = report.stats.unexpected;
    passed += p;
    failed += f;
    console.log(`${file}: ${p} passed, ${f} failed`);
  }
}
if (files.length === 0) {
  console.log('no test reports found');
  failed += 1;
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);
