import { Inject, Injectable, type OnModuleInit, type Provider } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { FieldEncryption } from '../common/crypto/field-encryption';
import { SettingsService } from './settings.service';
import { financeConfig } from '../config/finance.config';

/**
 * Decides at start whether `v1` values are read: as `ACCEPT_LEGACY_CIPHERTEXT` says; unset, until
 * `npm run reencrypt` has run to its end once on this database (instances started before that keep
 * reading them until their next start). Read on init, not while the providers are built, so that
 * building the application (the OpenAPI export) needs no database.
 */
@Injectable()
export class LegacyCiphertextPolicy implements OnModuleInit {
  constructor(
    private readonly encryption: FieldEncryption,
    private readonly settings: SettingsService,
    @Inject(financeConfig.KEY) private readonly config: ConfigType<typeof financeConfig>,
  ) {}

  async onModuleInit(): Promise<void> {
    if (this.config.acceptLegacyCiphertext === null && (await this.settings.lastReencryption()) !== null)
      this.encryption.refuseFieldOnly();
  }
}

/**
 * The field encryption of a module that stores secrets encrypted at rest, with the service's keys,
 * and the policy on `v1` values (see LegacyCiphertextPolicy). A module using them imports SettingsModule.
 */
export const fieldEncryptionProviders: Provider[] = [
  {
    provide: FieldEncryption,
    inject: [financeConfig.KEY],
    useFactory: (config: ConfigType<typeof financeConfig>) =>
      new FieldEncryption(config.fieldEncryptionKeys, { acceptFieldOnly: config.acceptLegacyCiphertext ?? true }),
  },
  LegacyCiphertextPolicy,
];
