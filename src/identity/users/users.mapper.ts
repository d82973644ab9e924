import type { UserRole } from '../../common/decorators/roles.decorator';
import type { UserResponse } from './dto/user.response';
import type { User } from './user.schema';

/**
 * Builds exactly the contract's user fields; the password hash is never among them. `role` is the
 * role in the account the response concerns (the token's, the one just joined), when there is one.
 */
export function toUserResponse(user: User, role?: UserRole): UserResponse {
  return {
    id: String(user._id),
    firstName: user.firstName,
    lastName: user.lastName,
    userName: user.userName ?? '',
    email: user.email,
    role: role ?? user.role,
    status: user.status,
    phoneNumber: user.phoneNumber ?? null,
    avatar: user.avatar ?? null,
    address: user.address ?? null,
    defaultCompany: user.defaultCompany ?? null,
    emailVerifiedAt: user.emailVerifiedAt ? new Date(user.emailVerifiedAt).toISOString() : null,
    createdAt: new Date(user.createdAt).toISOString(),
    updatedAt: new Date(user.updatedAt).toISOString(),
  };
}
