import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import type { Model } from 'mongoose';
import { isDuplicateKey } from '../common/database/duplicate-key';
import { Records } from '../database/records';
import { AuditChain } from './audit-chain.schema';

/** The accounts' chain heads and anchors: the only code that reads or writes them. */
@Injectable()
export class AuditChainsRepository {
  private readonly records: Records<AuditChain>;

  constructor(@InjectModel(AuditChain.name) model: Model<AuditChain>) {
    this.records = new Records(model);
  }

  find(accountId: string): Promise<AuditChain | null> {
    return this.records.findOne({ _id: accountId });
  }

  /**
   * Moves the head on to the entry just appended, never back: both fields in one update, so the
   * head always names an entry and its own hash. The first head of an account whose first entry is
   * this one also anchors the chain at it.
   */
  async advanceHead(accountId: string, sequence: number, hash: string, previousHash: string): Promise<void> {
    const moved = await this.records.updateOne(
      { _id: accountId, headSequence: { $lt: sequence } },
      { $set: { headSequence: sequence, headHash: hash } },
    );
    if (moved.matched > 0) return;
    try {
      const anchor = sequence === 1 ? { anchorSequence: 1, anchorPreviousHash: previousHash } : {};
      await this.records.insert({ _id: accountId, headSequence: sequence, headHash: hash, ...anchor });
    } catch (error) {
      // The head is there already, at this entry or past it: put there by the append after this one, which does not anchor.
      if (!isDuplicateKey(error)) throw error;
      if (sequence === 1)
        await this.records.updateOne(
          { _id: accountId, anchorSequence: null },
          { $set: { anchorSequence: 1, anchorPreviousHash: previousHash } },
        );
    }
  }

  /** Retention moved the start of the chain: entries before `sequence` are gone, the first kept follows `previousHash`. */
  async anchor(
    accountId: string,
    sequence: number,
    previousHash: string,
    head: { sequence: number; hash: string },
  ): Promise<void> {
    try {
      await this.records.insert({
        _id: accountId,
        headSequence: head.sequence,
        headHash: head.hash,
        anchorSequence: sequence,
        anchorPreviousHash: previousHash,
      });
      return;
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
    }
    await this.records.updateOne(
      { _id: accountId },
      { $set: { anchorSequence: sequence, anchorPreviousHash: previousHash } },
    );
  }
}
