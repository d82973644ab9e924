import type { AuditAction } from '../../src/audit/audit-entry.schema';
import { acceptInvitation, AUDITED_ACTIONS } from '../support/audited-actions';
import { createFirstAdmin, uniqueEmail, type TestUser } from '../support/auth';
import { createTestApp, TestApp } from '../support/test-app';

interface Entry {
  id: string;
  action: string;
  actor: { type: string; id: string; label: string | null };
  target: { type: string; id: string; label: string | null };
  changes: Record<string, [unknown, unknown]> | null;
}

/**
 * Every action of the audit log, performed through the API, leaves exactly one entry naming its
 * target: the table (test/support/audited-actions.ts) has one row per action of the schema's list,
 * so removing any writer fails its row.
 */
describe('every audited action is in the audit log', () => {
  let t: TestApp;
  let owner: TestUser;

  beforeAll(async () => {
    t = await createTestApp({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });
    owner = await createFirstAdmin(t.http);
  });
  afterAll(() => t.close());

  async function entriesSince(reader: TestUser, accountId: string, action: string, since: Date): Promise<Entry[]> {
    const res = await t.http.get(
      `/api/v1/accounts/${accountId}/audit-log?action=${action}&from=${since.toISOString()}&limit=100`,
      { token: reader.token },
    );
    expect(res.status).toBe(200);
    return res.body.data;
  }

  it.each(Object.keys(AUDITED_ACTIONS) as AuditAction[])('%s', async (action) => {
    const since = new Date();
    const performed = await AUDITED_ACTIONS[action]({ http: t.http, owner });
    const entries = await entriesSince(performed.reader, performed.accountId, action, since);
    expect(entries.filter((entry) => entry.target.id === performed.targetId)).toHaveLength(1);
  });

  it('a signup records account.created by the new user, and the account is in its own log first', async () => {
    const created = await createFirstAdmin(t.http);
    const res = await t.http.get(`/api/v1/accounts/${created.accountId}/audit-log?limit=100`, { token: created.token });
    const oldestFirst = (res.body.data as (Entry & { sequence: number })[]).reverse();
    expect(oldestFirst[0]).toMatchObject({
      sequence: 1,
      action: 'account.created',
      actor: { type: 'user', id: created.id, label: created.email },
      target: { type: 'account', id: created.accountId },
    });
  });

  it('POST /api/v1/accounts records account.created in the new account, by its creator', async () => {
    const since = new Date();
    const res = await t.http.post('/api/v1/accounts', { name: 'Second', type: 'company' }, { token: owner.token });
    expect(res.status).toBe(201);
    const [entry] = await entriesSince(owner, res.body.data.id, 'account.created', since);
    expect(entry).toMatchObject({
      actor: { id: owner.id },
      target: { id: res.body.data.id, label: 'Second' },
      changes: { name: [null, 'Second'], type: [null, 'company'] },
    });
  });

  it('an existing user accepting an invitation records member.joined, by them, with the role', async () => {
    const since = new Date();
    const user = await createFirstAdmin(t.http);
    await acceptInvitation(t.http, owner, user);
    const joined = (await entriesSince(owner, owner.accountId, 'member.joined', since)).filter(
      (entry) => entry.target.id === user.id,
    );
    expect(joined).toEqual([
      expect.objectContaining({
        actor: expect.objectContaining({ id: user.id }),
        changes: { role: [null, 'developer'] },
      }),
    ]);
  });

  it('a new invitation of the same email revokes the pending one, with its entry', async () => {
    const since = new Date();
    const email = uniqueEmail('twice');
    const first = await t.http.post(
      `/api/v1/accounts/${owner.accountId}/invitations`,
      { email, role: 'developer' },
      { token: owner.token },
    );
    expect(
      (
        await t.http.post(
          `/api/v1/accounts/${owner.accountId}/invitations`,
          { email, role: 'manager' },
          { token: owner.token },
        )
      ).status,
    ).toBe(201);
    const revoked = (await entriesSince(owner, owner.accountId, 'invitation.revoked', since)).filter(
      (entry) => entry.target.id === first.body.data.id,
    );
    expect(revoked).toEqual([
      expect.objectContaining({
        target: expect.objectContaining({ label: email }),
        actor: expect.objectContaining({ id: owner.id }),
      }),
    ]);
  });

  it('leaves a chain that verifies', async () => {
    const res = await t.http.get(`/api/v1/accounts/${owner.accountId}/audit-log/verify`, { token: owner.token });
    expect(res.body).toMatchObject({ valid: true, firstBrokenSequence: null });
  });
});
