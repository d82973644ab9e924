import { ConflictException, Injectable, UnauthorizedException } from '@nestjs/common';
import { isDuplicateKey } from '../../common/database/duplicate-key';
import { InProcessEmitter } from '../../in-process-events/in-process-events';
import { CredentialsChanges } from './credentials-changes';
import { User } from './user.schema';
import { NewUser, UsersRepository, UserWithHash, UserWithSecrets } from './users.repository';
import { USER_DELETED, type UserDeletedEvent } from './users.events';

export type { NewUser, UserWithHash, UserWithSecrets } from './users.repository';

const EMAIL_TAKEN = 'A user with this email already exists';

/** People who log in. Emails are unique across the service; users belong to accounts through memberships. */
@Injectable()
export class UsersService {
  constructor(
    private readonly users: UsersRepository,
    private readonly credentials: CredentialsChanges,
    private readonly events: InProcessEmitter,
  ) {}

  /**
   * The unique index on email decides duplicates, also between concurrent signups. A taken email is
   * an ordinary answer, so it is looked up first: only a race reaches the index (each collision is
   * an ERROR line in the embedded PostgreSQL's log).
   */
  async create(user: NewUser): Promise<User> {
    if (await this.users.findByEmail(user.email)) throw new ConflictException(EMAIL_TAKEN);
    try {
      return await this.users.insert(user);
    } catch (error) {
      if (isDuplicateKey(error)) throw new ConflictException(EMAIL_TAKEN);
      throw error;
    }
  }

  findById(id: string): Promise<User | null> {
    return this.users.findById(id);
  }

  /** Without their password hashes, like every read here but `findByEmailWithHash`. */
  findByIds(ids: string[]): Promise<User[]> {
    return this.users.findByIds(ids);
  }

  findByEmail(email: string): Promise<User | null> {
    return this.users.findByEmail(email);
  }

  /** The password check's read, the only one that sees the hash. */
  findByEmailWithHash(email: string): Promise<UserWithHash | null> {
    return this.users.findByEmailWithPasswordHash(email);
  }

  /** The email of a token's user; a token whose user is gone is no longer valid. */
  async emailOf(id: string): Promise<string> {
    const user = await this.findById(id);
    if (!user) throw new UnauthorizedException('The user of this token no longer exists');
    return user.email;
  }

  findByIdWithSecrets(id: string): Promise<UserWithSecrets | null> {
    return this.users.findByIdWithSecrets(id);
  }

  /** A new password: `credentialsChangedAt` moves to `at`, which ends older tokens and sessions (on this instance at once). */
  async setPassword(id: string, passwordHash: string, at: Date): Promise<boolean> {
    const set = await this.users.setPassword(id, passwordHash, at);
    if (set) this.credentials.noteChanged(id, at);
    return set;
  }

  setPendingTotp(id: string, encrypted: string): Promise<void> {
    return this.users.setPendingTotp(id, encrypted);
  }

  enableTotp(
    id: string,
    encrypted: string,
    recoveryCodeHashes: string[],
    at: Date,
    lastStep: number | null,
  ): Promise<void> {
    return this.users.enableTotp(id, encrypted, recoveryCodeHashes, at, lastStep);
  }

  /** Removing a factor ends older sessions and tokens, as a new password does (on this instance at once). */
  async disableTotp(id: string, at: Date): Promise<void> {
    await this.users.disableTotp(id, at);
    this.credentials.noteChanged(id, at);
  }

  advanceTotpStep(id: string, step: number): Promise<void> {
    return this.users.advanceTotpStep(id, step);
  }

  /** A passkey added, or removed (which ends older sessions and tokens). */
  async noteFactorChanged(id: string, at: Date, removed: boolean): Promise<void> {
    await this.users.noteFactorChanged(id, at, removed);
    if (removed) this.credentials.noteChanged(id, at);
  }

  dropRecoveryCode(id: string, hash: string): Promise<void> {
    return this.users.dropRecoveryCode(id, hash);
  }

  /**
   * Deletes the user (today only to undo a signup that could not finish: its user has no membership
   * yet), then asks the modules holding what is theirs alone to delete it (`user.deleted`).
   */
  async remove(id: string): Promise<void> {
    await this.users.delete(id);
    const event: UserDeletedEvent = { userId: id };
    await this.events.emitAsync(USER_DELETED, event);
  }

  markEmailVerified(id: string, at: Date): Promise<void> {
    return this.users.markEmailVerified(id, at);
  }

  /** Users created before email verification existed (no `emailVerifiedAt` at all) count as verified. */
  markLegacyVerified(at: Date): Promise<number> {
    return this.users.markLegacyVerified(at);
  }

  setDefaultCompany(id: string, accountId: string | null): Promise<User | null> {
    return this.users.setDefaultCompany(id, accountId);
  }
}
