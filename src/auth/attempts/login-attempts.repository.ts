import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import type { Model } from 'mongoose';
import { isDuplicateKey } from '../../common/database/duplicate-key';
import { Records } from '../../database/records';
import { AuthAttempt } from './auth-attempt.schema';
import { KnownLoginAddress } from './known-login-address.schema';

/** Login and signup attempts, and the addresses known to have logged in: the only code that touches them. */
@Injectable()
export class LoginAttemptsRepository {
  private readonly attempts: Records<AuthAttempt>;
  private readonly known: Records<KnownLoginAddress>;

  constructor(@InjectModel(AuthAttempt.name) attempts: Model<AuthAttempt>, @InjectModel(KnownLoginAddress.name) known: Model<KnownLoginAddress>) {
    this.attempts = new Records(attempts);
    this.known = new Records(known);
  }

  async recordLogin(email: string, client: string, at: Date): Promise<void> {
    await this.attempts.insert({ kind: 'login', email, client, at });
  }

  async recordSignup(client: string, at: Date): Promise<void> {
    await this.attempts.insert({ kind: 'signup', email: null, client, at });
  }

  /** Login attempts since `since`: of this email from this client, from this client, and on this email. */
  async countLogins(email: string, client: string, since: Date): Promise<{ pair: number; client: number; email: number }> {
    const at = { $gt: since };
    const [pair, fromClient, onEmail] = await Promise.all([
      this.attempts.count({ kind: 'login', email, client, at }),
      this.attempts.count({ kind: 'login', client, at }),
      this.attempts.count({ kind: 'login', email, at }),
    ]);
    return { pair, client: fromClient, email: onEmail };
  }

  countSignups(client: string, since: Date): Promise<number> {
    return this.attempts.count({ kind: 'signup', client, at: { $gt: since } });
  }

  /** A correct password: the attempts of this email from this client no longer count. */
  async forgetLogins(email: string, client: string): Promise<void> {
    await this.attempts.deleteMany({ kind: 'login', email, client });
  }

  /** Remembers that this client logged in to this email now. */
  async rememberAddress(email: string, client: string, at: Date): Promise<void> {
    const _id = knownId(email, client);
    try {
      await this.known.insert({ _id, at });
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
      await this.known.updateOne({ _id }, { $set: { at } });
    }
  }

  /** Whether this client logged in to this email since `since`. */
  isKnownAddress(email: string, client: string, since: Date): Promise<boolean> {
    return this.known.exists({ _id: knownId(email, client), at: { $gt: since } });
  }

  /** Drops attempts before `attemptsBefore` and known addresses not seen since `addressesBefore`. */
  async sweep(attemptsBefore: Date, addressesBefore: Date): Promise<number> {
    const [attempts, addresses] = await Promise.all([
      this.attempts.deleteMany({ at: { $lt: attemptsBefore } }),
      this.known.deleteMany({ at: { $lt: addressesBefore } }),
    ]);
    return attempts + addresses;
  }
}

function knownId(email: string, client: string): string {
  return `${email}\n${client}`;
}
