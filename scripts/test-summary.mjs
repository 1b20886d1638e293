#!/usr/bin/env node
// Prints the plain closing line CI reads ("N passed, N failed, N skipped") from Vitest's JSON
// report, and fails when the run executed no test at all. Failed tests and suites are named just
// above that line, with the first line of their error: a CI log is often read from its tail only.
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';

const file = process.argv[2] ?? 'test-results.json';
let report;
try {
  report = JSON.parse(readFileSync(file, 'utf8'));
} catch (err) {
  console.error(`test-summary: cannot read ${file}: ${err.message}`);
  process.exit(1);
}
const firstLine = (text) =>
  String(text ?? '')
    .split('\n')
    .find((line) => line.trim() !== '')
    ?.trim()
    .slice(0, 300) ?? '';
// A file that failed without a failed test (it did not load, a hook threw) counts once. Vitest's
// numFailedTestSuites is not that: it counts every describe block above a failed test as well.
let failedFiles = 0;
for (const suite of report.testResults ?? []) {
  const where = relative(process.cwd(), suite.name ?? '');
  const failedTests = (suite.assertionResults ?? []).filter((t) => t.status === 'failed');
  for (const test of failedTests) {
    console.log(`failed: ${where} > ${test.fullName}: ${firstLine(test.failureMessages?.[0])}`);
  }
  if (suite.status === 'failed' && failedTests.length === 0) {
    failedFiles += 1;
    console.log(`failed: ${where} (the file): ${firstLine(suite.message)}`);
  }
}
const passed = report.numPassedTests ?? 0;
const failed = (report.numFailedTests ?? 0) + failedFiles;
const skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
console.log(`tests: ${passed} passed, ${failed} failed, ${skipped} skipped`);
if (passed + failed === 0) {
  console.error('test-summary: no test ran');
  process.exit(1);
}
process.exit(failed > 0 ? 1 : 0);
