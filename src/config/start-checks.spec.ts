import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const SCRIPT = join(ROOT, 'scripts', 'check-port.cjs');
const packageJson = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };

/** scripts/check-port.cjs run as npm start runs it, in `cwd`, with `env` added. */
function checkPort(env: Record<string, string>, cwd = ROOT): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) =>
    execFile(
      process.execPath,
      [SCRIPT],
      { cwd, env: { ...process.env, PORT: '', HOST: '', ...env } },
      (error, _stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stderr }),
    ),
  );
}

describe('npm start on a port already taken (scripts/check-port.cjs)', () => {
  let taken: Server;
  let port: number;

  beforeAll(async () => {
    taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    port = (taken.address() as AddressInfo).port;
  });
  afterAll(() => new Promise((resolve) => taken.close(resolve)));

  it('runs before the build, so a second npm start never rewrites dist/ under the first', () => {
    expect(packageJson.scripts.prestart).toMatch(/&& node scripts\/check-port\.cjs && npm run build$/);
  });

  it('stops with a message that says what to do', async () => {
    const { code, stderr } = await checkPort({ PORT: String(port), HOST: '127.0.0.1' });
    expect(code).toBe(1);
    expect(stderr).toContain(`Port ${port} is already in use on 127.0.0.1`);
    expect(stderr).toContain('PORT=3001 npm start');
  });

  it('reads PORT and HOST from .env as the service does, under the environment', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'check-port-'));
    try {
      writeFileSync(join(folder, '.env'), `PORT=${port}\nHOST=127.0.0.1\n`);
      expect((await checkPort({}, folder)).code).toBe(1);
      const free = createServer();
      await new Promise<void>((resolve) => free.listen(0, '127.0.0.1', resolve));
      const freePort = (free.address() as AddressInfo).port;
      await new Promise((resolve) => free.close(resolve));
      expect((await checkPort({ PORT: String(freePort) }, folder)).code).toBe(0);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
