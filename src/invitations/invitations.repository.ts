import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Model, Types } from 'mongoose';
import type { UserRole } from '../common/decorators/roles.decorator';
import { Records, toObjectId } from '../database/records';
import { Invitation } from './invitation.schema';

export interface NewInvitation {
  /** Made before the insert, so the audit log can name the invitation it is about to create. */
  _id?: Types.ObjectId;
  accountId: string;
  email: string;
  role: UserRole;
  tokenHash: string;
  expiresAt: Date;
  invitedBy: string;
}

/** The invitations collection. Every read and write of an account's invitations names the account. */
@Injectable()
export class InvitationsRepository {
  private readonly records: Records<Invitation>;

  constructor(@InjectModel(Invitation.name) model: Model<Invitation>) {
    this.records = new Records(model);
  }

  insert(invitation: NewInvitation): Promise<Invitation> {
    return this.records.insert(invitation);
  }

  /** One read by the unique token hash index. */
  findByTokenHash(tokenHash: string): Promise<Invitation | null> {
    return this.records.findOne({ tokenHash });
  }

  /** Newest first, the pending ones that have not expired at `now`. */
  listPending(accountId: string, now: Date): Promise<Invitation[]> {
    const account = toObjectId(accountId);
    if (!account) return Promise.resolve([]);
    return this.records.find({ accountId: account, status: 'pending', expiresAt: { $gt: now } }, { sort: { _id: -1 } });
  }

  /** The account's pending invitations of this email (a new one replaces them). */
  pendingFor(accountId: string, email: string): Promise<Invitation[]> {
    const account = toObjectId(accountId);
    return account ? this.records.find({ accountId: account, email, status: 'pending' }) : Promise.resolve([]);
  }

  /** True when the account had this invitation pending, revoked now. */
  async revokePending(accountId: string, invitationId: string): Promise<boolean> {
    const account = toObjectId(accountId);
    const _id = toObjectId(invitationId);
    if (!account || !_id) return false;
    return (
      (await this.records.updateOne({ _id, accountId: account, status: 'pending' }, { $set: { status: 'revoked' } }))
        .matched > 0
    );
  }

  /** Moves a pending invitation to accepted by this user; false when it was no longer pending. */
  async claim(invitationId: Types.ObjectId, userId: string): Promise<boolean> {
    const result = await this.records.updateOne(
      { _id: invitationId, status: 'pending' },
      { $set: { status: 'accepted', acceptedBy: userId } },
    );
    return result.modified > 0;
  }
}
