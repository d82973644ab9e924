import type { ApiName } from './api-names';
import type { UserRole } from '../common/decorators/roles.decorator';
import type { TenantScope } from './tenant-scope';

/** A dashboard session's standing, on a principal authenticated by the session cookie. */
export interface SessionFacts {
  readonly id: string;
  readonly userId: string;
  readonly accountId: string | null;
  readonly assurance: 'password' | 'mfa';
  /** The session's account (`accountId`) requires a second factor: a copy kept on the session. */
  readonly accountRequiresMfa: boolean;
  /** When a second factor was last proven in the session, in milliseconds since the epoch. */
  readonly mfaAt: number | null;
  /** When the password was last proven in the session (sign-in, step-up), in milliseconds since the epoch. */
  readonly passwordAt: number | null;
}

/**
 * A bearer token's standing: what its login proved and when. `assurance` is already lowered to
 * `password` when the user's factors changed after it was issued.
 */
export interface TokenFacts {
  readonly assurance: 'password' | 'mfa';
  /** When the token was issued, in milliseconds since the epoch. */
  readonly issuedAt: number;
}

/**
 * Who is calling: a logged-in user (their token or session names an account, or none yet) or an API
 * key. `session` is set when the session cookie authenticated the request, `token` when a user's
 * bearer token did.
 */
export type Principal =
  | {
      readonly kind: 'user';
      readonly userId: string;
      readonly accountId: string | null;
      readonly session?: SessionFacts;
      readonly token?: TokenFacts;
    }
  | {
      readonly kind: 'apiKey';
      /** A publishable key (`pk_test_...`): the `/viewer` routes only, read-only; a secret key otherwise. */
      readonly publishable: boolean;
      readonly keyId: string;
      readonly accountId: string;
      readonly projectId: string;
      /** The APIs this key may call; null means every API enabled in its project. */
      readonly scopes: readonly ApiName[] | null;
    };

/**
 * For a route of one API whose answer or change is also a record of another (a card made default
 * answers its customer): whether the caller may reach that other API too. Only a key's scopes narrow it.
 */
export function reachesApi(caller: Principal, api: ApiName): boolean {
  return caller.kind !== 'apiKey' || caller.scopes === null || caller.scopes.includes(api);
}

/** The caller's standing in the account a request acts in. */
export interface AccountAccess {
  readonly accountId: string;
  readonly role: UserRole;
  readonly owner: boolean;
}

/** What the guards attach to a request. */
export interface RequestContext {
  principal?: Principal;
  /** Set on routes that act inside the token's account (members, platform projects, data routes). */
  account?: AccountAccess;
  /** Set on data routes: the platform project the request acts in. */
  tenant?: TenantScope;
}
