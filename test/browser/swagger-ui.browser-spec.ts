import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Browser, BrowserContext, chromium, Locator, Page } from 'playwright-core';
import { createFirstAdmin, TestUser } from '../support/auth';
import { createTestApp, TestApp } from '../support/test-app';

const ARTIFACTS = join(__dirname, '..', '..', 'test-artifacts');
// jest reads testTimeout from the top-level configuration only, not from a project's.
jest.setTimeout(120_000);

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const DOCS_HOST = 'api.example.test';

/**
 * A person using the Swagger UI: authorize with a user's token and try `GET /api/v1/me`; authorize
 * with a platform project's API key instead and try `GET /v1/customers`.
 */
describe('Swagger UI in a browser', () => {
  let t: TestApp;
  let user: TestUser;
  let browser: Browser;
  const pageProblems: string[] = [];

  /** A fresh page with nothing authorized yet (the UI persists authorizations per browser context). */
  async function openPage(): Promise<{ context: BrowserContext; page: Page }> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 1000 } });
    const opened = await context.newPage();
    opened.setDefaultTimeout(15_000);
    // A blocked script or style (Content-Security-Policy) or a script error shows up here.
    // Chromium's notice that Cross-Origin-Opener-Policy does not apply to plain http is expected here.
    opened.on('console', (message) => {
      if (
        message.type() === 'error' &&
        !message.text().startsWith('The Cross-Origin-Opener-Policy header has been ignored')
      ) {
        pageProblems.push(message.text());
      }
    });
    opened.on('pageerror', (error) => pageProblems.push(error.message));
    await opened.goto(`${t.baseUrl.replace('127.0.0.1', DOCS_HOST)}/docs`);
    await opened.locator('.swagger-ui .info .title').waitFor();
    return { context, page: opened };
  }

  /** The Authorize dialog: paste `value` into the named scheme's form (`bearer` or `apiKey`), apply, close. */
  async function authorize(on: Page, scheme: string, value: string): Promise<void> {
    await on.locator('.scheme-container button.authorize').click();
    const dialog = on.locator('.modal-ux');
    // One form per scheme, each with its own buttons: both are http bearer schemes.
    const form = dialog.locator('form').filter({ has: on.locator('h4 code', { hasText: new RegExp(`^${scheme}$`) }) });
    await form.getByLabel('auth-bearer-value').fill(value);
    await form.getByRole('button', { name: 'Apply credentials' }).click();
    await form.getByRole('button', { name: 'Remove authorization' }).waitFor();
    await form.getByRole('button', { name: 'Close' }).click();
    await dialog.waitFor({ state: 'detached' });
  }

  /** Opens the operation's tag (the page lists the tags closed), expands the operation, tries it out, executes it. */
  async function execute(
    on: Page,
    tag: string,
    method: string,
    path: string,
  ): Promise<{ operation: Locator; live: Locator }> {
    await on.locator(`.opblock-tag[data-tag="${tag}"]`).click();
    const operation = on.locator(`.opblock.opblock-${method}`).filter({ has: on.locator(`[data-path="${path}"]`) });
    await operation.locator('.opblock-summary').first().click();
    await operation.getByRole('button', { name: 'Try it out' }).click();
    // "Try it out" fills parameters with their documented examples (an example cursor would page past
    // every record): send none.
    for (const input of await operation.locator('.parameters input[type="text"]').all()) await input.fill('');
    await operation.getByRole('button', { name: 'Execute' }).click();
    const live = operation.locator('.live-responses-table .response');
    await live.first().waitFor();
    return { operation, live };
  }

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
  });

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('authorizes with a bearer token and executes GET /api/v1/me', async () => {
    const opened = await openPage();
    const page = opened.page;
    await authorize(page, 'bearer', user.token);

    const { operation, live } = await execute(page, 'auth', 'get', '/api/v1/me');
    await expect(live.locator('.response-col_status').first().innerText()).resolves.toBe('200');
    const shownBody = await live.locator('.response-col_description pre').first().innerText();
    expect(JSON.parse(shownBody)).toMatchObject({ data: { user: { id: user.id, email: user.email, role: 'admin' } } });
    // The UI shows the request it sent: the token went out as a bearer header.
    await expect(operation.locator('.curl-command').innerText()).resolves.toContain(
      `Authorization: Bearer ${user.token}`,
    );

    mkdirSync(ARTIFACTS, { recursive: true });
    await operation.screenshot({ path: join(ARTIFACTS, 'swagger-ui-get-me.png') });
    await page.screenshot({ path: join(ARTIFACTS, 'swagger-ui-page.png'), fullPage: false });
    await opened.context.close();

    expect(pageProblems).toEqual([]);
  });

  it('authorizes with an API key and executes GET /v1/customers in its project', async () => {
    const created = await t.http.post(
      `/api/v1/platform/projects/${user.projectId}/keys`,
      { name: 'Swagger UI' },
      { token: user.token },
    );
    expect(created.status).toBe(201);
    const key: string = created.body.data.key;
    const customer = await t.http.post('/v1/customers', { email: 'swagger-ui@example.com' }, { token: key });
    expect(customer.status).toBe(201);

    const opened = await openPage();
    const page = opened.page;
    await authorize(page, 'apiKey', key);

    const { operation, live } = await execute(page, 'customers', 'get', '/v1/customers');
    await expect(live.locator('.response-col_status').first().innerText()).resolves.toBe('200');
    const shownBody = JSON.parse(await live.locator('.response-col_description pre').first().innerText());
    expect(shownBody.data.map((row: { id: string }) => row.id)).toContain(customer.body.data.id);
    await expect(operation.locator('.curl-command').innerText()).resolves.toContain(`Authorization: Bearer ${key}`);

    mkdirSync(ARTIFACTS, { recursive: true });
    await operation.screenshot({ path: join(ARTIFACTS, 'swagger-ui-get-customers-api-key.png') });
    await opened.context.close();

    expect(pageProblems).toEqual([]);
  });
});
