import {
  ConflictException,
  ForbiddenException,
  Inject,
  Injectable,
  Logger,
  NotFoundException,
  OnModuleDestroy,
  OnModuleInit,
  UnauthorizedException,
} from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import * as bcrypt from 'bcrypt';
import { createHash, randomBytes } from 'node:crypto';
import { Types } from 'mongoose';
import type { AuditOrigin } from '../audit/audit-context.decorator';
import type { AuditAction } from '../audit/audit-entry.schema';
import { AuditTrail } from '../audit/audit-trail';
import { MembershipsService } from '../accounts/memberships.service';
import { AccountsService } from '../accounts/accounts.service';
import { ACCOUNT_MFA_REQUIREMENT_CHANGED, type AccountMfaRequirementChangedEvent } from '../accounts/accounts.events';
import { OnInProcessEvent } from '../events/in-process-events';
import { AttemptLimiter } from '../auth/attempts/attempt-limiter.service';
import { authConfig } from '../config/auth.config';
import { sessionsConfig } from '../config/sessions.config';
import { NOT_A_MEMBER } from '../access/policy/access-messages';
import type { SessionFacts, TokenFacts } from '../tenancy/principal';
import { CredentialsChanges } from '../users/credentials-changes';
import type { User } from '../users/user.schema';
import type { UserWithSecrets } from '../users/users.service';
import { UsersService } from '../users/users.service';
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/server';
import type { Passkey } from '../passkeys/passkey.schema';
import { PasskeysService } from '../passkeys/passkeys.service';
import { SessionView } from './dto/session.response';
import { assertOneProof, FactorProof, INVALID_CODE, MfaService } from './mfa.service';
import type { Assurance, Session } from './session.schema';
import { toSessionView } from './sessions.mapper';
import { SessionsRepository } from './sessions.repository';
import { SecurityNotices } from './security-notices';

const INVALID_CREDENTIALS = 'Invalid email or password';
/** `lastSeenAt` moves at most this often: one write a minute per active session, not one a request. */
const TOUCH_EVERY_MS = 60_000;
const TOKEN_BYTES = 32;
export const MFA_REQUIRED = 'mfa_required';
export const STEP_UP_REQUIRED = 'step_up_required';

export interface SignIn {
  email: string;
  password: string;
  totp?: string;
  recoveryCode?: string;
  accountId?: string;
}

/** What a step-up offers: a code of the user's factor, or (for a user with none) the password. */
export interface StepUpProof extends FactorProof {
  password?: string;
}

/** What a credential proved, and when (ms since the epoch): the step-up check's input. */
interface Proven {
  mfaAt: number | null;
  passwordAt: number | null;
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/**
 * Dashboard sessions.
 *
 * Invariant: a session is accepted only while its token's hash is stored, it has been used within
 * `SESSION_IDLE_MINUTES`, it was signed in within `SESSION_MAX_HOURS`, and it was made after its
 * user's `credentialsChangedAt`. A sign-in and every change of assurance (step-up, password change)
 * make a new token and delete the old one, so a token seen before cannot be raised to more rights.
 * Each session keeps a copy of its account's `requireMfa`: set at the insert and read again after
 * it, and rewritten on every session of the account by the account's change event, so of a sign-in
 * and a change at the same time one sees the other.
 */
@Injectable()
export class SessionsService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(SessionsService.name);
  private readonly dummyHash: Promise<string>;
  private stopSweep: () => void = () => undefined;

  constructor(
    private readonly sessions: SessionsRepository,
    private readonly users: UsersService,
    private readonly credentials: CredentialsChanges,
    private readonly memberships: MembershipsService,
    private readonly accounts: AccountsService,
    private readonly attempts: AttemptLimiter,
    private readonly mfa: MfaService,
    private readonly trail: AuditTrail,
    private readonly notices: SecurityNotices,
    private readonly passkeys: PasskeysService,
    @Inject(authConfig.KEY) private readonly auth: ConfigType<typeof authConfig>,
    @Inject(sessionsConfig.KEY) private readonly config: ConfigType<typeof sessionsConfig>,
  ) {
    this.dummyHash = bcrypt.hash('not-a-real-password', this.auth.bcryptRounds);
  }

  async onModuleInit(): Promise<void> {
    this.stopSweep = await this.sessions.expireByAge(Math.ceil(this.config.maxMs / 1000), this.logger);
  }

  onModuleDestroy(): void {
    this.stopSweep();
  }

  get maxAgeSeconds(): number {
    return Math.floor(this.config.maxMs / 1000);
  }

  /**
   * Checks the password (and, for a user with a factor, the code) under the login attempt limits,
   * and opens a session. Unknown email and wrong password answer alike, after the same bcrypt work.
   */
  async signIn(dto: SignIn, origin: AuditOrigin): Promise<{ token: string; session: Session; user: User }> {
    const { user, assurance, credentialsAt } = await this.verifyCredentials(dto, origin);
    const userId = String(user._id);
    const accountId = await this.sessionAccount(user, dto.accountId?.toLowerCase());
    const now = await this.signedIn(user, origin);
    const { token, session } = await this.open(
      userId,
      accountId,
      assurance,
      origin,
      now,
      now,
      assurance === 'mfa' ? now : null,
      now,
      credentialsAt,
    );
    await this.auditUser(user, 'user.logged_in', origin);
    return { token, session, user };
  }

  /**
   * The one check of an email, a password and (for a user with a second factor) a code, shared by
   * every password sign-in (a session here, an access token at `POST /api/v1/login`), so both give
   * the same strength: a user with a factor gets nothing from the password alone (401
   * `mfa_required`). A member of an account that requires a factor but has none yet is let in with
   * `password`, which the tenancy guard then keeps out of that account's data (they can set one up).
   * Under the login limits (the password) and the user's code limit (the code). Unknown email and
   * wrong password answer alike, after the same bcrypt work.
   */
  async verifyCredentials(
    dto: SignIn,
    origin: AuditOrigin,
  ): Promise<{ user: User; assurance: Assurance; credentialsAt: number }> {
    assertOneProof(dto);
    const client = origin.ip ?? '';
    await this.attempts.beginLogin(dto.email, client);
    const found = await this.users.findByEmailWithHash(dto.email);
    const matches = await bcrypt.compare(dto.password, found?.passwordHash ?? (await this.dummyHash));
    if (!found || !matches) {
      // Not awaited: a known email must not answer later than an unknown one.
      if (found) this.auditInBackground(found, 'user.login_failed', origin);
      throw new UnauthorizedException(INVALID_CREDENTIALS);
    }
    // The factor's secrets are read only for a user who has one (most have none).
    // The credentials as read with the password checked: what the token or session is bound to.
    const credentialsAt = credentialsVersionOf(found);
    if (!(await this.mfa.hasFactor(found))) return { user: found, assurance: 'password', credentialsAt };
    if (dto.totp === undefined && dto.recoveryCode === undefined) {
      throw new UnauthorizedException({
        message:
          'This user has a second factor: send totp or recoveryCode with the password, or sign in with a passkey (POST /api/v1/sessions/passkey)',
        code: MFA_REQUIRED,
      });
    }
    const user = await this.users.findByIdWithSecrets(String(found._id));
    if (!user || !(await this.mfa.accept(user, dto, client))) {
      this.auditInBackground(found, 'user.login_failed', origin);
      throw new UnauthorizedException(INVALID_CODE);
    }
    return { user, assurance: 'mfa', credentialsAt };
  }

  /**
   * A sign-in succeeded (any path: password, password and code, passkey; session or token): the
   * pair's failed logins no longer count, and an address new for this email gets the new-sign-in
   * mail. When it happened.
   */
  async signedIn(user: User, origin: AuditOrigin): Promise<Date> {
    const newAddress = await this.attempts.loginSucceeded(user.email, origin.ip ?? '');
    const now = new Date();
    if (newAddress) await this.notices.newSignIn(user.email, origin, now);
    return now;
  }

  /** The session of a cookie's token, if it is still valid; moves its `lastSeenAt` at most once a minute. */
  async authenticate(token: string, now = Date.now()): Promise<SessionFacts | null> {
    if (token.length > 128) return null;
    const session = await this.sessions.findByTokenHash(hashToken(token));
    if (!session || !this.isLive(session, now)) return null;
    const userId = String(session.userId);
    const changedAt = await this.credentials.changedAt(userId);
    // Bound to the credentials its proof was checked against; an older session, to when it was made.
    if (
      session.credentialsAt != null
        ? session.credentialsAt !== changedAt
        : new Date(session.createdAt).getTime() < changedAt
    )
      return null;
    if (now - new Date(session.lastSeenAt).getTime() >= TOUCH_EVERY_MS)
      await this.sessions.touch(session._id, new Date(now));
    return Object.freeze({
      id: String(session._id),
      userId,
      accountId: session.accountId,
      assurance: session.assurance,
      accountRequiresMfa: session.accountRequiresMfa === true,
      mfaAt: session.mfaAt ? new Date(session.mfaAt).getTime() : null,
      passwordAt: session.passwordAt ? new Date(session.passwordAt).getTime() : null,
    });
  }

  async list(userId: string, currentId: string | null, now = Date.now()): Promise<SessionView[]> {
    const sessions = await this.sessions.listForUser(userId);
    const changedAt = await this.credentials.changedAt(userId);
    return sessions
      .filter((session) => this.isLive(session, now) && new Date(session.createdAt).getTime() >= changedAt)
      .map((session) => toSessionView(session, String(session._id) === currentId));
  }

  @OnInProcessEvent(ACCOUNT_MFA_REQUIREMENT_CHANGED, { suppressErrors: false })
  async onMfaRequirementChanged(event: AccountMfaRequirementChangedEvent): Promise<void> {
    await this.sessions.setAccountRequiresMfa(event.accountId, event.requireMfa);
  }

  /** Ends one of the user's sessions: another user's is 404, as an unknown one. */
  async revoke(userId: string, id: string, origin: AuditOrigin): Promise<void> {
    if (!(await this.sessions.deleteOne(userId, id))) throw new NotFoundException('Session not found');
    await this.auditUserById(userId, 'session.revoked', origin, { type: 'session', id, label: null });
  }

  /** Ends every session of the user but the current one; how many. */
  async revokeOthers(userId: string, currentId: string | null, origin: AuditOrigin): Promise<number> {
    const ended = await this.sessions.deleteAllBut(userId, currentId ? toId(currentId) : null);
    if (ended > 0)
      await this.auditUserById(userId, 'session.revoked', origin, {
        type: 'user',
        id: userId,
        label: `${ended} other session(s)`,
      });
    return ended;
  }

  /**
   * Proves the strongest credential again: a second factor (a new token with assurance `mfa`), or,
   * for a user with none, the password (a new token, its password proven now). The old one deleted.
   */
  async stepUp(
    facts: SessionFacts,
    proof: StepUpProof,
    origin: AuditOrigin,
  ): Promise<{ token: string; session: Session }> {
    assertOneProof(proof);
    const user = await this.users.findByIdWithSecrets(facts.userId);
    if (!user) throw new UnauthorizedException('The user of this session no longer exists');
    const hasFactor = await this.mfa.hasFactor(user);
    if (hasFactor && proof.totp === undefined && proof.recoveryCode === undefined) {
      throw new UnauthorizedException({
        message:
          'This user has a second factor: prove it with totp or recoveryCode, or with a passkey (POST /api/v1/sessions/current/step-up/passkey)',
        code: MFA_REQUIRED,
      });
    }
    if (hasFactor) {
      await this.checkFactor(user, proof, origin);
      return this.replace(facts, origin, new Date(), 'mfa');
    }
    if (proof.password === undefined)
      throw new ConflictException(
        'No second factor to prove: send your password (or set up a factor: POST /api/v1/me/mfa/totp)',
      );
    const client = origin.ip ?? '';
    await this.attempts.beginLogin(user.email, client);
    if (!(await bcrypt.compare(proof.password, user.passwordHash)))
      throw new UnauthorizedException('The password is wrong');
    await this.attempts.loginSucceeded(user.email, client);
    return this.replace(facts, origin, new Date(), 'password');
  }

  /**
   * Proves the second factor again with one of the user's passkeys, under the address's attempt
   * limit (AttemptLimiter.beginPasskeyAnswer): a new token with assurance `mfa`.
   */
  async stepUpWithPasskey(
    facts: SessionFacts,
    credential: AuthenticationResponseJSON,
    origin: AuditOrigin,
  ): Promise<{ token: string; session: Session }> {
    const user = await this.users.findById(facts.userId);
    if (!user) throw new UnauthorizedException('The user of this session no longer exists');
    const client = origin.ip ?? '';
    await this.passkeys.authenticate(credential, {
      userId: facts.userId,
      admit: () => this.attempts.beginPasskeyAnswer(client),
    });
    await this.attempts.passkeyAnswerSucceeded(client);
    return this.replace(facts, origin, new Date(), 'mfa');
  }

  /**
   * Signs in with a passkey alone (it names its user; the user was verified by the authenticator):
   * a session with assurance `mfa`, as a password and a code would give. Under the login limits of
   * the address alone, recorded before it is verified (never of the email of the user its passkey
   * names: neither a stranger's refused answers nor the email's failed passwords lock the passkey
   * out); a success forgets them and the pair's failures. A refusal is `user.login_failed` of the
   * user named, as a wrong password is.
   */
  async signInWithPasskey(
    credential: AuthenticationResponseJSON,
    accountId: string | undefined,
    origin: AuditOrigin,
  ): Promise<{ token: string; session: Session; user: User }> {
    const client = origin.ip ?? '';
    const named: { user: User | null } = { user: null };
    try {
      await this.passkeys.authenticate(credential, {
        admit: async (owner) => {
          named.user = owner ? await this.users.findById(owner) : null;
          await this.attempts.beginPasskeyAnswer(client);
        },
      });
    } catch (error) {
      if (named.user && error instanceof UnauthorizedException)
        this.auditInBackground(named.user, 'user.login_failed', origin);
      throw error;
    }
    const user = named.user;
    if (!user) throw new UnauthorizedException('The user of this passkey no longer exists');
    const userId = String(user._id);
    const account = await this.sessionAccount(user, accountId?.toLowerCase());
    await this.attempts.passkeyAnswerSucceeded(client);
    const now = await this.signedIn(user, origin);
    const { token, session } = await this.open(
      userId,
      account,
      'mfa',
      origin,
      now,
      now,
      now,
      null,
      credentialsVersionOf(user),
    );
    await this.auditUser(user, 'user.logged_in', origin);
    return { token, session, user };
  }

  /** The options of a passkey sign-in or step-up: a challenge written, so limited per address. */
  async passkeyAuthenticationOptions(origin: AuditOrigin): Promise<PublicKeyCredentialRequestOptionsJSON> {
    await this.attempts.beginPasskeyOptions(origin.ip ?? '');
    return this.passkeys.authenticationOptions();
  }

  /** The options of a passkey registration: a challenge written, so limited per address as a sign-in's. */
  async passkeyRegistrationOptions(
    userId: string,
    origin: AuditOrigin,
  ): Promise<PublicKeyCredentialCreationOptionsJSON> {
    const user = await this.users.findById(userId);
    if (!user) throw new UnauthorizedException('The user of this session no longer exists');
    await this.attempts.beginPasskeyOptions(origin.ip ?? '');
    return this.passkeys.registrationOptions({ id: userId, email: user.email });
  }

  /**
   * Registers a passkey, records `passkey.added` and tells the user by mail. A factor added: see
   * `factorAdded` (the current session, which just proved it, continues as `mfa` under a new id).
   */
  async addPasskey(
    userId: string,
    current: SessionFacts | null,
    name: string,
    credential: RegistrationResponseJSON,
    origin: AuditOrigin,
  ): Promise<{ passkey: Passkey; replaced: { token: string; session: Session } | null }> {
    const user = await this.users.findById(userId);
    if (!user) throw new UnauthorizedException('The user of this session no longer exists');
    const passkey = await this.passkeys.register(userId, name, credential);
    const replaced = await this.factorAdded(userId, current, origin, new Date());
    await this.auditUser(user, 'passkey.added', origin, {
      type: 'passkey',
      id: String(passkey._id),
      label: passkey.name,
    });
    await this.notices.passkeyChanged(user.email, 'added', passkey.name, origin, new Date());
    return { passkey, replaced };
  }

  /**
   * Removes one of the user's passkeys (another user's: 404), records `passkey.removed` and tells the
   * user by mail. A factor removed ends every other session and every token, as a new password does;
   * the current session (if the removal came through one) continues under a new id.
   */
  async removePasskey(
    userId: string,
    current: SessionFacts | null,
    id: string,
    origin: AuditOrigin,
  ): Promise<{ token: string; session: Session } | null> {
    const user = await this.users.findById(userId);
    if (!user) throw new UnauthorizedException('The user of this session no longer exists');
    const passkey = await this.passkeys.remove(userId, id);
    const at = new Date();
    await this.users.noteFactorChanged(userId, at, true);
    const replaced = await this.endOthers(userId, current, origin, at);
    await this.auditUser(user, 'passkey.removed', origin, { type: 'passkey', id, label: passkey.name });
    await this.notices.passkeyChanged(user.email, 'removed', passkey.name, origin, new Date());
    return replaced;
  }

  /** A proof of the user's factor under the user's code limit; 401 when it is not valid. */
  async checkFactor(user: UserWithSecrets, proof: FactorProof, origin: AuditOrigin): Promise<void> {
    if (!(await this.mfa.accept(user, proof, origin.ip ?? ''))) throw new UnauthorizedException(INVALID_CODE);
  }

  /** Every session of the user, and (through `credentialsChangedAt`, set before) every token, ends: a password reset. */
  async endAll(userId: string): Promise<void> {
    await this.sessions.deleteAllBut(userId, null);
  }

  /**
   * A new password: every other session ends, bearer tokens issued before it stop working, and the
   * current session (if the change came through one) gets a new token made after the change.
   */
  async changePassword(
    userId: string,
    current: SessionFacts | null,
    currentPassword: string,
    password: string,
    origin: AuditOrigin,
  ): Promise<{ token: string; session: Session } | null> {
    const user = await this.users.findByIdWithSecrets(userId);
    if (!user) throw new UnauthorizedException('The user of this session no longer exists');
    const client = origin.ip ?? '';
    await this.attempts.beginLogin(user.email, client);
    if (!(await bcrypt.compare(currentPassword, user.passwordHash)))
      throw new UnauthorizedException('The current password is wrong');
    await this.attempts.loginSucceeded(user.email, client);
    const at = new Date();
    await this.users.setPassword(userId, await bcrypt.hash(password, this.auth.bcryptRounds), at);
    const replaced = await this.endOthers(userId, current, origin, at, at);
    await this.auditUser(user, 'password.changed', origin);
    return replaced;
  }

  /**
   * Step-up of a session: see `assertFresh`. Its factor is what it proved at sign-in or its last
   * step-up; its password, what it proved at a password sign-in, a step-up or a password change.
   */
  async assertSteppedUp(facts: SessionFacts, now = Date.now()): Promise<void> {
    await this.assertFresh(
      facts.userId,
      { mfaAt: facts.mfaAt, passwordAt: facts.passwordAt },
      'POST /api/v1/sessions/current/step-up',
      now,
    );
  }

  /** Step-up of a bearer token: what its login proved, when it was issued (a stale token logs in again). */
  async assertTokenSteppedUp(userId: string, facts: TokenFacts, now = Date.now()): Promise<void> {
    const proven = { mfaAt: facts.assurance === 'mfa' ? facts.issuedAt : null, passwordAt: facts.issuedAt };
    await this.assertFresh(
      userId,
      proven,
      'log in again (POST /api/v1/login, with totp or recoveryCode when you have a second factor)',
      now,
    );
  }

  /**
   * Step-up: the user's strongest credential proven within `STEP_UP_MINUTES`: a second factor when
   * the user has one (a password proves nothing more then), else the password (or a factor they
   * had). 403 `step_up_required` otherwise.
   */
  private async assertFresh(userId: string, proven: Proven, how: string, now: number): Promise<void> {
    const fresh = (at: number | null) => at !== null && now - at <= this.config.stepUpMs;
    if (fresh(proven.mfaAt)) return;
    const user = await this.users.findById(userId);
    const hasFactor = !user || (await this.mfa.hasFactor(user));
    if (!hasFactor && fresh(proven.passwordAt)) return;
    const minutes = this.config.stepUpMs / 60_000;
    throw new ForbiddenException({
      message: hasFactor
        ? `This action needs your second factor proven within ${minutes} minutes: ${how}`
        : `This action needs your password proven within ${minutes} minutes: ${how}`,
      code: STEP_UP_REQUIRED,
    });
  }

  /**
   * Turns TOTP on with a code of the enrolled secret, under the user's code limit; the recovery
   * codes. A factor added: the user's other sessions and tokens no longer count as having proven
   * their factors.
   */
  async enableTotp(
    userId: string,
    current: SessionFacts | null,
    code: string,
    origin: AuditOrigin,
  ): Promise<{ codes: string[]; replaced: { token: string; session: Session } | null }> {
    const user = await this.users.findById(userId);
    if (!user) throw new UnauthorizedException('The user of this session no longer exists');
    const codes = await this.mfa.enable(userId, code, origin.ip ?? '');
    const replaced = await this.factorAdded(userId, current, origin, new Date());
    await this.auditUser(user, 'mfa.enabled', origin, { type: 'user', id: userId, label: 'totp' });
    await this.notices.factorChanged(user.email, 'added', 'an authenticator app', origin, new Date());
    return { codes, replaced };
  }

  /**
   * Turns TOTP off with a fresh code, under the user's code limit. A factor removed ends every other
   * session and every token; the current session continues under a new id.
   */
  async disableTotp(
    userId: string,
    current: SessionFacts | null,
    code: string,
    origin: AuditOrigin,
  ): Promise<{ token: string; session: Session } | null> {
    const user = await this.users.findById(userId);
    if (!user) throw new UnauthorizedException('The user of this session no longer exists');
    const at = new Date();
    await this.mfa.disable(userId, { totp: code }, origin.ip ?? '', at);
    const replaced = await this.endOthers(userId, current, origin, at);
    await this.auditUser(user, 'mfa.disabled', origin, { type: 'user', id: userId, label: 'totp' });
    await this.notices.factorChanged(user.email, 'removed', 'an authenticator app', origin, new Date());
    return replaced;
  }

  /**
   * The user's factors changed at `at` (one added): every other session keeps only its password, and
   * tokens issued before count as `password` (`factorsChangedAt`). The current session, if the
   * factor was added through one, has just proven the new factor (a code of it, or its registration
   * with the user verified), as a sign-in with it would: it continues as `mfa` under a new id.
   */
  private async factorAdded(
    userId: string,
    current: SessionFacts | null,
    origin: AuditOrigin,
    at: Date,
  ): Promise<{ token: string; session: Session } | null> {
    await this.users.noteFactorChanged(userId, at, false);
    await this.sessions.lowerAllBut(userId, current ? toId(current.id) : null);
    return current ? this.replace(current, origin, new Date(at.getTime() + 1), 'mfa') : null;
  }

  /**
   * The credentials changed at `at` (already written: tokens issued before it fail): every other
   * session ends, and the current one (if any) continues under a new token made after the change.
   */
  private async endOthers(
    userId: string,
    current: SessionFacts | null,
    origin: AuditOrigin,
    at: Date,
    passwordAt?: Date,
  ): Promise<{ token: string; session: Session } | null> {
    await this.sessions.deleteAllBut(userId, current ? toId(current.id) : null);
    if (!current) return null;
    return this.replace(current, origin, new Date(at.getTime() + 1), passwordAt ? 'password' : null, at.getTime());
  }

  /** Ends the current session (sign out). */
  async signOut(facts: SessionFacts, origin: AuditOrigin): Promise<void> {
    await this.sessions.deleteOne(facts.userId, facts.id);
    await this.auditUserById(facts.userId, 'session.revoked', origin, { type: 'session', id: facts.id, label: null });
  }

  /**
   * A new token for the session, the old one deleted: `proven` is what was proven just now (a factor
   * raises it to `mfa`; the password refreshes its password proof); null keeps what it had.
   */
  private async replace(
    facts: SessionFacts,
    origin: AuditOrigin,
    now: Date,
    proven: 'mfa' | 'password' | null,
    credentialsAt?: number,
  ): Promise<{ token: string; session: Session }> {
    const old = (await this.sessions.listForUser(facts.userId)).find((session) => String(session._id) === facts.id);
    if (!old) throw new UnauthorizedException('This session has ended');
    const assurance: Assurance = proven === 'mfa' ? 'mfa' : old.assurance;
    const mfaAt = proven === 'mfa' ? now : old.mfaAt;
    const passwordAt = proven === 'password' ? now : (old.passwordAt ?? null);
    // The credentials it was bound to, unless they just changed through this very session.
    const bound = credentialsAt ?? old.credentialsAt ?? (await this.credentials.changedAt(facts.userId));
    const opened = await this.open(
      facts.userId,
      old.accountId,
      assurance,
      origin,
      new Date(old.signedInAt),
      now,
      mfaAt,
      passwordAt,
      bound,
    );
    await this.sessions.deleteOne(facts.userId, facts.id);
    return opened;
  }

  private async open(
    userId: string,
    accountId: string | null,
    assurance: Assurance,
    origin: AuditOrigin,
    signedInAt: Date,
    now: Date,
    mfaAt: Date | null,
    passwordAt: Date | null,
    credentialsAt: number,
  ): Promise<{ token: string; session: Session }> {
    const token = randomBytes(TOKEN_BYTES).toString('base64url');
    const requires = accountId ? await this.accounts.requiresMfa(accountId) : false;
    const session = await this.sessions.insert(
      {
        tokenHash: hashToken(token),
        userId,
        accountId,
        accountRequiresMfa: requires,
        signedInAt,
        ip: origin.ip,
        userAgent: origin.userAgent,
        assurance,
        mfaAt,
        passwordAt,
        credentialsAt,
      },
      now,
    );
    // Read again after the insert: a change of the flag in between either updated this session or is seen here.
    if (accountId && (await this.accounts.requiresMfa(accountId)) !== requires) {
      await this.sessions.setOneAccountRequiresMfa(session._id, !requires);
      session.accountRequiresMfa = !requires;
    }
    return { token, session };
  }

  private isLive(session: Session, now: number): boolean {
    return (
      now - new Date(session.lastSeenAt).getTime() < this.config.idleMs &&
      now - new Date(session.signedInAt).getTime() < this.config.maxMs
    );
  }

  /** As a login: the account asked for (a member only), else the default one while a member, else the first. */
  private async sessionAccount(user: User, accountId: string | undefined): Promise<string | null> {
    const userId = String(user._id);
    if (accountId) {
      if (!(await this.memberships.find(accountId, userId))) throw new ForbiddenException(NOT_A_MEMBER);
      return accountId;
    }
    if (user.defaultCompany && (await this.memberships.find(user.defaultCompany, userId))) return user.defaultCompany;
    const [first] = await this.memberships.listForUser(userId);
    return first ? String(first.accountId) : null;
  }

  private async auditUserById(
    userId: string,
    action: AuditAction,
    origin: AuditOrigin,
    target?: { type: string; id: string; label: string | null },
  ): Promise<void> {
    const user = await this.users.findById(userId);
    if (user) await this.auditUser(user, action, origin, target);
  }

  private auditInBackground(user: User, action: AuditAction, origin: AuditOrigin): void {
    this.auditUser(user, action, origin).catch((error: Error) =>
      this.logger.warn(`Recording ${action} failed: ${error.message}`),
    );
  }

  /** An entry in every account the user belongs to. */
  async auditUser(
    user: User,
    action: AuditAction,
    origin: AuditOrigin,
    target?: { type: string; id: string; label: string | null },
  ): Promise<void> {
    const party = { type: 'user', id: String(user._id), label: user.email };
    const memberships = await this.memberships.listForUser(String(user._id));
    for (const membership of memberships) {
      await this.trail.appendNow(
        { actor: party, ...origin },
        { accountId: String(membership.accountId), action, target: target ?? party },
      );
    }
  }
}

/** Session ids here come from stored sessions: always well-formed. */
function toId(id: string): Types.ObjectId {
  return new Types.ObjectId(id);
}

/** The user's `credentialsChangedAt` as a version (ms; 0 never): tokens and sessions are bound to the one their proof was checked against. */
export function credentialsVersionOf(user: { credentialsChangedAt?: Date | null }): number {
  return user.credentialsChangedAt ? new Date(user.credentialsChangedAt).getTime() : 0;
}
