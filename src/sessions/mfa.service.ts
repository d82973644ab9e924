import { BadRequestException, ConflictException, Injectable, Logger, OnModuleDestroy, OnModuleInit, UnauthorizedException } from '@nestjs/common';
import { createHash, randomBytes } from 'node:crypto';
import { generateSecret, generateURI, verify } from 'otplib';
import { FieldEncryption } from '../common/crypto/field-encryption';
import { PasskeysService } from '../passkeys/passkeys.service';
import type { UserWithSecrets } from '../users/users.service';
import { UsersService } from '../users/users.service';
import { MfaCodeUsesRepository } from './mfa-code-uses.repository';

export const TOTP_ISSUER = 'Platform';
const RECOVERY_CODES = 10;
/** One step (30 s) before and after: a clock a little off, or a code typed as it changed. */
const DRIFT_SECONDS = 30;
const CODE_USES_KEPT_SECONDS = 24 * 3600;
export const INVALID_CODE = 'Invalid or already used code';

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
 * claim is swept. The secret is stored encrypted, bound to the user and the field.
 */
@Injectable()
export class MfaService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(MfaService.name);
  private stopSweep: () => void = () => undefined;

  constructor(
    private readonly users: UsersService,
    private readonly uses: MfaCodeUsesRepository,
    private readonly encryption: FieldEncryption,
    private readonly passkeys: PasskeysService,
  ) {}

  async onModuleInit(): Promise<void> {
    this.stopSweep = await this.uses.expireByAge(CODE_USES_KEPT_SECONDS, this.logger);
  }

  onModuleDestroy(): void {
    this.stopSweep();
  }

  /** TOTP or a passkey: either makes a sign-in, a step-up and an account's requirement ask for a second factor. */
  async hasFactor(user: { _id: unknown; totpEnabledAt?: Date | null }): Promise<boolean> {
    return this.totpOn(user) || (await this.passkeys.hasAny(String(user._id)));
  }

  /** What the user has set up, for their security page. */
  async factors(userId: string): Promise<{ totpEnabledAt: string | null; recoveryCodesLeft: number; passkeys: number }> {
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
    const secret = generateSecret();
    await this.users.setPendingTotp(userId, this.encryption.encrypt(secret, binding(userId, 'totpPendingSecret')));
    return { secret, uri: generateURI({ issuer: TOTP_ISSUER, label: user.email, secret }) };
  }

  /** Turns TOTP on with a code from the enrolled secret; answers the recovery codes, shown this once. */
  async enable(userId: string, code: string): Promise<string[]> {
    const user = await this.requireUser(userId);
    if (this.totpOn(user)) throw new ConflictException('TOTP is on already');
    if (!user.totpPendingSecret) throw new ConflictException('No TOTP enrolment in progress: POST /api/v1/me/mfa/totp first');
    const secret = this.encryption.decrypt(user.totpPendingSecret, binding(userId, 'totpPendingSecret'));
    if (!(await this.acceptTotp(userId, secret, code))) throw new UnauthorizedException(INVALID_CODE);
    const codes = Array.from({ length: RECOVERY_CODES }, newRecoveryCode);
    await this.users.enableTotp(userId, this.encryption.encrypt(secret, binding(userId, 'totpSecret')), codes.map(hashRecoveryCode), new Date());
    return codes;
  }

  /** Turns TOTP off; needs a fresh code (or a recovery code). */
  async disable(userId: string, proof: FactorProof): Promise<void> {
    const user = await this.requireUser(userId);
    if (!this.totpOn(user)) throw new ConflictException('TOTP is not on');
    if (!(await this.accept(user, proof))) throw new UnauthorizedException(INVALID_CODE);
    await this.users.disableTotp(userId);
  }

  /** Whether the proof is a valid, unused code of the user's factor; a valid one is spent. */
  async accept(user: UserWithSecrets, proof: FactorProof): Promise<boolean> {
    const userId = String(user._id);
    if (!user.totpSecret) return false;
    if (proof.totp !== undefined) {
      return this.acceptTotp(userId, this.encryption.decrypt(user.totpSecret, binding(userId, 'totpSecret')), proof.totp);
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

  private async acceptTotp(userId: string, secret: string, code: string): Promise<boolean> {
    if (!/^\d{6}$/.test(code)) return false;
    const result = await verify({ secret, token: code, epochTolerance: DRIFT_SECONDS });
    // A TOTP answer names the time step the code belongs to (an HOTP one would not).
    if (!result.valid || !('timeStep' in result)) return false;
    return this.uses.claim(`${userId}:totp:${result.timeStep}`);
  }

  private async requireUser(userId: string): Promise<UserWithSecrets> {
    const user = await this.users.findByIdWithSecrets(userId);
    if (!user) throw new UnauthorizedException('The user of this session no longer exists');
    return user;
  }
}

export function assertOneProof(proof: FactorProof): void {
  if (proof.totp !== undefined && proof.recoveryCode !== undefined) throw new BadRequestException('Send totp or recoveryCode, not both');
}
