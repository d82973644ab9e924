import { Injectable, Logger } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Model, Types } from 'mongoose';
import { Records, toObjectId } from '../database/records';
import { Session, type Assurance } from './session.schema';

export interface NewSession {
  tokenHash: string;
  userId: string;
  accountId: string | null;
  accountRequiresMfa: boolean;
  signedInAt: Date;
  ip: string | null;
  userAgent: string | null;
  assurance: Assurance;
  mfaAt: Date | null;
  passwordAt: Date | null;
  credentialsAt: number;
}

/** The sessions collection: the only code that touches it. */
@Injectable()
export class SessionsRepository {
  private readonly records: Records<Session>;

  constructor(@InjectModel(Session.name) model: Model<Session>) {
    this.records = new Records(model);
  }

  async insert(session: NewSession, now: Date): Promise<Session> {
    const { tokenHash: _hash, ...stored } = await this.records.insert({
      ...session,
      userId: new Types.ObjectId(session.userId),
      createdAt: now,
      lastSeenAt: now,
    });
    return stored as Session;
  }

  findByTokenHash(tokenHash: string): Promise<Session | null> {
    return this.records.findOne({ tokenHash });
  }

  listForUser(userId: string): Promise<Session[]> {
    const _id = toObjectId(userId);
    return _id ? this.records.find({ userId: _id }, { sort: { lastSeenAt: -1 } }) : Promise.resolve([]);
  }

  async touch(id: Types.ObjectId, at: Date): Promise<void> {
    await this.records.updateOne({ _id: id }, { $set: { lastSeenAt: at } });
  }

  /** Ends one of the user's sessions; false when the user has no such session. */
  async deleteOne(userId: string, id: string): Promise<boolean> {
    const _id = toObjectId(id);
    const user = toObjectId(userId);
    return _id && user ? this.records.deleteOne({ _id, userId: user }) : false;
  }

  /** Ends every session of the user but `keep` (when given); how many it ended. */
  deleteAllBut(userId: string, keep: Types.ObjectId | null): Promise<number> {
    const user = toObjectId(userId);
    if (!user) return Promise.resolve(0);
    return this.records.deleteMany(keep ? { userId: user, _id: { $ne: keep } } : { userId: user });
  }

  /** Every session of the user but `keep` (when given) loses what it proved of a second factor: the user's factors changed since. */
  async lowerAllBut(userId: string, keep: Types.ObjectId | null): Promise<void> {
    const user = toObjectId(userId);
    if (!user) return;
    await this.records.updateMany(keep ? { userId: user, _id: { $ne: keep } } : { userId: user }, {
      $set: { assurance: 'password', mfaAt: null },
    });
  }

  /** Keeps the copy of an account's `requireMfa` on the sessions acting in it. */
  async setAccountRequiresMfa(accountId: string, accountRequiresMfa: boolean): Promise<void> {
    await this.records.updateMany({ accountId }, { $set: { accountRequiresMfa } });
  }

  async setOneAccountRequiresMfa(id: Types.ObjectId, accountRequiresMfa: boolean): Promise<void> {
    await this.records.updateOne({ _id: id }, { $set: { accountRequiresMfa } });
  }

  expireByAge(seconds: number, logger: Logger): Promise<() => void> {
    return this.records.expireByAge(seconds, logger);
  }
}
