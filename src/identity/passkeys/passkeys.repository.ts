import { Injectable, Logger } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Model, Types } from 'mongoose';
import { isDuplicateKey } from '../../common/database/duplicate-key';
import { Records, toObjectId } from '../../database/records';
import { PasskeyChallenge, PasskeyChallengeUse, type Ceremony } from './passkey-challenge.schema';
import { Passkey } from './passkey.schema';

export type PasskeyWithKey = Passkey & { publicKey: string };

export interface NewPasskey {
  userId: string;
  credentialId: string;
  publicKey: string;
  counter: number;
  transports: string[];
  name: string;
  deviceType: string;
  backedUp: boolean;
}

/** The passkeys, their challenges and the challenges' uses: the only code that touches them. */
@Injectable()
export class PasskeysRepository {
  private readonly passkeys: Records<Passkey>;
  private readonly challenges: Records<PasskeyChallenge>;
  private readonly uses: Records<PasskeyChallengeUse>;

  constructor(
    @InjectModel(Passkey.name) passkeys: Model<Passkey>,
    @InjectModel(PasskeyChallenge.name) challenges: Model<PasskeyChallenge>,
    @InjectModel(PasskeyChallengeUse.name) uses: Model<PasskeyChallengeUse>,
  ) {
    this.passkeys = new Records(passkeys);
    this.challenges = new Records(challenges);
    this.uses = new Records(uses);
  }

  /** The new passkey; null when its credential id is registered already (to this user or another). */
  async insert(fields: NewPasskey): Promise<Passkey | null> {
    if (await this.passkeys.exists({ credentialId: fields.credentialId })) return null;
    try {
      const { publicKey: _key, ...stored } = await this.passkeys.insert({
        ...fields,
        userId: new Types.ObjectId(fields.userId),
      });
      return stored as Passkey;
    } catch (error) {
      if (isDuplicateKey(error)) return null;
      throw error;
    }
  }

  listForUser(userId: string): Promise<Passkey[]> {
    const user = toObjectId(userId);
    return user ? this.passkeys.find({ userId: user }, { sort: { createdAt: 1 } }) : Promise.resolve([]);
  }

  async userHasAny(userId: string): Promise<boolean> {
    const user = toObjectId(userId);
    return user ? this.passkeys.exists({ userId: user }) : false;
  }

  findByCredentialId(credentialId: string): Promise<PasskeyWithKey | null> {
    return this.passkeys.findOne<PasskeyWithKey>({ credentialId }, { include: ['publicKey'] });
  }

  /** Renames one of the user's passkeys; null when the user has no such passkey. */
  rename(userId: string, id: string, name: string): Promise<Passkey | null> {
    const _id = toObjectId(id);
    const user = toObjectId(userId);
    return _id && user ? this.passkeys.updateAndGet({ _id, userId: user }, { $set: { name } }) : Promise.resolve(null);
  }

  /** Removes one of the user's passkeys and answers it; null when the user has no such passkey. */
  async remove(userId: string, id: string): Promise<Passkey | null> {
    const _id = toObjectId(id);
    const user = toObjectId(userId);
    if (!_id || !user) return null;
    const found = await this.passkeys.findOne({ _id, userId: user });
    if (!found || !(await this.passkeys.deleteOne({ _id, userId: user }))) return null;
    return found;
  }

  /**
   * Records a use: the new counter, guarded by the one it was checked against (a second use between
   * the check and this write is refused), and when.
   */
  async recordUse(id: Types.ObjectId, checkedCounter: number, counter: number, at: Date): Promise<boolean> {
    return (
      (await this.passkeys.updateOne({ _id: id, counter: checkedCounter }, { $set: { counter, lastUsedAt: at } }))
        .matched > 0
    );
  }

  async issueChallenge(challenge: string, ceremony: Ceremony, userId: string | null): Promise<void> {
    await this.challenges.insert({ _id: challenge, ceremony, userId: userId ? new Types.ObjectId(userId) : null });
  }

  findChallenge(challenge: string): Promise<PasskeyChallenge | null> {
    return this.challenges.findOne({ _id: challenge });
  }

  /**
   * Claims a challenge's single use: true for the one claim that inserted it. An answered challenge
   * is the ordinary refusal (a replay), looked up first; the unique `_id` settles concurrent claims.
   */
  async claimChallenge(challenge: string): Promise<boolean> {
    if (await this.uses.exists({ _id: challenge })) return false;
    try {
      await this.uses.insert({ _id: challenge });
      return true;
    } catch (error) {
      if (isDuplicateKey(error)) return false;
      throw error;
    }
  }

  async expireChallengesByAge(seconds: number, logger: Logger): Promise<() => void> {
    const stops = [await this.challenges.expireByAge(seconds, logger), await this.uses.expireByAge(seconds, logger)];
    return () => stops.forEach((stop) => stop());
  }
}
