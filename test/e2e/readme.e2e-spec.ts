import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { freePort } from '../../src/database/embedded-database';
import { createTestApp, TestApp } from '../support/test-app';

const ROOT = join(__dirname, '..', '..');

/** scripts/readme-walkthrough.mjs on a README, under this test's Node (first on PATH: the README calls `node`). */
function walkthrough(env: Record<string, string>, readme?: string): Promise<{ status: number | null; output: string }> {
  const args = [join(ROOT, 'scripts', 'readme-walkthrough.mjs'), ...(readme ? [readme] : [])];
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve) => child.on('close', (status) => resolve({ status, output })));
}

describe("the README's bash blocks, in order, against a fresh service", () => {
  let t: TestApp;

  beforeAll(async () => {
    // As the README says to start it: private webhook URLs allowed, for its local receiver.
    t = await createTestApp({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });
  });
  afterAll(() => t.close());

  it('run from signup to the refund, its webhook received and its audit entry', async () => {
    const { status, output } = await walkthrough({ BASE: t.baseUrl, HOOKS_PORT: String(await freePort()) });
    if (status !== 0) console.error(output);
    expect(status).toBe(0);
    expect(output).toMatch(/received payment\.refunded [0-9a-f]{24}/);
    expect(output).toMatch(/"action":"payment\.refunded"/);
    expect(output).toMatch(/readme-walkthrough: \d+ bash blocks, all ran/);
  }, 240_000);
});

describe('scripts/readme-walkthrough.mjs', () => {
  let folder: string;

  beforeAll(() => {
    folder = mkdtempSync(join(tmpdir(), 'readme-check-'));
  });
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  function readme(name: string, text: string): string {
    const file = join(folder, name);
    writeFileSync(file, text);
    return file;
  }

  it('runs the bash blocks in order, sharing variables, and never the sh ones', async () => {
    const file = readme('ok.md', '```bash\nGREETING=hello\n```\n\n```sh\nexit 3\n```\n\n```bash\necho "$GREETING from the second block"\n```\n');
    const { status, output } = await walkthrough({}, file);
    expect(status).toBe(0);
    expect(output).toContain('hello from the second block');
  });

  it('fails when a command of a block fails, and names the block', async () => {
    const file = readme('failing.md', '```bash\necho first\n```\n\ntext\n\n```bash\ncurl -sS --fail-with-body http://127.0.0.1:9/nothing-listens-here\necho never\n```\n');
    const { status, output } = await walkthrough({}, file);
    expect(status).not.toBe(0);
    expect(output).toContain('the block at line 7 failed');
    expect(output).not.toContain('never');
  });

  it('fails on a variable no earlier line set', async () => {
    const file = readme('unset.md', '```bash\necho "$NOT_SET_BY_ANY_LINE"\n```\n');
    const { status } = await walkthrough({}, file);
    expect(status).not.toBe(0);
  });

  it('stops what a block left running', async () => {
    const port = await freePort();
    const file = readme('background.md', `\`\`\`bash\nnode -e "require('http').createServer((q, s) => s.end('up')).listen(${port})" &\nsleep 1\ncurl -sS http://127.0.0.1:${port}\n\`\`\`\n`);
    const { status, output } = await walkthrough({}, file);
    expect(status).toBe(0);
    expect(output).toContain('up');
    await expect(fetch(`http://127.0.0.1:${port}`)).rejects.toThrow();
  });
});
