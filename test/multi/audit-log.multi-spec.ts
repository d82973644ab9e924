import { MongoClient, ObjectId } from 'mongodb';
import { createFirstAdmin, createUser, type Role, type TestUser } from '../support/auth';
import type { HttpClient } from '../support/http';
import { startInstances, type Instances } from '../support/instances';

jest.setTimeout(180_000);

const INSTANCES = 3;
const KEYS = 30;
const MEMBERS = 6;

interface Entry {
  id: string;
  sequence: number;
  action: string;
  target: { type: string; id: string };
  changes: Record<string, [unknown, unknown]> | null;
}

/**
 * The audit log numbers an account's entries without gaps and chains them, whichever instance
 * appends: concurrent audited actions spread over several instances on one database must leave one
 * entry each, numbered 1..n without a repeat, and a chain `verify` finds valid.
 */
describe(`audit log on ${INSTANCES} instances`, () => {
  let running: Instances;
  let instances: HttpClient[];
  let owner: TestUser;

  beforeAll(async () => {
    running = await startInstances(INSTANCES, 'multi_audit');
    instances = running.clients;
    owner = await createFirstAdmin(running.http);
  });

  afterAll(() => running.stop());

  const as = () => ({ token: owner.token });
  const auditPath = () => `/api/v1/accounts/${owner.accountId}/audit-log`;

  /** Every entry of the account, newest first, page by page through every instance in turn. */
  async function readWholeLog(): Promise<Entry[]> {
    const entries: Entry[] = [];
    for (let page = 0, after: string | undefined; ; page++) {
      const res = await instances[page % instances.length].get(
        `${auditPath()}?limit=25${after ? `&startingAfter=${after}` : ''}`,
        as(),
      );
      expect(res.status).toBe(200);
      entries.push(...(res.body.data as Entry[]));
      if (!res.body.hasMore) return entries;
      after = entries.at(-1)?.id;
    }
  }

  it(`${KEYS} API key creations and ${MEMBERS} role changes at once through every instance leave one entry per change made, numbered 1..n, and a valid chain`, async () => {
    const members: TestUser[] = [];
    for (let i = 0; i < MEMBERS; i++) members.push(await createUser(running.http, 'developer', owner.token));
    const before = await readWholeLog();

    const nextRole: Role[] = ['manager', 'admin'];
    const [keys, roles] = await Promise.all([
      Promise.all(
        Array.from({ length: KEYS }, (_, i) =>
          instances[i % instances.length].post(
            `/api/v1/platform/projects/${owner.projectId}/keys`,
            { name: `concurrent ${i}` },
            as(),
          ),
        ),
      ),
      Promise.all(
        members.map((member, i) =>
          instances[(i + 1) % instances.length].patch(
            `/api/v1/accounts/${owner.accountId}/members/${member.id}`,
            { role: nextRole[i % 2] },
            as(),
          ),
        ),
      ),
    ]);
    expect(keys.map((res) => res.status)).toEqual(Array(KEYS).fill(201));
    // Member changes of one account run one at a time, and one that waits too long is a documented
    // 409: it changed nothing, so it must leave no entry either.
    expect(roles.every((res) => res.status === 200 || res.status === 409)).toBe(true);
    const changedMembers = members.filter((_, i) => roles[i].status === 200);
    expect(changedMembers.length).toBeGreaterThan(0);
    const listed = (await running.http.get(`/api/v1/accounts/${owner.accountId}/members`, as())).body.data as {
      userId: string;
      role: string;
    }[];
    for (const [i, member] of members.entries()) {
      expect(listed.find((entry) => entry.userId === member.id)?.role).toBe(
        roles[i].status === 200 ? nextRole[i % 2] : 'developer',
      );
    }

    const log = await readWholeLog();
    const total = before.length + KEYS + changedMembers.length;
    // Newest first, every number from n down to 1 once.
    expect(log.map((entry) => entry.sequence)).toEqual(Array.from({ length: total }, (_, i) => total - i));
    expect(new Set(log.map((entry) => entry.id)).size).toBe(total);

    const keyIds = keys.map((res) => res.body.data.id as string).sort();
    const created = log.filter((entry) => entry.action === 'api_key.created');
    expect(created.map((entry) => entry.target.id).sort()).toEqual(keyIds);
    const changed = log.filter((entry) => entry.action === 'member.role_changed');
    expect(changed.map((entry) => entry.target.id).sort()).toEqual(changedMembers.map((member) => member.id).sort());
    for (const [i, member] of members.entries()) {
      if (roles[i].status === 200)
        expect(changed.find((entry) => entry.target.id === member.id)?.changes).toEqual({
          role: ['developer', nextRole[i % 2]],
        });
    }

    for (const instance of instances) {
      const verdict = await instance.get(`${auditPath()}/verify`, as());
      expect(verdict.status).toBe(200);
      expect(verdict.body).toEqual({ valid: true, checked: total, firstBrokenSequence: null });
    }

    // The export, oldest first, holds the same numbers; the database holds no other entry of the account.
    // Read as text: the test client would parse JSON lines as one JSON document.
    const exported = await fetch(`${instances[2].baseUrl}${auditPath()}/export?format=jsonl`, {
      headers: { authorization: `Bearer ${owner.token}` },
    });
    expect(exported.status).toBe(200);
    const lines = (await exported.text())
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Entry);
    expect(lines.map((entry) => entry.sequence)).toEqual(Array.from({ length: total }, (_, i) => i + 1));
    const db = new MongoClient(running.mongodbUri);
    try {
      await expect(
        db
          .db()
          .collection('audit_log')
          .countDocuments({ accountId: new ObjectId(owner.accountId) }),
      ).resolves.toBe(total);
    } finally {
      await db.close();
    }
  });

  it('the newest entries removed in the database are found missing, whichever instance verifies', async () => {
    const db = new MongoClient(running.mongodbUri);
    try {
      const log = db.db().collection('audit_log');
      const account = new ObjectId(owner.accountId);
      const total = await log.countDocuments({ accountId: account });
      // The stored head moved on with the appends of every instance (concurrent moves may leave it a
      // few entries short of the newest, never past it): ten removed from the end are always seen.
      const newest = { accountId: account, sequence: { $gt: total - 10 } };
      const removed = await log.find(newest).toArray();
      await log.deleteMany(newest);
      for (const instance of instances) {
        const verdict = await instance.get(`${auditPath()}/verify`, as());
        expect(verdict.body).toMatchObject({ valid: false, checked: total - 10, firstBrokenSequence: total - 9 });
      }
      await log.insertMany(removed);
      expect((await instances[0].get(`${auditPath()}/verify`, as())).body).toEqual({
        valid: true,
        checked: total,
        firstBrokenSequence: null,
      });
    } finally {
      await db.close();
    }
  });

  it('an edit in the database breaks the chain at that entry, whichever instance verifies', async () => {
    const db = new MongoClient(running.mongodbUri);
    try {
      const edited = await db
        .db()
        .collection('audit_log')
        .updateOne({ accountId: new ObjectId(owner.accountId), sequence: 10 }, { $set: { action: 'api_key.revoked' } });
      expect(edited.modifiedCount).toBe(1);
    } finally {
      await db.close();
    }
    for (const instance of instances) {
      const verdict = await instance.get(`${auditPath()}/verify`, as());
      expect(verdict.body).toEqual({ valid: false, checked: 9, firstBrokenSequence: 10 });
    }
  });
});
