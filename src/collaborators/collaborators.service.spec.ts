import { Types } from 'mongoose';
import type { AuditTrail } from '../audit/audit-trail';
import type { Leases } from '../leases/leases.service';
import type { PlatformProjectsService } from '../platform-projects/platform-projects.service';
import { CHANNEL_ROLES, roleAtLeast, type ChannelRole, type Collaborator } from './collaborator.schema';
import type { CollaboratorsRepository } from './collaborators.repository';
import { CollaboratorsService } from './collaborators.service';

describe('roleAtLeast', () => {
  it('ranks viewer < editor < manager < owner', () => {
    expect(CHANNEL_ROLES).toEqual(['viewer', 'editor', 'manager', 'owner']);
    expect(roleAtLeast('editor', 'editor')).toBe(true);
    expect(roleAtLeast('owner', 'manager')).toBe(true);
    expect(roleAtLeast('manager', 'editor')).toBe(true);
    expect(roleAtLeast('viewer', 'editor')).toBe(false);
    expect(roleAtLeast('editor', 'manager')).toBe(false);
    expect(roleAtLeast('manager', 'owner')).toBe(false);
  });
});

describe('CollaboratorsService.memberLeaving', () => {
  type Row = { channelId: string; userId: string; role: ChannelRole; expiresAt: Date | null };
  const accountId = new Types.ObjectId().toHexString();
  const projectId = new Types.ObjectId().toHexString();
  const channelId = new Types.ObjectId().toHexString();
  const ownerId = new Types.ObjectId().toHexString();
  const memberId = new Types.ObjectId().toHexString();
  const audit = { actor: { type: 'user', id: ownerId, label: null }, ip: null, userAgent: null, requestId: null };

  /** The service over rows kept in memory; `beforeLease` runs once, as a change that got the channel's lease first. */
  function serviceOver(rows: Row[], beforeLease: () => void) {
    const same = (row: Row, channel: string, user: string) => row.channelId === channel && row.userId === user;
    const asRecord = (row: Row) =>
      ({ ...row, channelId: new Types.ObjectId(row.channelId) }) as unknown as Collaborator;
    const repository = {
      ofUser: (_scope: unknown, user: string) =>
        Promise.resolve(rows.filter((row) => row.userId === user).map(asRecord)),
      find: (_scope: unknown, channel: string, user: string) => {
        const row = rows.find((candidate) => same(candidate, channel, user));
        return Promise.resolve(row ? asRecord(row) : null);
      },
      hasLastingOwnerBesides: (_scope: unknown, channel: string, user: string) =>
        Promise.resolve(
          rows.some(
            (row) => row.channelId === channel && row.userId !== user && row.role === 'owner' && row.expiresAt === null,
          ),
        ),
      insert: (_scope: unknown, channel: string, user: string, role: ChannelRole, expiresAt: Date | null) => {
        rows.push({ channelId: channel, userId: user, role, expiresAt });
        return Promise.resolve();
      },
      change: (_scope: unknown, channel: string, user: string, set: Partial<Row>) => {
        const row = rows.find((candidate) => same(candidate, channel, user));
        if (row) Object.assign(row, set);
        return Promise.resolve();
      },
      remove: (_scope: unknown, channel: string, user: string) => {
        const index = rows.findIndex((candidate) => same(candidate, channel, user));
        if (index >= 0) rows.splice(index, 1);
        return Promise.resolve(index >= 0);
      },
    };
    let first = true;
    const leases = {
      withLease: async <T>(_key: string, _busy: string, work: () => Promise<T>): Promise<T> => {
        if (first) beforeLease();
        first = false;
        return work();
      },
    };
    const platformProjects = { list: () => Promise.resolve([{ id: projectId }]) };
    const trail = {
      record: <T>(_context: unknown, _input: unknown, _expect: unknown, action: () => Promise<T>) => action(),
    };
    return new CollaboratorsService(
      repository as unknown as CollaboratorsRepository,
      {} as never,
      {} as never,
      trail as unknown as AuditTrail,
      {} as never,
      leases as unknown as Leases,
      platformProjects as unknown as PlatformProjectsService,
    );
  }

  it('judges the role the member holds under the lease, not the one read before it', async () => {
    const rows: Row[] = [
      { channelId, userId: ownerId, role: 'owner', expiresAt: null },
      { channelId, userId: memberId, role: 'editor', expiresAt: null },
    ];
    // Between the read of the member's records and the lease: the member made owner, then the other
    // owner stepped down (allowed: the member was a lasting owner then).
    const service = serviceOver(rows, () => {
      rows[1].role = 'owner';
      rows[0].role = 'manager';
    });

    await service.memberLeaving({ accountId, userId: memberId, ownerId, audit });

    expect(rows).toEqual([{ channelId, userId: ownerId, role: 'owner', expiresAt: null }]);
  });
});

describe('CollaboratorsService.add', () => {
  it('withdraws a role given to a member whose removal went through while it was written (404)', async () => {
    const accountId = new Types.ObjectId().toHexString();
    const channelId = new Types.ObjectId().toHexString();
    const userId = new Types.ObjectId().toHexString();
    const stored: Collaborator[] = [];
    const repository = {
      insert: (_scope: unknown, channel: string, user: string, role: ChannelRole, expiresAt: Date | null) => {
        const record = {
          _id: new Types.ObjectId(),
          channelId: new Types.ObjectId(channel),
          userId: new Types.ObjectId(user),
          role,
          expiresAt,
        } as unknown as Collaborator;
        stored.push(record);
        return Promise.resolve(record);
      },
      remove: (_scope: unknown, channel: string, user: string) => {
        const index = stored.findIndex(
          (record) => String(record.channelId) === channel && String(record.userId) === user,
        );
        if (index >= 0) stored.splice(index, 1);
        return Promise.resolve(index >= 0);
      },
    };
    // A member when the add checks, gone (the removal's cleanup ran before the insert) when it checks again.
    const answers = [{ role: 'developer', owner: false }, null];
    const memberships = { find: () => Promise.resolve(answers.shift() ?? null) };
    const trail = {
      record: <T>(_context: unknown, _input: unknown, _expect: unknown, action: () => Promise<T>) => action(),
    };
    const service = new CollaboratorsService(
      repository as unknown as CollaboratorsRepository,
      { exists: () => Promise.resolve(true) } as never,
      memberships as never,
      trail as unknown as AuditTrail,
      {} as never,
      {} as never,
      {} as never,
    );
    const scope = {
      accountId,
      projectId: new Types.ObjectId().toHexString(),
      origin: { id: null, idempotencyKey: null },
    };

    await expect(service.add(scope as never, channelId, { userId, role: 'editor' })).rejects.toMatchObject({
      status: 404,
      message: 'User not found',
    });
    expect(stored).toEqual([]);
  });
});
