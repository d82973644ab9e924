import { ConflictException, ForbiddenException, Inject, Injectable, Logger, NotFoundException, OnModuleDestroy, OnModuleInit, UnauthorizedException } from '@nestjs/common';
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
import { OnEvent } from '@nestjs/event-emitter';
import { AttemptLimiter } from '../auth/attempts/attempt-limiter.service';
import { authConfig } from '../config/auth.config';
import { sessionsConfig } from '../config/sessions.config';
import { NOT_A_MEMBER } from '../tenancy/tenancy.guard';
import type { SessionFacts } from '../tenancy/principal';
import { CredentialsChanges } from '../users/credentials-changes';
import type { User } from '../users/user.schema';
import type { UserWithSecrets } from '../users/users.service';
import { UsersService } from '../users/users.service';
import type { AuthenticationResponseJSON, PublicKeyCredentialCreationOptionsJSON, PublicKeyCredentialRequestOptionsJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
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
    const userId = String(found._id);
    const user = (await this.users.findByIdWithSecrets(userId))!;
    let assurance: Assurance = 'password';
    if (await this.mfa.hasFactor(user)) {
      if (dto.totp === undefined && dto.recoveryCode === undefined) {
        throw new UnauthorizedException({
          message: 'This user has a second factor: send totp or recoveryCode with the password, or sign in with a passkey (POST /api/v1/sessions/passkey)',
          code: MFA_REQUIRED,
        });
      }
      if (!(await this.mfa.accept(user, dto))) {
        this.auditInBackground(user, 'user.login_failed', origin);
        throw new UnauthorizedException(INVALID_CODE);
      }
      assurance = 'mfa';
    }
    const accountId = await this.sessionAccount(user, dto.accountId?.toLowerCase());
    const newAddress = await this.attempts.loginSucceeded(dto.email, client);
    const now = new Date();
    const { token, session } = await this.open(userId, accountId, assurance, origin, now, now);
    await this.auditUser(user, 'user.logged_in', origin);
    if (newAddress) await this.notices.newSignIn(user.email, origin, now);
    return { token, session, user };
  }

  /** The session of a cookie's token, if it is still valid; moves its `lastSeenAt` at most once a minute. */
  async authenticate(token: string, now = Date.now()): Promise<SessionFacts | null> {
    if (token.length > 128) return null;
    const session = await this.sessions.findByTokenHash(hashToken(token));
    if (!session || !this.isLive(session, now)) return null;
    const userId = String(session.userId);
    if (new Date(session.createdAt).getTime() < (await this.credentials.changedAt(userId))) return null;
    if (now - new Date(session.lastSeenAt).getTime() >= TOUCH_EVERY_MS) await this.sessions.touch(session._id, new Date(now));
    return Object.freeze({
      id: String(session._id),
      userId,
      accountId: session.accountId,
      assurance: session.assurance,
      accountRequiresMfa: session.accountRequiresMfa === true,
      mfaAt: session.mfaAt ? new Date(session.mfaAt).getTime() : null,
    });
  }

  async list(userId: string, currentId: string | null, now = Date.now()): Promise<SessionView[]> {
    const sessions = await this.sessions.listForUser(userId);
    const changedAt = await this.credentials.changedAt(userId);
    return sessions
      .filter((session) => this.isLive(session, now) && new Date(session.createdAt).getTime() >= changedAt)
      .map((session) => toSessionView(session, String(session._id) === currentId));
  }

  @OnEvent(ACCOUNT_MFA_REQUIREMENT_CHANGED, { suppressErrors: false })
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
    if (ended > 0) await this.auditUserById(userId, 'session.revoked', origin, { type: 'user', id: userId, label: `${ended} other session(s)` });
    return ended;
  }

  /** Proves a second factor again: a new token with assurance `mfa`, the old one deleted. */
  async stepUp(facts: SessionFacts, proof: FactorProof, origin: AuditOrigin): Promise<{ token: string; session: Session }> {
    assertOneProof(proof);
    const user = await this.users.findByIdWithSecrets(facts.userId);
    if (!user) throw new UnauthorizedException('The user of this session no longer exists');
    if (!(await this.mfa.hasFactor(user))) throw new ConflictException('No second factor to prove: set one up first (POST /api/v1/me/mfa/totp)');
    await this.checkFactor(user, proof, origin);
    return this.replace(facts, 'mfa', origin, new Date());
  }

  /**
   * Proves the second factor again with one of the user's passkeys, under the attempt limits (the
   * user's email and the address, as a code): a new token with assurance `mfa`.
   */
  async stepUpWithPasskey(facts: SessionFacts, credential: AuthenticationResponseJSON, origin: AuditOrigin): Promise<{ token: string; session: Session }> {
    const user = await this.users.findById(facts.userId);
    if (!user) throw new UnauthorizedException('The user of this session no longer exists');
    const client = origin.ip ?? '';
    await this.passkeys.authenticate(credential, { userId: facts.userId, admit: () => this.attempts.beginLogin(user.email, client) });
    await this.attempts.loginSucceeded(user.email, client);
    return this.replace(facts, 'mfa', origin, new Date());
  }

  /**
   * Signs in with a passkey alone (it names its user; the user was verified by the authenticator):
   * a session with assurance `mfa`, as a password and a code would give. Under the login limits:
   * the answer is an attempt on the email of the user its passkey names (on the address alone when
   * it names none), recorded before it is verified; a success forgets that pair's failures. A refusal
   * is `user.login_failed` of the user named, as a wrong password is.
   */
  async signInWithPasskey(credential: AuthenticationResponseJSON, accountId: string | undefined, origin: AuditOrigin): Promise<{ token: string; session: Session; user: User }> {
    const client = origin.ip ?? '';
    const named: { user: User | null } = { user: null };
    try {
      await this.passkeys.authenticate(credential, {
        admit: async (owner) => {
          named.user = owner ? await this.users.findById(owner) : null;
          await this.attempts.beginLogin(named.user?.email ?? null, client);
        },
      });
    } catch (error) {
      if (named.user && error instanceof UnauthorizedException) this.auditInBackground(named.user, 'user.login_failed', origin);
      throw error;
    }
    const user = named.user;
    if (!user) throw new UnauthorizedException('The user of this passkey no longer exists');
    const userId = String(user._id);
    const account = await this.sessionAccount(user, accountId?.toLowerCase());
    const newAddress = await this.attempts.loginSucceeded(user.email, client);
    const now = new Date();
    const { token, session } = await this.open(userId, account, 'mfa', origin, now, now);
    await this.auditUser(user, 'user.logged_in', origin);
    if (newAddress) await this.notices.newSignIn(user.email, origin, now);
    return { token, session, user };
  }

  /** The options of a passkey sign-in or step-up: a challenge written, so limited per address. */
  async passkeyAuthenticationOptions(origin: AuditOrigin): Promise<PublicKeyCredentialRequestOptionsJSON> {
    await this.attempts.beginPasskeyOptions(origin.ip ?? '');
    return this.passkeys.authenticationOptions();
  }

  /** The options of a passkey registration: a challenge written, so limited per address as a sign-in's. */
  async passkeyRegistrationOptions(userId: string, origin: AuditOrigin): Promise<PublicKeyCredentialCreationOptionsJSON> {
    const user = await this.users.findById(userId);
    if (!user) throw new UnauthorizedException('The user of this session no longer exists');
    await this.attempts.beginPasskeyOptions(origin.ip ?? '');
    return this.passkeys.registrationOptions({ id: userId, email: user.email });
  }

  /** Registers a passkey, records `passkey.added` and tells the user by mail. */
  async addPasskey(userId: string, name: string, credential: RegistrationResponseJSON, origin: AuditOrigin): Promise<Passkey> {
    const user = await this.users.findById(userId);
    if (!user) throw new UnauthorizedException('The user of this session no longer exists');
    const passkey = await this.passkeys.register(userId, name, credential);
    await this.auditUser(user, 'passkey.added', origin, { type: 'passkey', id: String(passkey._id), label: passkey.name });
    await this.notices.passkeyChanged(user.email, 'added', passkey.name, origin, new Date());
    return passkey;
  }

  /** Removes one of the user's passkeys (another user's: 404), records `passkey.removed` and tells the user by mail. */
  async removePasskey(userId: string, id: string, origin: AuditOrigin): Promise<void> {
    const user = await this.users.findById(userId);
    if (!user) throw new UnauthorizedException('The user of this session no longer exists');
    const passkey = await this.passkeys.remove(userId, id);
    await this.auditUser(user, 'passkey.removed', origin, { type: 'passkey', id, label: passkey.name });
    await this.notices.passkeyChanged(user.email, 'removed', passkey.name, origin, new Date());
  }

  /** A proof of the user's factor under the attempt limits (per user and address); 401 when it is not valid. */
  async checkFactor(user: UserWithSecrets, proof: FactorProof, origin: AuditOrigin): Promise<void> {
    const client = origin.ip ?? '';
    await this.attempts.beginLogin(user.email, client);
    if (!(await this.mfa.accept(user, proof))) throw new UnauthorizedException(INVALID_CODE);
    await this.attempts.loginSucceeded(user.email, client);
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
    if (!(await bcrypt.compare(currentPassword, user.passwordHash))) throw new UnauthorizedException('The current password is wrong');
    await this.attempts.loginSucceeded(user.email, client);
    const at = new Date();
    await this.users.setPassword(userId, await bcrypt.hash(password, this.auth.bcryptRounds), at);
    await this.sessions.deleteAllBut(userId, current ? toId(current.id) : null);
    await this.auditUser(user, 'password.changed', origin);
    return current ? this.replace(current, current.assurance, origin, new Date(at.getTime() + 1)) : null;
  }

  /**
   * Step-up: a session of a user with a factor needs `mfa` proven within `STEP_UP_MINUTES`; a user
   * without one is not asked (an account that requires one refuses them earlier).
   */
  async assertSteppedUp(facts: SessionFacts, now = Date.now()): Promise<void> {
    if (facts.mfaAt !== null && now - facts.mfaAt <= this.config.stepUpMs) return;
    const user = await this.users.findById(facts.userId);
    if (user && !(await this.mfa.hasFactor(user))) return;
    throw new ForbiddenException({
      message: `This action needs a second factor proven within ${this.config.stepUpMs / 60_000} minutes: POST /api/v1/sessions/current/step-up`,
      code: STEP_UP_REQUIRED,
    });
  }

  /** Turns TOTP on with a code of the enrolled secret, under the attempt limits; the recovery codes. */
  async enableTotp(userId: string, code: string, origin: AuditOrigin): Promise<string[]> {
    const user = await this.users.findById(userId);
    if (!user) throw new UnauthorizedException('The user of this session no longer exists');
    const client = origin.ip ?? '';
    await this.attempts.beginLogin(user.email, client);
    const codes = await this.mfa.enable(userId, code);
    await this.attempts.loginSucceeded(user.email, client);
    await this.auditUser(user, 'mfa.enabled', origin, { type: 'user', id: userId, label: 'totp' });
    await this.notices.factorChanged(user.email, 'added', 'an authenticator app', origin, new Date());
    return codes;
  }

  /** Turns TOTP off with a fresh code, under the attempt limits. */
  async disableTotp(userId: string, code: string, origin: AuditOrigin): Promise<void> {
    const user = await this.users.findById(userId);
    if (!user) throw new UnauthorizedException('The user of this session no longer exists');
    const client = origin.ip ?? '';
    await this.attempts.beginLogin(user.email, client);
    await this.mfa.disable(userId, { totp: code });
    await this.attempts.loginSucceeded(user.email, client);
    await this.auditUser(user, 'mfa.disabled', origin, { type: 'user', id: userId, label: 'totp' });
    await this.notices.factorChanged(user.email, 'removed', 'an authenticator app', origin, new Date());
  }

  /** Ends the current session (sign out). */
  async signOut(facts: SessionFacts, origin: AuditOrigin): Promise<void> {
    await this.sessions.deleteOne(facts.userId, facts.id);
    await this.auditUserById(facts.userId, 'session.revoked', origin, { type: 'session', id: facts.id, label: null });
  }

  private async replace(facts: SessionFacts, assurance: Assurance, origin: AuditOrigin, now: Date): Promise<{ token: string; session: Session }> {
    const old = (await this.sessions.listForUser(facts.userId)).find((session) => String(session._id) === facts.id);
    if (!old) throw new UnauthorizedException('This session has ended');
    const opened = await this.open(facts.userId, old.accountId, assurance, origin, new Date(old.signedInAt), now, assurance === 'mfa' ? now : old.mfaAt);
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
    mfaAt: Date | null = assurance === 'mfa' ? now : null,
  ): Promise<{ token: string; session: Session }> {
    const token = randomBytes(TOKEN_BYTES).toString('base64url');
    const requires = accountId ? await this.accounts.requiresMfa(accountId) : false;
    const session = await this.sessions.insert(
      { tokenHash: hashToken(token), userId, accountId, accountRequiresMfa: requires, signedInAt, ip: origin.ip, userAgent: origin.userAgent, assurance, mfaAt },
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
    return now - new Date(session.lastSeenAt).getTime() < this.config.idleMs && now - new Date(session.signedInAt).getTime() < this.config.maxMs;
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

  private async auditUserById(userId: string, action: AuditAction, origin: AuditOrigin, target?: { type: string; id: string; label: string | null }): Promise<void> {
    const user = await this.users.findById(userId);
    if (user) await this.auditUser(user, action, origin, target);
  }

  private auditInBackground(user: User, action: AuditAction, origin: AuditOrigin): void {
    this.auditUser(user, action, origin).catch((error: Error) => this.logger.warn(`Recording ${action} failed: ${error.message}`));
  }

  /** An entry in every account the user belongs to. */
  async auditUser(user: User, action: AuditAction, origin: AuditOrigin, target?: { type: string; id: string; label: string | null }): Promise<void> {
    const party = { type: 'user', id: String(user._id), label: user.email };
    const memberships = await this.memberships.listForUser(String(user._id));
    for (const membership of memberships) {
      await this.trail.appendNow({ actor: party, ...origin }, { accountId: String(membership.accountId), action, target: target ?? party });
    }
  }
}

/** Session ids here come from stored sessions: always well-formed. */
function toId(id: string): Types.ObjectId {
  return new Types.ObjectId(id);
}
