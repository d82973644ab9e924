import { AuditChainsRepository } from '../../src/audit/audit-chains.repository';
import { AuditEntriesRepository } from '../../src/audit/audit-entries.repository';
import { AuditIntentsRepository } from '../../src/audit/audit-intents.repository';
import { AuditTrail } from '../../src/audit/audit-trail';
import { ModuleRef } from '@nestjs/core';
import { ApiKeysRepository } from '../../src/api-keys/api-keys.repository';
import { eventsConfig } from '../../src/config/events.config';
import { JobRunner } from '../../src/jobs/job-runner';
import { RecordProbe } from '../../src/database/record-probe';
import { ObjectId } from 'mongodb';
import { randomUUID } from 'node:crypto';
import { createFirstAdmin, createUser, TestUser } from '../support/auth';
import { expectError, expectForbidden, expectNotFound } from '../support/expect-error';
import { createTestApp, TestApp } from '../support/test-app';

interface Entry {
  id: string;
  sequence: number;
  action: string;
  actor: { type: string; id: string; label: string | null };
  target: { type: string; id: string; label: string | null };
  projectId: string | null;
  changes: Record<string, [unknown, unknown]> | null;
  ip: string | null;
  userAgent: string | null;
  requestId: string | null;
  hash: string;
}

describe('audit log /api/v1/accounts/:accountId/audit-log', () => {
  let t: TestApp;
  let admin: TestUser;
  let trail: AuditTrail;

  beforeAll(async () => {
    t = await createTestApp();
    admin = await createFirstAdmin(t.http);
    trail = t.app.get(AuditTrail);
  });
  afterAll(() => t.close());
  afterEach(() => jest.restoreAllMocks());

  const log = (owner = admin) => `/api/v1/accounts/${owner.accountId}/audit-log`;
  const keys = (owner = admin) => `/api/v1/platform/projects/${owner.projectId}/keys`;
  async function entries(query = '', owner = admin): Promise<Entry[]> {
    const res = await t.http.get(`${log(owner)}${query}`, { token: owner.token });
    expect(res.status).toBe(200);
    return res.body.data;
  }
  async function createKey(name = 'audited', owner = admin) {
    const res = await t.http.post(
      keys(owner),
      { name },
      { token: owner.token, headers: { 'x-request-id': `req-${name}`, 'user-agent': 'audit-test/1' } },
    );
    expect(res.status).toBe(201);
    return res.body.data as { id: string; key: string };
  }

  it('records who created, rolled and revoked a key, from where, numbered and chained', async () => {
    const key = await createKey('first');
    const rolled = await t.http.post(`${keys()}/${key.id}/roll`, { expiresInHours: 1 }, { token: admin.token });
    expect(rolled.status).toBe(201);
    expect((await t.http.delete(`${keys()}/${rolled.body.data.id}`, { token: admin.token })).status).toBe(200);
    const [revoked, roll, created] = await entries('?limit=3');
    expect(created).toMatchObject({
      action: 'api_key.created',
      actor: { type: 'user', id: admin.id },
      target: { type: 'api_key', id: key.id, label: key.key.slice(0, 12) },
      projectId: admin.projectId,
      requestId: 'req-first',
      userAgent: 'audit-test/1',
    });
    expect(created.ip).toBeTruthy();
    expect(roll).toMatchObject({
      action: 'api_key.rolled',
      target: { id: key.id },
      changes: { key: [key.key.slice(0, 12), rolled.body.data.key.slice(0, 12)] },
    });
    expect(revoked).toMatchObject({ action: 'api_key.revoked', target: { id: rolled.body.data.id } });
    expect([created.sequence + 1, created.sequence + 2]).toEqual([roll.sequence, revoked.sequence]);
    expect(JSON.stringify([created, roll, revoked])).not.toContain(key.key.slice(12));
  });

  it('records deletes that cannot be undone and refunds, by a user or by an API key', async () => {
    const as = { token: admin.token };
    const customer = (await t.http.post('/v1/customers', { email: 'audited@example.com' }, as)).body.data.id;
    await t.http.post(
      '/v1/cards',
      { customer, cardNumber: '4242424242424242', expMonth: '12', expYear: '2035', cvc: '123' },
      as,
    );
    const payment = (
      await t.http.post('/api/v1/payments', { amount: 10, currency: 'usd', customer, confirm: true }, as)
    ).body.id;
    expect((await t.http.post(`/api/v1/payments/${payment}/refund`, { amount: 4 }, as)).status).toBe(200);
    const collection = (await t.http.post('/collections', { name: 'Doomed' }, as)).body.id;
    expect((await t.http.delete(`/collections/${collection}`, as)).status).toBe(200);
    const key = await createKey('deleter');
    expect((await t.http.delete(`/v1/customers/${customer}`, { token: key.key })).status).toBe(200);

    const recent = await entries('?limit=20');
    const of = (action: string) => recent.find((entry) => entry.action === action)!;
    expect(of('payment.refunded')).toMatchObject({
      target: { type: 'payment', id: payment },
      actor: { type: 'user', id: admin.id, label: admin.email },
    });
    expect(of('collection.deleted')).toMatchObject({ target: { type: 'collection', id: collection } });
    expect(of('customer.deleted')).toMatchObject({
      target: { type: 'customer', id: customer, label: 'audited@example.com' },
      actor: { type: 'api_key', id: key.id, label: key.key.slice(0, 12) },
      projectId: admin.projectId,
    });
  });

  it('records logins, platform project and member changes of the account', async () => {
    const owner = await createFirstAdmin(t.http);
    const as = { token: owner.token };
    const member = await createUser(t.http, 'developer', owner.token);
    const project = await t.http.post('/api/v1/platform/projects', { name: 'Audited' }, as);
    expect(
      (await t.http.patch(`/api/v1/platform/projects/${project.body.data.id}`, { name: 'Renamed' }, as)).status,
    ).toBe(200);
    expect((await t.http.delete(`/api/v1/platform/projects/${project.body.data.id}`, as)).status).toBe(200);
    expect(
      (await t.http.patch(`/api/v1/accounts/${owner.accountId}/members/${member.id}`, { role: 'manager' }, as)).status,
    ).toBe(200);
    expect((await t.http.delete(`/api/v1/accounts/${owner.accountId}/members/${member.id}`, as)).status).toBe(200);
    const invitation = await t.http.post(
      `/api/v1/accounts/${owner.accountId}/invitations`,
      { email: 'later@example.com', role: 'developer' },
      as,
    );
    expect(
      (await t.http.delete(`/api/v1/accounts/${owner.accountId}/invitations/${invitation.body.data.id}`, as)).status,
    ).toBe(200);
    const recorded = await entries('?limit=100', owner);
    const actions = recorded.map((entry) => entry.action).reverse();
    expect(actions).toEqual(
      expect.arrayContaining([
        'user.logged_in',
        'member.invited',
        'platform_project.created',
        'platform_project.updated',
        'platform_project.deleted',
        'member.role_changed',
        'member.removed',
        'invitation.revoked',
      ]),
    );
    expect(recorded.find((entry) => entry.action === 'platform_project.updated')).toMatchObject({
      changes: { name: ['Audited', 'Renamed'] },
      target: { label: 'Audited' },
    });
    expect(recorded.find((entry) => entry.action === 'member.role_changed')).toMatchObject({
      target: { id: member.id },
      changes: { role: ['developer', 'manager'] },
    });
    expect(recorded.find((entry) => entry.action === 'user.logged_in' && entry.actor.id === owner.id)).toMatchObject({
      actor: { type: 'user', label: owner.email },
      target: { id: owner.id },
    });
    expect(recorded.find((entry) => entry.action === 'invitation.revoked')).toMatchObject({
      target: { type: 'invitation', id: invitation.body.data.id },
    });
    expect(
      recorded.find((entry) => entry.action === 'member.invited' && entry.target.label === 'later@example.com'),
    ).toMatchObject({ changes: { role: [null, 'developer'] } });
    expect((await t.http.get(`${log(owner)}/verify`, { token: owner.token })).body.valid).toBe(true);
  });

  it('filters by action, actor and time, pages with startingAfter, and refuses bad filters', async () => {
    await createKey('second');
    const all = await entries('?limit=100');
    const created = await entries('?action=api_key.created&limit=100');
    expect(created.every((entry) => entry.action === 'api_key.created')).toBe(true);
    expect((await entries(`?actorId=${admin.id}&limit=100`)).map((entry) => entry.id)).toEqual(
      all.filter((entry) => entry.actor.id === admin.id).map((entry) => entry.id),
    );
    expect(await entries(`?from=${new Date(Date.now() + 60_000).toISOString()}`)).toEqual([]);
    const [first] = await entries('?limit=1');
    const next = await entries(`?limit=1&startingAfter=${first.id}`);
    expect(next[0].sequence).toBe(first.sequence - 1);
    expectError(await t.http.get(`${log()}?action=key.exploded`, { token: admin.token }), 400);
    expectError(await t.http.get(`${log()}?limit=101`, { token: admin.token }), 400);
  });

  it('exports the same entries as JSON lines and as CSV, oldest first', async () => {
    const listed = (await entries('?limit=100')).reverse();
    const jsonl = await fetch(`${t.baseUrl}${log()}/export?format=jsonl`, {
      headers: { authorization: `Bearer ${admin.token}` },
    });
    expect(jsonl.status).toBe(200);
    expect(jsonl.headers.get('content-type')).toContain('application/x-ndjson');
    expect(
      (await jsonl.text())
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line)),
    ).toEqual(listed);
    const csv = await t.http.get(`${log()}/export?format=csv&action=api_key.created`, { token: admin.token });
    expect(csv.headers.get('content-type')).toContain('text/csv');
    const rows = parseCsv(csv.text, ',');
    expect(rows[0]).toEqual(
      'sequence,id,occurredAt,action,actorType,actorId,actorLabel,targetType,targetId,targetLabel,projectId,changes,ip,userAgent,requestId,hash'.split(
        ',',
      ),
    );
    expect(rows.slice(1).map((row) => row[1])).toEqual(
      listed.filter((entry) => entry.action === 'api_key.created').map((entry) => entry.id),
    );
    expect(rows.slice(1).every((row) => row[3] === 'api_key.created')).toBe(true);
  });

  it('exports CSV that no spreadsheet reads as a formula, whichever separator it splits on', async () => {
    const owner = await createFirstAdmin(t.http);
    const agent = "x;=cmd|' /C calc'!A0";
    for (const userAgent of [agent, '@SUM(1+1)']) {
      expect(
        (
          await t.http.post(
            keys(owner),
            { name: 'formula' },
            { token: owner.token, headers: { 'user-agent': userAgent } },
          )
        ).status,
      ).toBe(201);
    }
    const csv = await t.http.get(`${log(owner)}/export?format=csv&action=api_key.created`, { token: owner.token });
    for (const separator of [',', ';']) {
      const cells = parseCsv(csv.text, separator).flat();
      expect(cells.filter((cell) => /^[=+\-@\t\r]/.test(cell))).toEqual([]);
    }
    expect(parseCsv(csv.text, ',').map((row) => row[13])).toEqual(['userAgent', agent, "'@SUM(1+1)"]);
  });

  it('verifies the chain, and finds the first entry edited or removed in the database', async () => {
    const owner = await createFirstAdmin(t.http);
    for (const name of ['third', 'fourth', 'fifth']) await createKey(name, owner);
    const verify = async () => (await t.http.get(`${log(owner)}/verify`, { token: owner.token })).body;
    const all = await entries('?limit=100', owner);
    expect(await verify()).toEqual({ valid: true, checked: all.length, firstBrokenSequence: null });

    const stored = t.db.collection('audit_log');
    const [newest, middle] = await entries('?limit=2', owner);
    await stored.updateOne({ entryId: middle.id }, { $set: { 'target.label': 'sk_test_fake' } });
    expect(await verify()).toEqual({
      valid: false,
      checked: middle.sequence - 1,
      firstBrokenSequence: middle.sequence,
    });
    await stored.updateOne({ entryId: middle.id }, { $set: { 'target.label': middle.target.label } });
    expect((await verify()).valid).toBe(true);

    await stored.deleteOne({ entryId: middle.id });
    expect(await verify()).toEqual({
      valid: false,
      checked: middle.sequence - 1,
      firstBrokenSequence: middle.sequence,
    });
    expect(newest.sequence).toBe(middle.sequence + 1);
  });

  it('finds entries removed from the end or from the start of the chain', async () => {
    const owner = await createFirstAdmin(t.http);
    for (const name of ['one', 'two', 'three', 'four']) await createKey(name, owner);
    const verify = async () => (await t.http.get(`${log(owner)}/verify`, { token: owner.token })).body;
    const all = await entries('?limit=100', owner);
    const stored = t.db.collection('audit_log');
    const account = new ObjectId(owner.accountId);
    expect(await verify()).toEqual({ valid: true, checked: all.length, firstBrokenSequence: null });

    // The newest two gone: what is left still chains, but it ends short of the head.
    const removed = await stored.find({ accountId: account, sequence: { $gt: all.length - 2 } }).toArray();
    await stored.deleteMany({ accountId: account, sequence: { $gt: all.length - 2 } });
    expect(await verify()).toEqual({ valid: false, checked: all.length - 2, firstBrokenSequence: all.length - 1 });
    await stored.insertMany(removed);
    expect(await verify()).toEqual({ valid: true, checked: all.length, firstBrokenSequence: null });

    // The oldest gone, not by retention: the chain no longer starts at its anchor.
    await stored.deleteOne({ accountId: account, sequence: 1 });
    expect(await verify()).toEqual({ valid: false, checked: 0, firstBrokenSequence: 1 });
  });

  const ageEntries = (ids: string[]) =>
    t.db
      .collection('audit_log')
      .updateMany({ entryId: { $in: ids } }, { $set: { occurredAt: new Date(Date.now() - 400 * 86_400_000) } });

  it('keeps AUDIT_RETENTION_DAYS: older entries go, and the oldest kept one anchors the chain', async () => {
    const owner = await createFirstAdmin(t.http);
    for (const name of ['old-1', 'old-2', 'kept']) await createKey(name, owner);
    const [kept, ...older] = await entries('?limit=100', owner);
    await ageEntries(older.map((entry) => entry.id));
    expect(await trail.expire(365)).toBeGreaterThanOrEqual(older.length);
    expect((await entries('?limit=100', owner)).map((entry) => entry.id)).toEqual([kept.id]);
    expect((await t.http.get(`${log(owner)}/verify`, { token: owner.token })).body).toEqual({
      valid: true,
      checked: 1,
      firstBrokenSequence: null,
    });
  });

  it('retention cuts the chain by number: an old entry numbered after a younger one stays, and no false break follows', async () => {
    const owner = await createFirstAdmin(t.http);
    for (const name of ['a', 'b']) await createKey(name, owner);
    const older = await entries('?limit=100', owner);
    await createKey('young', owner);
    // An entry appended late (by the sweep) carries its action's time: long ago, numbered after a younger one.
    const context = {
      actor: { type: 'user', id: owner.id, label: owner.email },
      ip: null,
      userAgent: null,
      requestId: null,
    };
    await trail.append({
      ...context,
      entryId: `aud_${randomUUID()}`,
      accountId: owner.accountId,
      action: 'user.logged_in',
      occurredAt: new Date(Date.now() - 400 * 86_400_000),
      target: context.actor,
      projectId: null,
      changes: null,
    });
    await createKey('newest', owner);
    const [newest, late, young] = await entries('?limit=3', owner);
    await ageEntries(older.map((entry) => entry.id));
    await trail.expire(365);
    expect((await entries('?limit=100', owner)).map((entry) => entry.id)).toEqual([newest.id, late.id, young.id]);
    expect((await t.http.get(`${log(owner)}/verify`, { token: owner.token })).body).toEqual({
      valid: true,
      checked: 3,
      firstBrokenSequence: null,
    });

    // Every entry past retention: none is left, the chain is valid, and numbering goes on after the last one.
    await ageEntries([young.id, newest.id]);
    await trail.expire(365);
    expect(await entries('?limit=100', owner)).toEqual([]);
    expect((await t.http.get(`${log(owner)}/verify`, { token: owner.token })).body).toEqual({
      valid: true,
      checked: 0,
      firstBrokenSequence: null,
    });
    await createKey('after', owner);
    const [next] = await entries('?limit=100', owner);
    expect(next.sequence).toBe(newest.sequence + 1);
    expect((await t.http.get(`${log(owner)}/verify`, { token: owner.token })).body).toEqual({
      valid: true,
      checked: 1,
      firstBrokenSequence: null,
    });
  });

  it('is for admins and the owner: a developer is 403, an API key 403, another account 404', async () => {
    const owner = await createFirstAdmin(t.http);
    const developer = await createUser(t.http, 'developer', owner.token);
    expectForbidden(await t.http.get(log(owner), { token: developer.token }));
    const key = await createKey('outsider', owner);
    expectError(await t.http.get(log(owner), { token: key.key }), 403, 'API keys cannot manage the platform');
    expectNotFound(await t.http.get(log(admin), { token: owner.token }), 'Account not found');
    expect(
      (await entries('?action=api_key.created&limit=100', owner)).every((entry) => entry.projectId === owner.projectId),
    ).toBe(true);
  });

  it('numbers concurrent actions without a gap or a repeat', async () => {
    const owner = await createFirstAdmin(t.http);
    await Promise.all(Array.from({ length: 12 }, (_, i) => createKey(`concurrent-${i}`, owner)));
    const recorded = await entries('?limit=100', owner);
    expect(recorded.filter((entry) => entry.action === 'api_key.created')).toHaveLength(12);
    const sequences = recorded.map((entry) => entry.sequence).sort((a, b) => a - b);
    expect(sequences).toEqual(Array.from({ length: recorded.length }, (_, i) => i + 1));
    expect((await t.http.get(`${log(owner)}/verify`, { token: owner.token })).body).toEqual({
      valid: true,
      checked: recorded.length,
      firstBrokenSequence: null,
    });
  });

  it('numbers on from entries another instance appended, and after retention dropped the first, without sorting the log', async () => {
    const owner = await createFirstAdmin(t.http);
    await createKey('first', owner);
    // Two more instances on the same database: their appends are unknown to this one's remembered newest entry.
    const otherInstance = () =>
      new AuditTrail(
        t.app.get(AuditEntriesRepository),
        t.app.get(AuditIntentsRepository),
        t.app.get(RecordProbe),
        t.app.get(AuditChainsRepository),
        t.app.get(eventsConfig.KEY),
        t.app.get(ModuleRef),
        t.app.get(JobRunner),
      );
    const other = otherInstance();
    const context = {
      actor: { type: 'user', id: owner.id, label: owner.email },
      ip: null,
      userAgent: null,
      requestId: null,
    };
    for (let i = 0; i < 5; i++)
      await other.appendNow(context, { accountId: owner.accountId, action: 'user.logged_in', target: context.actor });
    await createKey('after-the-others', owner);

    const all = await entries('?limit=100', owner);
    expect(all.map((entry) => entry.sequence)).toEqual(Array.from({ length: all.length }, (_, i) => all.length - i));
    expect((await t.http.get(`${log(owner)}/verify`, { token: owner.token })).body).toEqual({
      valid: true,
      checked: all.length,
      firstBrokenSequence: null,
    });

    // Retention dropped every entry but the newest: an instance that never appended here starts from the stored head, sorting nothing.
    const newest = all[0];
    await ageEntries(all.slice(1).map((entry) => entry.id));
    await trail.expire(365);
    const sorting = jest.spyOn(AuditEntriesRepository.prototype, 'newest');
    const cold = otherInstance();
    await cold.appendNow(context, { accountId: owner.accountId, action: 'user.logged_in', target: context.actor });
    await cold.appendNow(context, { accountId: owner.accountId, action: 'user.logged_in', target: context.actor });
    await otherInstance().appendNow(context, {
      accountId: admin.accountId,
      action: 'user.logged_in',
      target: { type: 'user', id: admin.id, label: admin.email },
    });
    expect(sorting).not.toHaveBeenCalled();
    expect((await entries('?limit=3', owner)).map((entry) => entry.sequence)).toEqual([
      newest.sequence + 2,
      newest.sequence + 1,
      newest.sequence,
    ]);
    expect((await t.http.get(`${log(owner)}/verify`, { token: owner.token })).body).toEqual({
      valid: true,
      checked: 3,
      firstBrokenSequence: null,
    });
    expect((await t.http.get(`${log()}/verify`, { token: admin.token })).body.valid).toBe(true);
  });

  describe('an action and its entry succeed or fail together', () => {
    const stopped = () => Promise.reject(new Error('process stopped here'));

    it('an action that fails leaves no entry', async () => {
      const before = (await entries('?limit=100')).length;
      jest.spyOn(ApiKeysRepository.prototype, 'insert').mockImplementationOnce(stopped);
      expect((await t.http.post(keys(), { name: 'fails' }, { token: admin.token })).status).toBeGreaterThanOrEqual(500);
      await trail.sweep(0);
      expect((await entries('?limit=100')).length).toBe(before);
      expect(await t.db.collection('audit_intents').countDocuments({})).toBe(0);
    });

    it('between the action and its entry: the sweep appends it, once', async () => {
      jest.spyOn(AuditEntriesRepository.prototype, 'insert').mockImplementationOnce(stopped);
      const key = await createKey('late');
      expect((await entries('?limit=100')).some((entry) => entry.target.id === key.id)).toBe(false);
      await trail.sweep(0);
      await trail.sweep(0);
      expect((await entries('?limit=100')).filter((entry) => entry.target.id === key.id)).toHaveLength(1);
      expect((await t.http.get(`${log()}/verify`, { token: admin.token })).body.valid).toBe(true);
    });

    it('intents whose area has still to finish their action wait, and more of them than a page hold up no other', async () => {
      const key = await createKey('behind-the-undecided');
      // A payment of the admin's project and a refund of it still pending: the payments module has still to apply or void it.
      const paymentId = new ObjectId();
      const pending = `undecided-${randomUUID()}`;
      const project = new ObjectId(admin.projectId);
      await t.db
        .collection('payments')
        .insertOne({ _id: paymentId, projectId: project, status: 'succeeded', refundIds: [] });
      await t.db
        .collection('refunds')
        .insertOne({ _id: pending as unknown as ObjectId, projectId: project, paymentId, status: 'pending' });
      const draft = (entryId: string) => ({
        entryId,
        accountId: admin.accountId,
        action: 'payment.refunded',
        occurredAt: new Date(),
        actor: { type: 'user', id: admin.id, label: admin.email },
        target: { type: 'payment', id: String(paymentId), label: null },
        projectId: admin.projectId,
        changes: null,
        ip: null,
        userAgent: null,
        requestId: null,
      });
      const old = new Date(Date.now() - 120_000);
      const waiting = Array.from({ length: 150 }, (_, i) => ({
        _id: `aud_${randomUUID()}` as unknown as ObjectId,
        draft: draft(`aud_waiting-${i}-${randomUUID()}`),
        expect: { refund: { paymentId: String(paymentId), refundId: pending } },
        createdAt: new Date(old.getTime() + i),
      }));
      await t.db.collection('audit_intents').insertMany(waiting);
      const lateId = `aud_${randomUUID()}`;
      await t.db.collection('audit_intents').insertOne({
        _id: lateId as unknown as ObjectId,
        draft: {
          ...draft(lateId),
          action: 'api_key.created',
          target: { type: 'api_key', id: key.id, label: 'late' },
        },
        expect: { collection: 'api_keys', id: key.id, exists: true },
        createdAt: new Date(old.getTime() + 1000),
      });

      expect(await trail.sweep(0)).toBe(1);
      expect((await entries('?limit=100')).filter((entry) => entry.id === lateId)).toHaveLength(1);
      expect(await t.db.collection('audit_intents').countDocuments({})).toBe(150);

      // Decided: the payment lists the refund, so the money went back; appended, each once.
      await t.db.collection('payments').updateOne({ _id: paymentId }, { $set: { refundIds: [pending] } });
      await t.db
        .collection('refunds')
        .updateOne({ _id: pending as unknown as ObjectId }, { $set: { status: 'applied' } });
      expect(await trail.sweep(0)).toBe(150);
      expect(await t.db.collection('audit_intents').countDocuments({})).toBe(0);
      expect((await t.http.get(`${log()}/verify`, { token: admin.token })).body.valid).toBe(true);

      // A voided refund never moved money: its intent is dropped without an entry.
      const voided = `voided-${randomUUID()}`;
      await t.db
        .collection('refunds')
        .insertOne({ _id: voided as unknown as ObjectId, projectId: project, paymentId, status: 'voided' });
      const voidedEntry = `aud_${randomUUID()}`;
      await t.db.collection('audit_intents').insertOne({
        _id: voidedEntry as unknown as ObjectId,
        draft: draft(voidedEntry),
        expect: { refund: { paymentId: String(paymentId), refundId: voided } },
        createdAt: old,
      });
      expect(await trail.sweep(0)).toBe(1);
      expect((await entries('?limit=100')).filter((entry) => entry.id === voidedEntry)).toHaveLength(0);
      // An intent in the earlier form names the payment and the refund by collection: it is judged as a refund's.
      const earlierForm = `aud_${randomUUID()}`;
      await t.db.collection('audit_intents').insertOne({
        _id: earlierForm as unknown as ObjectId,
        draft: draft(earlierForm),
        expect: {
          collection: 'payments',
          id: String(paymentId),
          listed: { refundIds: pending },
          undecidedWhile: { collection: 'refunds', id: pending, fields: { status: 'pending' } },
        },
        createdAt: old,
      });
      expect(await trail.sweep(0)).toBe(1);
      expect((await entries('?limit=100')).filter((entry) => entry.id === earlierForm)).toHaveLength(1);
    });

    it('an intent that cannot be judged now waits, and the others are settled', async () => {
      const key = await createKey('beside-the-unjudged');
      const base = {
        accountId: admin.accountId,
        occurredAt: new Date(),
        actor: { type: 'user', id: admin.id, label: admin.email },
        changes: null,
        ip: null,
        userAgent: null,
        requestId: null,
      };
      const old = new Date(Date.now() - 120_000);
      // A refund's intent that names no project: the payments module cannot be asked about it.
      const unjudged = `aud_${randomUUID()}`;
      await t.db.collection('audit_intents').insertOne({
        _id: unjudged as unknown as ObjectId,
        draft: {
          ...base,
          entryId: unjudged,
          action: 'payment.refunded',
          target: { type: 'payment', id: '6650c0ffee0000000000beef', label: null },
          projectId: null,
        },
        expect: { refund: { paymentId: '6650c0ffee0000000000beef', refundId: 'r' } },
        createdAt: old,
      });
      const settled = `aud_${randomUUID()}`;
      await t.db.collection('audit_intents').insertOne({
        _id: settled as unknown as ObjectId,
        draft: {
          ...base,
          entryId: settled,
          action: 'api_key.created',
          target: { type: 'api_key', id: key.id, label: 'beside' },
          projectId: admin.projectId,
        },
        expect: { collection: 'api_keys', id: key.id, exists: true },
        createdAt: new Date(old.getTime() + 1),
      });

      expect(await trail.sweep(0)).toBe(1);
      expect((await entries('?limit=100')).filter((entry) => entry.id === settled)).toHaveLength(1);
      expect(await t.db.collection('audit_intents').countDocuments({ _id: unjudged as unknown as ObjectId })).toBe(1);
      await t.db.collection('audit_intents').deleteOne({ _id: unjudged as unknown as ObjectId });
    });

    it('between the intent and the action: the sweep drops the intent, the action not having happened', async () => {
      const before = (await entries('?limit=100')).length;
      // What a process leaves when it stops right after writing the intent of a key it never created.
      const neverCreated = '6650c0ffee0000000000dead';
      await t.app.get(AuditIntentsRepository).insert(
        {
          entryId: 'aud_00000000-0000-4000-8000-000000000001',
          accountId: admin.accountId,
          action: 'api_key.created',
          occurredAt: new Date(),
          actor: { type: 'user', id: admin.id, label: null },
          target: { type: 'api_key', id: neverCreated, label: 'sk_test_xxxx' },
          projectId: admin.projectId,
          changes: null,
          ip: null,
          userAgent: null,
          requestId: null,
        },
        { collection: 'api_keys', id: neverCreated, exists: true },
      );
      await trail.sweep(0);
      expect(await t.db.collection('audit_intents').countDocuments({})).toBe(0);
      expect((await entries('?limit=100')).length).toBe(before);
    });
  });
});

/** RFC 4180 rows, split on `separator` outside quotes, as a spreadsheet set to that separator reads them. */
function parseCsv(text: string, separator: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  const endCell = () => {
    row.push(cell);
    cell = '';
  };
  for (let i = 0; i < text.length; i++) {
    const character = text[i];
    if (quoted && character === '"' && text[i + 1] === '"') {
      cell += '"';
      i++;
    } else if (character === '"') quoted = !quoted;
    else if (quoted) cell += character;
    else if (character === separator) endCell();
    else if (character === '\n') {
      endCell();
      rows.push(row);
      row = [];
    } else cell += character;
  }
  if (cell || row.length > 0) {
    endCell();
    rows.push(row);
  }
  return rows;
}
