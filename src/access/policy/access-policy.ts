import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiSecurity } from '@nestjs/swagger';
import type { UserRole } from '../../common/decorators/roles.decorator';
import {
  API_KEY_SCHEME,
  PUBLISHABLE_KEY_SCHEME,
  SESSION_COOKIE_SCHEME,
  USER_BEARER_SCHEME,
} from '../../common/swagger/security-schemes';
import type { ApiName } from '../../tenancy/api-names';
import { documentPolicy } from './access-docs';

/**
 * The credentials this service knows, each a way to say who is calling:
 * - `anyone`: no credential (signup, login, health); whatever is sent is not read;
 * - `session`: the dashboard's session cookie (`__Host-sid`, `sid` over plain http in development);
 * - `userToken`: a user's access token (`Authorization: Bearer eyJ...`, from `POST /api/v1/login`);
 * - `secretKey`: a platform project's secret key (`sk_test_...`);
 * - `publishableKey`: a platform project's publishable key (`pk_test_...`), the viewer routes only;
 * - `viewerToken`, `shareToken`: beside a publishable key, a user's token holding a grant
 *   (`X-Viewer-Token`) or a share link's token (`X-Share-Token`): they open more, never less;
 * - `signedUrl`: an asset's signed delivery URL (`/asset-content/:signedGrant`);
 * - `uploadUrl`: an asset's one-time tus upload URL (`/uploads/:assetId/:token`).
 */
export const CREDENTIAL_KINDS = [
  'anyone',
  'session',
  'userToken',
  'secretKey',
  'publishableKey',
  'viewerToken',
  'shareToken',
  'signedUrl',
  'uploadUrl',
] as const;
export type CredentialKind = (typeof CREDENTIAL_KINDS)[number];

/** The credentials the guard itself authenticates; the others are checked by the route they open. */
export const BEARER_KINDS: readonly CredentialKind[] = ['session', 'userToken', 'secretKey', 'publishableKey'];

/**
 * Where a route acts, which decides what the guard resolves before the handler runs:
 * - `none`: no caller (`anyone`, a signed or upload URL);
 * - `user`: the calling user's own things (their sessions, factors, accounts named by id);
 * - `account`: inside the caller's account (membership read, `@Account()` set);
 * - `project`: inside one platform project of the caller's account, with `api` enabled (`@Tenant()` set);
 * - `viewer`: the publishable key's platform project, with `api` enabled.
 */
export type AccessScope = 'none' | 'user' | 'account' | 'project' | 'viewer';

/**
 * What a session or a user's token must have proven: `password` (a password, a passkey or a mailed
 * link suffices), or `accountMfa`: a second factor whenever the account the request acts in, or the
 * one its `:accountId` names, requires one (`requireMfa`; 403 `mfa_required`).
 */
export type Assurance = 'password' | 'accountMfa';

/**
 * Money-moving, key-changing and factor-changing routes: the caller must have proven their strongest
 * credential within `STEP_UP_MINUTES`: a second factor when the user has one, else the password
 * (403 `step_up_required`). Sessions step up with `POST /api/v1/sessions/current/step-up`; a bearer
 * token counts from its login, so a stale one logs in again; an API key is no user and steps up never.
 * A function limits it to the requests whose (raw) body makes the sensitive change (turning
 * `requireMfa` off).
 */
export type StepUpWhen = true | ((body: Record<string, unknown>) => boolean);

/** The roles a channel's collaborators hold, weakest last. */
export type ChannelRoleName = 'owner' | 'manager' | 'editor' | 'viewer';

/**
 * What a derived channel role is decided on: the channel the route parameter leads to, the content
 * project it names or whose asset it names (`parentId`: that project's parent, null at the top of the
 * tree and for a channel), whether that project's delete has begun (`deleting`: its cascade is
 * recorded, and every route but the one that finishes it knows it no more), and the request's body as
 * sent: the guard runs before validation, so a field may hold anything.
 */
export interface ChannelTarget {
  readonly channelId: string;
  readonly parentId: string | null;
  readonly deleting: boolean;
  readonly body: Readonly<Record<string, unknown>>;
}

/**
 * A channel role that follows from the record and the body (deleting a top-level project needs more
 * than deleting a sub-project): `of` answers the role, or null for a record the route does not know
 * (left to the route's own 404); `says` is the rule in words, for the access table.
 */
export interface DerivedChannelRole {
  readonly of: (target: ChannelTarget) => ChannelRoleName | null;
  readonly says: string;
}

/**
 * The channel role a route needs (or above), and how its channel is found: the route parameter
 * `param` names the channel itself, a content project of it, or an asset of such a project (`from`).
 * A fixed role is needed whatever the record; a project whose delete has begun is unknown to it.
 * `destination` names a body field that names a second channel the request reaches (a move's target)
 * and the role needed there: a value that is no channel of the scope is left to the route, which
 * answers 404 before any role is asked. A platform admin (the account's owner, an admin, a secret
 * key) needs none.
 */
export interface ChannelRequirement {
  readonly role: ChannelRoleName | DerivedChannelRole;
  readonly from: 'channel' | 'project' | 'asset';
  readonly param: string;
  readonly destination?: { readonly field: string; readonly role: ChannelRoleName };
}

/**
 * An API a route reaches on some requests only (a card sent without `customer` creates one): `when`
 * reads the request's body as sent, an object (the guard runs before validation, so a field may hold
 * anything); a request without an object body needs it not, and is left to validation.
 */
export interface ConditionalApi {
  readonly api: ApiName;
  readonly when: (body: Readonly<Record<string, unknown>>) => boolean;
}

/** The request's body as sent, for the conditions above: a JSON object, else null (left to validation). */
export function sentObject(body: unknown): Readonly<Record<string, unknown>> | null {
  return typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : null;
}

/** One route's access policy, declared beside its handler with `@Access()`. */
export interface AccessPolicy {
  /** Who may call it; any other credential is 403 (a valid one of another kind) or 401 (none, or an invalid one). */
  readonly credentials: readonly CredentialKind[];
  readonly scope: AccessScope;
  /** The API a `project` or `viewer` route belongs to. */
  readonly api?: ApiName;
  /**
   * Other APIs whose records the route also changes or answers (a card made default answers its
   * customer): the project must have them enabled and an API key's scopes must include them, as
   * `api`. A conditional one is needed only by the requests its body describes.
   */
  readonly alsoApis?: readonly (ApiName | ConditionalApi)[];
  readonly assurance?: Assurance;
  readonly stepUp?: StepUpWhen;
  /** The account roles that may call it (the owner counts as admin, a secret key acts as admin); any when absent. */
  readonly roles?: readonly UserRole[];
  /** A user caller must have verified their email (403 `email_unverified`). */
  readonly verifiedEmail?: boolean;
  /** On `project` routes of a channel: the channel role the caller needs in it (403 `channel_role_required`). */
  readonly channel?: ChannelRequirement;
}

/**
 * A signed-in user acting on their own records (password, factors, passkeys, sessions): a user's
 * token or dashboard session at password strength, in no account. A route that asks more (a recent
 * step-up, a session only) adds it beside its handler.
 */
export const SIGNED_IN_USER: AccessPolicy = {
  credentials: ['userToken', 'session'],
  scope: 'user',
  assurance: 'password',
};

/**
 * A signed-in user acting in one of their accounts, named by the route: as `SIGNED_IN_USER`, and at
 * the strength that account asks (a second factor when it requires one).
 */
export const SIGNED_IN_TO_ACCOUNT: AccessPolicy = { ...SIGNED_IN_USER, assurance: 'accountMfa' };

export const ACCESS = 'access';

/** A declared route, as the registry keeps it: the controller's and the handler's names. */
export interface DeclaredRoute {
  /** The controller's class, as Nest and its Swagger module know it. */
  readonly type: abstract new (...args: never[]) => unknown;
  readonly controller: string;
  readonly handler: string;
  readonly policy: AccessPolicy;
}

const declared = new Map<string, DeclaredRoute>();

/** Every route declared so far (each controller's file declares its routes when it is imported). */
export function declaredRoutes(): readonly DeclaredRoute[] {
  return [...declared.values()];
}

/** The security schemes of the OpenAPI document that carry each credential the guard authenticates. */
const SCHEMES: Partial<Record<CredentialKind, string>> = {
  userToken: USER_BEARER_SCHEME,
  session: SESSION_COOKIE_SCHEME,
  secretKey: API_KEY_SCHEME,
  publishableKey: PUBLISHABLE_KEY_SCHEME,
};

/**
 * Declares a route's access policy: the one guard (src/access/access.guard.ts) enforces it, the
 * OpenAPI document's security requirements come from it, and a route without one stops the
 * application at start (RouteDeclarations).
 */
export function Access(policy: AccessPolicy): MethodDecorator {
  const schemes = policy.credentials.flatMap((kind) => (SCHEMES[kind] ? [SCHEMES[kind]] : []));
  // A user's token or session is the document-wide requirement (src/swagger.ts): stated again it would change nothing.
  const documentDefault =
    schemes.length === 2 && schemes.includes(USER_BEARER_SCHEME) && schemes.includes(SESSION_COOKIE_SCHEME);
  const documented = documentDefault
    ? []
    : schemes.length
      ? schemes.map((scheme) => ApiSecurity(scheme))
      : [ApiSecurity({})];
  return (target, key, descriptor) => {
    declared.set(`${target.constructor.name}.${String(key)}`, {
      type: target.constructor as DeclaredRoute['type'],
      controller: target.constructor.name,
      handler: String(key),
      policy,
    });
    applyDecorators(SetMetadata(ACCESS, policy), ...documented)(target, key, descriptor);
    documentPolicy(policy.scope, policy.api, descriptor, target, key);
  };
}
