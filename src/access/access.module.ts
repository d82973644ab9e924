import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { AuthModule } from '../auth/auth.module';
import { UsersModule } from '../users/users.module';
import { AccessGuard } from './access.guard';
import { RouteDeclarations } from './route-declarations';

/**
 * Who may call what: each route's declared access policy (`@Access()`, src/access/access-policy.ts)
 * and the one guard that enforces it (AccessGuard: credential, step-up, tenancy, rate limit, role,
 * verified email). Invariant: every route declares a policy, checked when the application starts
 * (RouteDeclarations), and nothing but that declaration decides who reaches a handler.
 */
@Module({
  imports: [DiscoveryModule, AuthModule, UsersModule],
  providers: [AccessGuard, RouteDeclarations],
  // AppModule makes it the one global guard.
  exports: [AccessGuard],
})
export class AccessModule {}
