import { readFileSync } from 'node:fs';
import { ObjectId } from 'mongodb';
import { Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { signupBody, uniqueEmail, verifyEmail } from '../support/auth';
import { createTestApp, TestApp } from '../support/test-app';
import { WebhookReceiver } from '../support/webhook-receiver';
import {
  DashboardBrowser,
  fieldError,
  openSection as openSectionIn,
  settled as settledIn,
} from './support/dashboard-browser';
import { expectScreenshot } from './support/screenshots';

// jest reads testTimeout from the top-level configuration only, not from a project's.
jest.setTimeout(120_000);

/**
 * A new company user's whole journey through the platform dashboard, served by the service at
 * /dashboard from the built files (`npm run build`): sign up, create a customer, add a test card,
 * pay, refund half, see the chart change, invite a member, create an API key and see it once; then
 * confirm a payment later, roll and revoke a key, change a member's role, remove the member and
 * revoke an invitation, each found in the audit log page, which pages, filters, exports and
 * verifies the log. Each main page is saved as a screenshot under test-artifacts/ and checked with axe-core: no serious or
 * critical violation, in the light theme and, for the overview, the dark one.
 */
describe('platform dashboard in a browser', () => {
  let t: TestApp;
  let dashboard: DashboardBrowser;
  let page: Page;
  const person = signupBody({
    firstName: 'Grace',
    lastName: 'Hopper',
    email: uniqueEmail('grace'),
    password: 'a long enough password',
  });
  let customerId: string;
  let paymentId: string;
  let invitee: { id: string; email: string; password: string };

  const checkAccessibility = (name: string) => dashboard.checkAccessibility(name);
  const screenshot = (name: string) => dashboard.screenshot(name);
  const openSection = (link: string, heading: string) => openSectionIn(page, link, heading);
  const settled = () => settledIn(page);

  /** The audit log page's filter form. */
  const auditFilters = () => page.getByRole('form', { name: 'Filter the audit log' });

  /**
   * Opens the audit log filtered to one action and waits for the entry of that action on that
   * target; returns its row.
   */
  async function auditEntry(action: string, targetId: string) {
    await openSection('Audit log', 'Audit log');
    await auditFilters().getByLabel('Action', { exact: true }).selectOption(action);
    const row = page
      .getByRole('table', { name: 'Audit log entries, newest first' })
      .locator(`tr[data-action="${action}"][data-target="${targetId}"]`);
    await row.waitFor();
    await settled();
    return row;
  }

  beforeAll(async () => {
    // The journey's webhook receiver listens on loopback.
    t = await createTestApp({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true', WEBHOOK_RETRY_SCHEDULE: '0,1,1' });
    dashboard = await DashboardBrowser.launch();
    ({ page } = dashboard);
  });

  afterAll(async () => {
    await dashboard?.close();
    await t?.close();
  });

  it('signs up a company user and lands on the overview, with an empty state that says what to do', async () => {
    await page.goto(`${t.baseUrl}/dashboard`);
    await page.getByRole('link', { name: 'Sign up' }).click();
    await page.getByRole('heading', { name: 'Sign up', level: 2 }).waitFor();
    await page.getByLabel('First name').fill(person.firstName);
    await page.getByLabel('Last name').fill(person.lastName);
    await page.getByLabel('Email').fill(person.email);
    await page.getByLabel('Password').fill(person.password);
    await page.getByLabel('Account type').selectOption('company');
    // The new account is the person's own: no role to choose.
    await expect(page.getByLabel('Your role').count()).resolves.toBe(0);
    await page.getByLabel('Account name').fill('Hopper Compilers');
    await checkAccessibility('signup');
    await screenshot('signup');

    // A refused signup shows the API's message next to the field it concerns.
    await page.getByLabel('Password').fill('short');
    await page.getByRole('button', { name: 'Sign up' }).click();
    await expect(fieldError(page, 'Password')).resolves.toMatch(/password/i);

    await page.getByLabel('Password').fill(person.password);
    await page.getByRole('button', { name: 'Sign up' }).click();
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    // The link mailed at signup, followed as Grace would: unverified, she could neither pay nor invite.
    const banner = page.getByRole('note').filter({ hasText: 'Verify your email' });
    await banner.getByRole('button', { name: 'Resend' }).waitFor();
    await verifyEmail(t.http, person.email as string);
    // Verified in another tab, as the mail's link opens: this page learns it when it reads the user again.
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    await settled();
    await expect(banner.count()).resolves.toBe(0);
    await expect(page.getByText('No USD payments').innerText()).resolves.toContain('No USD payments');
    await expect(page.getByLabel('Account', { exact: true }).locator('option:checked').innerText()).resolves.toContain(
      'Hopper Compilers',
    );

    const stored = await t.db.collection('accounts').findOne({ name: 'Hopper Compilers' });
    expect(stored).toMatchObject({ type: 'company' });
  });

  it('creates a customer from the empty list', async () => {
    await openSection('Customers', 'Customers');
    await settled();
    await page.getByText('No customers yet.').waitFor();
    await checkAccessibility('customers-empty');

    await page.getByRole('button', { name: 'New customer' }).click();
    await page.getByLabel('Email').fill('ada@example.com');
    await page.getByLabel('First name').fill('Ada');
    await page.getByLabel('Last name').fill('Lovelace');
    await page.getByRole('button', { name: 'Create customer' }).click();
    await page.getByRole('heading', { level: 1, name: 'ada@example.com' }).waitFor();
    // The customer's page has an address of its own.
    const address = new URL(page.url());
    expect(address.pathname).toMatch(/^\/dashboard\/customers\/[0-9a-f]{24}$/);
    customerId = address.pathname.split('/').pop() ?? '';

    await openSection('Customers', 'Customers');
    await page.getByRole('link', { name: 'ada@example.com', exact: true }).waitFor();
    await settled();
    await checkAccessibility('customers');
    await screenshot('customers');
    await expectScreenshot(page, 'customers');
  });

  it('opens a page from its address and on reload, says what the dashboard is, and has a page for an unknown address', async () => {
    // The service answers the page for the dashboard's own routes: a deep link loads, the session of the tab goes on.
    await page.goto(`${t.baseUrl}/dashboard/customers/${customerId}`);
    await page.getByRole('heading', { level: 1, name: 'ada@example.com' }).waitFor();
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'ada@example.com' }).waitFor();
    await expect(page.title()).resolves.toBe('Customers · Platform dashboard');
    await expect(page.getByRole('banner').innerText()).resolves.toContain('Platform dashboard');
    await expect(
      page
        .getByRole('navigation', { name: 'Sections' })
        .getByRole('link', { name: 'Customers' })
        .getAttribute('aria-current'),
    ).resolves.toBe('page');

    await page.goto(`${t.baseUrl}/dashboard/no-such-page`);
    await page.getByRole('heading', { level: 1, name: 'Page not found' }).waitFor();
    await checkAccessibility('not-found');
    await page.getByRole('main').getByRole('link', { name: 'overview' }).click();
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/dashboard/overview');

    // An unknown API path stays the API's 404, not the page.
    const api = await page.request.get(`${t.baseUrl}/api/v1/no-such-route`);
    expect(api.status()).toBe(404);
    expect(api.headers()['content-type']).toContain('application/json');

    await page.goto(`${t.baseUrl}/dashboard/customers`);
    await page.getByRole('link', { name: 'ada@example.com', exact: true }).waitFor();
  });

  it('adds a test card picked from the hint, which becomes the default', async () => {
    await page.getByRole('link', { name: 'ada@example.com', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'ada@example.com' }).waitFor();
    await page.getByRole('button', { name: 'Add a card' }).click();

    // A real card number is refused, next to the field.
    await page.getByLabel('Card number').fill('4111 1111 1111 1111');
    await page.getByLabel('CVC', { exact: true }).fill('123');
    await page.getByRole('button', { name: 'Add card' }).click();
    await expect(fieldError(page, 'Card number')).resolves.toMatch(/real cards are not accepted/i);

    await page.getByText('Test card numbers', { exact: true }).click();
    await page.getByRole('button', { name: '4242 4242 4242 4242: use this Visa credit card' }).click();
    await expect(page.getByLabel('Card number').inputValue()).resolves.toBe('4242424242424242');
    await page.getByRole('button', { name: 'Add card' }).click();
    const card = page.getByRole('listitem', { name: 'Visa •••• 4242' });
    await card.getByText('Default').waitFor();
    await page.getByText('Add a card first').waitFor({ state: 'detached' });
  });

  it('charges the card now and shows the payment succeeded', async () => {
    await page.getByRole('button', { name: 'New payment' }).click();
    await page.getByLabel('Amount', { exact: true }).fill('40');
    await page.getByLabel('Currency', { exact: true }).selectOption('usd');
    await page.getByLabel('Charge the default card now').check();
    await page.getByRole('button', { name: 'Create and charge' }).click();
    const row = page.getByRole('table', { name: 'Payments of ada@example.com' }).getByRole('row').nth(1);
    await row.getByText('Succeeded').waitFor();
    await row.getByRole('link', { name: /^Payment of \$40\.00, succeeded/ }).waitFor();
    paymentId = (await row.getAttribute('data-payment')) ?? '';
    await settled();
    await checkAccessibility('customer');
    await screenshot('customer');
    await expectScreenshot(page, 'customer');
  });

  it('shows the payment in the chart', async () => {
    await openSection('Overview', 'Overview');
    const chart = page.getByRole('img', { name: /^Payment volume per day/ });
    await chart.waitFor();
    await expect(page.locator('[data-stat="gross"]').innerText()).resolves.toBe('$40.00');
    await expect(page.locator('[data-stat="refunded"]').innerText()).resolves.toBe('$0.00');
    await expect(page.locator('[data-stat="net"]').innerText()).resolves.toBe('$40.00');
    await expect(chart.getAttribute('data-net')).resolves.toBe('40');
  });

  it('refunds half of the payment from the payments list', async () => {
    await openSection('Payments', 'Payments');
    const row = page.locator(`tr[data-payment="${paymentId}"]`);
    await row.getByText('Succeeded').waitFor();
    await row.getByRole('button', { name: 'Refund payment of $40.00' }).click();
    // More than the payment: the API's message shows at the amount.
    const dialog = page.getByRole('dialog', { name: 'Refund $40.00' });
    await dialog.getByLabel('Refund amount (USD)').fill('50');
    await dialog.getByRole('button', { name: 'Refund $50.00' }).click();
    await dialog.getByText(/exceeds/).waitFor();

    await dialog.getByLabel('Refund amount (USD)').fill('20');
    await dialog.getByRole('button', { name: 'Refund $20.00' }).click();
    await dialog.waitFor({ state: 'detached' });
    await row.getByText('Partially refunded').waitFor();
    await expect(row.innerText()).resolves.toContain('$20.00 refunded');
    const stored = await t.db
      .collection('payments')
      .findOne({ customer: { $exists: true }, amountRefundedMinor: 2000 });
    expect(stored).toMatchObject({ amountMinor: 4000, status: 'partially_refunded' });
    await settled();
    await checkAccessibility('payments');
    await screenshot('payments');
    await expectScreenshot(page, 'payments');
  });

  it('sees the chart change: half of the volume refunded', async () => {
    await openSection('Overview', 'Overview');
    const chart = page.getByRole('img', { name: /^Payment volume per day/ });
    await chart.waitFor();
    await expect(page.locator('[data-stat="gross"]').innerText()).resolves.toBe('$40.00');
    // The overview shows what it read before the refund until its summary is read again.
    await page.locator('[data-stat="refunded"]', { hasText: '$20.00' }).waitFor();
    await expect(page.locator('[data-stat="refunded"]').innerText()).resolves.toBe('$20.00');
    await expect(page.locator('[data-stat="net"]').innerText()).resolves.toBe('$20.00');
    await expect(chart.getAttribute('data-net')).resolves.toBe('20');
    const today = new Date().toISOString().slice(0, 10);
    const bar = chart.locator(`[data-date="${today}"]`);
    await expect(bar.getAttribute('data-refunded')).resolves.toBe('20');
    // The refunded part is drawn over half of the day's gross bar.
    const [gross, refunded] = await Promise.all([
      bar.locator('.bar-gross').getAttribute('height'),
      bar.locator('.bar-refunded').getAttribute('height'),
    ]);
    expect(Number(refunded) / Number(gross)).toBeCloseTo(0.5, 5);
    await settled();
    await checkAccessibility('overview');
    await screenshot('overview');
    await expectScreenshot(page, 'overview');

    await page.emulateMedia({ colorScheme: 'dark' });
    await page.locator('html[data-mantine-color-scheme="dark"]').waitFor({ state: 'attached' });
    await checkAccessibility('overview-dark');
    await screenshot('overview-dark');
    await expectScreenshot(page, 'overview-dark');
    await page.emulateMedia({ colorScheme: 'light' });
    await page.locator('html[data-mantine-color-scheme="light"]').waitFor({ state: 'attached' });
  });

  it('invites a member and shows the token once, which signs them up into the account', async () => {
    await openSection('Team', 'Team');
    await page.getByText('You are the only member.').waitFor();
    const email = uniqueEmail('linus');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Role', { exact: true }).selectOption('developer');
    await page.getByRole('button', { name: 'Create invitation' }).click();
    const secret = page.getByRole('region', { name: `Invitation token for ${email}` });
    const token = await secret.getByRole('textbox').inputValue();
    expect(token).toMatch(/^inv_/);
    await page.getByRole('listitem').filter({ hasText: email }).waitFor();
    await settled();
    await checkAccessibility('team');
    await screenshot('team');
    // The token, and the link and email in its note, change every run.
    await expectScreenshot(page, 'team', { mask: [secret] });

    // The link shown with the token is the one mailed to the invitee: in a browser not signed in, it opens the invitation page.
    const link = `${t.baseUrl}/dashboard/invitation?token=${encodeURIComponent(token)}`;
    await expect(secret.innerText()).resolves.toContain(link);
    const stranger = await dashboard.browser.newContext({
      viewport: { width: 1280, height: 860 },
      locale: 'en-US',
      timezoneId: 'UTC',
    });
    try {
      const strangerPage = await stranger.newPage();
      await strangerPage.goto(link);
      await strangerPage.getByRole('heading', { level: 2, name: 'You are invited' }).waitFor();
      await strangerPage.getByRole('heading', { level: 2, name: 'Sign up' }).waitFor();
    } finally {
      await stranger.close();
    }

    const body = { ...signupBody({ email, invitationToken: token }), role: undefined };
    const joined = await t.http.post('/api/v1/singup', body);
    expect(joined.status).toBe(201);
    expect(joined.body.data.account.name).toBe('Hopper Compilers');
    invitee = { id: joined.body.data.user.id, email, password: body.password };
  });

  it('creates an API key, shows it once, and the key works', async () => {
    await openSection('Projects & keys', 'Projects & keys');
    await page.getByRole('heading', { name: /API keys of Default project/ }).waitFor();
    await page.getByLabel('Key name').fill('Checkout server');
    await page.getByRole('button', { name: 'Create key' }).click();
    const secret = page.getByRole('region', { name: 'API key Checkout server' });
    const key = await secret.getByRole('textbox').inputValue();
    expect(key).toMatch(/^sk_test_/);
    const row = page.locator('tr[data-key]').filter({ hasText: 'Checkout server' });
    await expect(row.innerText()).resolves.toContain(key.slice(0, 12));
    await settled();
    await checkAccessibility('projects');
    await screenshot('projects');
    await expectScreenshot(page, 'projects');

    // The key acts in the project: it lists the customer made above.
    const customers = await t.http.get('/v1/customers', { token: key });
    expect(customers.status).toBe(200);
    expect(customers.body.data.map((customer: { id: string }) => customer.id)).toEqual([customerId]);

    // Shown once: after leaving the page, only its start remains.
    await openSection('Overview', 'Overview');
    await openSection('Projects & keys', 'Projects & keys');
    await row.waitFor();
    await expect(page.getByRole('region', { name: 'API key Checkout server' }).count()).resolves.toBe(0);
    await expect(page.locator('body').innerText()).resolves.not.toContain(key);
  });

  it('adds a webhook endpoint, shows its secret once, sends a test event and sees its attempts, the failed one too, then disables and rolls it', async () => {
    const receiver = new WebhookReceiver();
    await receiver.start();
    // The first attempt fails: the deliveries table shows it beside the one that succeeded.
    let answered = 0;
    receiver.answer('/dashboard-hooks', (response) =>
      answered++ === 0 ? response.writeHead(500).end('not yet') : response.writeHead(200).end('ok'),
    );
    try {
      await openSection('Webhooks', 'Webhooks');
      await page.getByText('No webhook endpoints yet.').waitFor();
      await page.getByLabel('URL').fill(`${receiver.base}/dashboard-hooks`);
      // Event types are chosen from the list, never typed.
      await page.getByRole('combobox', { name: 'Events' }).click();
      await page.getByRole('option', { name: 'All events' }).click();
      await page.keyboard.press('Escape');
      await page.getByRole('button', { name: 'Add endpoint' }).click();
      const secret = await page
        .getByRole('region', { name: /^Signing secret of / })
        .getByRole('textbox')
        .inputValue();
      expect(secret).toMatch(/^whsec_/);

      await page.getByRole('button', { name: `Send test event to ${receiver.base}/dashboard-hooks` }).click();
      const [, delivery] = await receiver.waitFor('/dashboard-hooks', 2);
      const event = new Webhook(secret).verify(delivery.body, delivery.headers as Record<string, string>) as {
        type: string;
      };
      expect(event.type).toBe('webhook.test');
      const deliveries = page.getByRole('table', { name: /^Deliveries to / });
      const attempts = deliveries.getByRole('list', { name: 'Attempts of the webhook.test delivery, newest first' });
      for (
        let tries = 0;
        tries < 20 &&
        (await attempts
          .getByRole('listitem')
          .count()
          .catch(() => 0)) < 2;
        tries++
      ) {
        await page.getByRole('button', { name: 'Refresh' }).click();
        await settled();
      }
      const [second, first] = await attempts.getByRole('listitem').allInnerTexts();
      expect(second).toMatch(/^succeeded 200 · \d+ ms/);
      expect(first).toMatch(/^failed 500 · the endpoint answered 500 · \d+ ms/);
      await attempts.getByText('Response body').first().waitFor();
      await checkAccessibility('webhooks');
      await screenshot('webhooks');
      // The signing secret, and its label naming the receiver's address (a new port every run).
      await expectScreenshot(page, 'webhooks', { mask: [page.getByRole('region', { name: /^Signing secret of / })] });

      await page.getByRole('button', { name: `Disable ${receiver.base}/dashboard-hooks` }).click();
      await page.getByRole('button', { name: `Enable ${receiver.base}/dashboard-hooks` }).waitFor();
      await page.getByRole('button', { name: `Roll secret of ${receiver.base}/dashboard-hooks` }).click();
      const rolled = await page
        .getByRole('region', { name: /^New signing secret of / })
        .getByRole('textbox')
        .inputValue();
      expect(rolled).toMatch(/^whsec_/);
      expect(rolled).not.toBe(secret);
    } finally {
      await receiver.stop();
    }
  });

  it('lists the events of the project, filters them by type and shows one as JSON', async () => {
    await openSection('Events', 'Events');
    await page.getByRole('cell', { name: customerId }).first().waitFor();
    await page.getByLabel('Type').selectOption('payment.refunded');
    await settled();
    const rows = page.getByRole('table', { name: 'Events, newest first' }).getByRole('row');
    await expect(rows.count()).resolves.toBe(2);
    await page.getByRole('button', { name: /^Open payment\.refunded event / }).click();
    const details = page.getByRole('dialog', { name: 'payment.refunded event' });
    const json = await details.getByLabel(/^Payload of event /).innerText();
    expect(JSON.parse(json)).toMatchObject({
      type: 'payment.refunded',
      data: { object: { id: paymentId, status: 'partially_refunded' } },
    });
    // The endpoint added since then was not there when this refund happened: nothing was delivered.
    await details.getByText(/^Not sent to any webhook endpoint/).waitFor();
    await checkAccessibility('events');
    await screenshot('events');
    await expectScreenshot(page, 'events');
    await page.keyboard.press('Escape');
    await details.waitFor({ state: 'detached' });
  });

  it("opens a payment's page from the list: its timeline, a refund from it, and the refund's delivery", async () => {
    const receiver = new WebhookReceiver();
    await receiver.start();
    try {
      const { body: loggedIn } = await t.http.post('/api/v1/login', { email: person.email, password: person.password });
      const endpoint = await t.http.post(
        '/v1/webhook-endpoints',
        { url: `${receiver.base}/payment-page`, enabledEvents: ['payment.refunded'] },
        { token: loggedIn.accessToken },
      );
      expect(endpoint.status).toBe(201);

      await openSection('Payments', 'Payments');
      await page
        .getByRole('table', { name: 'Payments, newest first' })
        .getByRole('link', { name: /^Payment of \$40\.00/ })
        .click();
      await page.getByRole('heading', { level: 1, name: 'Payment of $40.00' }).waitFor();
      expect(new URL(page.url()).pathname).toBe(`/dashboard/payments/${paymentId}`);
      const timeline = page.getByRole('list', { name: 'Timeline' });
      await timeline.getByText('Refunded $20.00, $20.00 left').waitFor();
      await expect(timeline.getByRole('listitem').allInnerTexts()).resolves.toEqual([
        expect.stringMatching(/^Created for \$40\.00/),
        expect.stringMatching(/^Charged \$40\.00/),
        expect.stringMatching(/^Refunded \$20\.00, \$20\.00 left/),
      ]);

      // The password was proven at sign-in: as if that were 11 minutes ago, past STEP_UP_MINUTES.
      const me = await t.http.get('/api/v1/me', { token: loggedIn.accessToken });
      await t.db
        .collection('sessions')
        .updateMany(
          { userId: new ObjectId(String(me.body.data.user.id)) },
          { $set: { passwordAt: new Date(Date.now() - 11 * 60_000) } },
        );
      await page.getByRole('button', { name: 'Refund payment of $40.00' }).click();
      const dialog = page.getByRole('dialog', { name: 'Refund $40.00' });
      await dialog.getByLabel('Refund amount (USD)').fill('5');
      await dialog.getByRole('button', { name: 'Refund $5.00' }).click();
      // A refund moves money: the person confirms it is them, then it is done at once.
      const stepUp = page.getByRole('dialog', { name: 'Confirm it is you' });
      await stepUp.getByLabel('Password').fill(person.password);
      await stepUp.getByRole('button', { name: 'Confirm' }).click();
      await stepUp.waitFor({ state: 'hidden' });
      await dialog.waitFor({ state: 'detached' });
      const refunded = timeline.getByRole('listitem').filter({ hasText: 'Refunded $5.00, $15.00 left' });
      await refunded.waitFor();
      await receiver.waitFor('/payment-page', 1);
      // The refund's event went to the endpoint: its delivery shows under it, with its outcome.
      const delivery = refunded
        .getByRole('list', { name: 'Webhook deliveries of payment.refunded' })
        .getByRole('listitem');
      for (let tries = 0; tries < 20 && !/^delivered/i.test(await delivery.innerText().catch(() => '')); tries++) {
        await page.getByRole('button', { name: 'Refresh' }).click();
        await settled();
      }
      await expect(delivery.innerText()).resolves.toMatch(/^delivered/i);
      await expect(delivery.innerText()).resolves.toContain(`${receiver.base}/payment-page`);
      await expect(
        t.db.collection('payments').countDocuments({ amountMinor: 4000, amountRefundedMinor: 2500 }),
      ).resolves.toBe(1);
      await settled();
      await checkAccessibility('payment');
      await screenshot('payment');
      await expectScreenshot(page, 'payment');
      await t.http.delete(`/v1/webhook-endpoints/${endpoint.body.data.id}`, { token: loggedIn.accessToken });

      // The customers list names the default card as its brand and last four.
      await openSection('Customers', 'Customers');
      const customerRow = page.getByRole('table', { name: 'Customers, newest first' }).getByRole('row').nth(1);
      await customerRow.getByText('Visa •••• 4242').waitFor();
    } finally {
      await receiver.stop();
    }
  });

  it("lists the project's content read only: each client's channels and each channel's content projects", async () => {
    await openSection('Content', 'Content');
    await settled();
    await page.getByText('No content yet.').waitFor();

    const { body: loggedIn } = await t.http.post('/api/v1/login', { email: person.email, password: person.password });
    const auth = { token: loggedIn.accessToken };
    const client = await t.http.post('/clients', { name: 'Lovelace Records', email: uniqueEmail('records') }, auth);
    expect(client.status).toBe(201);
    const username = `analytical_${Date.now().toString(36)}`;
    const channel = await t.http.post(
      '/channels',
      {
        clientId: client.body.id,
        name: 'Analytical Sounds',
        username,
        avatarUrl: 'https://cdn.example.com/analytical.png',
        role: 'creator',
      },
      auth,
    );
    expect(channel.status).toBe(200);
    for (const [primaryTitle, status] of [
      ['Notes on the Engine', 'published'],
      ['Bernoulli Numbers', 'draft'],
    ]) {
      expect(
        (
          await t.http.post(
            `/channels/${channel.body.id}/projects`,
            { primaryTitle, projectTypeId: 'album', status },
            auth,
          )
        ).status,
      ).toBe(201);
    }

    // Opened again: read afresh.
    await openSection('Overview', 'Overview');
    await openSection('Content', 'Content');
    // The client's card lists its channels; every content project is in the one table above them.
    const clientSection = page.getByRole('region', { name: /^Lovelace Records/ });
    const channels = clientSection.getByRole('table', { name: 'Channels of Lovelace Records' });
    await channels
      .getByRole('row')
      .filter({ hasText: `@${username}` })
      .getByRole('link', { name: 'Analytical Sounds' })
      .waitFor();
    const projects = page.getByRole('table', { name: 'Content projects' });
    await projects.getByRole('link', { name: 'Notes on the Engine' }).waitFor();
    await settled();
    await expect(projects.getByRole('row').filter({ hasText: 'Notes on the Engine' }).innerText()).resolves.toMatch(
      /album\s+published\s+public/i,
    );
    await expect(projects.getByRole('row').filter({ hasText: 'Bernoulli Numbers' }).innerText()).resolves.toMatch(
      /album\s+draft\s+public/i,
    );
    await checkAccessibility('content');
    await screenshot('content');
  });

  it('creates a payment to confirm later, confirms it from the list (the customer shown by email), refunds it, and the audit log records the refund', async () => {
    await openSection('Payments', 'Payments');
    await page.getByRole('button', { name: 'New payment' }).click();
    await page.getByLabel('Customer', { exact: true }).selectOption({ label: 'ada@example.com' });
    await page.getByLabel('Amount', { exact: true }).fill('15');
    await page.getByLabel('Confirm later').check();
    await page.getByRole('button', { name: 'Create payment' }).click();
    const pending = page.locator('tr[data-payment][data-status="requires_confirmation"]');
    await pending.getByText('Awaiting confirmation').waitFor();
    const laterId = (await pending.getAttribute('data-payment')) ?? '';
    const row = page.locator(`tr[data-payment="${laterId}"]`);
    // The payments API names the customer by id; the list shows their email, linked to them.
    await expect(row.getByRole('link', { name: 'ada@example.com', exact: true }).getAttribute('href')).resolves.toBe(
      `/dashboard/customers/${customerId}`,
    );
    await expect(
      page
        .locator(`tr[data-payment="${paymentId}"]`)
        .getByRole('link', { name: 'ada@example.com', exact: true })
        .count(),
    ).resolves.toBe(1);
    await expect(
      t.db.collection('payments').countDocuments({ status: 'requires_confirmation', amountMinor: 1500 }),
    ).resolves.toBe(1);

    await row.getByRole('button', { name: 'Confirm payment of $15.00' }).click();
    await row.getByText('Succeeded').waitFor();
    await expect(t.db.collection('payments').countDocuments({ status: 'succeeded', amountMinor: 1500 })).resolves.toBe(
      1,
    );

    await row.getByRole('button', { name: 'Refund payment of $15.00' }).click();
    await page.getByRole('dialog', { name: 'Refund $15.00' }).getByRole('button', { name: 'Refund in full' }).click();
    await page.locator(`tr[data-payment="${laterId}"][data-status="refunded"]`).waitFor();

    // Confirming is not an audited action (the audit log records refunds, not charges): the refund is.
    const entry = await auditEntry('payment.refunded', laterId);
    await expect(entry.innerText()).resolves.toContain(person.email);
    await expect(entry.innerText()).resolves.toContain('Default project');
    // What the refund moved, and in which currency.
    await expect(entry.innerText()).resolves.toContain('$15.00 refunded');
  });

  it('rolls an API key with a grace period, revokes the old one, and the audit log records both', async () => {
    await openSection('Projects & keys', 'Projects & keys');
    const first = page.locator('tr[data-key]').filter({ hasText: 'Checkout server' });
    await first.waitFor();
    const oldId = (await first.getAttribute('data-key')) ?? '';
    // The key's column: the second of the row, after its name (the row's header).
    const oldStart = (await first.getByRole('cell').first().innerText()).replace('…', '');
    const oldRow = page.locator(`tr[data-key="${oldId}"]`);
    await oldRow.getByRole('button', { name: 'Roll the key Checkout server' }).click();
    const rollForm = page.getByRole('form', { name: 'Roll the key Checkout server' });
    await rollForm.getByLabel('Hours the old key keeps working').fill('24');
    await rollForm.getByRole('button', { name: 'Roll key' }).click();
    const rolled = await page
      .getByRole('region', { name: 'New key for Checkout server' })
      .getByRole('textbox')
      .inputValue();
    expect(rolled).toMatch(/^sk_test_/);
    // The list is read again after the roll: wait for the new key's row before counting.
    await page.locator(`tr[data-key]:not([data-key="${oldId}"])`).filter({ hasText: 'Checkout server' }).waitFor();
    await expect(page.locator('tr[data-key]').filter({ hasText: 'Checkout server' }).count()).resolves.toBe(2);

    page.once('dialog', (dialog) => void dialog.accept());
    await oldRow.getByRole('button', { name: 'Revoke the key Checkout server' }).click();
    await oldRow.getByText('Revoked').waitFor();
    expect((await t.http.get('/v1/customers', { token: rolled })).status).toBe(200);

    const rollEntry = await auditEntry('api_key.rolled', oldId);
    await expect(rollEntry.innerText()).resolves.toContain(`key: ${oldStart} → ${rolled.slice(0, 12)}`);
    const revokeEntry = await auditEntry('api_key.revoked', oldId);
    await expect(revokeEntry.innerText()).resolves.toContain(oldStart);
    await expect(revokeEntry.innerText()).resolves.not.toContain(rolled);
  });

  it("changes a member's role, who still sees no audit log, then removes them; the audit log records both", async () => {
    await openSection('Team', 'Team');
    const member = page.getByRole('row').filter({ hasText: invitee.email });
    await member.getByLabel('Role of Ada Lovelace').selectOption('manager');
    await member.getByText('Saving the role').waitFor({ state: 'detached' });
    await settled();
    const stored = await t.db
      .collection('memberships')
      .findOne({ userId: { $in: [invitee.id, new ObjectId(invitee.id)] } });
    expect(stored).toMatchObject({ role: 'manager' });

    const changed = await auditEntry('member.role_changed', invitee.id);
    // The entry names the member by id; the page shows the member's email.
    await expect(changed.innerText()).resolves.toContain(invitee.email);
    await expect(changed.innerText()).resolves.toContain('role: developer → manager');

    // A manager is offered no audit log, and reaching it by its address says why.
    const other = await dashboard.browser.newContext({
      viewport: { width: 1280, height: 860 },
      locale: 'en-US',
      timezoneId: 'UTC',
    });
    try {
      const managerPage = await other.newPage();
      await managerPage.goto(`${t.baseUrl}/dashboard`);
      await managerPage.getByLabel('Email').fill(invitee.email);
      await managerPage.getByLabel('Password').fill(invitee.password);
      await managerPage.getByRole('button', { name: 'Log in' }).click();
      const sections = managerPage.getByRole('navigation', { name: 'Sections' });
      await sections.getByRole('link', { name: 'Team' }).waitFor();
      await expect(sections.getByRole('link', { name: 'Audit log' }).count()).resolves.toBe(0);
      await managerPage.goto(`${t.baseUrl}/dashboard/audit`);
      await managerPage.getByText('Only admins and the owner read the audit log').waitFor();
    } finally {
      await other.close();
    }

    await openSection('Team', 'Team');
    page.once('dialog', (dialog) => void dialog.accept());
    await member.getByRole('button', { name: 'Remove' }).click();
    await member.waitFor({ state: 'detached' });
    const removed = await auditEntry('member.removed', invitee.id);
    await expect(removed.innerText()).resolves.toContain('role: manager → —');
  });

  it('revokes an invitation, and the audit log records it on the invitation it made', async () => {
    await openSection('Team', 'Team');
    const email = uniqueEmail('withdrawn');
    await page.getByLabel('Email').fill(email);
    await page.getByRole('button', { name: 'Create invitation' }).click();
    const item = page.getByRole('listitem').filter({ hasText: email });
    await item.waitFor();
    await item.getByRole('button', { name: `Revoke the invitation of ${email}` }).click();
    await item.waitFor({ state: 'detached' });

    // The invitation's id, from the entry that made it (its target is labelled by the email).
    await openSection('Audit log', 'Audit log');
    await auditFilters().getByLabel('Action', { exact: true }).selectOption('member.invited');
    const invited = page.locator('tr[data-action="member.invited"]').filter({ hasText: email });
    await invited.waitFor();
    const invitationId = (await invited.getAttribute('data-target')) ?? '';
    expect(invitationId).toMatch(/^[0-9a-f]{24}$/);
    await auditEntry('invitation.revoked', invitationId);
  });

  it('pages the audit log with "Load more", filters it, exports it as JSON lines and CSV, and verifies the chain', async () => {
    // More entries than one page: an integration's keys, made through the API.
    const { body: loggedIn } = await t.http.post('/api/v1/login', { email: person.email, password: person.password });
    const projectId = (await t.http.get('/api/v1/platform/projects', { token: loggedIn.accessToken })).body.data[0].id;
    for (let i = 0; i < 6; i++) {
      expect(
        (
          await t.http.post(
            `/api/v1/platform/projects/${projectId}/keys`,
            { name: `Batch ${i}` },
            { token: loggedIn.accessToken },
          )
        ).status,
      ).toBe(201);
    }
    const total = await t.db
      .collection('audit_log')
      .countDocuments({ accountId: (await t.db.collection('accounts').findOne({ name: 'Hopper Compilers' }))?._id });
    expect(total).toBeGreaterThan(20);

    await openSection('Audit log', 'Audit log');
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await page.getByRole('button', { name: 'Load more entries' }).waitFor();
    await settled();
    const rows = page.getByRole('table', { name: 'Audit log entries, newest first' }).locator('tbody tr');
    await expect(rows.count()).resolves.toBe(20);
    await page.getByRole('button', { name: 'Load more entries' }).click();
    await page.getByRole('button', { name: 'Load more entries' }).waitFor({ state: 'detached' });
    const sequences = (await rows.evaluateAll((cells) => cells.map((cell) => cell.getAttribute('data-sequence')))).map(
      Number,
    );
    expect(sequences).toEqual(Array.from({ length: total }, (_, i) => total - i));
    await checkAccessibility('audit');
    await expectScreenshot(page, 'audit');
    await page.getByRole('heading', { level: 1, name: 'Audit log' }).scrollIntoViewIfNeeded();
    await screenshot('audit');

    // By actor: every row is the owner's; from tomorrow on: nothing.
    await auditFilters().getByLabel('Actor', { exact: true }).selectOption({ label: person.email });
    await settled();
    const actors = await rows.evaluateAll((cells) => cells.map((cell) => cell.getAttribute('data-actor')));
    expect(actors.length).toBeGreaterThan(0);
    const me = await t.http.get('/api/v1/me', { token: loggedIn.accessToken });
    expect(new Set(actors)).toEqual(new Set([me.body.data.user.id]));
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 16);
    await auditFilters().getByLabel('From', { exact: true }).fill(tomorrow);
    await page.getByText('No entries match these filters.').waitFor();
    await page.getByRole('button', { name: 'Clear filters' }).click();

    // The export carries the filters: one action, as JSON lines; then everything as CSV, oldest first.
    await auditFilters().getByLabel('Action', { exact: true }).selectOption('api_key.created');
    await settled();
    const exportForm = page.getByRole('form', { name: 'Export the audit log' });
    const [jsonl] = await Promise.all([
      page.waitForEvent('download'),
      exportForm.getByRole('button', { name: 'Download export' }).click(),
    ]);
    expect(jsonl.suggestedFilename()).toMatch(/^audit-log-[0-9a-f]{24}\.jsonl$/);
    const lines = readFileSync(await jsonl.path(), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { action: string; target: { label: string } });
    // Checkout server and the six of the batch (a roll is api_key.rolled).
    expect(lines.map((line) => line.action)).toEqual(Array(7).fill('api_key.created'));
    expect(
      lines.map((line) => line.target.label).every((label) => /^sk_test_/.test(label) && label.length === 12),
    ).toBe(true);
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await exportForm.getByLabel('Export format').selectOption('csv');
    const [csv] = await Promise.all([
      page.waitForEvent('download'),
      exportForm.getByRole('button', { name: 'Download export' }).click(),
    ]);
    const csvLines = readFileSync(await csv.path(), 'utf8')
      .trim()
      .split('\n');
    // Every cell quoted (no cell can start a formula where a spreadsheet splits on another separator).
    expect(csvLines[0]).toMatch(/^"sequence","id","occurredAt","action",/);
    expect(csvLines.slice(1).map((line) => Number(JSON.parse(line.split(',')[0])))).toEqual(
      Array.from({ length: total }, (_, i) => i + 1),
    );

    await page.getByRole('button', { name: 'Verify the log' }).click();
    await expect(page.getByRole('status').filter({ hasText: 'Valid' }).innerText()).resolves.toContain(
      `All ${total} entries`,
    );
  });

  it('switches the platform project (X-Project-Id) and the account (a new sign-in with accountId)', async () => {
    const { body: loggedIn } = await t.http.post('/api/v1/login', { email: person.email, password: person.password });
    const staging = await t.http.post(
      '/api/v1/platform/projects',
      { name: 'Staging' },
      { token: loggedIn.accessToken },
    );
    expect(staging.status).toBe(201);
    const side = await t.http.post(
      '/api/v1/accounts',
      { name: 'Side Project Ltd', type: 'company' },
      { token: loggedIn.accessToken },
    );
    expect(side.status).toBe(201);
    // The header reads projects and accounts at login: log in again to see the new ones.
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.getByLabel('Email').fill(person.email);
    await page.getByLabel('Password').fill(person.password);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();

    await openSection('Customers', 'Customers');
    await page.getByRole('link', { name: 'ada@example.com', exact: true }).waitFor();
    await page.getByLabel('Project').selectOption({ label: 'Staging' });
    await page.getByText('No customers yet.').waitFor();
    await page.getByLabel('Project').selectOption({ label: 'Default project (default)' });
    await page.getByRole('link', { name: 'ada@example.com', exact: true }).waitFor();

    await page.getByLabel('Account', { exact: true }).selectOption({ label: 'Side Project Ltd (owner)' });
    await page.getByLabel('Password to switch to Side Project Ltd').fill('not the password');
    await page.getByRole('button', { name: 'Switch account' }).click();
    await fieldError(
      page.getByRole('form', { name: 'Switch to Side Project Ltd' }),
      'Password to switch to Side Project Ltd',
    );
    await page.getByLabel('Password to switch to Side Project Ltd').fill(person.password);
    await page.getByRole('button', { name: 'Switch account' }).click();
    await page.getByRole('button', { name: 'Switch account' }).waitFor({ state: 'detached' });
    await expect(page.getByLabel('Account', { exact: true }).locator('option:checked').innerText()).resolves.toContain(
      'Side Project Ltd',
    );
    await openSection('Customers', 'Customers');
    await page.getByText('No customers yet.').waitFor();
    await checkAccessibility('customers-other-account');
  });

  it('had no serious or critical accessibility violation and no script, style or policy error on any page', () => {
    expect(dashboard.accessibility.map(({ page: name }) => name)).toEqual(
      expect.arrayContaining([
        'signup',
        'customers',
        'customer',
        'payments',
        'payment',
        'overview',
        'overview-dark',
        'team',
        'projects',
        'webhooks',
        'events',
        'audit',
        'not-found',
        'content',
      ]),
    );
    expect(dashboard.accessibility.filter((entry) => entry.violations.length > 0)).toEqual([]);
    expect(dashboard.pageProblems).toEqual([]);
  });
});
