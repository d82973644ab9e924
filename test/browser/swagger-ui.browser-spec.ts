import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Browser, chromium, Page } from 'playwright-core';
import { createFirstAdmin, TestUser } from '../support/auth';
import { createTestApp, TestApp } from '../support/test-app';

const ARTIFACTS = join(__dirname, '..', '..', 'test-artifacts');
// jest reads testTimeout from the top-level configuration only, not from a project's.
jest.setTimeout(120_000);

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const DOCS_HOST = 'api.example.test';

/** A person using the Swagger UI: authorize with a token, then try `GET /api/v1/me` from the page. */
describe('Swagger UI in a browser', () => {
  let t: TestApp;
  let user: TestUser;
  let browser: Browser;
  let page: Page;
  const pageProblems: string[] = [];

  beforeAll(async () => {
    t = await createTestApp();
    user = await createFirstAdmin(t.http);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
        '--disable-quic',
        // The docs are opened by a host name, as a deployed service is, not by a loopback address
        // (which browsers trust and treat differently).
        `--host-resolver-rules=MAP ${DOCS_HOST} 127.0.0.1`,
      ],
    });
    page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
    page.setDefaultTimeout(15_000);
    // A blocked script or style (Content-Security-Policy) or a script error shows up here.
    // Chromium's notice that Cross-Origin-Opener-Policy does not apply to plain http is expected here.
    page.on('console', (message) => {
      if (message.type() === 'error' && !message.text().startsWith('The Cross-Origin-Opener-Policy header has been ignored')) {
        pageProblems.push(message.text());
      }
    });
    page.on('pageerror', (error) => pageProblems.push(error.message));
  });

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('authorizes with a bearer token and executes GET /api/v1/me', async () => {
    await page.goto(`${t.baseUrl.replace('127.0.0.1', DOCS_HOST)}/docs`);
    await page.locator('.swagger-ui .info .title').waitFor();

    // The Authorize dialog: paste the token, authorize, close.
    await page.locator('.scheme-container button.authorize').click();
    const dialog = page.locator('.modal-ux');
    await dialog.getByLabel('auth-bearer-value').fill(user.token);
    await dialog.getByRole('button', { name: 'Apply credentials' }).click();
    await dialog.getByRole('button', { name: 'Remove authorization' }).waitFor();
    await dialog.getByRole('button', { name: 'Close' }).click();
    await dialog.waitFor({ state: 'detached' });

    // The operation: expand it, try it out, execute.
    const operation = page.locator('.opblock.opblock-get').filter({ has: page.locator('[data-path="/api/v1/me"]') });
    await operation.locator('.opblock-summary').first().click();
    await operation.getByRole('button', { name: 'Try it out' }).click();
    await operation.getByRole('button', { name: 'Execute' }).click();

    const live = operation.locator('.live-responses-table .response');
    await live.first().waitFor();
    await expect(live.locator('.response-col_status').first().innerText()).resolves.toBe('200');
    const shownBody = await live.locator('.response-col_description pre').first().innerText();
    expect(JSON.parse(shownBody)).toMatchObject({ data: { user: { id: user.id, email: user.email, role: 'admin' } } });
    // The UI shows the request it sent: the token went out as a bearer header.
    await expect(operation.locator('.curl-command').innerText()).resolves.toContain(`Authorization: Bearer ${user.token}`);

    mkdirSync(ARTIFACTS, { recursive: true });
    await operation.screenshot({ path: join(ARTIFACTS, 'swagger-ui-get-me.png') });
    await page.screenshot({ path: join(ARTIFACTS, 'swagger-ui-page.png'), fullPage: false });

    expect(pageProblems).toEqual([]);
  });
});
