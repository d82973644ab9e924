import type { UserRole } from '../common/decorators/roles.decorator';
import type { User } from '../identity/users/user.schema';
import type { Account } from './account.schema';
import type { AccountView, MemberView } from './dto/account.response';
import type { Membership } from './membership.schema';

/** The owner holds every admin right whatever the role recorded for them. */
export function hasAdminRights(membership: Pick<Membership, 'role' | 'owner'>): boolean {
  return membership.owner || membership.role === 'admin';
}

export function toAccountView(account: Account, membership: Pick<Membership, 'role' | 'owner'>): AccountView {
  return {
    id: String(account._id),
    name: account.name,
    type: account.type,
    role: membership.role as UserRole,
    owner: membership.owner,
    defaultProjectId: String(account.defaultProjectId),
    requireMfa: account.requireMfa === true,
    createdAt: new Date(account.createdAt).toISOString(),
  };
}

export function toMemberView(membership: Membership, user: User): MemberView {
  return {
    userId: String(membership.userId),
    firstName: user.firstName,
    lastName: user.lastName,
    email: user.email,
    role: membership.role,
    owner: membership.owner,
    joinedAt: new Date(membership.createdAt).toISOString(),
  };
}
