import type { Provider } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { FieldEncryption } from '../common/crypto/field-encryption';
import { financeConfig } from './finance.config';

/** The field encryption of a module that stores secrets encrypted at rest, with the service's keys. */
export const fieldEncryptionProvider: Provider = {
  provide: FieldEncryption,
  inject: [financeConfig.KEY],
  useFactory: (config: ConfigType<typeof financeConfig>) => new FieldEncryption(config.fieldEncryptionKeys),
};
