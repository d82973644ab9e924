import { SetMetadata } from '@nestjs/common';

export const USER_ROLES = ['developer', 'manager', 'admin'] as const;
export type UserRole = (typeof USER_ROLES)[number];

export const ROLES = 'roles';

/**
 * Restricts a route to callers with one of these roles in the request's account (their membership's
 * role; the owner counts as admin, an API key acts as admin). Checked by RolesGuard.
 */
export const Roles = (...roles: UserRole[]) => SetMetadata(ROLES, roles);
