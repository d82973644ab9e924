import { Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { Setting, SettingSchema } from './setting.schema';
import { SettingsRepository } from './settings.repository';
import { SettingsService } from './settings.service';

/**
 * Deployment-wide facts that operators' commands record and the service reads at start (see
 * Setting: when `npm run reencrypt` last ran to its end). Not tenant data; it keeps no invariant
 * beyond one record per fact. `fieldEncryptionProviders` (field-encryption.provider.ts) live here
 * because whether legacy ciphertext is still read is one of those facts.
 */
@Module({
  imports: [MongooseModule.forFeature([{ name: Setting.name, schema: SettingSchema }])],
  providers: [SettingsRepository, SettingsService],
  exports: [SettingsService],
})
export class SettingsModule {}
