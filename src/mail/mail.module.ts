import { Global, Module } from '@nestjs/common';
import { MailService } from './mail.service';

/** Outgoing mail (see MailService). Global: any area that mails someone injects MailService. */
@Global()
@Module({
  providers: [MailService],
  exports: [MailService],
})
export class MailModule {}
