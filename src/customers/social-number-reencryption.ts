import { Injectable } from '@nestjs/common';
import { FieldEncryption } from '../common/crypto/field-encryption';
import { CustomersRepository } from './customers.repository';
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
 * An operator's command over every tenant, so it reads every tenant's customers at once (the one
 * unscoped read of the repository). Each write is guarded by the value it replaces, so a customer updated
 * meanwhile keeps its new value, and a second run changes nothing.
 */
@Injectable()
export class SocialNumberReencryption {
  constructor(
    private readonly customers: CustomersRepository,
    private readonly encryption: FieldEncryption,
  ) {}

  async run(): Promise<ReencryptionReport> {
    const report: ReencryptionReport = { encrypted: 0, rotated: 0, current: 0 };
    for await (const customer of this.customers.storedSocialNumbers()) {
      const stored = customer.SocialNumber;
      const keyId = FieldEncryption.keyIdOf(stored);
      if (keyId === this.encryption.currentKeyId) {
        report.current += 1;
        continue;
      }
      const plain = keyId === null ? stored : this.encryption.decrypt(stored, SOCIAL_NUMBER);
      if (!(await this.customers.replaceSocialNumber(customer, this.encryption.encrypt(plain, SOCIAL_NUMBER)))) continue;
      if (keyId === null) report.encrypted += 1;
      else report.rotated += 1;
    }
    return report;
  }
}
