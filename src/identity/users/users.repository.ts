import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Model } from 'mongoose';
import type { UserRole } from '../../common/decorators/roles.decorator';
import { Records, toObjectId } from '../../database/records';
import { User } from './user.schema';

const CREDENTIALS_STATE_FIELDS = ['credentialsChangedAt', 'factorsChangedAt', 'emailVerifiedAt'] as const;

export interface NewUser {
  firstName: string;
  lastName: string;
  email: string;
  passwordHash: string;
  role: UserRole;
  phoneNumber?: number;
  address?: Record<string, unknown>;
  avatar?: string;
}

export type UserWithHash = User & { passwordHash: string };
export type UserWithSecrets = User & {
  passwordHash: string;
  totpSecret: string | null;
  totpPendingSecret: string | null;
  recoveryCodeHashes?: string[];
};

/**
 * The users collection. The password hash (`select: false`) stays out of every read but
 * `findByEmailWithPasswordHash`, the password check's, and out of what `insert` answers.
 */
@Injectable()
export class UsersRepository {
  private readonly records: Records<User>;

  constructor(@InjectModel(User.name) model: Model<User>) {
    this.records = new Records(model);
  }

  /** The unique index on email refuses a second user of the same email (a duplicate-key error). */
  async insert(user: NewUser): Promise<User> {
    const { passwordHash: _hash, ...stored } = await this.records.insert(user);
    return stored as User;
  }

  findById(id: string): Promise<User | null> {
    return this.records.findById(id);
  }

  /** Only what every authenticated request checks (CredentialsChanges): a small document to decode, not the whole user. */
  findCredentialsState(
    id: string,
  ): Promise<Pick<User, 'credentialsChangedAt' | 'factorsChangedAt' | 'emailVerifiedAt'> | null> {
    return this.records.findById(id, { fields: CREDENTIALS_STATE_FIELDS });
  }

  findByIds(ids: readonly string[]): Promise<User[]> {
    const valid = ids.map((id) => toObjectId(id)).filter((id) => id !== null);
    return this.records.find({ _id: { $in: valid } });
  }

  findByEmail(email: string): Promise<User | null> {
    return this.records.findOne({ email: normaliseEmail(email) });
  }

  findByEmailWithPasswordHash(email: string): Promise<UserWithHash | null> {
    return this.records.findOne<UserWithHash>({ email: normaliseEmail(email) }, { include: ['passwordHash'] });
  }

  /** With the password hash, the TOTP secrets and the recovery codes' hashes. */
  findByIdWithSecrets(id: string): Promise<UserWithSecrets | null> {
    return this.records.findById<UserWithSecrets>(id, {
      include: ['passwordHash', 'totpSecret', 'totpPendingSecret', 'recoveryCodeHashes'],
    });
  }

  async setPassword(id: string, passwordHash: string, at: Date): Promise<boolean> {
    const _id = toObjectId(id);
    return _id
      ? (await this.records.updateOne({ _id }, { $set: { passwordHash, credentialsChangedAt: at } })).matched > 0
      : false;
  }

  async setPendingTotp(id: string, encrypted: string): Promise<void> {
    const _id = toObjectId(id);
    if (_id) await this.records.updateOne({ _id }, { $set: { totpPendingSecret: encrypted } });
  }

  async enableTotp(
    id: string,
    encrypted: string,
    recoveryCodeHashes: string[],
    at: Date,
    lastStep: number | null,
  ): Promise<void> {
    const _id = toObjectId(id);
    if (_id) {
      await this.records.updateOne(
        { _id },
        {
          $set: {
            totpSecret: encrypted,
            totpPendingSecret: null,
            totpEnabledAt: at,
            recoveryCodeHashes,
            totpLastStep: lastStep,
            factorsChangedAt: at,
          },
        },
      );
    }
  }

  /** TOTP off: a factor removed, so the credentials changed too (every older session and token ends). */
  async disableTotp(id: string, at: Date): Promise<void> {
    const _id = toObjectId(id);
    if (_id) {
      await this.records.updateOne(
        { _id },
        {
          $set: {
            totpSecret: null,
            totpPendingSecret: null,
            totpEnabledAt: null,
            recoveryCodeHashes: [],
            totpLastStep: null,
            factorsChangedAt: at,
            credentialsChangedAt: at,
          },
        },
      );
    }
  }

  /** The last TOTP step accepted moves forward only (a later step written first stays). */
  async advanceTotpStep(id: string, step: number): Promise<void> {
    const _id = toObjectId(id);
    if (_id)
      await this.records.updateOne(
        { _id, $or: [{ totpLastStep: null }, { totpLastStep: { $lt: step } }] },
        { $set: { totpLastStep: step } },
      );
  }

  /** A passkey added (`credentials` false) or removed (true: every older session and token ends). */
  async noteFactorChanged(id: string, at: Date, credentials: boolean): Promise<void> {
    const _id = toObjectId(id);
    if (_id)
      await this.records.updateOne(
        { _id },
        { $set: credentials ? { factorsChangedAt: at, credentialsChangedAt: at } : { factorsChangedAt: at } },
      );
  }

  /** Drops one recovery code's hash (its single use is settled elsewhere, by a unique insert). */
  async dropRecoveryCode(id: string, hash: string): Promise<void> {
    const _id = toObjectId(id);
    if (_id) await this.records.updateOne({ _id }, { $pull: { recoveryCodeHashes: hash } });
  }

  async delete(id: string): Promise<void> {
    const _id = toObjectId(id);
    if (_id) await this.records.deleteOne({ _id });
  }

  /** The first verification stands: a later link changes nothing. */
  async markEmailVerified(id: string, at: Date): Promise<void> {
    const _id = toObjectId(id);
    if (_id) await this.records.updateOne({ _id, emailVerifiedAt: null }, { $set: { emailVerifiedAt: at } });
  }

  /** Users from before email verification existed count as verified (the migration; idempotent). */
  async markLegacyVerified(at: Date): Promise<number> {
    return (await this.records.updateMany({ emailVerifiedAt: { $exists: false } }, { $set: { emailVerifiedAt: at } }))
      .modified;
  }

  /** The user after the change; null when there is no such user. */
  setDefaultCompany(id: string, accountId: string | null): Promise<User | null> {
    const _id = toObjectId(id);
    return _id ? this.records.updateAndGet({ _id }, { $set: { defaultCompany: accountId } }) : Promise.resolve(null);
  }
}

/** Emails are stored lower case and trimmed (the schema's setters); lookups compare them the same way. */
function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}
