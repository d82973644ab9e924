import {
  CanActivate,
  ExecutionContext,
  ForbiddenException,
  Injectable,
  InternalServerErrorException,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { RouteMetadata } from '../common/decorators/route-metadata';
import type { UserRole } from '../common/decorators/roles.decorator';
import { RateLimitGuard } from '../rate-limits/rate-limit.guard';
import type { Principal, RequestContext } from '../tenancy/principal';
import { CredentialsChanges } from '../identity/users/credentials-changes';
import { ACCESS, type AccessPolicy, type CredentialKind } from './policy/access-policy';
import { Authentication } from './authentication';
import { ChannelRoles } from './channel-roles';
import {
  type EarlyReads,
  KEYS_CANNOT_MANAGE,
  PUBLISHABLE_KEYS_VIEW_ONLY,
  Tenancy,
  VIEWER_ROUTES_NEED_PUBLISHABLE_KEY,
} from './tenancy';

export const EMAIL_UNVERIFIED =
  'Verify your email address first: follow the link mailed at signup (POST /api/v1/email-verifications sends it again)';
export const SESSION_REQUIRED = 'This route needs a session: sign in with POST /api/v1/sessions';

/**
 * The one guard: every request meets the route's declared policy (`@Access()`), in this order, so the
 * answers keep their precedence (401 before 403, a project of another account 404 before a role's
 * 403):
 * 1. who: a credential the policy names is authenticated (401 without a valid one); a step-up route
 *    asks for a recent strongest proof (403 `step_up_required`);
 * 2. a valid credential of a kind the policy does not name is 403;
 * 3. where (Tenancy): account membership, the platform project, the enabled API, `mfa_required`
 *    (for an access token, read while its standing is read, and judged after it);
 * 4. how often: the data API's rate limit, on routes with a tenant scope;
 * 5. the account role the policy names (the owner counts as admin, a secret key acts as admin);
 * 6. a verified email where the policy asks for one (403 `email_unverified`; keys are no users);
 * 7. the channel role the policy names, in a channel of the scope (ChannelRoles).
 * Routes open to anyone, a signed URL or an upload URL read no credential here: the route checks
 * its URL's own token.
 */
@Injectable()
export class AccessGuard implements CanActivate {
  private readonly policies: RouteMetadata<AccessPolicy>;

  constructor(
    reflector: Reflector,
    private readonly authentication: Authentication,
    private readonly tenancy: Tenancy,
    private readonly rateLimit: RateLimitGuard,
    private readonly credentials: CredentialsChanges,
    private readonly channelRoles: ChannelRoles,
  ) {
    this.policies = new RouteMetadata(reflector, ACCESS);
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const policy = this.policies.of(context);
    // RouteDeclarations refuses to start without one on every route: this is a wiring bug.
    if (!policy) throw new InternalServerErrorException('This route declares no access policy');
    if (policy.scope === 'none') return true;
    const request = context.switchToHttp().getRequest<FastifyRequest & RequestContext>();
    // A token's standing and the tenancy's reads go out together, where the route takes a token; they are judged in order.
    let early: EarlyReads | undefined;
    await this.authentication.authenticate(request, policy, (claimed) => {
      if (policy.credentials.includes('userToken')) early = this.tenancy.startReads(request, policy, claimed);
    });
    const principal = request.principal!;
    const kind = credentialOf(principal);
    if (!policy.credentials.includes(kind)) throw new ForbiddenException(refusalOf(kind, policy));
    await this.tenancy.resolve(request, policy, early);
    await this.rateLimit.canActivate(context);
    if (policy.roles?.length) assertRole(policy.roles, request);
    if (
      policy.verifiedEmail &&
      principal.kind === 'user' &&
      !(await this.credentials.emailVerified(principal.userId))
    ) {
      throw new ForbiddenException({ message: EMAIL_UNVERIFIED, code: 'email_unverified' });
    }
    if (policy.channel) await this.channelRoles.assert(request, policy.channel);
    return true;
  }
}

/** The kind of credential that authenticated the request. */
export function credentialOf(principal: Principal): CredentialKind {
  if (principal.kind === 'apiKey') return principal.publishable ? 'publishableKey' : 'secretKey';
  return principal.session ? 'session' : 'userToken';
}

/** Why a valid credential of another kind is refused here: what it may call instead. */
function refusalOf(kind: CredentialKind, policy: AccessPolicy): string {
  if (policy.scope === 'viewer') return VIEWER_ROUTES_NEED_PUBLISHABLE_KEY;
  if (kind === 'publishableKey') return PUBLISHABLE_KEYS_VIEW_ONLY;
  if (kind === 'secretKey') return KEYS_CANNOT_MANAGE;
  return SESSION_REQUIRED;
}

function assertRole(roles: readonly UserRole[], request: RequestContext): void {
  const account = request.account;
  const role: UserRole | undefined = account?.owner ? 'admin' : account?.role;
  if (role && roles.includes(role)) return;
  throw new ForbiddenException(`This operation needs the role ${roles.join(' or ')}`);
}
