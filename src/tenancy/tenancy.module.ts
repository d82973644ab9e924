import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { PlatformProjectsModule } from '../platform-projects/platform-projects.module';
import { TenancyGuard } from './tenancy.guard';

/** The guard that decides where each request acts; AppModule registers it between authentication and roles. */
@Module({
  imports: [AccountsModule, PlatformProjectsModule],
  providers: [TenancyGuard],
  exports: [TenancyGuard],
})
export class TenancyModule {}
