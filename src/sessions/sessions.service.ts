import {
  Inject,
  Injectable,
  Logger,
  NotFoundException,
  OnModuleDestroy,
  OnModuleInit,
  UnauthorizedException,
} from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import { createHash, randomBytes } from 'node:crypto';
import { Types } from 'mongoose';
import type { AuditOrigin } from '../audit/audit-context.decorator';
import type { AuditAction } from '../audit/audit-entry.schema';
import { AccountsService } from '../accounts/accounts.service';
import { ACCOUNT_MFA_REQUIREMENT_CHANGED, type AccountMfaRequirementChangedEvent } from '../accounts/accounts.events';
import { OnInProcessEvent } from '../in-process-events/in-process-events';
import { sessionsConfig } from '../config/sessions.config';
import type { SessionFacts } from '../tenancy/principal';
import { CredentialsChanges } from '../identity/users/credentials-changes';
import { UserAudit } from '../identity/users/user-audit';
import { UsersService } from '../identity/users/users.service';
import { SessionView } from './dto/session.response';
import type { Assurance, Session } from './session.schema';
import { toSessionView } from './sessions.mapper';
import { SessionsRepository } from './sessions.repository';

/** `lastSeenAt` moves at most this often: one write a minute per active session, not one a request. */
const TOUCH_EVERY_MS = 60_000;
const TOKEN_BYTES = 32;

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/**
 * Dashboard sessions' life: opened (by SignInService), given a new token (by StepUpService, and by
 * SessionsOnCredentialChange when the user's credentials change through the session), authenticated,
 * listed and ended. Every change of a session's token or assurance goes through `open` and `replace`
 * here.
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
  private stopSweep: () => void = () => undefined;

  constructor(
    private readonly sessions: SessionsRepository,
    private readonly users: UsersService,
    private readonly credentials: CredentialsChanges,
    private readonly accounts: AccountsService,
    private readonly audit: UserAudit,
    @Inject(sessionsConfig.KEY) private readonly config: ConfigType<typeof sessionsConfig>,
  ) {}

  async onModuleInit(): Promise<void> {
    this.stopSweep = await this.sessions.expireByAge(Math.ceil(this.config.maxMs / 1000), this.logger);
  }

  onModuleDestroy(): void {
    this.stopSweep();
  }

  get maxAgeSeconds(): number {
    return Math.floor(this.config.maxMs / 1000);
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

  /** Ends the current session (sign out). */
  async signOut(facts: SessionFacts, origin: AuditOrigin): Promise<void> {
    await this.sessions.deleteOne(facts.userId, facts.id);
    await this.auditUserById(facts.userId, 'session.revoked', origin, { type: 'session', id: facts.id, label: null });
  }

  /**
   * A new token for the session, the old one deleted: `proven` is what was proven just now (a factor
   * raises it to `mfa`; the password refreshes its password proof); null keeps what it had.
   */
  async replace(
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

  async open(
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

  private async auditUserById(
    userId: string,
    action: AuditAction,
    origin: AuditOrigin,
    target?: { type: string; id: string; label: string | null },
  ): Promise<void> {
    const user = await this.users.findById(userId);
    if (user) await this.audit.record(user, action, origin, target);
  }
}

/** Session ids here come from stored sessions: always well-formed. */
function toId(id: string): Types.ObjectId {
  return new Types.ObjectId(id);
}
