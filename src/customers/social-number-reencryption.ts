import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Model } from 'mongoose';
import { FieldEncryption } from '../common/crypto/field-encryption';
import { Customer } from './customer.schema';
import { SOCIAL_NUMBER } from './customers.service';

export interface ReencryptionReport {
  /** Stored in plain text (by a build before encryption at rest), now encrypted. */
  encrypted: number;
  /** Encrypted with an older key, now with the current one. */
  rotated: number;
  /** Already under the current key. */
  current: number;
}

/**
 * `npm run reencrypt`: brings every stored social number under the current FIELD_ENCRYPTION_KEY.
 * An operator's command over every tenant, so it reads the collection directly rather than through
 * tenant-scoped queries. Each write is guarded by the value it replaces, so a customer updated
 * meanwhile keeps its new value, and a second run changes nothing.
 */
@Injectable()
export class SocialNumberReencryption {
  constructor(
    @InjectModel(Customer.name) private readonly customers: Model<Customer>,
    private readonly encryption: FieldEncryption,
  ) {}

  async run(): Promise<ReencryptionReport> {
    const report: ReencryptionReport = { encrypted: 0, rotated: 0, current: 0 };
    const cursor = this.customers.collection.find({ [SOCIAL_NUMBER]: { $type: 'string' } }, { projection: { [SOCIAL_NUMBER]: 1 } });
    for await (const customer of cursor) {
      const stored = customer[SOCIAL_NUMBER] as string;
      const keyId = FieldEncryption.keyIdOf(stored);
      if (keyId === this.encryption.currentKeyId) {
        report.current += 1;
        continue;
      }
      const plain = keyId === null ? stored : this.encryption.decrypt(stored, SOCIAL_NUMBER);
      const result = await this.customers.collection.updateOne(
        { _id: customer._id, [SOCIAL_NUMBER]: stored },
        { $set: { [SOCIAL_NUMBER]: this.encryption.encrypt(plain, SOCIAL_NUMBER) } },
      );
      if (result.modifiedCount === 0) continue;
      if (keyId === null) report.encrypted += 1;
      else report.rotated += 1;
    }
    return report;
  }
}
