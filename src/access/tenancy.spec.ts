import { ForbiddenException, NotFoundException } from '@nestjs/common';
import { Types } from 'mongoose';
import type { FastifyRequest } from 'fastify';
import type { RequestContext } from '../tenancy/principal';
import type { AccountPolicyLookup, MembershipLookup, ProjectLookup } from '../tenancy/tenancy-lookups';
import type { AccessPolicy } from './policy/access-policy';
import { MFA_REQUIRED_MESSAGE, NOT_A_MEMBER, PROJECT_NOT_FOUND, Tenancy } from './tenancy';

const ACCOUNT = new Types.ObjectId().toHexString();
const USER = new Types.ObjectId().toHexString();
const POLICY: AccessPolicy = {
  credentials: ['userToken'],
  scope: 'project',
  api: 'customers',
  assurance: 'accountMfa',
};

function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => (resolve = done));
  return { promise, resolve };
}

/** A request of a user whose token proved a password alone, in ACCOUNT. */
function passwordOnlyRequest(): FastifyRequest & RequestContext {
  return {
    headers: {},
    params: {},
    principal: { kind: 'user', userId: USER, accountId: ACCOUNT, token: { assurance: 'password', issuedAt: 0 } },
  } as unknown as FastifyRequest & RequestContext;
}

describe('Tenancy', () => {
  it('sends the account flag, membership and project reads together, then judges them in order', async () => {
    const flag = deferred<boolean>();
    const membership = deferred<{ role: 'admin'; owner: boolean } | null>();
    const project = deferred<{ _id: Types.ObjectId; enabledApis: ['customers'] } | null>();
    const reads: string[] = [];
    const tenancy = new Tenancy(
      { find: () => (reads.push('membership'), membership.promise) } as unknown as MembershipLookup,
      { resolve: () => (reads.push('project'), project.promise) } as unknown as ProjectLookup,
      { requiresMfa: () => (reads.push('flag'), flag.promise) } as unknown as AccountPolicyLookup,
    );
    const request = passwordOnlyRequest();
    const resolved = tenancy.resolve(request, POLICY);
    await new Promise((next) => setImmediate(next));
    // None has answered, and all three are under way.
    expect(reads.sort()).toEqual(['flag', 'membership', 'project']);
    project.resolve({ _id: new Types.ObjectId(), enabledApis: ['customers'] });
    membership.resolve({ role: 'admin', owner: false });
    flag.resolve(false);
    await resolved;
    expect(request.tenant).toBeDefined();
  });

  it.each([
    ['the account requires a second factor, the user is no member', true, null, null, MFA_REQUIRED_MESSAGE],
    [
      'the account requires a second factor, the project is not found',
      true,
      { role: 'admin', owner: false },
      null,
      MFA_REQUIRED_MESSAGE,
    ],
    ['the user is no member and the project is not found', false, null, null, NOT_A_MEMBER],
    ['the project is not found', false, { role: 'admin', owner: false }, null, PROJECT_NOT_FOUND],
  ])('answers as before when %s', async (_case, requiresMfa, member, found, message) => {
    const tenancy = new Tenancy(
      { find: async () => member } as unknown as MembershipLookup,
      { resolve: async () => found } as unknown as ProjectLookup,
      { requiresMfa: async () => requiresMfa } as unknown as AccountPolicyLookup,
    );
    const refused = tenancy.resolve(passwordOnlyRequest(), POLICY);
    await expect(refused).rejects.toBeInstanceOf(
      message === PROJECT_NOT_FOUND ? NotFoundException : ForbiddenException,
    );
    await expect(refused).rejects.toMatchObject({ message });
  });

  it('answers a failed read after a refusal that comes before it, and leaves no rejection unhandled', async () => {
    const tenancy = new Tenancy(
      { find: async () => Promise.reject(new Error('database away')) } as unknown as MembershipLookup,
      { resolve: async () => null } as unknown as ProjectLookup,
      { requiresMfa: async () => true } as unknown as AccountPolicyLookup,
    );
    await expect(tenancy.resolve(passwordOnlyRequest(), POLICY)).rejects.toMatchObject({
      message: MFA_REQUIRED_MESSAGE,
    });
  });

  describe("reads started while a token's standing is read", () => {
    const found = { _id: new Types.ObjectId(), enabledApis: ['customers'] as const };

    it('judges the reads it started, and sends none again', async () => {
      const find = jest.fn(async () => ({ role: 'admin' as const, owner: false }));
      const resolveProject = jest.fn(async () => found);
      const tenancy = new Tenancy(
        { find } as unknown as MembershipLookup,
        { resolve: resolveProject } as unknown as ProjectLookup,
        { requiresMfa: async () => false } as unknown as AccountPolicyLookup,
      );
      const request = passwordOnlyRequest();
      const early = tenancy.startReads(request, POLICY, { userId: USER, accountId: ACCOUNT, assurance: 'password' });
      expect(find).toHaveBeenCalledWith(ACCOUNT, USER);
      await tenancy.resolve(request, POLICY, early);
      expect(find).toHaveBeenCalledTimes(1);
      expect(resolveProject).toHaveBeenCalledTimes(1);
      expect(request.tenant?.projectId).toBe(String(found._id));
    });

    it("reads a password-only token's account flag with them, once, and refuses by it first", async () => {
      const requiresMfa = jest.fn(async () => true);
      const tenancy = new Tenancy(
        { find: async () => null } as unknown as MembershipLookup,
        { resolve: async () => null } as unknown as ProjectLookup,
        { requiresMfa } as unknown as AccountPolicyLookup,
      );
      const request = passwordOnlyRequest();
      const early = tenancy.startReads(request, POLICY, { userId: USER, accountId: ACCOUNT, assurance: 'password' });
      expect(requiresMfa).toHaveBeenCalledWith(ACCOUNT);
      await expect(tenancy.resolve(request, POLICY, early)).rejects.toMatchObject({ message: MFA_REQUIRED_MESSAGE });
      expect(requiresMfa).toHaveBeenCalledTimes(1);
    });

    it('reads the flag after all when the standing lowered a second-factor token to a password', async () => {
      const requiresMfa = jest.fn(async () => true);
      const tenancy = new Tenancy(
        { find: async () => ({ role: 'admin', owner: false }) } as unknown as MembershipLookup,
        { resolve: async () => found } as unknown as ProjectLookup,
        { requiresMfa } as unknown as AccountPolicyLookup,
      );
      // The token claims `mfa`; its user's factors changed since, so the principal holds `password`.
      const early = tenancy.startReads(passwordOnlyRequest(), POLICY, {
        userId: USER,
        accountId: ACCOUNT,
        assurance: 'mfa',
      });
      expect(requiresMfa).not.toHaveBeenCalled();
      await expect(tenancy.resolve(passwordOnlyRequest(), POLICY, early)).rejects.toMatchObject({
        message: MFA_REQUIRED_MESSAGE,
      });
      expect(requiresMfa).toHaveBeenCalledTimes(1);
    });

    it('reads again for a principal other than the one the reads were started for', async () => {
      const other = new Types.ObjectId().toHexString();
      const find = jest.fn(async (accountId: string) =>
        accountId === ACCOUNT ? null : { role: 'admin', owner: true },
      );
      const tenancy = new Tenancy(
        { find } as unknown as MembershipLookup,
        { resolve: async () => found } as unknown as ProjectLookup,
        { requiresMfa: async () => false } as unknown as AccountPolicyLookup,
      );
      const early = tenancy.startReads(passwordOnlyRequest(), POLICY, {
        userId: USER,
        accountId: other,
        assurance: 'password',
      });
      await expect(tenancy.resolve(passwordOnlyRequest(), POLICY, early)).rejects.toMatchObject({
        message: NOT_A_MEMBER,
      });
      expect(find.mock.calls).toEqual([
        [other, USER],
        [ACCOUNT, USER],
      ]);
    });

    it('starts nothing where the route reads no account', () => {
      const find = jest.fn();
      const tenancy = new Tenancy(
        { find } as unknown as MembershipLookup,
        {} as ProjectLookup,
        {} as AccountPolicyLookup,
      );
      const claimed = { userId: USER, accountId: ACCOUNT, assurance: 'password' as const };
      expect(tenancy.startReads(passwordOnlyRequest(), { ...POLICY, scope: 'user', api: undefined }, claimed)).toBe(
        undefined,
      );
      expect(
        tenancy.startReads(passwordOnlyRequest(), POLICY, { userId: USER, accountId: null, assurance: 'password' }),
      ).toBe(undefined);
      expect(find).not.toHaveBeenCalled();
    });

    it('leaves no rejection unhandled when the request is refused before they are judged', async () => {
      const unhandled = jest.fn();
      process.on('unhandledRejection', unhandled);
      try {
        const tenancy = new Tenancy(
          { find: async () => Promise.reject(new Error('database away')) } as unknown as MembershipLookup,
          { resolve: async () => null } as unknown as ProjectLookup,
          { requiresMfa: async () => Promise.reject(new Error('database away')) } as unknown as AccountPolicyLookup,
        );
        tenancy.startReads(passwordOnlyRequest(), POLICY, { userId: USER, accountId: ACCOUNT, assurance: 'password' });
        await new Promise((next) => setTimeout(next, 20));
        expect(unhandled).not.toHaveBeenCalled();
      } finally {
        process.off('unhandledRejection', unhandled);
      }
    });
  });
});
