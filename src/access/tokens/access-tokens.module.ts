import { Module } from '@nestjs/common';
import { createSecretKey } from 'node:crypto';
import { ConfigType } from '@nestjs/config';
import { JwtModule } from '@nestjs/jwt';
import { authConfig } from '../../config/auth.config';
import { AccessTokens } from './access-tokens';

/**
 * Users' access tokens: their claims (`access-token.ts`), the key and algorithm that sign them, and
 * their verification. The login (src/auth) issues them and the access guard (src/access) verifies
 * them, both through `AccessTokens`; this module imports no module of its own.
 * Invariant: only HS256 under `JWT_SECRET` signs or verifies a token (the algorithm pinned in both
 * directions), and a remembered verification answers only for the exact text that verified, until
 * its `exp`.
 */
@Module({
  imports: [
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
  providers: [AccessTokens],
  exports: [AccessTokens],
})
export class AccessTokensModule {}
