import { createParamDecorator, ExecutionContext, InternalServerErrorException } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { RequestContext } from '../tenancy/principal';
import type { AuditContext } from './audit-draft';

const USER_AGENT_MAX = 256;

/** Where a request comes from, for the audit log: what its entries share whoever the actor turns out to be. */
export type AuditOrigin = Omit<AuditContext, 'actor'>;

/**
 * The client address as login throttling sees it (the trusted proxies' view), the user agent
 * (capped) and the request id: for a public route (signup), whose actor exists only once it ran.
 */
export function auditOriginOf(request: FastifyRequest): AuditOrigin {
  const agent = request.headers['user-agent'];
  return {
    ip: request.ip ?? null,
    userAgent: typeof agent === 'string' ? agent.slice(0, USER_AGENT_MAX) : null,
    requestId: request.id ? String(request.id) : null,
  };
}

/**
 * Who is acting and from where, for the audit log: the user (labelled by the email the route knows,
 * filled in by the service) or the API key (its first 12 characters), and the request's origin.
 */
export const Audit = createParamDecorator((_data: unknown, execution: ExecutionContext): AuditContext => {
  const request = execution.switchToHttp().getRequest<FastifyRequest & RequestContext>();
  const principal = request.principal;
  if (!principal) throw new InternalServerErrorException('This route has no caller');
  const bearer = String(request.headers.authorization ?? '').replace(/^Bearer\s+/i, '');
  return {
    actor:
      principal.kind === 'apiKey'
        ? { type: 'api_key', id: principal.keyId, label: bearer.slice(0, 12) }
        : { type: 'user', id: principal.userId, label: null },
    ...auditOriginOf(request),
  };
});
