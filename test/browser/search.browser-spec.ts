import { randomBytes } from 'node:crypto';
import type { Page } from 'playwright-core';
import { createFirstAdmin, uniqueEmail, type TestUser } from '../support/auth';
import { createTestApp, type TestApp } from '../support/test-app';
import { DashboardBrowser, openSection, settled, signInThroughDashboard } from './support/dashboard-browser';
import { expectScreenshot } from './support/screenshots';

// jest reads testTimeout from the top-level configuration only, not from a project's.
jest.setTimeout(180_000);

const HISTORY = '/api/v1/me/search-history';

/**
 * Search in the dashboard, driven in Chromium by keyboard where a person would use it: `/` to the
 * box, a filter chip, the matched words marked in the results; the recent searches under the box
 * (arrows, Enter), one removed, all cleared, the history paused; a query of Stripe's language that
 * does not parse, told as a sentence. After each change the journey asks the API what the history
 * holds. Each state is checked with axe-core and saved under test-artifacts/.
 */
describe('search and search history in a browser', () => {
  let t: TestApp;
  let dashboard: DashboardBrowser;
  let page: Page;
  let admin: TestUser;
  /** A secret key of the project: it waits for the index without adding to anyone's history. */
  let key: string;

  const as = () => ({ token: admin.token });
  const box = (name: string) => page.getByRole('search', { name }).getByRole('searchbox', { name });
  const recent = () => page.getByRole('region', { name: 'Recent searches' });
  const recentItems = () => recent().locator('[data-recent-run]');

  async function stored(): Promise<{
    data: { id: string; query: string; surface: string; filters: Record<string, string> }[];
    settings: { paused: boolean };
  }> {
    const res = await t.http.get(HISTORY, as());
    expect(res.status).toBe(200);
    return res.body;
  }

  /** Waits until the index answers `q` with `title`: results follow the writes within a few seconds. */
  async function indexed(q: string, title: string): Promise<void> {
    for (let tries = 0; tries < 100; tries++) {
      const res = await t.http.get(`/projects/search?q=${encodeURIComponent(q)}`, { token: key });
      if (
        res.status === 200 &&
        res.body.data.some((project: { primaryTitle: string }) => project.primaryTitle === title)
      )
        return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`the search index never answered ${q} with ${title}`);
  }

  beforeAll(async () => {
    t = await createTestApp({ LOGIN_MAX_FAILURES: '1000' });
    admin = await createFirstAdmin(t.http);
    const client = await t.http.post('/clients', { name: 'Harbour Records', email: uniqueEmail('client') }, as());
    expect(client.status).toBe(201);
    const channel = await t.http.post(
      '/channels',
      {
        clientId: client.body.id,
        name: 'Harbour Sessions',
        username: `harbour_${randomBytes(4).toString('hex')}`,
        avatarUrl: 'https://cdn.example.com/a.png',
        role: 'creator',
      },
      as(),
    );
    expect(channel.status).toBe(200);
    const projects = [
      {
        primaryTitle: 'Blue Hours',
        description: 'Late-night piano by the blue harbour',
        projectTypeId: 'album',
        status: 'published',
        access: 'public',
      },
      { primaryTitle: 'Blue Notes Draft', projectTypeId: 'album', status: 'draft' },
      { primaryTitle: 'Red Lanterns', projectTypeId: 'show', status: 'published', access: 'public' },
    ];
    for (const project of projects) {
      const created = await t.http.post(`/channels/${channel.body.id}/projects`, project, as());
      expect(created.status).toBe(201);
    }
    const customer = await t.http.post(
      '/v1/customers',
      { email: 'jenny@example.com', firstName: 'Jenny', lastName: 'Rosen' },
      as(),
    );
    expect(customer.status).toBe(201);
    const created = await t.http.post(
      `/api/v1/platform/projects/${admin.projectId}/keys`,
      { name: 'index watch' },
      as(),
    );
    expect(created.status).toBe(201);
    key = created.body.data.key;
    await indexed('blue', 'Blue Hours');
    await indexed('red', 'Red Lanterns');
    for (
      let tries = 0;
      tries < 100 &&
      (await t.http.get(`/v1/customers/search?query=${encodeURIComponent("name~'jen'")}`, { token: key })).body.data
        ?.length !== 1;
      tries++
    ) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    dashboard = await DashboardBrowser.launch();
    ({ page } = dashboard);
    await signInThroughDashboard(page, t.baseUrl, admin.email, admin.password);
  });

  afterAll(async () => {
    await dashboard?.close();
    await t?.close();
  });

  it('searches the content by keyboard with a status chip: the published match only, its matched word marked', async () => {
    await openSection(page, 'Content', 'Content');
    await settled(page);
    // Before a search, the content table: every project, newest change first, sorted by a header's button.
    const library = page.getByRole('table', { name: 'Content projects' });
    await library.getByRole('link', { name: 'Red Lanterns' }).waitFor();
    const titles = () => library.locator('tbody tr a').allInnerTexts();
    await library.getByRole('button', { name: /^Project/ }).click();
    await expect(library.getByRole('columnheader', { name: /^Project/ }).getAttribute('aria-sort')).resolves.toBe(
      'ascending',
    );
    await expect(titles()).resolves.toEqual(['Blue Hours', 'Blue Notes Draft', 'Red Lanterns']);
    await library.getByRole('button', { name: /^Project/ }).click();
    await expect(titles()).resolves.toEqual(['Red Lanterns', 'Blue Notes Draft', 'Blue Hours']);
    // `/` from the page (not from a field) goes to the search box.
    await page.locator('body').press('/');
    await expect(
      box('Search content').evaluate(
        (input) => input === (globalThis as unknown as { document: { activeElement: unknown } }).document.activeElement,
      ),
    ).resolves.toBe(true);
    await page.keyboard.type('blue');
    // Escape closes the recent searches, which lie over the chips while the box has focus.
    await page.keyboard.press('Escape');
    await page.getByRole('group', { name: 'Status' }).getByRole('button', { name: 'Published' }).click();
    await page
      .getByRole('group', { name: 'Status' })
      .getByRole('button', { name: 'Published', pressed: true })
      .waitFor();
    const results = page.getByRole('table', { name: 'Results for blue' });
    await results.getByRole('link', { name: 'Blue Hours' }).waitFor();
    await settled(page);
    await expect(results.getByRole('row').count()).resolves.toBe(2);
    await expect(results.getByText('Blue Notes Draft').count()).resolves.toBe(0);
    await expect(results.locator('mark').allInnerTexts()).resolves.toEqual(['Blue', 'blue']);
    await dashboard.checkAccessibility('search-content-results');
    await dashboard.screenshot('search-content-results');
    await expectScreenshot(page, 'search-content-results');
    // A user's search is in their history, with its filters.
    expect((await stored()).data).toEqual([
      expect.objectContaining({
        surface: 'projects',
        query: 'blue',
        filters: expect.objectContaining({ status: 'published' }),
      }),
    ]);
  });

  it('lists the recent searches under the box while it has focus, newest first; arrows and Enter run one again', async () => {
    await box('Search content').fill('red');
    await box('Search content').press('Enter');
    await page.getByRole('table', { name: 'Results for red' }).getByRole('link', { name: 'Red Lanterns' }).waitFor();
    await settled(page);
    await box('Search content').click();
    await recent().waitFor();
    await settled(page);
    await expect(recentItems().allInnerTexts()).resolves.toEqual(['red · Published', 'blue · Published']);
    await dashboard.checkAccessibility('search-recent');
    await dashboard.screenshot('search-recent');

    await box('Search content').press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    await page.getByRole('table', { name: 'Results for blue' }).getByRole('link', { name: 'Blue Hours' }).waitFor();
    await expect(box('Search content').inputValue()).resolves.toBe('blue');
    await expect(recent().count()).resolves.toBe(0);
    // Escape closes the list and leaves the focus in the box.
    await page.keyboard.press('ArrowDown');
    await recent().waitFor();
    await page.keyboard.press('Escape');
    await recent().waitFor({ state: 'detached' });
  });

  it('removes one recent search, then clears them all', async () => {
    await box('Search content').click();
    await recent().waitFor();
    await settled(page);
    const before = (await stored()).data.map((entry) => entry.query);
    expect(before).toEqual(['blue', 'red']);
    await recent().getByRole('button', { name: 'Remove red · Published from recent searches' }).click();
    await recent()
      .getByRole('button', { name: 'Remove red · Published from recent searches' })
      .waitFor({ state: 'detached' });
    await settled(page);
    expect((await stored()).data.map((entry) => entry.query)).toEqual(['blue']);

    await recent().getByRole('button', { name: 'Clear all' }).click();
    await recent().getByText('Your searches here will show up here.').waitFor();
    expect((await stored()).data).toEqual([]);
    await dashboard.checkAccessibility('search-recent-cleared');
  });

  it('pauses the history: a search is then not kept, until resumed', async () => {
    await box('Search content').click();
    await recent().waitFor();
    await recent().getByRole('button', { name: 'Pause search history', pressed: false }).click();
    await recent().getByRole('button', { name: 'Pause search history', pressed: true }).waitFor();
    await recent().getByText('Your search history is paused: new searches are not kept.').waitFor();
    expect((await stored()).settings).toEqual({ paused: true });
    await dashboard.checkAccessibility('search-paused');
    await dashboard.screenshot('search-paused');

    await box('Search content').fill('lanterns');
    await box('Search content').press('Enter');
    await page
      .getByRole('table', { name: 'Results for lanterns' })
      .getByRole('link', { name: 'Red Lanterns' })
      .waitFor();
    await settled(page);
    expect((await stored()).data).toEqual([]);

    await box('Search content').click();
    await recent().getByRole('button', { name: 'Pause search history', pressed: true }).click();
    await recent().getByRole('button', { name: 'Pause search history', pressed: false }).waitFor();
    expect((await stored()).settings).toEqual({ paused: false });
  });

  it("searches customers in Stripe's language, marks the value, and tells a query that does not parse as a sentence", async () => {
    await openSection(page, 'Customers', 'Customers');
    await settled(page);
    await expect(box('Search customers').getAttribute('placeholder')).resolves.toBe("email:'jenny@example.com'");
    await box('Search customers').fill("name~'jen'");
    await box('Search customers').press('Enter');
    const results = page.getByRole('table', { name: "Customers matching name~'jen'" });
    await results.getByRole('link', { name: 'jenny@example.com' }).waitFor();
    await expect(results.locator('mark').allInnerTexts()).resolves.toEqual(['jen', 'Jen']);
    await dashboard.checkAccessibility('search-customers');

    await box('Search customers').fill('email:jenny');
    await box('Search customers').press('Enter');
    const refusal = page.getByRole('alert').filter({ hasText: 'This search could not be read.' });
    await refusal.waitFor();
    await expect(refusal.innerText()).resolves.not.toMatch(/\/v1|\/api|search_query_invalid|400/);
    await dashboard.checkAccessibility('search-customers-refused');
    await dashboard.screenshot('search-customers-refused');
    // The refused query is not in the history; the one that answered is.
    expect((await stored()).data.map((entry) => [entry.surface, entry.query])).toEqual([['customers', "name~'jen'"]]);
  });

  it('had no serious or critical accessibility violation and no script, style or policy error on any page', () => {
    expect(dashboard.accessibility.map(({ page: name }) => name)).toEqual([
      'search-content-results',
      'search-recent',
      'search-recent-cleared',
      'search-paused',
      'search-customers',
      'search-customers-refused',
    ]);
    expect(dashboard.accessibility.filter((entry) => entry.violations.length > 0)).toEqual([]);
    expect(dashboard.pageProblems).toEqual([]);
  });
});
