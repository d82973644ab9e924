import { Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { User, UserSchema } from './user.schema';
import { UsersRepository } from './users.repository';
import { UsersService } from './users.service';
import { CredentialsChanges } from './credentials-changes';

/**
 * People who log in. Invariants: an email belongs to one user across the service (a unique index on
 * the lower-cased email); the password hash and second-factor secrets are never read unless a read
 * asks for them (`select: false`); `credentialsChangedAt` moves with every password change or
 * reset, and the tokens issued before it are refused (CredentialsChanges). Users belong to accounts
 * only through memberships (src/accounts).
 */
@Module({
  imports: [MongooseModule.forFeature([{ name: User.name, schema: UserSchema }])],
  providers: [UsersRepository, UsersService, CredentialsChanges],
  exports: [UsersService, CredentialsChanges],
})
export class UsersModule {}
