import { ConflictException, ForbiddenException, Inject, Injectable, UnauthorizedException } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import type { AuditOrigin } from '../audit/audit-context.decorator';
import { AttemptLimiter } from '../identity/attempts/attempt-limiter.service';
import { sessionsConfig } from '../config/sessions.config';
import { PasskeysService } from '../identity/passkeys/passkeys.service';
import type { SessionFacts, TokenFacts } from '../tenancy/principal';
import type { UserWithSecrets } from '../identity/users/users.service';
import { UsersService } from '../identity/users/users.service';
import {
  assertOneProof,
  type FactorProof,
  INVALID_CODE,
  MFA_REQUIRED,
  MfaService,
} from '../identity/factors/mfa.service';
import { PasswordHasher } from '../identity/passwords/password-hasher';
import type { Session } from './session.schema';
import { SessionsService } from './sessions.service';

export const STEP_UP_REQUIRED = 'step_up_required';

/** What a step-up offers: a code of the user's factor, or (for a user with none) the password. */
export interface StepUpProof extends FactorProof {
  password?: string;
}

/** What a credential proved, and when (ms since the epoch): the step-up check's input. */
interface Proven {
  mfaAt: number | null;
  passwordAt: number | null;
}

/**
 * Step-up: a session proves its user's strongest credential again (a second factor, or the password
 * for a user with none) and continues under a new token; the access guard asks here whether a
 * session or a bearer token proved it within `STEP_UP_MINUTES` (403 `step_up_required`).
 */
@Injectable()
export class StepUpService {
  constructor(
    private readonly sessions: SessionsService,
    private readonly users: UsersService,
    private readonly attempts: AttemptLimiter,
    private readonly mfa: MfaService,
    private readonly passkeys: PasskeysService,
    private readonly hasher: PasswordHasher,
    @Inject(sessionsConfig.KEY) private readonly config: ConfigType<typeof sessionsConfig>,
  ) {}

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
      return this.sessions.replace(facts, origin, new Date(), 'mfa');
    }
    if (proof.password === undefined)
      throw new ConflictException(
        'No second factor to prove: send your password (or set up a factor: POST /api/v1/me/mfa/totp)',
      );
    const client = origin.ip ?? '';
    await this.attempts.beginLogin(user.email, client);
    if (!(await this.hasher.matches(proof.password, user.passwordHash)))
      throw new UnauthorizedException('The password is wrong');
    await this.attempts.loginSucceeded(user.email, client);
    return this.sessions.replace(facts, origin, new Date(), 'password');
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
    return this.sessions.replace(facts, origin, new Date(), 'mfa');
  }

  /** A proof of the user's factor under the user's code limit; 401 when it is not valid. */
  async checkFactor(user: UserWithSecrets, proof: FactorProof, origin: AuditOrigin): Promise<void> {
    if (!(await this.mfa.accept(user, proof, origin.ip ?? ''))) throw new UnauthorizedException(INVALID_CODE);
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
}
