import { ConflictException, Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Model } from 'mongoose';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { isDuplicateKey } from '../common/database/duplicate-key';
import { PaymentLock } from './payment-lock.schema';

/** Longest a holder may keep a lease; far above any confirmation or refund. */
const LEASE_MS = 15_000;
/** Longest a request waits for another one on the same payment before answering 409. */
const WAIT_MS = 5_000;

/**
 * Serialises the changes of one payment. A conditional `findOneAndUpdate` is atomic on MongoDB but
 * not on FerretDB, which reads and then writes; a unique index is atomic on both. So confirmations
 * and refunds of one payment run one at a time under a lease taken by inserting a document whose
 * `_id` is the payment's, and their updates still carry their guards in the filter.
 */
@Injectable()
export class PaymentLocks {
  constructor(@InjectModel(PaymentLock.name) private readonly locks: Model<PaymentLock>) {}

  async withLock<T>(paymentId: string, work: () => Promise<T>): Promise<T> {
    const holder = await this.acquire(paymentId);
    try {
      return await work();
    } finally {
      await this.locks.deleteOne({ _id: paymentId, holder }).exec();
    }
  }

  private async acquire(paymentId: string): Promise<string> {
    const holder = randomUUID();
    const deadline = Date.now() + WAIT_MS;
    for (let round = 0; ; round++) {
      try {
        await this.locks.create({ _id: paymentId, holder, expiresAt: new Date(Date.now() + LEASE_MS) });
        return holder;
      } catch (error) {
        if (!isDuplicateKey(error)) throw error;
      }
      const current = await this.locks.findById(paymentId).lean<PaymentLock>().exec();
      if (current && new Date(current.expiresAt).getTime() < Date.now()) {
        // Abandoned by a holder that never finished: take it over.
        await this.locks.deleteOne({ _id: paymentId, holder: current.holder }).exec();
        continue;
      }
      if (Date.now() >= deadline) {
        throw new ConflictException('Another change to this payment is in progress; retry the request');
      }
      await sleep(Math.min(5 + round * 5, 50) + Math.random() * 10);
    }
  }
}
