import { Global, Module } from '@nestjs/common';
import { MailService } from './mail.service';

/**
 * Outgoing mail (see MailService). Global: any area that mails someone injects MailService. It
 * keeps no data; what it guarantees is that a request never waits for a mail, a failed mail is
 * logged with its recipient, and a stop waits for the mails still on their way.
 */
@Global()
@Module({
  providers: [MailService],
  exports: [MailService],
})
export class MailModule {}
