import { execFile, spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { freePort } from '../../src/database/embedded-database';
import { createTestApp, TestApp } from '../support/test-app';

const ROOT = join(__dirname, '..', '..');
const WALKTHROUGH = join(ROOT, 'docs', 'walkthrough.md');

/** scripts/readme-walkthrough.mjs on a page (docs/walkthrough.md by default), under this test's Node (first on PATH: the page calls `node`). */
function walkthrough(env: Record<string, string>, page?: string): Promise<{ status: number | null; output: string }> {
  const args = [join(ROOT, 'scripts', 'readme-walkthrough.mjs'), ...(page ? [page] : [])];
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

describe("docs/walkthrough.md's bash blocks, in order, against a fresh service", () => {
  let t: TestApp;

  beforeAll(async () => {
    // As the walk-through says to start it: private webhook URLs allowed, for its local receiver.
    t = await createTestApp({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });
  });
  afterAll(() => t.close());

  it('run from signup to the refund, its webhook received and its audit entry', async () => {
    const { status, output } = await walkthrough({ BASE: t.baseUrl, HOOKS_PORT: String(await freePort()) });
    if (status !== 0) console.error(output);
    expect(status).toBe(0);
    expect(output).toMatch(/received payment\.refunded [0-9a-f]{24}/);
    expect(output).toMatch(/"action":"payment\.refunded"/);
    expect(output).toMatch(/received webhook\.test/);
    expect(output).toMatch(/readme-walkthrough: \d+ bash blocks of docs\/walkthrough\.md, all ran/);
  }, 240_000);
});

describe('scripts/readme-walkthrough.mjs', () => {
  let folder: string;

  beforeAll(() => {
    folder = mkdtempSync(join(tmpdir(), 'readme-check-'));
  });
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  function page(name: string, text: string): string {
    const file = join(folder, name);
    writeFileSync(file, text);
    return file;
  }

  it('runs the bash blocks in order, sharing variables, and never the sh ones', async () => {
    const file = page(
      'ok.md',
      '```bash\nGREETING=hello\n```\n\n```sh\nexit 3\n```\n\n```bash\necho "$GREETING from the second block"\n```\n',
    );
    const { status, output } = await walkthrough({}, file);
    expect(status).toBe(0);
    expect(output).toContain('hello from the second block');
  });

  it('fails when a command of a block fails, and names the block', async () => {
    const file = page(
      'failing.md',
      '```bash\necho first\n```\n\ntext\n\n```bash\ncurl -sS --fail-with-body http://127.0.0.1:9/nothing-listens-here\necho never\n```\n',
    );
    const { status, output } = await walkthrough({}, file);
    expect(status).not.toBe(0);
    expect(output).toContain('the block at line 7 failed');
    expect(output).not.toContain('never');
  });

  it("fails at the walk-through's api helper answered an error status, and stops the run there, also inside $(...)", async () => {
    // The helper exactly as docs/walkthrough.md defines it.
    const helper = readFileSync(WALKTHROUGH, 'utf8')
      .split('\n')
      .find((line) => line.startsWith('api() {'));
    expect(helper).toBeDefined();
    const server = createServer((_request, response) =>
      response.writeHead(404, { 'content-type': 'application/json' }).end('{"statusCode":404}'),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/nothing`;
      // Alone, as a reader pastes it into a shell without `set -e`: the body printed, a failing status.
      // (Asynchronous: this process's server must answer meanwhile.)
      const alone = await new Promise<string>((resolve, reject) =>
        execFile('bash', ['-c', `${helper}\napi ${url}\necho "status $?"`], (error, stdout) =>
          error ? reject(error) : resolve(stdout),
        ),
      );
      expect(alone).toContain('{"statusCode":404}');
      expect(alone).toContain('status 22');
      const direct = page('api-direct.md', `\`\`\`bash\n${helper}\napi ${url}\necho never\n\`\`\`\n`);
      const captured = page(
        'api-captured.md',
        `\`\`\`bash\n${helper}\nANSWER=$(api ${url} | node -pe 'require("fs").readFileSync(0, "utf8")')\necho never\n\`\`\`\n`,
      );
      for (const file of [direct, captured]) {
        const { status, output } = await walkthrough({}, file);
        expect(status).not.toBe(0);
        expect(output).toContain('the block at line 1 failed');
        expect(output).not.toContain('never');
      }
    } finally {
      server.close();
    }
  });

  it('fails on a variable no earlier line set', async () => {
    const file = page('unset.md', '```bash\necho "$NOT_SET_BY_ANY_LINE"\n```\n');
    const { status } = await walkthrough({}, file);
    expect(status).not.toBe(0);
  });

  it('stops what a block left running', async () => {
    const port = await freePort();
    const file = page(
      'background.md',
      `\`\`\`bash\nnode -e "require('http').createServer((q, s) => s.end('up')).listen(${port})" &\nsleep 1\ncurl -sS http://127.0.0.1:${port}\n\`\`\`\n`,
    );
    const { status, output } = await walkthrough({}, file);
    expect(status).toBe(0);
    expect(output).toContain('up');
    await expect(fetch(`http://127.0.0.1:${port}`)).rejects.toThrow();
  });
});
