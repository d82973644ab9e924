import { Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { UsersModule } from '../users/users.module';
import { Account, AccountSchema } from './account.schema';
import { AccountsController } from './accounts.controller';
import { AccountsService } from './accounts.service';
import { Membership, MembershipSchema } from './membership.schema';
import { MembershipsService } from './memberships.service';

@Module({
  imports: [
    UsersModule,
    MongooseModule.forFeature([
      { name: Account.name, schema: AccountSchema },
      { name: Membership.name, schema: MembershipSchema },
    ]),
  ],
  controllers: [AccountsController],
  providers: [AccountsService, MembershipsService],
  exports: [AccountsService, MembershipsService],
})
export class AccountsModule {}
