import { Logger } from '@nestjs/common';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Types } from 'mongoose';
import { mailConfig } from '../../src/config/mail.config';
import { validateEnvironment } from '../../src/config/env.validation';
import { MailTransport } from '../../src/mail/mail-transport';
import { MailService } from '../../src/mail/mail.service';
import { createFirstAdmin, createUnverifiedOwner, login, uniqueEmail, verifyEmail } from '../support/auth';
import { expectError, expectValidationError } from '../support/expect-error';
import { pollUntil } from '../support/deadline';
import { MailServer } from '../support/mail-server';
import { createTestApp, type TestApp } from '../support/test-app';

describe('mail', () => {
  let t: TestApp;
  const mail = new MailServer();

  beforeAll(async () => {
    t = await createTestApp({
      MAIL_FROM: 'Platform tests <mail@example.test>',
      PUBLIC_URL: 'https://app.example.test',
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  const users = () => t.db.collection('users');

  describe('invitations', () => {
    it('mails the invitee a link with the token the answer also holds, from MAIL_FROM', async () => {
      const admin = await createFirstAdmin(t.http);
      const email = uniqueEmail('invitee');
      const res = await t.http.post(
        `/api/v1/accounts/${admin.accountId}/invitations`,
        { email, role: 'developer' },
        { token: admin.token },
      );
      expect(res.status).toBe(201);
      const message = await mail.waitFor(email, /invited/);
      expect(message.from).toBe('mail@example.test');
      expect(message.links).toEqual([
        `https://app.example.test/dashboard/invitation?token=${encodeURIComponent(res.body.data.token)}`,
      ]);
      expect(await mail.tokenFrom(email, /invited/, '/dashboard/invitation')).toBe(res.body.data.token);
    });
  });

  describe('email verification', () => {
    it('a new user is unverified, is mailed a 24 h link, and cannot invite or pay until they follow it', async () => {
      const user = await createUnverifiedOwner(t.http);
      const stored = await users().findOne({ email: user.email });
      expect(stored?.emailVerifiedAt).toBeNull();
      const me = await t.http.get('/api/v1/me', { token: user.token });
      expect(me.body.data.user.emailVerifiedAt).toBeNull();

      const invite = await t.http.post(
        `/api/v1/accounts/${user.accountId}/invitations`,
        { email: uniqueEmail(), role: 'developer' },
        { token: user.token },
      );
      expectError(invite, 403, /Verify your email address first/);
      expect(invite.body.code).toBe('email_unverified');
      const customer = await t.http.post('/v1/customers', { email: uniqueEmail('customer') }, { token: user.token });
      expect(customer.status).toBe(201);
      const payment = await t.http.post(
        '/api/v1/payments',
        { amount: 10, currency: 'usd', customer: customer.body.data.id },
        { token: user.token },
      );
      expectError(payment, 403, /Verify your email address first/);
      expect(payment.body.code).toBe('email_unverified');
      expect(await t.db.collection('payments').countDocuments({})).toBe(0);
      const key = await t.http.post(
        `/api/v1/platform/projects/${user.projectId}/keys`,
        { name: 'server' },
        { token: user.token },
      );
      expectError(key, 403, /Verify your email address first/);
      expect(key.body.code).toBe('email_unverified');
      expect(await t.db.collection('api_keys').countDocuments({ projectId: new Types.ObjectId(user.projectId) })).toBe(
        0,
      );

      const link = await t.db
        .collection('email_links')
        .findOne({ userId: new Types.ObjectId(user.id), purpose: 'email_verification' });
      expect(link!.expiresAt.getTime() - link!.createdAt.getTime()).toBeGreaterThan(24 * 60 * 60 * 1000 - 5000);
      expect(link!.expiresAt.getTime() - link!.createdAt.getTime()).toBeLessThanOrEqual(24 * 60 * 60 * 1000);
      expect(JSON.stringify(link)).not.toContain(
        await mail.tokenFrom(user.email, /verify your email/i, '/verify-email'),
      );

      await verifyEmail(t.http, user.email);
      expect((await users().findOne({ email: user.email }))?.emailVerifiedAt).toBeInstanceOf(Date);
      const again = await t.http.post(
        `/api/v1/accounts/${user.accountId}/invitations`,
        { email: uniqueEmail(), role: 'developer' },
        { token: user.token },
      );
      expect(again.status).toBe(201);
      const paid = await t.http.post(
        '/api/v1/payments',
        { amount: 10, currency: 'usd', customer: customer.body.data.id },
        { token: user.token },
      );
      expect(paid.status).toBe(201);
    });

    it('a verification link works once; an unknown or expired one is 400', async () => {
      const user = await createUnverifiedOwner(t.http);
      const token = await mail.tokenFrom(user.email, /verify your email/i, '/verify-email');
      expect((await t.http.post(`/api/v1/email-verifications/${token}`, {})).status).toBe(200);
      expectError(
        await t.http.post(`/api/v1/email-verifications/${token}`, {}),
        400,
        /invalid, has expired or was already used/,
      );
      expectError(
        await t.http.post('/api/v1/email-verifications/not-a-token-at-all', {}),
        400,
        /invalid, has expired or was already used/,
      );

      const late = await createUnverifiedOwner(t.http);
      const lateToken = await mail.tokenFrom(late.email, /verify your email/i, '/verify-email');
      await t.db
        .collection('email_links')
        .updateMany({ userId: new Types.ObjectId(late.id) }, { $set: { expiresAt: new Date(Date.now() - 1000) } });
      expectError(await t.http.post(`/api/v1/email-verifications/${lateToken}`, {}), 400, /invalid, has expired/);
      expect((await users().findOne({ email: late.email }))?.emailVerifiedAt).toBeNull();
    });

    it('resends the link to the caller (202); 409 once verified; 401 without a token', async () => {
      const user = await createUnverifiedOwner(t.http);
      await mail.waitFor(user.email, /verify your email/i);
      expect((await t.http.post('/api/v1/email-verifications', {}, { token: user.token })).status).toBe(202);
      // The verification mails only: the sign-up's own sign-in is mailed too (a new address).
      const verifications = async () =>
        (await mail.listTo(user.email)).filter((sent) => sent.subject === 'Verify your email address');
      for (let i = 0; i < 100 && (await verifications()).length < 2; i++)
        await new Promise((done) => setTimeout(done, 50));
      expect(await verifications()).toHaveLength(2);
      await verifyEmail(t.http, user.email);
      expectError(await t.http.post('/api/v1/email-verifications', {}, { token: user.token }), 409, /already verified/);
      expect((await t.http.post('/api/v1/email-verifications', {})).status).toBe(401);
    });
  });

  describe('password reset', () => {
    it('answers 202 the same whether the email is known or not, and mails only a user', async () => {
      const user = await createFirstAdmin(t.http);
      const stranger = uniqueEmail('nobody');
      const known = await t.http.post('/api/v1/password-resets', { email: user.email });
      const unknown = await t.http.post('/api/v1/password-resets', { email: stranger });
      expect(known.status).toBe(202);
      expect(unknown.status).toBe(202);
      expect(unknown.body).toEqual(known.body);
      await mail.waitFor(user.email, /reset your password/i);
      expect(await mail.listTo(stranger)).toEqual([]);
      expectValidationError(
        await t.http.post('/api/v1/password-resets', { email: 'not-an-email' }),
        'email',
        /email must be an email/,
      );
    });

    it("sets the password once, with signup's rules, records password.reset and credentialsChangedAt; the old password stops working", async () => {
      const user = await createFirstAdmin(t.http);
      expect((await t.http.post('/api/v1/password-resets', { email: user.email })).status).toBe(202);
      const token = await mail.tokenFrom(user.email, /reset your password/i, '/reset-password');
      const link = await t.db
        .collection('email_links')
        .findOne({ userId: new Types.ObjectId(user.id), purpose: 'password_reset' });
      expect(link!.expiresAt.getTime() - link!.createdAt.getTime()).toBeGreaterThan(60 * 60 * 1000 - 5000);
      expect(link!.expiresAt.getTime() - link!.createdAt.getTime()).toBeLessThanOrEqual(60 * 60 * 1000);
      expect(JSON.stringify(link)).not.toContain(token);

      expectValidationError(
        await t.http.post(`/api/v1/password-resets/${token}`, { password: 'short' }),
        'password',
        /at least 8 characters/,
      );
      const before = Date.now();
      const res = await t.http.post(`/api/v1/password-resets/${token}`, { password: 'a brand new password' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ message: 'Password changed' });
      const stored = await users().findOne({ email: user.email });
      expect(stored!.credentialsChangedAt.getTime()).toBeGreaterThanOrEqual(before - 1000);

      expect((await t.http.post('/api/v1/login', { email: user.email, password: user.password })).status).toBe(401);
      // A token issued before the reset (in an earlier second) ends with it: the log is read with a new one.
      const fresh = (await login(t.http, user.email, 'a brand new password')).body.accessToken as string;
      expectError(
        await t.http.post(`/api/v1/password-resets/${token}`, { password: 'another new password' }),
        400,
        /already used/,
      );

      const log = await t.http.get(`/api/v1/accounts/${user.accountId}/audit-log?action=password.reset`, {
        token: fresh,
      });
      expect(log.status).toBe(200);
      expect(log.body.data).toHaveLength(1);
      expect(log.body.data[0].target.id).toBe(user.id);
    });

    it('of two concurrent uses of one link, exactly one sets the password', async () => {
      const user = await createFirstAdmin(t.http);
      await t.http.post('/api/v1/password-resets', { email: user.email });
      const token = await mail.tokenFrom(user.email, /reset your password/i, '/reset-password');
      const answers = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          t.http.post(`/api/v1/password-resets/${token}`, { password: `concurrent password ${i}` }),
        ),
      );
      expect(answers.map((res) => res.status).sort()).toEqual([200, 400, 400, 400, 400, 400]);
      const winner = answers.findIndex((res) => res.status === 200);
      await login(t.http, user.email, `concurrent password ${winner}`);
    });

    it('an expired link is 400 and changes nothing', async () => {
      const user = await createFirstAdmin(t.http);
      await t.http.post('/api/v1/password-resets', { email: user.email });
      const token = await mail.tokenFrom(user.email, /reset your password/i, '/reset-password');
      await t.db
        .collection('email_links')
        .updateMany(
          { userId: new Types.ObjectId(user.id), purpose: 'password_reset' },
          { $set: { expiresAt: new Date(Date.now() - 1) } },
        );
      expectError(
        await t.http.post(`/api/v1/password-resets/${token}`, { password: 'a brand new password' }),
        400,
        /expired/,
      );
      await login(t.http, user.email, user.password);
    });
  });

  describe('limits', () => {
    let limited: TestApp;
    beforeAll(async () => {
      limited = await createTestApp({ MAIL_MAX_PER_EMAIL: '2', MAIL_MAX_PER_CLIENT: '4' });
    });
    afterAll(async () => {
      await limited?.close();
    });

    it('a stranger cannot flood a mailbox: past MAIL_MAX_PER_EMAIL resets still answer 202 but send nothing', async () => {
      const user = await createFirstAdmin(limited.http);
      for (let i = 0; i < 4; i++)
        expect((await limited.http.post('/api/v1/password-resets', { email: user.email })).status).toBe(202);
      await new Promise((done) => setTimeout(done, 500));
      expect((await mail.listTo(user.email)).filter((message) => /reset/i.test(message.subject))).toHaveLength(2);
    });

    it('past MAIL_MAX_PER_CLIENT, a resend is 429 with Retry-After', async () => {
      const user = await createUnverifiedOwner(limited.http);
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++)
        statuses.push((await limited.http.post('/api/v1/email-verifications', {}, { token: user.token })).status);
      expect(statuses).toContain(429);
      const refused = await limited.http.post('/api/v1/email-verifications', {}, { token: user.token });
      expectError(refused, 429, /Too many verification mails/);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    });
  });

  describe('delivery', () => {
    const settings = (env: Record<string, string>) =>
      mailConfig.build(validateEnvironment({ NODE_ENV: 'development', ...env }));

    it('without SMTP_URL, writes each mail as an .eml file under DATA_DIR/mail/', async () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'mail-files-'));
      try {
        const transport = new MailTransport(settings({ DATA_DIR: dataDir, MAIL_FROM: 'files@example.test' }));
        await transport.deliver({
          to: 'reader@example.test',
          subject: 'A file',
          text: 'See https://example.test/x?token=abc\n',
          links: ['https://example.test/x?token=abc'],
        });
        const files = readdirSync(join(dataDir, 'mail'));
        expect(files).toHaveLength(1);
        expect(files[0]).toMatch(/\.eml$/);
        const eml = readFileSync(join(dataDir, 'mail', files[0]), 'utf8');
        expect(eml).toMatch(/^To: reader@example\.test$/m);
        expect(eml).toMatch(/^Subject: A file$/m);
        expect(eml).toContain('https://example.test/x?token=abc');
        transport.close();
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    });

    it('a failed send is logged with its recipient and the mail stays recorded, due again', async () => {
      const errors: string[] = [];
      const spy = jest.spyOn(Logger.prototype, 'error').mockImplementation((message: unknown) => {
        errors.push(String(message));
      });
      const transport = t.app.get(MailTransport);
      const deliver = jest
        .spyOn(transport, 'deliver')
        .mockRejectedValueOnce(new Error('connect ECONNREFUSED 127.0.0.1:1'));
      try {
        const service = t.app.get(MailService);
        const before = Date.now();
        await service.send({ to: 'lost@example.test', subject: 'Nowhere', text: 'x', links: [] });
        const mails = t.db.collection('outgoing_mails');
        expect(
          await pollUntil(async () => (await mails.findOne({ to: 'lost@example.test' }))?.lastError != null, 10_000),
        ).toBe(true);
        const stored = await mails.findOne({ to: 'lost@example.test' });
        expect(stored).toMatchObject({
          status: 'pending',
          attempts: 1,
          lastError: 'connect ECONNREFUSED 127.0.0.1:1',
          claimToken: null,
        });
        expect(stored!.nextAttemptAt.getTime()).toBeGreaterThan(before + 5_000);
        expect(
          errors.some(
            (line) =>
              line.includes('lost@example.test') && line.includes('was not sent') && line.includes('will be retried'),
          ),
        ).toBe(true);

        // Due again (as after its backoff): the next poll sends it, once.
        await mails.updateOne({ _id: stored!._id }, { $set: { nextAttemptAt: new Date() } });
        await service.sendDue();
        expect(
          await pollUntil(async () => (await mails.findOne({ _id: stored!._id }))?.status === 'sent', 10_000),
        ).toBe(true);
        expect(deliver).toHaveBeenCalledTimes(2);
        expect((await mail.waitFor('lost@example.test', /^Nowhere$/)).text.trim()).toBe('x');
      } finally {
        deliver.mockRestore();
        spy.mockRestore();
      }
    });
  });
});
