import { ForbiddenException, Inject, Injectable, UnauthorizedException } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import type { FastifyRequest } from 'fastify';
import { looksLikeApiKey } from '../api-keys/api-key-secret';
import { ApiKeysService } from '../api-keys/api-keys.service';
import type { RequestContext, TokenFacts } from '../tenancy/principal';
import { sessionsConfig } from '../config/sessions.config';
import { sessionCookieOf } from '../sessions/session-cookie';
import { SessionsService } from '../sessions/sessions.service';
import { StepUpService } from '../sessions/step-up.service';
import { CredentialsChanges } from '../identity/users/credentials-changes';
import { sentObject, type AccessPolicy } from './policy/access-policy';
import { AccessTokens, type VerifiedToken } from './tokens/access-tokens';

/** Methods that change nothing: a session cookie needs no Origin check on them. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
export const ORIGIN_REFUSED =
  'A request with the session cookie that changes anything must come from this service or the dashboard (Origin)';

export const INVALID_API_KEY = 'Invalid API key';

/**
 * Who is calling, for the access guard (src/access/access.guard.ts), on every route whose policy
 * names a credential it authenticates; routes open to anyone, a signed URL or an upload URL never
 * reach it, and read no token or key. Who the caller is goes on the request as its principal; where
 * it acts (account, project) is the tenancy's question (src/access/tenancy.ts).
 *
 * A bearer token starting with `sk_` or `pk_` is an API key, never a user's access token (a JWT starts
 * with `eyJ`): a live `sk_test_` or `pk_test_` key of this service (one indexed read, no cache) or
 * `401 Invalid API key`.
 *
 * An access token is verified by AccessTokens (src/access/tokens), which remembers a verification
 * until the token's `exp`. What a token grants is still decided on every request: membership,
 * role and project are read each time by the tenancy guard, never from this cache. A token issued
 * before its user's credentials last changed (to the millisecond) is refused, read from the
 * database on every request (CredentialsChanges.current): a token cannot be deleted as a session
 * is, and a reset on one instance must end it on all at once. Its assurance is what its login
 * proved, lowered to `password` when the user's factors changed after it was issued.
 *
 * Without a bearer token, the session cookie (`__Host-sid`; `sid` over plain http in development)
 * authenticates (one indexed read). A request that changes anything with it must carry an `Origin`
 * of `PUBLIC_URL` or of `DASHBOARD_ORIGINS` (403), never one derived from forwarded headers:
 * SameSite=Lax keeps the cookie off other sites' sub-requests and posts, this keeps off the rest.
 * On step-up routes (the policy's `stepUp`) a session or a token must have proven the user's strongest credential
 * recently (StepUpService.assertSteppedUp).
 */
@Injectable()
export class Authentication {
  constructor(
    private readonly tokens: AccessTokens,
    private readonly apiKeys: ApiKeysService,
    private readonly sessions: SessionsService,
    private readonly stepUps: StepUpService,
    private readonly credentials: CredentialsChanges,
    @Inject(sessionsConfig.KEY) private readonly config: ConfigType<typeof sessionsConfig>,
  ) {}

  /**
   * Sets the request's principal, or refuses: 401 without a valid credential, 403 for a step-up or an
   * Origin missing. `whileReading`, when given, learns who a verified access token names before its
   * standing is read, so the caller may start its own reads meanwhile; whether the token stands is
   * still decided here.
   */
  async authenticate(
    request: FastifyRequest & RequestContext,
    policy: AccessPolicy,
    whileReading?: (claimed: { userId: string; accountId: string | null; assurance: 'password' | 'mfa' }) => void,
  ): Promise<void> {
    const token = bearerToken(request.headers.authorization);
    if (!token) return this.bySession(request, policy);
    if (looksLikeApiKey(token)) {
      const key = await this.apiKeys.authenticate(token);
      if (!key) throw new UnauthorizedException(INVALID_API_KEY);
      request.principal = key;
      return;
    }
    const verified = await this.tokens.verify(token);
    if (!verified) throw new UnauthorizedException('Invalid or expired token');
    whileReading?.({ ...verified.principal, assurance: verified.assurance });
    const facts = await this.standing(verified);
    if (!facts)
      throw new UnauthorizedException(
        'This token was issued before the password or a second factor changed: log in again',
      );
    if (stepsUp(policy, request)) await this.stepUps.assertTokenSteppedUp(verified.principal.userId, facts);
    request.principal = Object.freeze({ ...verified.principal, token: facts });
  }

  /**
   * The token's standing now, read from the database: null when the user's credentials changed
   * after it was issued (or the user is gone); its assurance lowered to `password` when their
   * factors changed after it was issued.
   */
  private async standing(verified: VerifiedToken): Promise<TokenFacts | null> {
    const state = await this.credentials.current(verified.principal.userId);
    if (
      verified.credentialsAt !== undefined
        ? verified.credentialsAt !== state.changedAt
        : verified.issuedAt < state.changedAt
    )
      return null;
    return {
      assurance: verified.assurance === 'mfa' && verified.issuedAt >= state.factorsChangedAt ? 'mfa' : 'password',
      issuedAt: verified.issuedAt,
    };
  }

  private async bySession(request: FastifyRequest & RequestContext, policy: AccessPolicy): Promise<void> {
    const cookie = sessionCookieOf(request, this.config.insecureHttpAllowed);
    if (!cookie)
      throw new UnauthorizedException(
        'Missing bearer token: send Authorization: Bearer <accessToken>, or sign in for a session cookie',
      );
    const session = await this.sessions.authenticate(cookie);
    if (!session) throw new UnauthorizedException('The session has ended: sign in again');
    if (!SAFE_METHODS.has(request.method) && !this.allowedOrigin(request)) throw new ForbiddenException(ORIGIN_REFUSED);
    if (stepsUp(policy, request)) await this.stepUps.assertSteppedUp(session);
    request.principal = Object.freeze({ kind: 'user', userId: session.userId, accountId: session.accountId, session });
  }

  /**
   * The request's `Origin` is `PUBLIC_URL`'s or one of `DASHBOARD_ORIGINS`; never one built from
   * `X-Forwarded-Host`, which whoever reaches the service may set. Outside production over plain
   * http (development, tests on a free port), also the address the client sent in `Host`.
   */
  private allowedOrigin(request: FastifyRequest): boolean {
    const origin = request.headers.origin;
    if (typeof origin !== 'string' || origin === 'null') return false;
    const normalised = origin.toLowerCase();
    if (normalised === this.config.publicOrigin || this.config.dashboardOrigins.includes(normalised)) return true;
    const host = request.headers.host;
    return (
      this.config.insecureHttpAllowed &&
      request.protocol === 'http' &&
      typeof host === 'string' &&
      normalised === `http://${host}`.toLowerCase()
    );
  }

  /**
   * The user whose valid access token this is, else null: for a route that takes a user's token
   * beside another credential (the viewer routes' `X-Viewer-Token`). Checked as the bearer token is.
   */
  async userOfToken(token: string): Promise<string | null> {
    if (looksLikeApiKey(token)) return null;
    const verified = await this.tokens.verify(token);
    if (!verified || !(await this.standing(verified))) return null;
    return verified.principal.userId;
  }
}

/** Whether the route is a step-up action for this request (a conditional one reads the raw body). */
function stepsUp(policy: AccessPolicy, request: FastifyRequest): boolean {
  const when = policy.stepUp;
  if (when === undefined) return false;
  if (when === true) return true;
  const body = sentObject(request.body);
  return body !== null && when(body);
}

export function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}
