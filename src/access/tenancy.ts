import { ForbiddenException, Injectable, NotFoundException } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { ApiName } from '../tenancy/api-names';
import type { Principal, RequestContext } from '../tenancy/principal';
import { AccountPolicyLookup, MembershipLookup, ProjectLookup } from '../tenancy/tenancy-lookups';
import { tenantScope, type RequestOrigin } from '../tenancy/tenant-scope';
import { sentObject, type AccessPolicy } from './policy/access-policy';

export const PROJECT_HEADER = 'x-project-id';
export const PROJECT_NOT_FOUND = 'Platform project not found';
export const KEYS_CANNOT_MANAGE = 'API keys cannot manage the platform';
import { NO_ACCOUNT, NOT_A_MEMBER } from './policy/access-messages';

export { NO_ACCOUNT, NOT_A_MEMBER };
export const MFA_REQUIRED_MESSAGE =
  'This account requires a second factor: set one up (POST /api/v1/me/mfa/totp) and sign in with it';
export const PUBLISHABLE_KEYS_VIEW_ONLY = 'A publishable key (pk_test_...) can call only the /viewer routes';
export const VIEWER_ROUTES_NEED_PUBLISHABLE_KEY =
  'The viewer routes take a publishable key (pk_test_...) as the bearer token';

type AccountReads = [
  Awaited<ReturnType<MembershipLookup['find']>>,
  Awaited<ReturnType<ProjectLookup['resolve']>> | null,
];

/** The account reads a request's tenancy judges, started before its principal was known (`Tenancy.startReads`). */
export interface EarlyReads {
  readonly userId: string;
  readonly accountId: string;
  readonly reads: Promise<AccountReads>;
  /** The account's `requireMfa`, read when the token proved a password alone on an `accountMfa` route. */
  readonly requiresMfa?: Promise<boolean>;
}

/**
 * Where a request acts, by the route's policy (`scope`). Asked by the access guard after
 * authentication and before the role check, on every request: membership is read each time (no
 * cache), so a removed member is refused at their next request on any instance. On `project` routes
 * it resolves the platform project (the token account's default, or `X-Project-Id`; an API key's
 * own), refuses an API the project has not enabled or a key's scopes leave out, and sets the
 * request's `TenantScope`. On `viewer` routes the publishable key's project is the scope.
 *
 * A session or a bearer token that proved a password alone (no second factor, or not since the
 * user's factors changed) is refused, with `code: mfa_required`, in an account that requires one:
 * on routes whose assurance is `accountMfa`: the account it acts in (a session keeps a copy of the
 * flag; for a token it is read) and the account a path names (`/api/v1/accounts/:accountId/...`)
 * when the user is a member (read, for such callers only, when it is not their own).
 *
 * Which kind of credential may call the route is the access guard's check, made before this one.
 */
@Injectable()
export class Tenancy {
  constructor(
    private readonly memberships: MembershipLookup,
    private readonly projects: ProjectLookup,
    private readonly policies: AccountPolicyLookup,
  ) {}

  /**
   * The reads `resolve` judges for a user who acts in an account, started for the user and account a
   * verified token names while its standing is still being read (AccessGuard), so neither waits for
   * the other; undefined where the route reads no account. Nothing is decided here: `resolve` judges
   * them once the principal is known, and only when it is the same user in the same account.
   */
  startReads(
    request: FastifyRequest,
    policy: AccessPolicy,
    claimed: { userId: string; accountId: string | null; assurance: 'password' | 'mfa' },
  ): EarlyReads | undefined {
    const api = policy.scope === 'project' ? policy.api : undefined;
    if (!claimed.accountId || !(api || policy.scope === 'account')) return undefined;
    const reads = this.accountReads(
      claimed.accountId,
      claimed.userId,
      api,
      projectHeader(request.headers[PROJECT_HEADER]),
    );
    // A token's standing can lower its assurance, never raise it: a password-only token's flag read is sure to be asked.
    const requiresMfa =
      policy.assurance === 'accountMfa' && claimed.assurance === 'password'
        ? this.policies.requiresMfa(claimed.accountId)
        : undefined;
    // Judged later, or never when authentication refuses the request first.
    reads.catch(() => undefined);
    requiresMfa?.catch(() => undefined);
    return { userId: claimed.userId, accountId: claimed.accountId, reads, requiresMfa };
  }

  /** Sets the request's account access and tenant scope as the policy's scope asks; 403 or 404 otherwise. */
  async resolve(request: FastifyRequest & RequestContext, policy: AccessPolicy, early?: EarlyReads): Promise<void> {
    const principal = request.principal;
    if (!principal) return;
    const requestedProject = projectHeader(request.headers[PROJECT_HEADER]);
    const viewerApi = policy.scope === 'viewer' ? policy.api : undefined;
    if (viewerApi && principal.kind === 'apiKey') {
      if (requestedProject !== undefined && requestedProject.toLowerCase() !== principal.projectId) {
        throw new NotFoundException(PROJECT_NOT_FOUND);
      }
      const project = await this.projects.resolve(principal.accountId, principal.projectId);
      if (!project) throw new NotFoundException(PROJECT_NOT_FOUND);
      assertEnabled(project.enabledApis, viewerApi);
      // No account access: a viewer acts in no account, and no role guard lets it through.
      request.tenant = tenantScope(principal.accountId, String(project._id), originOf(request));
      return;
    }
    const api = policy.scope === 'project' ? policy.api : undefined;
    const inAccount = policy.scope === 'account';

    if (principal.kind === 'apiKey') {
      if (!api) throw new ForbiddenException(KEYS_CANNOT_MANAGE);
      if (requestedProject !== undefined && requestedProject.toLowerCase() !== principal.projectId) {
        throw new NotFoundException(PROJECT_NOT_FOUND);
      }
      const project = await this.projects.resolve(principal.accountId, principal.projectId);
      if (!project) throw new NotFoundException(PROJECT_NOT_FOUND);
      const reached = [api, ...alsoApisOf(policy, request.body)];
      for (const name of reached) assertEnabled(project.enabledApis, name);
      const outside = principal.scopes && reached.find((name) => !principal.scopes!.includes(name));
      if (outside) throw new ForbiddenException(`This API key's scopes do not include the ${outside} API`);
      request.account = { accountId: principal.accountId, role: 'admin', owner: false };
      request.tenant = tenantScope(principal.accountId, String(project._id), originOf(request));
      return;
    }

    const actsInAccount = Boolean(api) || inAccount;
    const started =
      early && early.userId === principal.userId && early.accountId === principal.accountId ? early : undefined;
    const mfaChecked =
      policy.assurance === 'accountMfa' && (principal.session ?? principal.token)?.assurance === 'password'
        ? this.refuseWhereMfaRequired(request, principal, actsInAccount, started?.requiresMfa)
        : undefined;
    if (!actsInAccount || !principal.accountId) {
      await mfaChecked;
      if (!actsInAccount) return;
      throw new ForbiddenException(NO_ACCOUNT);
    }
    // The reads need only the token's account and the header, so they run together, and are judged in
    // order: the account's second factor first, then the membership (a non-member is 403 whatever the
    // project, and learns nothing of it), then the project.
    const [mfa, found] = await Promise.allSettled([
      mfaChecked,
      started?.reads ?? this.accountReads(principal.accountId, principal.userId, api, requestedProject),
    ]);
    if (mfa.status === 'rejected') throw mfa.reason;
    if (found.status === 'rejected') throw found.reason;
    const [membership, project] = found.value;
    if (!membership) throw new ForbiddenException(NOT_A_MEMBER);
    request.account = { accountId: principal.accountId, role: membership.role, owner: membership.owner };
    if (!api) return;

    if (!project) throw new NotFoundException(PROJECT_NOT_FOUND);
    for (const name of [api, ...alsoApisOf(policy, request.body)]) assertEnabled(project.enabledApis, name);
    request.tenant = tenantScope(principal.accountId, String(project._id), originOf(request));
  }

  /** A user's membership in the account and, on `project` routes, the platform project the request names. */
  private accountReads(
    accountId: string,
    userId: string,
    api: ApiName | undefined,
    requestedProject: string | undefined,
  ): Promise<AccountReads> {
    return Promise.all([
      this.memberships.find(accountId, userId),
      api ? this.projects.resolve(accountId, requestedProject) : null,
    ]);
  }

  private async refuseWhereMfaRequired(
    request: FastifyRequest & RequestContext,
    principal: Principal & { kind: 'user' },
    actsInAccount: boolean,
    ownRequiresMfa: Promise<boolean> | undefined,
  ): Promise<void> {
    const named = (request.params as Record<string, unknown> | undefined)?.accountId;
    const other = typeof named === 'string' ? named.toLowerCase() : null;
    const refuse = () => new ForbiddenException({ message: MFA_REQUIRED_MESSAGE, code: 'mfa_required' });
    const own = principal.accountId;
    if (own && (actsInAccount || other === own)) {
      // A session's own account: the copy of the flag on the session, no read.
      const requires = principal.session
        ? principal.session.accountRequiresMfa
        : await (ownRequiresMfa ?? this.policies.requiresMfa(own));
      if (requires) throw refuse();
    }
    if (
      other &&
      other !== own &&
      (await this.memberships.find(other, principal.userId)) &&
      (await this.policies.requiresMfa(other))
    )
      throw refuse();
  }
}

/** The other APIs this request reaches (`alsoApis`): the fixed ones, and the conditional ones its body asks for. */
function alsoApisOf(policy: AccessPolicy, body: unknown): ApiName[] {
  if (!policy.alsoApis) return [];
  const sent = sentObject(body);
  return policy.alsoApis.flatMap((also) =>
    typeof also === 'string' ? [also] : sent && also.when(sent) ? [also.api] : [],
  );
}

function assertEnabled(enabled: readonly string[], api: ApiName): void {
  if (!enabled.includes(api)) throw new ForbiddenException(`The ${api} API is not enabled for this project`);
}

/** The header's value; repeated, the first. An empty header names no project that exists: 404. */
function projectHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

const USER_AGENT_MAX = 256;

/**
 * The request id (Fastify's, from `X-Request-Id` or generated) and the Idempotency-Key, as events
 * name them; the caller (a key by its first 12 characters), its address and user agent, for the audit log.
 */
function originOf(request: FastifyRequest & RequestContext): RequestOrigin {
  const key = request.headers['idempotency-key'];
  const agent = request.headers['user-agent'];
  const principal = request.principal!;
  const bearer = String(request.headers.authorization ?? '').replace(/^Bearer\s+/i, '');
  return {
    id: request.id ? String(request.id) : null,
    idempotencyKey: typeof key === 'string' && key !== '' ? key : null,
    actor:
      principal.kind === 'apiKey'
        ? { type: 'api_key', id: principal.keyId, label: bearer.slice(0, 12) }
        : { type: 'user', id: principal.userId, label: null },
    ip: request.ip ?? null,
    userAgent: typeof agent === 'string' ? agent.slice(0, USER_AGENT_MAX) : null,
  };
}
