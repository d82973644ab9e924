import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { UserRole } from './roles.decorator';

/** What the auth guard attaches to a request once its token verifies. */
export interface AuthenticatedUser {
  id: string;
  role: UserRole;
}

export const CurrentUser = createParamDecorator(
  (_data: unknown, context: ExecutionContext): AuthenticatedUser | undefined =>
    context.switchToHttp().getRequest<{ user?: AuthenticatedUser }>().user,
);
