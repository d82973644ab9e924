import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Types } from 'mongoose';
import type { Page } from 'playwright-core';
import { createFirstAdmin, invite, signupBody, uniqueEmail, type TestUser } from '../support/auth';
import { MailServer } from '../support/mail-server';
import { enableTotp, signIn, totp } from '../support/sessions';
import { createTestApp, TestApp } from '../support/test-app';
import {
  DashboardBrowser,
  fieldError,
  openSection,
  proveSecondFactor,
  settled,
  signInThroughDashboard,
} from './support/dashboard-browser';
import { expectScreenshot } from './support/screenshots';

// jest reads testTimeout from the top-level configuration only, not from a project's.
jest.setTimeout(120_000);

/**
 * Signing in to the dashboard on a cookie session, in Chromium: the `sid` cookie out of every
 * script's reach and no token in page storage; the second step (an authenticator code computed here,
 * a recovery code); the pages the mails link to (password reset, email verification, invitation),
 * each followed from the mail Mailpit captured; the owner's "require two-step sign-in" switch; the
 * step-up prompt before a refund; and a page of another origin that cannot use the victim's cookie
 * to change anything. Every page is checked with axe-core.
 */
describe('signing in to the dashboard', () => {
  let t: TestApp;
  let dashboard: DashboardBrowser;
  let page: Page;
  const mail = new MailServer();
  /** Owns an account; turns TOTP on in the second test. */
  let owner: TestUser;
  let ownerTotp: { secret: string; recoveryCodes: string[] };

  /** The link of the newest mail to `to` whose subject matches, on this test's service (the mails name PUBLIC_URL's). */
  async function mailedLink(to: string, subject: RegExp, path: string): Promise<string> {
    const message = await mail.waitFor(to, subject);
    const link = message.links.find((candidate) => new URL(candidate).pathname === path);
    if (!link) throw new Error(`no ${path} link in "${message.subject}": ${message.text}`);
    const url = new URL(link);
    // The format the pages read: `<PUBLIC_URL><path>?token=<code>` and nothing else.
    expect([...url.searchParams.keys()]).toEqual(['token']);
    return `${t.baseUrl}${url.pathname}${url.search}`;
  }

  const sessionsOf = (userId: string) =>
    t.db
      .collection('sessions')
      .find({ userId: new Types.ObjectId(userId) })
      .toArray();

  beforeAll(async () => {
    t = await createTestApp();
    dashboard = await DashboardBrowser.launch();
    ({ page } = dashboard);
    owner = await createFirstAdmin(t.http);
  });

  afterAll(async () => {
    await dashboard?.close();
    await t?.close();
  });

  it('signs in on an HttpOnly cookie: no script can read it, no token in page storage, no Authorization header sent', async () => {
    const authorization: string[] = [];
    page.on('request', (request) => {
      const header = request.headers()['authorization'];
      if (header) authorization.push(`${request.method()} ${request.url()}`);
    });
    await page.goto(`${t.baseUrl}/dashboard/login`);
    await page.getByRole('heading', { level: 2, name: 'Log in' }).waitFor();
    await checkAccessibility('sign-in');
    await expectScreenshot(page, 'sign-in');

    // A wrong password is refused on the form, and opens no session.
    await page.getByLabel('Email').fill(owner.email);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('alert').getByText('Invalid email or password').waitFor();
    expect(await sessionsOf(owner.id)).toHaveLength(0);

    await signInThroughDashboard(page, t.baseUrl, owner.email, owner.password);
    await settled(page);
    const cookies = await dashboard.context.cookies(t.baseUrl);
    const sid = cookies.find((cookie) => cookie.name === 'sid');
    expect(sid).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/' });
    expect(sid?.value.length).toBeGreaterThanOrEqual(32);
    const seen = await page.evaluate(() => {
      const inPage = globalThis as unknown as {
        document: { cookie: string };
        localStorage: Storage;
        sessionStorage: Storage;
      };
      const dump = (storage: Storage) =>
        Array.from({ length: storage.length }, (_, i) => `${storage.key(i)}=${storage.getItem(storage.key(i) ?? '')}`);
      return { cookie: inPage.document.cookie, local: dump(inPage.localStorage), session: dump(inPage.sessionStorage) };
    });
    expect(seen.cookie).not.toContain('sid');
    expect(seen.cookie).not.toContain(sid?.value);
    for (const entry of [...seen.local, ...seen.session]) {
      expect(entry).not.toContain(sid?.value);
      expect(entry).not.toMatch(/token|eyJ/i);
    }
    expect(authorization).toEqual([]);
    const [stored] = await sessionsOf(owner.id);
    expect(stored).toMatchObject({ assurance: 'password', accountId: owner.accountId });
    // Stored hashed: the cookie's value is nowhere in the record.
    expect(JSON.stringify(stored)).not.toContain(sid?.value);
  });

  it('signs out: the session ends in the database and the cookie is cleared', async () => {
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.getByRole('heading', { level: 2, name: 'Log in' }).waitFor();
    expect(await sessionsOf(owner.id)).toHaveLength(0);
    expect((await dashboard.context.cookies(t.baseUrl)).find((cookie) => cookie.name === 'sid')).toBeUndefined();
  });

  it('an ended session brings back the sign-in page with a message', async () => {
    await signInThroughDashboard(page, t.baseUrl, owner.email, owner.password);
    // Ended from elsewhere ("sign out other devices" on another device).
    const elsewhere = await signIn(t.http, owner);
    expect((await elsewhere.delete('/api/v1/sessions')).body.ended).toBe(1);
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Customers' }).click();
    await page.getByRole('status').getByText('Your session has ended. Sign in again to continue.').waitFor();
    await page.getByRole('heading', { level: 2, name: 'Log in' }).waitFor();
    await checkAccessibility('sign-in-ended');
    await elsewhere.delete('/api/v1/sessions/current');
  });

  it('signs in with the password, then a code of the authenticator app (computed here)', async () => {
    ownerTotp = await enableTotp(await signIn(t.http, owner));
    // The owner's API calls from here on, as anyone with a factor logs in: the password and a code (the last recovery code).
    const strong = await t.http.post('/api/v1/login', {
      email: owner.email,
      password: owner.password,
      recoveryCode: ownerTotp.recoveryCodes[9],
    });
    expect(strong.status).toBe(200);
    owner = { ...owner, token: strong.body.accessToken };
    await page.goto(`${t.baseUrl}/dashboard/login`);
    await page.getByLabel('Email').fill(owner.email);
    await page.getByLabel('Password').fill(owner.password);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('heading', { level: 2, name: 'Two-step sign-in' }).waitFor();
    await checkAccessibility('sign-in-second-step');
    await dashboard.screenshot('sign-in-second-step');
    // A wrong code: the API's message at the field, no session.
    const before = (await sessionsOf(owner.id)).length;
    await page.getByLabel('Authenticator code').fill('000000');
    await page.getByRole('button', { name: 'Verify' }).click();
    await expect(fieldError(page, 'Authenticator code')).resolves.toMatch(/code/i);
    expect(await sessionsOf(owner.id)).toHaveLength(before);

    await proveSecondFactor(page, { totp: await totp(ownerTotp.secret, 0) }, 'Verify');
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    const mine = await sessionsOf(owner.id);
    // The browser's one, beside the API session that turned TOTP on (which proved the factor doing so).
    expect(
      mine.filter((session) => session.assurance === 'mfa' && /Chrome/.test(String(session.userAgent))),
    ).toHaveLength(1);
  });

  it('signs in with a recovery code instead, which then no longer works', async () => {
    const { context, page: other } = await dashboard.newPage();
    try {
      await signInThroughDashboard(other, t.baseUrl, owner.email, owner.password, {
        recoveryCode: ownerTotp.recoveryCodes[0],
      });
      await checkAccessibility('overview-after-recovery-code', other);
      const again = await t.http.post('/api/v1/sessions', {
        email: owner.email,
        password: owner.password,
        recoveryCode: ownerTotp.recoveryCodes[0],
      });
      expect(again.status).toBe(401);
    } finally {
      await context.close();
    }
  });

  it("the owner's switch requires two-step sign-in of the account, with what it means", async () => {
    await openSection(page, 'Team', 'Team');
    const toggle = page.getByRole('switch', { name: /Require two-step sign-in/ });
    await expect(toggle.isChecked()).resolves.toBe(false);
    await expect(page.locator('#two-step-meaning').innerText()).resolves.toMatch(
      /must then sign in with an authenticator app or a passkey/,
    );
    await toggle.click();
    await page.getByRole('switch', { name: /Require two-step sign-in/, checked: true }).waitFor();
    await settled(page);
    await expect(toggle.isChecked()).resolves.toBe(true);
    expect(await t.db.collection('accounts').findOne({ _id: new Types.ObjectId(owner.accountId) })).toMatchObject({
      requireMfa: true,
    });
    expect(
      await t.db
        .collection('audit_log')
        .countDocuments({ accountId: new Types.ObjectId(owner.accountId), action: 'account.mfa_required' }),
    ).toBe(1);
    await checkAccessibility('team-require-two-step');
    // A member without a factor now gets `mfa_required` on the account's data with a password-only session.
    const member = await createMemberOf(owner);
    const weak = await signIn(t.http, member);
    const refused = await weak.get(`/api/v1/accounts/${owner.accountId}/members`);
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('mfa_required');
    // In the dashboard, that member is told what to do instead of seeing the account's pages.
    const { context, page: memberPage } = await dashboard.newPage();
    try {
      await memberPage.goto(`${t.baseUrl}/dashboard/login`);
      await memberPage.getByLabel('Email').fill(member.email);
      await memberPage.getByLabel('Password').fill(member.password);
      await memberPage.getByRole('button', { name: 'Log in' }).click();
      await memberPage.getByRole('heading', { level: 1, name: 'Two-step sign-in required' }).waitFor();
      await checkAccessibility('two-step-required', memberPage);
    } finally {
      await context.close();
    }
  });

  it('asks for the code again before a refund (step-up), then refunds once', async () => {
    const customer = (await t.http.post('/v1/customers', { email: uniqueEmail('payer') }, { token: owner.token })).body
      .data.id;
    await t.http.post(
      '/v1/cards',
      { customer, cardNumber: '4242424242424242', expMonth: '12', expYear: '2035', cvc: '123' },
      { token: owner.token },
    );
    const paid = await t.http.post(
      '/api/v1/payments',
      { amount: 30, currency: 'usd', customer, confirm: true },
      { token: owner.token },
    );
    expect(paid.body.status).toBe('succeeded');
    // The second factor was proven at sign-in: as if that were 11 minutes ago, past STEP_UP_MINUTES.
    await t.db
      .collection('sessions')
      .updateMany({ userId: new Types.ObjectId(owner.id) }, { $set: { mfaAt: new Date(Date.now() - 11 * 60_000) } });

    await openSection(page, 'Payments', 'Payments');
    const row = page.locator(`tr[data-payment="${paid.body.id}"]`);
    await row.getByText('Succeeded').waitFor();
    await row.getByRole('button', { name: 'Refund payment of $30.00' }).click();
    await page.getByLabel('Refund amount (USD)').fill('10');
    await page.getByRole('button', { name: 'Refund $10.00' }).click();
    const dialog = page.getByRole('dialog', { name: 'Confirm it is you' });
    await dialog.waitFor();
    await checkAccessibility('step-up');
    await dashboard.screenshot('step-up');
    // Cancelled: the refund fails with the refusal, nothing refunded.
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await page
      .getByText('Not done: this action needs your second factor, and the confirmation was cancelled.')
      .waitFor();
    expect(
      (await t.db.collection('payments').findOne({ _id: new Types.ObjectId(paid.body.id) }))?.amountRefundedMinor ?? 0,
    ).toBe(0);

    await page.getByRole('button', { name: 'Refund $10.00' }).click();
    await dialog.waitFor();
    await proveSecondFactor(page, { totp: await totp(ownerTotp.secret, 1) }, 'Confirm');
    await dialog.waitFor({ state: 'hidden' });
    await row.getByText('Partially refunded').waitFor();
    const stored = await t.db.collection('payments').findOne({ _id: new Types.ObjectId(paid.body.id) });
    expect(stored).toMatchObject({ amountMinor: 3000, amountRefundedMinor: 1000, status: 'partially_refunded' });
    expect(
      await t.db.collection('audit_log').countDocuments({ action: 'payment.refunded', 'target.id': paid.body.id }),
    ).toBe(1);

    // Proven now: the next refund within STEP_UP_MINUTES goes through without asking.
    await row.getByRole('button', { name: /^Refund payment of/ }).click();
    await page.getByLabel('Refund amount (USD)').fill('5');
    await page.getByRole('button', { name: 'Refund $5.00' }).click();
    await row.getByText('$15.00 refunded').waitFor();
    expect(await dialog.isVisible()).toBe(false);
  });

  it('the same prompt guards revoking an API key, proven with a recovery code', async () => {
    const created = await t.http.post(
      `/api/v1/platform/projects/${owner.projectId}/keys`,
      { name: 'Till' },
      { token: owner.token },
    );
    expect(created.status).toBe(201);
    const keyId = created.body.data.id as string;
    const key = created.body.data.key as string;
    expect((await t.http.get('/v1/customers', { token: key })).status).toBe(200);
    await t.db
      .collection('sessions')
      .updateMany({ userId: new Types.ObjectId(owner.id) }, { $set: { mfaAt: new Date(Date.now() - 11 * 60_000) } });
    await openSection(page, 'Projects & keys', 'Projects & keys');
    const row = page.locator(`tr[data-key="${keyId}"]`);
    page.once('dialog', (confirm) => void confirm.accept());
    await row.getByRole('button', { name: 'Revoke the key Till' }).click();
    await page.getByRole('dialog', { name: 'Confirm it is you' }).waitFor();
    await proveSecondFactor(page, { recoveryCode: ownerTotp.recoveryCodes[1] }, 'Confirm');
    await row.getByText('Revoked').waitFor();
    expect((await t.http.get('/v1/customers', { token: key })).status).toBe(401);
    expect((await t.db.collection('api_keys').findOne({ _id: new Types.ObjectId(keyId) }))?.revokedAt).toBeInstanceOf(
      Date,
    );
  });

  it('forgot password: the same confirmation for any address, the mailed link, a new password, other sessions ended', async () => {
    const user = await createFirstAdmin(t.http);
    const otherDevice = await signIn(t.http, user);
    const { context, page: reset } = await dashboard.newPage();
    try {
      const confirmations: string[] = [];
      for (const email of [uniqueEmail('nobody'), user.email]) {
        await reset.goto(`${t.baseUrl}/dashboard/login`);
        await reset.getByRole('link', { name: 'Forgot your password?' }).click();
        await reset.getByRole('heading', { level: 2, name: 'Reset your password' }).waitFor();
        await reset.getByLabel('Email').fill(email);
        await reset.getByRole('button', { name: 'Send the link' }).click();
        confirmations.push((await reset.getByRole('status').innerText()).replace(email, '<email>'));
      }
      expect(confirmations[0]).toBe(confirmations[1]);
      await checkAccessibility('forgot-password', reset);

      const link = await mailedLink(user.email, /reset your password/i, '/dashboard/reset-password');
      await reset.goto(link);
      await reset.getByRole('heading', { level: 2, name: 'Choose a new password' }).waitFor();
      await checkAccessibility('reset-password', reset);
      const password = 'a brand new password';
      await reset.getByLabel('New password', { exact: true }).fill(password);
      await reset.getByLabel('New password again').fill(password);
      await reset.getByRole('button', { name: 'Change the password' }).click();
      await reset.getByRole('status').getByText('Your password is changed').waitFor();
      expect((await otherDevice.get('/api/v1/me')).status).toBe(401);
      expect((await t.http.get('/api/v1/me', { token: user.token })).status).toBe(401);

      await reset.getByLabel('Email').fill(user.email);
      await reset.getByLabel('Password').fill(password);
      await reset.getByRole('button', { name: 'Log in' }).click();
      await reset.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
      // The link worked once.
      await reset.goto(link);
      await reset.getByLabel('New password', { exact: true }).fill('yet another password');
      await reset.getByLabel('New password again').fill('yet another password');
      await reset.getByRole('button', { name: 'Change the password' }).click();
      await reset
        .getByRole('alert')
        .getByText(/invalid, has expired or was already used/)
        .waitFor();
    } finally {
      await context.close();
    }
  });

  it('verifies an email from the link mailed at signup', async () => {
    const body = signupBody({ email: uniqueEmail('unverified') });
    expect((await t.http.post('/api/v1/singup', body)).status).toBe(201);
    const link = await mailedLink(body.email, /verify your email/i, '/dashboard/verify-email');
    const { context, page: verify } = await dashboard.newPage();
    try {
      await verify.goto(link);
      await verify.getByRole('heading', { level: 2, name: 'Verify your email' }).waitFor();
      // Opening the link does nothing by itself (a mail scanner may open it): the button does.
      expect((await t.db.collection('users').findOne({ email: body.email }))?.emailVerifiedAt ?? null).toBeNull();
      await checkAccessibility('verify-email', verify);
      await verify.getByRole('button', { name: 'Verify my email' }).click();
      await verify.getByRole('status').getByText('Your email is verified').waitFor();
      expect((await t.db.collection('users').findOne({ email: body.email }))?.emailVerifiedAt).toBeInstanceOf(Date);
    } finally {
      await context.close();
    }
  });

  it('shows a signed-in unverified user a banner whose Resend mails a new link, which verifies the email', async () => {
    const body = signupBody({ email: uniqueEmail('banner') });
    expect((await t.http.post('/api/v1/singup', body)).status).toBe(201);
    await mail.waitFor(body.email, /verify your email/i);
    const { context, page: unverified } = await dashboard.newPage();
    try {
      await signInThroughDashboard(unverified, t.baseUrl, body.email, body.password);
      const banner = unverified.getByRole('note').filter({ hasText: 'Verify your email' });
      await banner.getByRole('button', { name: 'Resend' }).click();
      await banner.getByText('Sent. Follow the link in the mail to verify your email.').waitFor();
      await checkAccessibility('verify-email-banner', unverified);
      const verificationMails = async () =>
        (await mail.listTo(body.email)).filter((message) => /verify your email/i.test(message.subject)).length;
      for (let tries = 0; (await verificationMails()) < 2; tries++) {
        if (tries > 100) throw new Error('the resent verification mail did not arrive');
        await new Promise((done) => setTimeout(done, 100));
      }

      await unverified.goto(await mailedLink(body.email, /verify your email/i, '/dashboard/verify-email'));
      await unverified.getByRole('button', { name: 'Verify my email' }).click();
      await unverified.getByRole('link', { name: 'Go to the overview' }).click();
      await unverified.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
      await settled(unverified);
      await expect(banner.count()).resolves.toBe(0);
    } finally {
      await context.close();
    }
  });

  it('accepts an invitation from the mailed link: a newcomer signs up into the inviting account', async () => {
    const inviter = await createFirstAdmin(t.http);
    const email = uniqueEmail('invitee');
    await invite(t.http, inviter.token, email, 'developer');
    const link = await mailedLink(email, /invited/i, '/dashboard/invitation');
    const { context, page: invited } = await dashboard.newPage();
    try {
      await invited.goto(link);
      await invited.getByRole('heading', { level: 2, name: 'You are invited' }).waitFor();
      await checkAccessibility('invitation', invited);
      await invited.getByLabel('First name').fill('Linus');
      await invited.getByLabel('Last name').fill('Torvalds');
      await invited.getByLabel('Email').fill(email);
      await invited.getByLabel('Password').fill('a long enough password');
      await invited.getByRole('button', { name: 'Sign up' }).click();
      await invited.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
      const account = (await t.db.collection('accounts').findOne({ _id: new Types.ObjectId(inviter.accountId) }))
        ?.name as string;
      await expect(
        invited.getByLabel('Account', { exact: true }).locator('option:checked').innerText(),
      ).resolves.toContain(account);
      const user = await t.db.collection('users').findOne({ email });
      const membership = await t.db
        .collection('memberships')
        .findOne({ userId: user?._id, accountId: new Types.ObjectId(inviter.accountId) });
      expect(membership).toMatchObject({ role: 'developer' });
    } finally {
      await context.close();
    }
  });

  it('accepts an invitation from the mailed link: a user with a login logs in, accepts, and opens the inviting account', async () => {
    const inviter = await createFirstAdmin(t.http);
    const guest = await createFirstAdmin(t.http);
    await invite(t.http, inviter.token, guest.email, 'manager');
    const link = await mailedLink(guest.email, /invited/i, '/dashboard/invitation');
    const { context, page: invited } = await dashboard.newPage();
    try {
      await invited.goto(link);
      await invited.getByLabel('I have a login').check();
      await invited.getByLabel('Email').fill(guest.email);
      await invited.getByLabel('Password').fill(guest.password);
      await invited.getByRole('button', { name: 'Log in' }).click();
      await invited.getByRole('button', { name: 'Accept the invitation' }).click();
      await invited.getByRole('heading', { level: 2, name: /^You joined / }).waitFor();
      await checkAccessibility('invitation-accepted', invited);
      await invited.getByLabel(/^Password to switch to /).fill(guest.password);
      await invited.getByRole('button', { name: 'Switch account' }).click();
      await invited.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
      const inviting = (await t.db.collection('accounts').findOne({ _id: new Types.ObjectId(inviter.accountId) }))
        ?.name as string;
      await expect(
        invited.getByLabel('Account', { exact: true }).locator('option:checked').innerText(),
      ).resolves.toContain(inviting);
      // The session of the first account ended with the switch: one live session, in the inviting account.
      const mine = await sessionsOf(guest.id);
      expect(mine.map((session) => session.accountId)).toEqual([inviter.accountId]);
    } finally {
      await context.close();
    }
  });

  it('a page of another origin cannot change anything with the cookie: an auto-submitted form and a fetch with credentials are refused', async () => {
    const victimUser = await createFirstAdmin(t.http);
    const victim = await dashboard.newPage();
    // The same host on another port: another origin but the same site, so SameSite=Lax still sends
    // the cookie, and only the service's Origin check stands in the way.
    const target = `${t.baseUrl}/api/v1/me/mfa/totp`;
    const attacker: Server = createServer((request, response) => {
      response.setHeader('content-type', 'text/html; charset=utf-8');
      if (request.url === '/form') {
        response.end(
          `<!doctype html><html lang="en"><title>Win a prize</title><form id="f" method="post" action="${target}" enctype="text/plain"></form><script>document.getElementById('f').submit()</script></html>`,
        );
      } else {
        response.end(
          `<!doctype html><html lang="en"><title>Win a prize</title><script>fetch(${JSON.stringify(target)}, { method: 'POST', mode: 'no-cors', credentials: 'include' })</script></html>`,
        );
      }
    });
    await new Promise<void>((listening) => attacker.listen(0, '127.0.0.1', listening));
    const attackerUrl = `http://127.0.0.1:${(attacker.address() as AddressInfo).port}`;
    const pendingSecret = async () =>
      (await t.db.collection('users').findOne({ email: victimUser.email }))?.totpPendingSecret ?? null;
    const answered = () =>
      victim.page.waitForResponse((response) => response.url() === target && response.request().method() === 'POST');
    try {
      await signInThroughDashboard(victim.page, t.baseUrl, victimUser.email, victimUser.password);

      const fetched = answered();
      await victim.page.goto(`${attackerUrl}/fetch`);
      const fetchAnswer = await fetched;
      // Refused for its Origin (403), which the service checks only once the cookie named a live
      // session (without the cookie the answer is 401): the cookie went along, and did not help.
      expect(fetchAnswer.status()).toBe(403);

      const posted = answered();
      await victim.page.goto(`${attackerUrl}/form`);
      const formAnswer = await posted;
      // A form can only send a body the API does not take (415) or, without one, meets the Origin check (403).
      expect([403, 415]).toContain(formAnswer.status());
      expect(await pendingSecret()).toBeNull();

      // The same request from the dashboard's own origin, with the same cookie, does change it.
      await victim.page.goto(`${t.baseUrl}/dashboard/overview`);
      await victim.page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
      const own = await victim.page.evaluate(
        async (url) => (await fetch(url, { method: 'POST', credentials: 'same-origin' })).status,
        target,
      );
      expect(own).toBe(201);
      expect(await pendingSecret()).not.toBeNull();
    } finally {
      await victim.context.close();
      await new Promise((closed) => attacker.close(closed));
    }
  });

  it('had no serious or critical accessibility violation and no script, style or policy error on any page', () => {
    expect(dashboard.accessibility.map(({ page: name }) => name)).toEqual(
      expect.arrayContaining([
        'sign-in',
        'sign-in-second-step',
        'step-up',
        'forgot-password',
        'reset-password',
        'verify-email',
        'invitation',
        'team-require-two-step',
      ]),
    );
    expect(dashboard.accessibility.filter((entry) => entry.violations.length > 0)).toEqual([]);
    expect(dashboard.pageProblems).toEqual([]);
  });

  function checkAccessibility(name: string, on: Page = page) {
    return dashboard.checkAccessibility(name, on);
  }

  /** A developer invited into `admin`'s account who signed up with the invitation (no second factor). */
  async function createMemberOf(admin: TestUser): Promise<TestUser> {
    const email = uniqueEmail('member');
    const invitationToken = await invite(t.http, admin.token, email, 'developer');
    const body = { ...signupBody({ email, invitationToken }), role: undefined };
    const res = await t.http.post('/api/v1/singup', body);
    expect(res.status).toBe(201);
    return { ...admin, id: res.body.data.user.id, email, password: body.password, role: 'developer', token: '' };
  }
});
