import { Injectable } from '@nestjs/common';
import { FieldDecryptionError, FieldEncryption } from '../common/crypto/field-encryption';
import { SettingsService } from '../settings/settings.service';
import { CustomersRepository } from './customers.repository';
import { socialNumberOf } from './customers.service';

export interface ReencryptionReport {
  /** Stored in plain text (by a build before encryption at rest), now encrypted. */
  encrypted: number;
  /** Encrypted with an older key, now with the current one (and in the current form). */
  rotated: number;
  /** Under the current key in the older form (the field's name bound in, not the customer's id), now in the current form. */
  upgraded: number;
  /** Already in the current form under the current key. */
  current: number;
  /**
   * Could not be decrypted as their customer's value (copied from another record, altered, or under
   * a key no longer held): left as they are. The customers' ids, for the operator to look into.
   */
  undecryptable: string[];
}

/**
 * `npm run reencrypt`: brings every stored social number to the current form under the current
 * FIELD_ENCRYPTION_KEY. An operator's command over every tenant, so it reads every tenant's
 * customers at once (the one unscoped read of the repository). Each write is guarded by the value it
 * replaces, so a customer updated meanwhile keeps its new value, and a second run changes nothing.
 *
 * A value that does not decrypt as its customer's is not rewritten (that would bind it to a record it
 * does not belong to) and does not stop the run: its customer's id is reported, never the value.
 * A run to its end is recorded (SettingsService): unless ACCEPT_LEGACY_CIPHERTEXT says otherwise,
 * the service refuses values of the older form from its next start on.
 */
@Injectable()
export class SocialNumberReencryption {
  constructor(
    private readonly customers: CustomersRepository,
    private readonly encryption: FieldEncryption,
    private readonly settings: SettingsService,
  ) {}

  async run(): Promise<ReencryptionReport> {
    const report: ReencryptionReport = { encrypted: 0, rotated: 0, upgraded: 0, current: 0, undecryptable: [] };
    for await (const customer of this.customers.storedSocialNumbers()) {
      const stored = customer.SocialNumber;
      const binding = socialNumberOf(String(customer._id));
      const keyId = FieldEncryption.keyIdOf(stored);
      let plain: string;
      try {
        // Current values are decrypted too: one copied from another customer is found that way.
        // The older form is read here whatever the service accepts: this is what rewrites it.
        plain = keyId === null ? stored : this.encryption.decrypt(stored, binding, { acceptFieldOnly: true });
      } catch (error) {
        if (!(error instanceof FieldDecryptionError)) throw error;
        report.undecryptable.push(String(customer._id));
        continue;
      }
      if (this.encryption.isCurrent(stored)) {
        report.current += 1;
        continue;
      }
      if (!(await this.customers.replaceSocialNumber(customer, this.encryption.encrypt(plain, binding)))) continue;
      if (keyId === null) report.encrypted += 1;
      else if (keyId !== this.encryption.currentKeyId) report.rotated += 1;
      else report.upgraded += 1;
    }
    await this.settings.recordReencryption(new Date());
    return report;
  }
}
