import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import type { Model } from 'mongoose';
import { isDuplicateKey } from '../common/database/duplicate-key';
import { Records } from '../database/records';
import type { AuditDraft } from './audit-draft';
import { AuditIntent, type AuditExpectation } from './audit-intent.schema';

/** The audited actions under way: the only code that reads or writes them. */
@Injectable()
export class AuditIntentsRepository {
  private readonly records: Records<AuditIntent>;

  constructor(@InjectModel(AuditIntent.name) model: Model<AuditIntent>) {
    this.records = new Records(model);
  }

  /** False when an intent with this entry id is there already (the same action, asked again). */
  async insert(draft: AuditDraft, expect: AuditExpectation): Promise<boolean> {
    try {
      await this.records.insert({ _id: draft.entryId, draft, expect });
      return true;
    } catch (error) {
      if (isDuplicateKey(error)) return false;
      throw error;
    }
  }

  async remove(entryId: string): Promise<void> {
    await this.records.deleteOne({ _id: entryId });
  }

  /** Intents older than `cutoff` (and written at or after `from`), oldest first. */
  olderThan(cutoff: Date, limit: number, from?: Date): Promise<AuditIntent[]> {
    return this.records.find(
      { createdAt: { $lt: cutoff, ...(from ? { $gte: from } : {}) } },
      { sort: { createdAt: 1 }, limit },
    );
  }
}
