#!/usr/bin/env node
// Test totals for CI (.ci/run).
//
//   node scripts/ci-count.mjs projects
//     The jest projects that neither `npm test` nor `npm run test:browser` selects, one per line,
//     so CI runs a project added later without being told about it.
//
//   node scripts/ci-count.mjs count <manifest>
//     Sums the reports that the manifest lists (one suite a line: label, kind, report, exit status;
//     tab-separated) and prints one line per suite, then the totals, alone, last:
//       <N> passed, <M> failed
//     kinds: `jest` (the file of `jest --json --outputFile`), `junit` (a JUnit XML file, or a folder
//     of them, as Schemathesis writes: one test case per API operation).
//     A suite that failed without a failing test in its report (it crashed before writing one, or it
//     exited non-zero anyway) counts as one failed test, so the totals never hide a failed suite.
//     Skipped and pending tests count on neither side.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import process from 'node:process';

const [command, argument] = process.argv.slice(2);

if (command === 'projects') {
  process.stdout.write(
    uncoveredJestProjects()
      .map((name) => `${name}\n`)
      .join(''),
  );
} else if (command === 'count' && argument) {
  count(argument);
} else {
  process.stderr.write('usage: node scripts/ci-count.mjs projects | count <manifest>\n');
  process.exit(2);
}

function uncoveredJestProjects() {
  const output = execFileSync('npx', ['--no-install', 'jest', '--showConfig'], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const names = JSON.parse(output)
    .configs.map((config) => config.displayName?.name)
    .filter(Boolean);
  const scripts = JSON.parse(readFileSync('package.json', 'utf8')).scripts ?? {};
  const covered = new Set();
  for (const script of [scripts.test, scripts['test:browser']]) {
    if (!script || !/\bjest\b/.test(script)) continue;
    const selected = /--selectProjects((?:\s+[^\s-][^\s]*)+)/.exec(script);
    // A jest run without --selectProjects runs every project.
    if (!selected) return [];
    for (const name of selected[1].trim().split(/\s+/)) covered.add(name);
  }
  return names.filter((name) => !covered.has(name));
}

function count(manifest) {
  const lines = readFileSync(manifest, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '');
  let passed = 0;
  let failed = 0;
  for (const line of lines) {
    const [label, kind, report, status = '0'] = line.split('\t');
    let result;
    try {
      result = kind === 'jest' ? readJest(report) : kind === 'junit' ? readJunit(report) : undefined;
      if (!result) throw new Error(`unknown report kind ${kind}`);
    } catch (error) {
      result = { passed: 0, failed: 0, note: `no usable report (${error.message})` };
    }
    if (result.failed === 0 && (status !== '0' || result.note)) {
      result.failed = 1;
      result.note = result.note ?? `exited with status ${status} without a failing test in its report`;
    }
    passed += result.passed;
    failed += result.failed;
    const note = result.note ? ` (${result.note}: counted as 1 failed)` : '';
    process.stdout.write(`  ${label}: ${result.passed} passed, ${result.failed} failed${note}\n`);
  }
  process.stdout.write(`${passed} passed, ${failed} failed\n`);
}

function readJest(file) {
  const report = JSON.parse(readFileSync(file, 'utf8'));
  const passed = report.numPassedTests ?? 0;
  // A test file that could not run at all (syntax error, failing import) has no tests to fail.
  const failed = (report.numFailedTests ?? 0) + (report.numRuntimeErrorTestSuites ?? 0);
  const note = report.success === false && failed === 0 ? 'jest reported a failure outside any test' : undefined;
  return { passed, failed, note };
}

function readJunit(path) {
  const files =
    existsSync(path) && statSync(path).isDirectory()
      ? readdirSync(path)
          .filter((name) => name.endsWith('.xml'))
          .map((name) => join(path, name))
      : [path];
  if (files.length === 0) throw new Error(`no JUnit report in ${path}`);
  let passed = 0;
  let failed = 0;
  for (const file of files) {
    const xml = readFileSync(file, 'utf8');
    // Count the <testsuite> elements; <testsuites> only repeats their sums.
    let suites = [...xml.matchAll(/<testsuite\b([^>]*)>/g)];
    if (suites.length === 0) suites = [...xml.matchAll(/<testsuites\b([^>]*)>/g)];
    if (suites.length === 0) throw new Error(`${file} has no test suite`);
    for (const [, attributes] of suites) {
      const number = (name) => Number(new RegExp(`\\b${name}="(\\d+)"`).exec(attributes)?.[1] ?? 0);
      const bad = number('failures') + number('errors');
      passed += number('tests') - bad - number('skipped');
      failed += bad;
    }
  }
  return { passed, failed };
}
