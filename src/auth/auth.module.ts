import { Module } from '@nestjs/common';
import { createSecretKey } from 'node:crypto';
import { ConfigType } from '@nestjs/config';
import { JwtModule } from '@nestjs/jwt';
import { authConfig } from '../config/auth.config';
import { UsersModule } from '../users/users.module';
import { AccountsModule } from '../accounts/accounts.module';
import { ApiKeysModule } from '../api-keys/api-keys.module';
import { InvitationsModule } from '../invitations/invitations.module';
import { PlatformProjectsModule } from '../platform-projects/platform-projects.module';
import { TenancyGuard } from '../tenancy/tenancy.guard';
import { AuthController } from './auth.controller';
import { AuthService } from './auth.service';
import { JwtAuthGuard } from './jwt-auth.guard';
import { AttemptsModule } from './attempts/attempts.module';
import { SessionsModule } from '../sessions/sessions.module';
import { RolesGuard } from './roles.guard';

@Module({
  imports: [
    UsersModule,
    AccountsModule,
    InvitationsModule,
    ApiKeysModule,
    PlatformProjectsModule,
    AttemptsModule,
    SessionsModule,
    JwtModule.registerAsync({
      inject: [authConfig.KEY],
      useFactory: (config: ConfigType<typeof authConfig>) => {
        // A KeyObject, not the string: given a string, jsonwebtoken first tries (and fails) to read
        // it as a public key on every verify, which cost about half a millisecond per request.
        const key = createSecretKey(Buffer.from(config.jwtSecret, 'utf8'));
        return {
          secretOrKeyProvider: () => key,
          signOptions: {
            algorithm: 'HS256',
            expiresIn: (/^\d+$/.test(config.jwtExpiresIn) ? Number(config.jwtExpiresIn) : config.jwtExpiresIn) as never,
          },
          verifyOptions: { algorithms: ['HS256'] },
        };
      },
    }),
  ],
  controllers: [AuthController],
  providers: [
    AuthService,
    JwtAuthGuard,
    TenancyGuard,
    RolesGuard,
  ],
  // AppModule registers the guards globally, in order: authentication, tenancy, roles.
  exports: [JwtAuthGuard, TenancyGuard, RolesGuard],
})
export class AuthModule {}
