#!/usr/bin/env node
// Runs the `bash` blocks of a walk-through (docs/walkthrough.md unless another file is named) in
// order, as one bash script under `set -euo pipefail` (with `inherit_errexit`, so a failing call
// inside `$(...)` stops it too), against the service at BASE (default http://localhost:3000), in a
// scratch folder; blocks tagged `sh` (installing, starting, production) are only read. Whatever the
// blocks leave running (the walk-through's webhook receiver) is stopped at the end. Exits with the
// script's status, so a command that fails in any block fails the run, after a line naming that block.
//
//   BASE=http://localhost:3000 HOOKS_PORT=4000 node scripts/readme-walkthrough.mjs [docs/walkthrough.md]
//
// test/e2e/readme.e2e-spec.ts runs it against a fresh service (npm test, so CI).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { clearTimeout, setTimeout } from 'node:timers';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const TIMEOUT_MS = Number(process.env.README_TIMEOUT_MS ?? 180_000);
/** The walk-through CI runs, as its failures name it. */
const WALKTHROUGH = 'docs/walkthrough.md';

/** The fenced blocks tagged `bash`, in order, with the line of their opening fence. */
export function bashBlocks(markdown) {
  const blocks = [];
  let current = null;
  markdown.split('\n').forEach((line, index) => {
    const fence = /^```\s*([\w-]*)\s*$/.exec(line);
    if (!fence) {
      if (current?.run) current.lines.push(line);
      return;
    }
    if (current) {
      if (current.run) blocks.push({ line: current.line, code: current.lines.join('\n') });
      current = null;
    } else {
      current = { line: index + 1, run: fence[1] === 'bash', lines: [] };
    }
  });
  if (current) throw new Error(`the block opened at line ${current.line} is never closed`);
  return blocks;
}

/** One script: the blocks in order, each announced, a failure naming the block it happened in. */
export function walkthroughScript(markdown, file = WALKTHROUGH) {
  const parts = [
    'set -euo pipefail',
    'shopt -s inherit_errexit',
    'block=0',
    `trap 'echo "${file}: the block at line $block failed (exit $?)" >&2' ERR`,
  ];
  for (const block of bashBlocks(markdown)) {
    parts.push(`block=${block.line}`, `printf '\\n== ${file}, line %s\\n' ${block.line}`, block.code);
  }
  return `${parts.join('\n')}\n`;
}

/** Runs the script in its own process group and ends that group afterwards (background processes included). */
export function runWalkthrough(markdown, { env = process.env, file = WALKTHROUGH } = {}) {
  const scratch = mkdtempSync(join(tmpdir(), 'readme-walkthrough-'));
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', walkthroughScript(markdown, file)], {
      cwd: scratch,
      env,
      detached: true,
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    const stopGroup = () => {
      try {
        process.kill(-child.pid, 'SIGTERM');
      } catch {
        // the group is already gone
      }
    };
    const timer = setTimeout(() => {
      console.error(`readme-walkthrough: still running after ${TIMEOUT_MS} ms, stopped`);
      stopGroup();
    }, TIMEOUT_MS);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      stopGroup();
      rmSync(scratch, { recursive: true, force: true });
      resolve(code ?? (signal ? 1 : 0));
    });
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const root = join(dirname(fileURLToPath(import.meta.url)), '..');
  const file = process.argv[2] ?? join(root, WALKTHROUGH);
  const label = relative(root, resolve(file));
  const markdown = readFileSync(file, 'utf8');
  const status = await runWalkthrough(markdown, { file: label });
  console.log(
    `readme-walkthrough: ${bashBlocks(markdown).length} bash blocks of ${label}, ${status === 0 ? 'all ran' : `failed (exit ${status})`}`,
  );
  process.exit(status);
}
