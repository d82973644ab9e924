import { pollUntil } from '../support/deadline';
import { createFirstAdmin } from '../support/auth';
import { MailServer } from '../support/mail-server';
import { enableTotp, signIn, totp } from '../support/sessions';
import { createTestApp, type TestApp } from '../support/test-app';

/** The mails that tell a user their account's security changed (SIGN-IN.md, Mail). */
describe('security notices by mail', () => {
  let t: TestApp;
  const mail = new MailServer();
  const from = (address: string) => ({
    'x-forwarded-for': address,
    'user-agent': 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0',
  });
  const subjects = async (email: string) => (await mail.listTo(email)).map((message) => message.subject);

  beforeAll(async () => {
    t = await createTestApp({ TRUST_PROXY: '127.0.0.1' });
  });

  afterAll(async () => {
    await t.close();
  });

  it('a sign-in from an address the email never signed in from is mailed once; a known address is not', async () => {
    const user = await createFirstAdmin(t.http); // its login came from 127.0.0.1, a first address: mailed
    await signIn(t.http, user);
    await signIn(t.http, user, {}, from('203.0.113.9'));
    // The notice naming that address (the sign-up's own, from 127.0.0.1, may be the newest one listed for a moment).
    const naming = async () => {
      for (const summary of await mail.listTo(user.email)) {
        if (summary.subject !== 'New sign-in to your account') continue;
        const read = await mail.read(summary.id);
        if (read.text.includes('Address: 203.0.113.9')) return read;
      }
      return null;
    };
    expect(await pollUntil(async () => (await naming()) !== null, 10_000)).toBe(true);
    const notice = (await naming())!;
    expect(notice.text).toContain('Address: 203.0.113.9');
    expect(notice.text).toContain('Device: Firefox 128 on Linux');
    expect(notice.links).toEqual([]);

    await signIn(t.http, user, {}, from('203.0.113.9'));
    // A later mail in the same queue: once it is there, no second notice for the known address is coming.
    const browser = await signIn(t.http, user);
    await enableTotp(browser);
    await mail.waitFor(user.email, /^Two-step sign-in turned on$/);
    // Two: the first login ever (at signup, from 127.0.0.1: every sign-in path mails) and the one from 203.0.113.9.
    expect((await subjects(user.email)).filter((subject) => subject === 'New sign-in to your account')).toHaveLength(2);
  });

  it('turning a second factor on and off is mailed each time, with where it was done from', async () => {
    const user = await createFirstAdmin(t.http);
    const browser = await signIn(t.http, user);
    const { secret } = await enableTotp(browser);
    const on = await mail.waitFor(user.email, /^Two-step sign-in turned on$/);
    expect(on.text).toContain('A second factor (an authenticator app) was added to your account.');
    expect(on.text).toContain('Address: 127.0.0.1');

    const off = await browser.delete('/api/v1/me/mfa/totp', { code: await totp(secret) });
    expect(off.status).toBe(200);
    const offMail = await mail.waitFor(user.email, /^Two-step sign-in turned off$/);
    expect(offMail.text).toContain('was removed from your account');
  });
});
