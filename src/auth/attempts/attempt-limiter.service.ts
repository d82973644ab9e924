import { HttpException, HttpStatus, Inject, Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import { InjectModel } from '@nestjs/mongoose';
import { Model, trusted } from 'mongoose';
import { authConfig } from '../../config/auth.config';
import { AuthAttempt } from './auth-attempt.schema';
import { insertDocument } from '../../common/database/insert-document';

const SWEEP_INTERVAL_MS = 10 * 60 * 1000;

function tooMany(message: string, windowSeconds: number): HttpException {
  return new HttpException(`${message}. Try again in ${windowSeconds} seconds`, HttpStatus.TOO_MANY_REQUESTS);
}

/**
 * Limits logins per target email and per client address, and signups per client address, in the
 * database so every instance counts together. An attempt is recorded before the password is
 * checked, so concurrent guesses are counted too; a successful login forgets only the attempts of
 * that email from that address, so logging into one's own account never resets a count on someone
 * else's. Records past the window are ignored by the counts and swept (FerretDB has no TTL indexes).
 */
@Injectable()
export class AttemptLimiter implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(AttemptLimiter.name);
  private sweepTimer?: NodeJS.Timeout;

  constructor(
    @InjectModel(AuthAttempt.name) private readonly attempts: Model<AuthAttempt>,
    @Inject(authConfig.KEY) private readonly config: ConfigType<typeof authConfig>,
  ) {}

  onModuleInit(): void {
    this.sweepTimer = setInterval(() => {
      this.sweep().catch((error: Error) => this.logger.warn(`Sweeping old login attempts failed: ${error.message}`));
    }, SWEEP_INTERVAL_MS);
    this.sweepTimer.unref();
  }

  onModuleDestroy(): void {
    if (this.sweepTimer) clearInterval(this.sweepTimer);
  }

  /** Records a login attempt; 429 when the email or the client is past its limit within the window. */
  async beginLogin(email: string, client: string, now = new Date()): Promise<void> {
    const target = email.trim().toLowerCase();
    await insertDocument(this.attempts, { kind: 'login', email: target, client, at: now });
    const since = trusted({ $gt: new Date(now.getTime() - this.config.loginFailureWindowSeconds * 1000) });
    const [forEmail, fromClient] = await Promise.all([
      this.attempts.countDocuments({ kind: 'login', email: target, at: since }).exec(),
      this.attempts.countDocuments({ kind: 'login', client, at: since }).exec(),
    ]);
    if (forEmail > this.config.loginMaxFailures || fromClient > this.config.loginMaxFailuresPerClient) {
      throw tooMany('Too many failed login attempts', this.config.loginFailureWindowSeconds);
    }
  }

  /** A correct password: the attempts on this email from this client no longer count. */
  async loginSucceeded(email: string, client: string): Promise<void> {
    await this.attempts.deleteMany({ kind: 'login', email: email.trim().toLowerCase(), client }).exec();
  }

  /** Records a signup; 429 when the client is past its limit within the window. */
  async beginSignup(client: string, now = new Date()): Promise<void> {
    await insertDocument(this.attempts, { kind: 'signup', email: null, client, at: now });
    const since = new Date(now.getTime() - this.config.signupWindowSeconds * 1000);
    const count = await this.attempts.countDocuments({ kind: 'signup', client, at: trusted({ $gt: since }) }).exec();
    if (count > this.config.signupMaxPerClient) throw tooMany('Too many signups from this client', this.config.signupWindowSeconds);
  }

  /** Drops attempts older than every window. */
  async sweep(now = new Date()): Promise<number> {
    const longest = Math.max(this.config.loginFailureWindowSeconds, this.config.signupWindowSeconds);
    const result = await this.attempts.deleteMany({ at: trusted({ $lt: new Date(now.getTime() - longest * 1000) }) }).exec();
    return result.deletedCount;
  }
}
