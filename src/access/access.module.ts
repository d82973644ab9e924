import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { AccountsModule } from '../accounts/accounts.module';
import { ApiKeysModule } from '../api-keys/api-keys.module';
import { AssetsModule } from '../assets/assets.module';
import { ChannelsModule } from '../channels/channels.module';
import { CollaboratorsModule } from '../collaborators/collaborators.module';
import { PlatformProjectsModule } from '../platform-projects/platform-projects.module';
import { ProjectsModule } from '../projects/projects.module';
import { SessionsModule } from '../sessions/sessions.module';
import { UsersModule } from '../identity/users/users.module';
import { AccessGuard } from './access.guard';
import { Authentication } from './authentication';
import { ChannelRoles } from './channel-roles';
import { RouteDeclarations } from './route-declarations';
import { Tenancy } from './tenancy';
import { AccessTokensModule } from './tokens/access-tokens.module';

/**
 * Who may call what: each route's declared access policy (`@Access()`, src/access/policy/access-policy.ts)
 * and the one guard that enforces it (AccessGuard: credential, step-up, tenancy, rate limit, role,
 * verified email, channel role), with the authentication of its credentials (an access token
 * verified by src/access/tokens, a session cookie asked of src/sessions, an API key of
 * src/api-keys). Invariant: every route declares a policy, checked when the application starts
 * (RouteDeclarations), and nothing but that declaration decides who reaches a handler.
 */
@Module({
  imports: [
    DiscoveryModule,
    AccessTokensModule,
    AccountsModule,
    ApiKeysModule,
    PlatformProjectsModule,
    SessionsModule,
    UsersModule,
    ChannelsModule,
    CollaboratorsModule,
    ProjectsModule,
    AssetsModule,
  ],
  providers: [Authentication, Tenancy, AccessGuard, ChannelRoles, RouteDeclarations],
  // AppModule makes it the one global guard.
  exports: [AccessGuard, Authentication],
})
export class AccessModule {}
