import { createParamDecorator, ExecutionContext, InternalServerErrorException } from '@nestjs/common';
import type { RequestContext } from '../tenancy/principal';
import type { ContentActor } from './collaborators.service';

/**
 * Who changes content, from what the guards already read (no read of its own): the account's owner
 * and admins, and API keys (which act as admin), are admins; anyone else is judged by their channel role.
 */
export const Actor = createParamDecorator((_data: unknown, execution: ExecutionContext): ContentActor => {
  const { account, principal } = execution.switchToHttp().getRequest<RequestContext>();
  if (!account || !principal) throw new InternalServerErrorException('This route has no account');
  return { admin: account.owner || account.role === 'admin', userId: principal.kind === 'user' ? principal.userId : null };
});
