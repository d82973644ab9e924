import { Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { AccountsModule } from '../accounts/accounts.module';
import { AttemptsModule } from '../identity/attempts/attempts.module';
import { UsersModule } from '../identity/users/users.module';
import { Invitation, InvitationSchema } from './invitation.schema';
import { InvitationsController } from './invitations.controller';
import { InvitationsRepository } from './invitations.repository';
import { InvitationsService } from './invitations.service';

/**
 * Invitations into an account, created by its admins and mailed to the invitee. Invariants: the
 * token is kept only as its SHA-256 (shown once, in the creation's answer, and in the mail); an
 * invitation is valid 7 days, for the invited email only, and used once (accepting is an update
 * guarded on `pending`); an account has at most one pending invitation per email, a new one
 * revoking the last.
 */
@Module({
  imports: [
    AccountsModule,
    AttemptsModule,
    UsersModule,
    MongooseModule.forFeature([{ name: Invitation.name, schema: InvitationSchema }]),
  ],
  controllers: [InvitationsController],
  providers: [InvitationsRepository, InvitationsService],
  exports: [InvitationsService],
})
export class InvitationsModule {}
