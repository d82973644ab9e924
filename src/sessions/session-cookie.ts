import { createParamDecorator, ExecutionContext, ForbiddenException, InternalServerErrorException, SetMetadata } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RequestContext, SessionFacts } from '../tenancy/principal';

export const SESSION_COOKIE = 'sid';
export const STEP_UP = 'stepUp';

/**
 * Money-moving and key-changing routes: a session of a user with a second factor must have proven it
 * within `STEP_UP_MINUTES` (403 `step_up_required`). Bearer tokens and API keys are not asked.
 */
export const StepUp = () => SetMetadata(STEP_UP, true);

/** The cookie's attributes: `Secure` but over plain http outside production (a browser would drop it there). */
export function setSessionCookie(request: FastifyRequest, reply: FastifyReply, token: string, maxAgeSeconds: number, insecureHttpAllowed: boolean): void {
  reply.setCookie(SESSION_COOKIE, token, {
    httpOnly: true,
    sameSite: 'lax',
    path: '/',
    secure: !(insecureHttpAllowed && request.protocol === 'http'),
    maxAge: maxAgeSeconds,
  });
}

export function clearSessionCookie(request: FastifyRequest, reply: FastifyReply, insecureHttpAllowed: boolean): void {
  reply.clearCookie(SESSION_COOKIE, { httpOnly: true, sameSite: 'lax', path: '/', secure: !(insecureHttpAllowed && request.protocol === 'http') });
}

/** The request's session, on routes only a session can use (sign out, step-up): 403 for a bearer token. */
export const CurrentSession = createParamDecorator((_data: unknown, execution: ExecutionContext): SessionFacts => {
  const principal = execution.switchToHttp().getRequest<RequestContext>().principal;
  if (!principal) throw new InternalServerErrorException('This route has no caller');
  if (principal.kind !== 'user' || !principal.session) throw new ForbiddenException('This route needs a session: sign in with POST /api/v1/sessions');
  return principal.session;
});

/** The request's session when the cookie authenticated it, else null (a bearer token). */
export const OptionalSession = createParamDecorator((_data: unknown, execution: ExecutionContext): SessionFacts | null => {
  const principal = execution.switchToHttp().getRequest<RequestContext>().principal;
  return principal?.kind === 'user' ? (principal.session ?? null) : null;
});
