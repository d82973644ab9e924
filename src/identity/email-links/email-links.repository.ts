import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Model, Types } from 'mongoose';
import { isDuplicateKey } from '../../common/database/duplicate-key';
import { Records, toObjectId } from '../../database/records';
import { EmailLink, EmailLinkPurpose, EmailLinkUse } from './email-link.schema';

export interface NewEmailLink {
  purpose: EmailLinkPurpose;
  userId: string;
  email: string;
  tokenHash: string;
  expiresAt: Date;
}

/** Mailed links and their uses: the only code that touches them. */
@Injectable()
export class EmailLinksRepository {
  private readonly links: Records<EmailLink>;
  private readonly uses: Records<EmailLinkUse>;

  constructor(
    @InjectModel(EmailLink.name) links: Model<EmailLink>,
    @InjectModel(EmailLinkUse.name) uses: Model<EmailLinkUse>,
  ) {
    this.links = new Records(links);
    this.uses = new Records(uses);
  }

  async insert(link: NewEmailLink): Promise<void> {
    await this.links.insert({ ...link, userId: new Types.ObjectId(link.userId) });
  }

  /** One read by the unique token hash index. */
  findByTokenHash(purpose: EmailLinkPurpose, tokenHash: string): Promise<EmailLink | null> {
    return this.links.findOne({ tokenHash, purpose });
  }

  /** Uses the link: true for the one request that gets there first, false for every other. */
  async use(id: Types.ObjectId, at: Date): Promise<boolean> {
    try {
      await this.uses.insert({ _id: id, at });
    } catch (error) {
      if (isDuplicateKey(error)) return false;
      throw error;
    }
    await this.links.updateOne({ _id: id }, { $set: { usedAt: at } });
    return true;
  }

  /** The user's other unused links of this purpose stop working (a reset done, an email verified). */
  async expireOthers(userId: string, purpose: EmailLinkPurpose, at: Date): Promise<void> {
    const user = toObjectId(userId);
    if (user)
      await this.links.updateMany(
        { userId: user, purpose, usedAt: null, expiresAt: { $gt: at } },
        { $set: { expiresAt: at } },
      );
  }
}
