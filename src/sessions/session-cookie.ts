import type { FastifyReply, FastifyRequest } from 'fastify';

/** The cookie over plain http (development and tests only). */
export const SESSION_COOKIE = 'sid';
/**
 * The cookie whenever it is `Secure`: the `__Host-` prefix makes the browser refuse it unless it was
 * set over https, with `Path=/` and no `Domain`, so a sibling subdomain cannot plant one beside it.
 */
export const SECURE_SESSION_COOKIE = '__Host-sid';

/** Whether the cookie goes out `Secure` (and so as `__Host-sid`): always but over plain http outside production. */
function secureCookie(request: FastifyRequest, insecureHttpAllowed: boolean): boolean {
  return !(insecureHttpAllowed && request.protocol === 'http');
}

/** The cookie's attributes: `Secure` but over plain http outside production (a browser would drop it there). */
export function setSessionCookie(
  request: FastifyRequest,
  reply: FastifyReply,
  token: string,
  maxAgeSeconds: number,
  insecureHttpAllowed: boolean,
): void {
  const secure = secureCookie(request, insecureHttpAllowed);
  reply.setCookie(secure ? SECURE_SESSION_COOKIE : SESSION_COOKIE, token, {
    httpOnly: true,
    sameSite: 'lax',
    path: '/',
    secure,
    maxAge: maxAgeSeconds,
  });
}

export function clearSessionCookie(request: FastifyRequest, reply: FastifyReply, insecureHttpAllowed: boolean): void {
  const secure = secureCookie(request, insecureHttpAllowed);
  reply.clearCookie(secure ? SECURE_SESSION_COOKIE : SESSION_COOKIE, {
    httpOnly: true,
    sameSite: 'lax',
    path: '/',
    secure,
  });
}

/**
 * The session token a request carries: `__Host-sid`, and the plain `sid` only where the service
 * itself sets that one (plain http outside production). Over https a plain `sid` is ignored: anyone
 * who can set a cookie for a parent domain could plant it.
 */
export function sessionCookieOf(request: FastifyRequest, insecureHttpAllowed: boolean): string | undefined {
  const cookies = request.cookies ?? {};
  return (
    cookies[SECURE_SESSION_COOKIE] ?? (secureCookie(request, insecureHttpAllowed) ? undefined : cookies[SESSION_COOKIE])
  );
}
