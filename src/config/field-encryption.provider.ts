import type { Provider } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { FieldEncryption } from '../common/crypto/field-encryption';
import { SettingsService } from '../settings/settings.service';
import { financeConfig } from './finance.config';

/**
 * The field encryption of a module that stores secrets encrypted at rest, with the service's keys.
 * `v1` values are read as `ACCEPT_LEGACY_CIPHERTEXT` says; unset, until `npm run reencrypt` has run
 * to its end once on this database (read at start: instances started before it keep reading them).
 * A module using it imports SettingsModule.
 */
export const fieldEncryptionProvider: Provider = {
  provide: FieldEncryption,
  inject: [financeConfig.KEY, SettingsService],
  useFactory: async (config: ConfigType<typeof financeConfig>, settings: SettingsService) =>
    new FieldEncryption(config.fieldEncryptionKeys, {
      acceptFieldOnly: config.acceptLegacyCiphertext ?? (await settings.lastReencryption()) === null,
    }),
};
