import { Inject, Injectable } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import * as bcrypt from 'bcrypt';
import { authConfig } from '../../config/auth.config';

/** Users' password hashes: bcrypt at `BCRYPT_ROUNDS`. */
@Injectable()
export class PasswordHasher {
  /** Compared against when there is no user, so an unknown email costs the same bcrypt work as a known one. */
  private readonly dummyHash: Promise<string>;

  constructor(@Inject(authConfig.KEY) private readonly config: ConfigType<typeof authConfig>) {
    this.dummyHash = bcrypt.hash('not-a-real-password', config.bcryptRounds);
  }

  hash(password: string): Promise<string> {
    return bcrypt.hash(password, this.config.bcryptRounds);
  }

  /** Whether the password is the hash's; without a hash (no such user), false after the same work. */
  async matches(password: string, hash: string | undefined): Promise<boolean> {
    return bcrypt.compare(password, hash ?? (await this.dummyHash));
  }
}
