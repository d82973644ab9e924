import { Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { LeasesModule } from '../leases/leases.module';
import { AccountPolicyLookup, MembershipLookup } from '../tenancy/tenancy-lookups';
import { UsersModule } from '../identity/users/users.module';
import { Account, AccountSchema } from './account.schema';
import { AccountsController } from './accounts.controller';
import { AccountsRepository } from './accounts.repository';
import { AccountsService } from './accounts.service';
import { Membership, MembershipSchema } from './membership.schema';
import { MembershipsRepository } from './memberships.repository';
import { MembershipsService } from './memberships.service';
import { OwnershipTransfer, OwnershipTransferSchema } from './ownership-transfer.schema';
import { OwnershipTransfersRepository } from './ownership-transfers.repository';

/**
 * Accounts, their memberships (a user's role in an account) and ownership. Invariant: an account
 * has exactly one owner, the member `Account.ownerId` names, who holds every admin right, cannot be
 * removed or demoted, and hands the account on by a transfer; a transfer half-done leaves both
 * owners with the rights, never none, and crossing or stalled transfers are ordered by the
 * account's owner version (AccountsService). A user has at most one membership per account (a
 * unique index). The tenancy guard reads memberships on every request through `MembershipLookup`
 * (as the audit of a user's own actions does, src/identity/users), without importing this module;
 * whether a member has a second factor of their own (to turn `requireMfa` on) is asked of the
 * factors module through `SecondFactorLookup`.
 */
@Module({
  imports: [
    UsersModule,
    LeasesModule,
    MongooseModule.forFeature([
      { name: Account.name, schema: AccountSchema },
      { name: Membership.name, schema: MembershipSchema },
      { name: OwnershipTransfer.name, schema: OwnershipTransferSchema },
    ]),
  ],
  controllers: [AccountsController],
  providers: [
    AccountsRepository,
    MembershipsRepository,
    OwnershipTransfersRepository,
    AccountsService,
    MembershipsService,
    // The access guard's tenancy (src/access) reads memberships through this, without importing this module.
    { provide: MembershipLookup, useExisting: MembershipsService },
    { provide: AccountPolicyLookup, useExisting: AccountsService },
  ],
  exports: [AccountsService, MembershipsService, MembershipLookup, AccountPolicyLookup],
})
export class AccountsModule {}
