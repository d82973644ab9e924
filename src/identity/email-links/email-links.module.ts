import { Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { AttemptsModule } from '../attempts/attempts.module';
import { PasswordsModule } from '../passwords/passwords.module';
import { UsersModule } from '../users/users.module';
import { EmailLink, EmailLinkSchema, EmailLinkUse, EmailLinkUseSchema } from './email-link.schema';
import { EmailLinksController } from './email-links.controller';
import { EmailLinksRepository } from './email-links.repository';
import { EmailLinksService } from './email-links.service';

/**
 * The links mailed to users: email verification (sent at signup, again on request) and password
 * reset, and the routes that ask for them and use them. A reset's new password is set through the
 * passwords module (which ends every session of the user); the mails go through `MailService`.
 * Invariant: a link's token is stored only as its SHA-256, is used at most once (an insert against
 * a unique index, even for two uses at once) and expires; a reset request answers the same whether
 * the email is known or not, under the mail limits of the mailbox and the client.
 */
@Module({
  imports: [
    UsersModule,
    AttemptsModule,
    PasswordsModule,
    MongooseModule.forFeature([
      { name: EmailLink.name, schema: EmailLinkSchema },
      { name: EmailLinkUse.name, schema: EmailLinkUseSchema },
    ]),
  ],
  controllers: [EmailLinksController],
  providers: [EmailLinksRepository, EmailLinksService],
  exports: [EmailLinksService],
})
export class EmailLinksModule {}
