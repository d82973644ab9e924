import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import type { CDPSession, Page } from 'playwright-core';
import { createFirstAdmin, login, type TestUser } from '../support/auth';
import { totp } from '../support/sessions';
import { createTestApp, type TestApp } from '../support/test-app';
import { DashboardBrowser, openSection, settled, signInThroughDashboard } from './support/dashboard-browser';
import { expectScreenshot } from './support/screenshots';

// jest reads testTimeout from the top-level configuration only, not from a project's.
jest.setTimeout(120_000);

/**
 * WebAuthn needs a secure context and an origin whose host is the relying party id: the browser
 * reaches the service as http://localhost:<port> (potentially trustworthy, like https) through a
 * TCP relay opened before the service starts, so that the service is told its origin (PUBLIC_URL:
 * the passkeys' relying party and origin) and the browser's Host and Origin agree with it.
 */
async function relay(): Promise<{ origin: string; to(port: number): void; close(): Promise<void> }> {
  let target = 0;
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(target, '127.0.0.1');
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => (client.destroy(), upstream.destroy()));
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://localhost:${port}`,
    to: (port: number) => (target = port),
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * The Security page in Chromium: the user's sessions (a second browser signed in, ended from the
 * first), an authenticator app enrolled with a code computed here and its recovery codes, a passkey
 * added with Chromium's virtual authenticator (DevTools Protocol `WebAuthn`), renamed, used for a
 * passwordless sign-in in a fresh browser holding the same passkey, and removed; then a password
 * change. axe-core checks each state.
 */
describe('the Security page in a browser', () => {
  let t: TestApp;
  let dashboard: DashboardBrowser;
  let page: Page;
  let user: TestUser;
  let authenticator: { cdp: CDPSession; authenticatorId: string };
  let localhost: Awaited<ReturnType<typeof relay>>;
  let ORIGIN: string;

  /** A platform authenticator that verifies its user (a fingerprint, a PIN) without asking: what a passkey needs. */
  async function virtualAuthenticator(on: Page): Promise<{ cdp: CDPSession; authenticatorId: string }> {
    const cdp = await on.context().newCDPSession(on);
    await cdp.send('WebAuthn.enable');
    const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: {
        protocol: 'ctap2',
        transport: 'internal',
        hasResidentKey: true,
        hasUserVerification: true,
        isUserVerified: true,
        automaticPresenceSimulation: true,
      },
    });
    return { cdp, authenticatorId };
  }

  /** A fresh browser, signed out, on the service's origin. */
  async function freshBrowser(): Promise<Page> {
    const fresh = await dashboard.newPage();
    await fresh.page.goto(`${ORIGIN}/dashboard/login`);
    return fresh.page;
  }

  /** A request from the page itself (its cookies, its Origin), as the dashboard's own scripts send them. */
  function fetchFrom(
    on: Page,
    path: string,
    init: { method?: string; body?: unknown } = {},
  ): Promise<{ status: number; body: any }> {
    return on.evaluate(
      async ({ path, method, body }) => {
        const res = await fetch(path, {
          method: method ?? 'GET',
          headers: body === undefined ? {} : { 'content-type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        const text = await res.text();
        return { status: res.status, body: text ? JSON.parse(text) : null };
      },
      { path, method: init.method, body: init.body },
    );
  }

  /**
   * Signs in with a passkey from the page, as `PasskeySignIn` does: the service's options, the
   * browser's own `navigator.credentials.get()` (answered by the page's virtual authenticator), the
   * answer posted. The status and body of the sign-in.
   */
  function passkeySignIn(on: Page): Promise<{ status: number; body: any }> {
    return on.evaluate(async () => {
      const b64 = (bytes: ArrayBuffer | null) =>
        bytes
          ? btoa(String.fromCharCode(...new Uint8Array(bytes)))
              .replace(/\+/g, '-')
              .replace(/\//g, '_')
              .replace(/=+$/, '')
          : undefined;
      const unb64 = (text: string) =>
        Uint8Array.from(atob(text.replace(/-/g, '+').replace(/_/g, '/')), (char) => char.charCodeAt(0));
      const options = (await (await fetch('/api/v1/sessions/passkey/options', { method: 'POST' })).json()) as {
        challenge: string;
        rpId: string;
        timeout: number;
        userVerification: string;
      };
      // Runs in the page (the test's TypeScript has no DOM types).
      const inPage = globalThis as unknown as { navigator: { credentials: { get(request: object): Promise<any> } } };
      const credential = await inPage.navigator.credentials.get({
        publicKey: {
          challenge: unb64(options.challenge),
          rpId: options.rpId,
          timeout: options.timeout,
          userVerification: options.userVerification,
          allowCredentials: [],
        },
      });
      const answer = {
        id: credential.id,
        rawId: b64(credential.rawId),
        type: credential.type,
        clientExtensionResults: credential.getClientExtensionResults(),
        response: {
          clientDataJSON: b64(credential.response.clientDataJSON),
          authenticatorData: b64(credential.response.authenticatorData),
          signature: b64(credential.response.signature),
          userHandle: b64(credential.response.userHandle),
        },
      };
      const res = await fetch('/api/v1/sessions/passkey', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ credential: answer }),
      });
      return { status: res.status, body: await res.json() };
    });
  }

  const security = () => page.getByRole('region', { name: 'Security' });
  const sessionsTable = () => page.getByRole('table', { name: 'Sessions' });
  const passkeysTable = () => page.getByRole('table', { name: 'Passkeys' });

  beforeAll(async () => {
    localhost = await relay();
    ORIGIN = localhost.origin;
    t = await createTestApp({ PUBLIC_URL: ORIGIN });
    localhost.to(Number(new URL(t.baseUrl).port));
    dashboard = await DashboardBrowser.launch();
    ({ page } = dashboard);
    user = await createFirstAdmin(t.http);
    await signInThroughDashboard(page, ORIGIN, user.email, user.password);
  });

  afterAll(async () => {
    await dashboard?.close();
    await localhost?.close();
    await t?.close();
  });

  it('lists the sessions with device, address and last seen, and ends another browser’s session from this one', async () => {
    const other = await freshBrowser();
    expect(
      (
        await fetchFrom(other, '/api/v1/sessions', {
          method: 'POST',
          body: { email: user.email, password: user.password },
        })
      ).status,
    ).toBe(201);
    const otherId = (await fetchFrom(other, '/api/v1/sessions')).body.data.find(
      (session: { current: boolean }) => session.current,
    ).id;

    await openSection(page, 'Security', 'Security');
    await settled(page);
    const row = sessionsTable()
      .getByRole('row')
      .filter({ has: page.getByRole('button', { name: /^End the session on/ }) });
    await expect(row.count()).resolves.toBe(1);
    await expect(row.getByRole('cell').first().innerText()).resolves.toBe('127.0.0.1');
    await dashboard.checkAccessibility('security-sessions');
    await dashboard.screenshot('security-sessions');
    await expectScreenshot(page, 'security-sessions');

    await row.getByRole('button', { name: /^End the session on/ }).click();
    await row.waitFor({ state: 'detached' });
    await settled(page);
    expect((await fetchFrom(other, '/api/v1/sessions')).status).toBe(401);
    expect(
      (await t.http.get('/api/v1/sessions', { token: user.token })).body.data.map(
        (session: { id: string }) => session.id,
      ),
    ).not.toContain(otherId);
  });

  it('signs every other browser out at once', async () => {
    const others = [await freshBrowser(), await freshBrowser()];
    for (const other of others)
      expect(
        (
          await fetchFrom(other, '/api/v1/sessions', {
            method: 'POST',
            body: { email: user.email, password: user.password },
          })
        ).status,
      ).toBe(201);
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Security' }).waitFor();
    await settled(page);
    await page.getByRole('button', { name: 'Sign out other devices' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: /other sessions? ended/ })
      .waitFor();
    for (const other of others) expect((await fetchFrom(other, '/api/v1/sessions')).status).toBe(401);
  });

  it('turns on an authenticator app with a QR code and a code computed here, shows the 10 recovery codes once, and turns it off', async () => {
    await security().getByRole('button', { name: 'Set up an authenticator app' }).click();
    const qr = page.getByRole('img', { name: "QR code of the authenticator app's key" });
    await qr.waitFor();
    await expect(qr.getAttribute('src')).resolves.toMatch(/^data:image\/png;base64,/);
    const secret = await page.getByRole('textbox', { name: 'Key for the authenticator app' }).inputValue();
    expect(secret).toMatch(/^[A-Z2-7]{16,}$/);
    await dashboard.checkAccessibility('security-totp-enrol');
    await dashboard.screenshot('security-totp-enrol');

    await page.getByLabel('Code from the app').fill(await totp(secret, 0));
    await page.getByRole('button', { name: 'Turn on' }).click();
    const codes = page.getByRole('list', { name: 'Your recovery codes' }).getByRole('listitem');
    await codes.first().waitFor();
    await expect(codes.allInnerTexts()).resolves.toEqual(
      Array.from({ length: 10 }, () => expect.stringMatching(/^[a-z2-7]{5}-[a-z2-7]{5}$/)),
    );
    const first = await codes.first().innerText();
    await dashboard.checkAccessibility('security-recovery-codes');
    await dashboard.screenshot('security-recovery-codes');
    await page.getByRole('button', { name: 'I have saved them' }).click();
    await page.getByText('10 recovery codes left.').waitFor();
    // Shown once: nowhere on the page any more.
    await expect(page.getByText(first).count()).resolves.toBe(0);
    // The app is a second factor now: a password alone no longer signs in.
    expect((await t.http.post('/api/v1/sessions', { email: user.email, password: user.password })).body.code).toBe(
      'mfa_required',
    );
    await dashboard.checkAccessibility('security-totp-on');

    await page.getByLabel('Code from the app, to turn it off').fill(await totp(secret, 1));
    await page.getByRole('button', { name: 'Turn off' }).click();
    await security().getByRole('button', { name: 'Set up an authenticator app' }).waitFor();
  });

  it('adds a passkey with the virtual authenticator, renames it, signs in with it alone in a fresh browser, and removes it', async () => {
    authenticator = await virtualAuthenticator(page);
    await page.getByLabel('Name of the new passkey').fill('Test laptop');
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await page.getByRole('status').filter({ hasText: 'Passkey “Test laptop” added.' }).waitFor();
    await passkeysTable().getByRole('rowheader', { name: 'Test laptop' }).waitFor();
    await expect(
      passkeysTable().getByRole('row').filter({ hasText: 'Test laptop' }).getByRole('cell').nth(1).innerText(),
    ).resolves.toBe('Never');
    await dashboard.checkAccessibility('security-passkey-added');
    await dashboard.screenshot('security-passkey-added');

    await page.getByRole('button', { name: 'Rename Test laptop' }).click();
    await page.getByLabel('New name for Test laptop').fill('Work laptop');
    await dashboard.checkAccessibility('security-passkey-rename');
    await page.getByRole('button', { name: 'Save' }).click();
    await passkeysTable().getByRole('rowheader', { name: 'Work laptop' }).waitFor();

    // The same passkey in another browser (a synced passkey, or the same device): its private key copied over.
    const { credentials } = await authenticator.cdp.send('WebAuthn.getCredentials', {
      authenticatorId: authenticator.authenticatorId,
    });
    expect(credentials).toHaveLength(1);
    expect(credentials[0]).toMatchObject({ rpId: 'localhost', isResidentCredential: true });
    const fresh = await freshBrowser();
    const freshAuthenticator = await virtualAuthenticator(fresh);
    await freshAuthenticator.cdp.send('WebAuthn.addCredential', {
      authenticatorId: freshAuthenticator.authenticatorId,
      credential: credentials[0],
    });
    // The sign-in form's passkey button: no email, no password.
    await fresh.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await fresh.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    await dashboard.checkAccessibility('passkey-signed-in', fresh);
    const mine = await fetchFrom(fresh, '/api/v1/sessions');
    expect(mine.body.data.find((session: { current: boolean }) => session.current)).toMatchObject({ assurance: 'mfa' });

    await page.reload();
    await passkeysTable().getByRole('rowheader', { name: 'Work laptop' }).waitFor();
    await expect(
      passkeysTable().getByRole('row').filter({ hasText: 'Work laptop' }).getByRole('cell').nth(1).innerText(),
    ).resolves.not.toBe('Never');
    await sessionsTable().getByText('Two-step').first().waitFor();

    await page.getByRole('button', { name: 'Remove Work laptop' }).click();
    await page.getByText('No passkeys yet.').waitFor();
    await dashboard.checkAccessibility('security-passkey-removed');
    expect((await passkeySignIn(fresh)).status).toBe(401);
  });

  it('changes the password: the old one no longer signs in, the new one does', async () => {
    await page.getByLabel('Current password').fill(user.password);
    await page.getByLabel('New password').fill('a brand new password');
    await dashboard.checkAccessibility('security-password');
    await page.getByRole('button', { name: 'Change password' }).click();
    // A session goes on under a new id; a bearer token issued before the change is refused, and the
    // dashboard then shows its sign-in form.
    await page
      .getByRole('status')
      .filter({ hasText: 'Password changed.' })
      .or(page.getByRole('button', { name: 'Log in' }))
      .first()
      .waitFor();
    expect((await t.http.post('/api/v1/login', { email: user.email, password: user.password })).status).toBe(401);
    expect((await login(t.http, user.email, 'a brand new password')).body.accessToken).toEqual(expect.any(String));
  });

  it('had no serious or critical accessibility violation and no script, style or policy error on any page', () => {
    expect(dashboard.accessibility.map(({ page: name }) => name)).toEqual(
      expect.arrayContaining([
        'security-sessions',
        'security-totp-enrol',
        'security-recovery-codes',
        'security-totp-on',
        'security-passkey-added',
        'security-passkey-rename',
        'security-passkey-removed',
        'security-password',
      ]),
    );
    expect(dashboard.accessibility.filter((entry) => entry.violations.length > 0)).toEqual([]);
    expect(dashboard.pageProblems).toEqual([]);
  });
});
