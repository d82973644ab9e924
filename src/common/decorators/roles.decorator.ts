export const USER_ROLES = ['developer', 'manager', 'admin'] as const;
export type UserRole = (typeof USER_ROLES)[number];
