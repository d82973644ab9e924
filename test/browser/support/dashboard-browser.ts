import type { AxeResults } from 'axe-core';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Browser, BrowserContext, chromium, Locator, Page } from 'playwright-core';
import { DASHBOARD_DIR } from '../../../src/dashboard';

const ARTIFACTS = join(__dirname, '..', '..', '..', 'test-artifacts');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/**
 * axe-core's browser script, the same code as its `axe.source`: read from the package, because the
 * test transpiler breaks the module wrapper it would be required through.
 */
const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/**
 * One Chromium for a journey through the dashboard, with what every journey checks: the serious and
 * critical axe-core violations of each page it names, and every script error, blocked resource or
 * policy error of any page it opened (the API's own 4xx refusals excepted: they are the journeys'
 * checks). Each journey file opens one, and closes it in its `afterAll`.
 */
export class DashboardBrowser {
  readonly accessibility: { page: string; violations: string[] }[] = [];
  readonly pageProblems: string[] = [];

  private constructor(
    readonly browser: Browser,
    /** The first context and its page: the journey's signed-in user. */
    readonly context: BrowserContext,
    readonly page: Page,
  ) {}

  static async launch(options: { colorScheme?: 'light' | 'dark' } = {}): Promise<DashboardBrowser> {
    if (!existsSync(join(DASHBOARD_DIR, 'index.html'))) {
      throw new Error(`The dashboard is not built (${DASHBOARD_DIR}): run npm run build first`);
    }
    const browser = await chromium.launch({
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
      ],
    });
    const context = await browser.newContext(DashboardBrowser.contextOptions(options.colorScheme));
    const page = await context.newPage();
    const opened = new DashboardBrowser(browser, context, page);
    opened.watch(page);
    return opened;
  }

  private static contextOptions(colorScheme: 'light' | 'dark' = 'light') {
    return { viewport: { width: 1280, height: 860 }, locale: 'en-US', timezoneId: 'UTC', colorScheme };
  }

  /** A fresh context (no cookies, no storage: somebody else's browser), its page watched like the first. */
  async newPage(): Promise<{ context: BrowserContext; page: Page }> {
    const context = await this.browser.newContext(DashboardBrowser.contextOptions());
    const page = await context.newPage();
    this.watch(page);
    return { context, page };
  }

  /** A blocked script or style (Content-Security-Policy), a failed request or a script error shows up in `pageProblems`. */
  watch(page: Page): void {
    page.setDefaultTimeout(15_000);
    page.on('console', (message) => {
      if (message.type() !== 'error') return;
      const text = message.text();
      if (/Failed to load resource: the server responded with a status of 4\d\d/.test(text)) return;
      this.pageProblems.push(text);
    });
    page.on('pageerror', (error) => this.pageProblems.push(error.message));
  }

  /** Runs axe on the page as it stands and records its serious and critical violations under `name`. */
  async checkAccessibility(name: string, page: Page = this.page): Promise<void> {
    await page.evaluate(AXE_SOURCE);
    const violations = await page.evaluate(async () => {
      // Runs in the page (the test's TypeScript has no DOM types).
      const inPage = globalThis as unknown as {
        axe: { run: (context: unknown, options: object) => Promise<AxeResults> };
        document: unknown;
      };
      const result = await inPage.axe.run(inPage.document, { resultTypes: ['violations'] });
      return result.violations.map(({ id, impact, help, nodes }) => ({
        id,
        impact: impact ?? null,
        help,
        nodes: nodes.map((node) => ({ target: node.target.map(String) })),
      }));
    });
    const severe = (violations as AxeViolation[])
      .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
      .map(
        (violation) =>
          `${violation.impact} ${violation.id} (${violation.help}): ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`,
      );
    this.accessibility.push({ page: name, violations: severe });
  }

  /** Saves the page under test-artifacts/dashboard-<name>.png. */
  async screenshot(name: string, page: Page = this.page): Promise<void> {
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, `dashboard-${name}.png`) });
  }

  async close(): Promise<void> {
    await this.browser.close();
  }
}

/** Opens a section from the navigation and waits for its heading. */
export async function openSection(page: Page, link: string, heading: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: link }).click();
  await page.getByRole('heading', { level: 1, name: heading }).waitFor();
}

/** Waits until no request is under way (the progress bar is idle) and no spinner shows. */
export async function settled(page: Page): Promise<void> {
  await page.locator('.progress-active').waitFor({ state: 'detached' });
  await page.locator('[role="status"].spinner').first().waitFor({ state: 'detached' });
}

/**
 * The error a field shows, once it shows one: waits for the control labelled `label` (within `scope`)
 * to be marked invalid, then answers the text of what describes it (its hint and its error), the way
 * a screen reader reads them with the control.
 */
export async function fieldError(scope: Page | Locator, label: string): Promise<string> {
  const control = scope.getByLabel(label, { exact: true });
  await control.and(scope.locator('[aria-invalid="true"]')).waitFor();
  return control.evaluate((element) => {
    // Runs in the page (the test's TypeScript has no DOM types).
    const inPage = element as unknown as {
      getAttribute: (name: string) => string | null;
      ownerDocument: { getElementById: (id: string) => { textContent: string | null } | null };
    };
    return (inPage.getAttribute('aria-describedby') ?? '')
      .split(/\s+/)
      .filter(Boolean)
      .map((id) => inPage.ownerDocument.getElementById(id)?.textContent ?? '')
      .join(' ');
  });
}

/** The second step of a sign-in, for a user with a second factor: a code of the authenticator app or a recovery code. */
export type SecondFactor = { totp: string } | { recoveryCode: string };

/**
 * Signs in through the dashboard's own form, as a returning user does, and waits for the overview:
 * the password, then, for a user with a second factor, the code of the second step. Every journey
 * signs in through here: how the dashboard signs in (its form, its second step) is written once.
 */
export async function signInThroughDashboard(
  page: Page,
  baseUrl: string,
  email: string,
  password: string,
  secondFactor?: SecondFactor,
): Promise<void> {
  await page.goto(`${baseUrl}/dashboard/login`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Log in' }).click();
  if (secondFactor) await proveSecondFactor(page, secondFactor, 'Verify');
  await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
}

/** Fills the second factor where the dashboard asks for it (the sign-in's second step, the step-up dialog) and submits with `button`. */
export async function proveSecondFactor(page: Page, secondFactor: SecondFactor, button: string): Promise<void> {
  if ('totp' in secondFactor) {
    await page.getByLabel('Authenticator code').fill(secondFactor.totp);
  } else {
    await page.getByRole('button', { name: 'Use a recovery code instead' }).click();
    await page.getByLabel('Recovery code').fill(secondFactor.recoveryCode);
  }
  await page.getByRole('button', { name: button }).click();
}
