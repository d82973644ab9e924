import {
  BadRequestException,
  ConflictException,
  Injectable,
  Logger,
  OnModuleDestroy,
  OnModuleInit,
  UnauthorizedException,
} from '@nestjs/common';
import { createHash, randomBytes } from 'node:crypto';
import { LazyLibrary } from '../../common/lazy/lazy-library';
import { FieldEncryption } from '../../common/crypto/field-encryption';
import { AttemptLimiter } from '../attempts/attempt-limiter.service';
import { PasskeysService } from '../passkeys/passkeys.service';
import type { SecondFactorLookup } from '../users/users.ports';
import type { UserWithSecrets } from '../users/users.service';
import { UsersService } from '../users/users.service';
import { MfaCodeUsesRepository } from './mfa-code-uses.repository';

export const TOTP_ISSUER = 'Platform';
const RECOVERY_CODES = 10;
/** One step (30 s) before and after: a clock a little off, or a code typed as it changed. */
const DRIFT_SECONDS = 30;
const CODE_USES_KEPT_SECONDS = 24 * 3600;
export const INVALID_CODE = 'Invalid or already used code';
/** The `code` of a 401 that asks for a second factor the request did not prove. */
export const MFA_REQUIRED = 'mfa_required';

/** TOTP, loaded by the first enrolment or code an instance checks (the installed check is at start). */
const otplib = new LazyLibrary<typeof import('otplib')>('otplib');

/** A second factor a request offers: a TOTP code or a recovery code. */
export interface FactorProof {
  totp?: string;
  recoveryCode?: string;
}

const binding = (userId: string, field: 'totpSecret' | 'totpPendingSecret') => ({ record: userId, field });

export function hashRecoveryCode(code: string): string {
  return createHash('sha256').update(code.replace(/[\s-]/g, '').toLowerCase()).digest('hex');
}

/** `xxxxx-xxxxx`, 50 random bits in base32's lower-case alphabet. */
function newRecoveryCode(): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz234567';
  const bytes = randomBytes(10);
  const chars = [...bytes].map((byte) => alphabet[byte % 32]).join('');
  return `${chars.slice(0, 5)}-${chars.slice(5)}`;
}

/**
 * TOTP (RFC 6238: 30 s, 6 digits, one step of drift) and recovery codes.
 *
 * Invariant: a code is accepted at most once. Each accepted TOTP time step and each recovery code
 * is claimed by an insert against a unique `_id` in `mfa_code_uses` (MfaCodeUsesRepository) before it
 * counts, an insert FerretDB applies atomically as MongoDB does, so a code replayed within its window,
 * or sent twice at once, is refused on any instance. A claim is kept a day, far past a TOTP step's
 * window; a recovery code is also dropped from the user once claimed, so it stays spent after its
 * claim is swept. A TOTP code of a step at or before the last one accepted is refused (RFC 6238
 * §5.2): an unused code of step T after one of T+1. The secret is stored encrypted, bound to the
 * user and the field.
 *
 * Every code offered counts toward the user's code limit (AttemptLimiter.beginCode) before it is
 * checked, whatever route it came through; only a correct one clears them.
 */
@Injectable()
export class MfaService implements OnModuleInit, OnModuleDestroy, SecondFactorLookup {
  private readonly logger = new Logger(MfaService.name);
  private stopSweep: () => void = () => undefined;

  constructor(
    private readonly users: UsersService,
    private readonly uses: MfaCodeUsesRepository,
    private readonly encryption: FieldEncryption,
    private readonly passkeys: PasskeysService,
    private readonly attempts: AttemptLimiter,
  ) {}

  async onModuleInit(): Promise<void> {
    otplib.assertInstalled();
    this.stopSweep = await this.uses.expireByAge(CODE_USES_KEPT_SECONDS, this.logger);
  }

  onModuleDestroy(): void {
    this.stopSweep();
  }

  /** TOTP or a passkey: either makes a sign-in, a step-up and an account's requirement ask for a second factor. */
  async hasFactor(user: { _id: unknown; totpEnabledAt?: Date | null }): Promise<boolean> {
    return this.totpOn(user) || (await this.passkeys.hasAny(String(user._id)));
  }

  /** As `hasFactor`, by id (the `SecondFactorLookup` the accounts module asks); a user gone has their passkeys' answer. */
  async userHasFactor(userId: string): Promise<boolean> {
    return Boolean((await this.users.findById(userId))?.totpEnabledAt) || (await this.passkeys.hasAny(userId));
  }

  /** What the user has set up, for their security page. */
  async factors(
    userId: string,
  ): Promise<{ totpEnabledAt: string | null; recoveryCodesLeft: number; passkeys: number }> {
    const user = await this.requireUser(userId);
    return {
      totpEnabledAt: user.totpEnabledAt ? new Date(user.totpEnabledAt).toISOString() : null,
      recoveryCodesLeft: user.totpEnabledAt ? (user.recoveryCodeHashes ?? []).length : 0,
      passkeys: (await this.passkeys.list(userId)).length,
    };
  }

  totpOn(user: { totpEnabledAt?: Date | null }): boolean {
    return Boolean(user.totpEnabledAt);
  }

  /** A new secret to enrol, kept aside until a code from it turns TOTP on; 409 when TOTP is on already. */
  async begin(userId: string): Promise<{ secret: string; uri: string }> {
    const user = await this.users.findById(userId);
    if (!user) throw new UnauthorizedException('The user of this session no longer exists');
    if (this.totpOn(user)) throw new ConflictException('TOTP is on already: turn it off first to enrol a new secret');
    const { generateSecret, generateURI } = otplib.load();
    const secret = generateSecret();
    await this.users.setPendingTotp(userId, this.encryption.encrypt(secret, binding(userId, 'totpPendingSecret')));
    return { secret, uri: generateURI({ issuer: TOTP_ISSUER, label: user.email, secret }) };
  }

  /** Turns TOTP on with a code from the enrolled secret; answers the recovery codes, shown this once. */
  async enable(userId: string, code: string, client: string): Promise<string[]> {
    const user = await this.requireUser(userId);
    if (this.totpOn(user)) throw new ConflictException('TOTP is on already');
    if (!user.totpPendingSecret)
      throw new ConflictException('No TOTP enrolment in progress: POST /api/v1/me/mfa/totp first');
    const secret = this.encryption.decrypt(user.totpPendingSecret, binding(userId, 'totpPendingSecret'));
    await this.attempts.beginCode(user.email, client);
    const step = await this.acceptTotp(userId, secret, code, null);
    if (step === null) throw new UnauthorizedException(INVALID_CODE);
    await this.attempts.codeSucceeded(user.email);
    const codes = Array.from({ length: RECOVERY_CODES }, newRecoveryCode);
    await this.users.enableTotp(
      userId,
      this.encryption.encrypt(secret, binding(userId, 'totpSecret')),
      codes.map(hashRecoveryCode),
      new Date(),
      step,
    );
    return codes;
  }

  /** Turns TOTP off; needs a fresh code (or a recovery code). Ends every older session and token, as a factor removal does. */
  async disable(userId: string, proof: FactorProof, client: string, at: Date): Promise<void> {
    const user = await this.requireUser(userId);
    if (!this.totpOn(user)) throw new ConflictException('TOTP is not on');
    if (!(await this.accept(user, proof, client))) throw new UnauthorizedException(INVALID_CODE);
    await this.users.disableTotp(userId, at);
  }

  /**
   * Whether the proof is a valid, unused code of the user's factor; a valid one is spent. Counted
   * toward the user's code limit first (429 past it); a valid one clears that count.
   */
  async accept(user: UserWithSecrets, proof: FactorProof, client: string): Promise<boolean> {
    if (proof.totp === undefined && proof.recoveryCode === undefined) return false;
    await this.attempts.beginCode(user.email, client);
    const accepted = await this.check(user, proof);
    if (accepted) await this.attempts.codeSucceeded(user.email);
    return accepted;
  }

  private async check(user: UserWithSecrets, proof: FactorProof): Promise<boolean> {
    const userId = String(user._id);
    if (!user.totpSecret) return false;
    if (proof.totp !== undefined) {
      const secret = this.encryption.decrypt(user.totpSecret, binding(userId, 'totpSecret'));
      return (await this.acceptTotp(userId, secret, proof.totp, user.totpLastStep ?? null)) !== null;
    }
    if (proof.recoveryCode !== undefined) {
      const hash = hashRecoveryCode(proof.recoveryCode);
      if (!(user.recoveryCodeHashes ?? []).includes(hash)) return false;
      if (!(await this.uses.claim(`${userId}:recovery:${hash}`))) return false;
      await this.users.dropRecoveryCode(userId, hash);
      return true;
    }
    return false;
  }

  /** The time step of a valid code not used before and later than `lastStep`, claimed; null otherwise. */
  private async acceptTotp(
    userId: string,
    secret: string,
    code: string,
    lastStep: number | null,
  ): Promise<number | null> {
    if (!/^\d{6}$/.test(code)) return null;
    const result = await otplib.load().verify({ secret, token: code, epochTolerance: DRIFT_SECONDS });
    // A TOTP answer names the time step the code belongs to (an HOTP one would not).
    if (!result.valid || !('timeStep' in result)) return null;
    if (lastStep !== null && result.timeStep <= lastStep) return null;
    if (!(await this.uses.claim(`${userId}:totp:${result.timeStep}`))) return null;
    await this.users.advanceTotpStep(userId, result.timeStep);
    return result.timeStep;
  }

  private async requireUser(userId: string): Promise<UserWithSecrets> {
    const user = await this.users.findByIdWithSecrets(userId);
    if (!user) throw new UnauthorizedException('The user of this session no longer exists');
    return user;
  }
}

export function assertOneProof(proof: FactorProof): void {
  if (proof.totp !== undefined && proof.recoveryCode !== undefined)
    throw new BadRequestException('Send totp or recoveryCode, not both');
}
