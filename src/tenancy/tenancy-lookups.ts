import type { Types } from 'mongoose';
import type { UserRole } from '../common/decorators/roles.decorator';
import type { ApiName } from './api-names';

/**
 * What the access guard's tenancy (src/access/tenancy.ts) reads on every request. The accounts and
 * platform-projects modules implement these and provide them under these tokens, so the guard
 * depends on no feature module, and the feature modules, which use tenancy's scope and decorators,
 * keep every arrow pointing one way.
 */
export abstract class MembershipLookup {
  /** A user's membership in an account; null when they have none (a malformed id is none). */
  abstract find(accountId: string, userId: string): Promise<{ role: UserRole; owner: boolean } | null>;

  /** The accounts a user belongs to, oldest membership first (a user's own actions are recorded in each). */
  abstract listForUser(userId: string): Promise<{ accountId: Types.ObjectId }[]>;
}

export abstract class ProjectLookup {
  /**
   * The platform project a request acts in: the named one, else the account's default; null when
   * it is not the account's (a malformed id names none).
   */
  abstract resolve(
    accountId: string,
    projectId: string | undefined,
  ): Promise<{ _id: Types.ObjectId; enabledApis: readonly ApiName[] } | null>;
}

export abstract class AccountPolicyLookup {
  /** Whether the account requires a second factor of its members' sessions; false for an unknown id. */
  abstract requiresMfa(accountId: string): Promise<boolean>;
}
