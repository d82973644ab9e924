import { createParamDecorator, ExecutionContext, InternalServerErrorException } from '@nestjs/common';
import type { RequestContext } from '../tenancy/principal';
import type { ChannelActor } from './channels.events';

/**
 * Who changes content (a channel, its projects and their assets), from what the guards already read
 * (no read of its own): the account's owner and admins, and API keys (which act as admin), are
 * admins; anyone else is judged by their channel role. Declared by channels, the parent of every
 * content module, so each of them may use it.
 */
export const Actor = createParamDecorator((_data: unknown, execution: ExecutionContext): ChannelActor => {
  const { account, principal } = execution.switchToHttp().getRequest<RequestContext>();
  if (!account || !principal) throw new InternalServerErrorException('This route has no account');
  return {
    admin: account.owner || account.role === 'admin',
    userId: principal.kind === 'user' ? principal.userId : null,
  };
});
