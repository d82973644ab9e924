import { Global, Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { fieldEncryptionProviders } from '../settings/field-encryption.provider';
import { SettingsModule } from '../settings/settings.module';
import { MailTransport } from './mail-transport';
import { MailService } from './mail.service';
import { OutgoingMail, OutgoingMailSchema } from './outgoing-mail.schema';

/**
 * Outgoing mail: owns the `outgoing_mails` collection and the SMTP transport. Invariant: a mail
 * `send` has recorded is sent at least once, one attempt at a time, whichever instance stops
 * (MailService). Global: any area that mails someone injects MailService.
 */
@Global()
@Module({
  imports: [MongooseModule.forFeature([{ name: OutgoingMail.name, schema: OutgoingMailSchema }]), SettingsModule],
  providers: [MailTransport, MailService, ...fieldEncryptionProviders],
  exports: [MailService],
})
export class MailModule {}
