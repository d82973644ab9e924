import { SetMetadata } from '@nestjs/common';

export const USER_ROLES = ['developer', 'manager', 'admin'] as const;
export type UserRole = (typeof USER_ROLES)[number];

export const ROLES = 'roles';

/** Restricts a route to callers whose token carries one of these roles. */
export const Roles = (...roles: UserRole[]) => SetMetadata(ROLES, roles);
