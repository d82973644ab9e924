import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import type { Model, Types } from 'mongoose';
import { isDuplicateKey } from '../../common/database/duplicate-key';
import { Records } from '../../database/records';
import { AuthAttempt, type AttemptKind } from './auth-attempt.schema';
import { KnownLoginAddress } from './known-login-address.schema';

/** Login, signup, mail and passkey options attempts, and the addresses known to have logged in: the only code that touches them. */
@Injectable()
export class LoginAttemptsRepository {
  private readonly attempts: Records<AuthAttempt>;
  private readonly known: Records<KnownLoginAddress>;

  constructor(
    @InjectModel(AuthAttempt.name) attempts: Model<AuthAttempt>,
    @InjectModel(KnownLoginAddress.name) known: Model<KnownLoginAddress>,
  ) {
    this.attempts = new Records(attempts);
    this.known = new Records(known);
  }

  /** A login attempt; without an email (a passkey naming no user) it belongs to the client alone. */
  async recordLogin(email: string | null, client: string, at: Date): Promise<void> {
    await this.attempts.insert({ kind: 'login', email, client, at });
  }

  /** Passkey options handed out: a challenge written. */
  async recordPasskeyOptions(client: string, at: Date): Promise<Types.ObjectId> {
    return (await this.attempts.insert({ kind: 'passkey_options', email: null, client, at }))._id;
  }

  /** Attempts of this kind by this client since `since`. */
  countFrom(kind: AttemptKind, client: string, since: Date): Promise<number> {
    return this.attempts.count({ kind, client, at: { $gt: since } });
  }

  /** A signup under way: it counts as admitted until it is marked refused or forgotten. */
  async recordSignup(client: string, at: Date): Promise<Types.ObjectId> {
    return (await this.attempts.insert({ kind: 'signup', email: null, client, at }))._id;
  }

  /** The signup was refused (a 4xx): it no longer counts as admitted, only toward the refusals' limit. */
  async markSignupRefused(id: Types.ObjectId): Promise<void> {
    await this.attempts.updateOne({ _id: id }, { $set: { kind: 'signup_refused' } });
  }

  /** An attempt that was itself throttled: it did nothing, so it counts for nothing. */
  async forget(id: Types.ObjectId): Promise<void> {
    await this.attempts.deleteOne({ _id: id });
  }

  /** Login attempts since `since`: of this email from this client, from this client, and on this email (without an email, the client's only). */
  async countLogins(
    email: string | null,
    client: string,
    since: Date,
  ): Promise<{ pair: number; client: number; email: number }> {
    const at = { $gt: since };
    if (email === null) return { pair: 0, client: await this.attempts.count({ kind: 'login', client, at }), email: 0 };
    const [pair, fromClient, onEmail] = await Promise.all([
      this.attempts.count({ kind: 'login', email, client, at }),
      this.attempts.count({ kind: 'login', client, at }),
      this.attempts.count({ kind: 'login', email, at }),
    ]);
    return { pair, client: fromClient, email: onEmail };
  }

  /** A second-factor code offered for this email's user. */
  async recordCode(email: string, client: string, at: Date): Promise<void> {
    await this.attempts.insert({ kind: 'code', email, client, at });
  }

  /** Codes offered for this email's user since `since`, from any address. */
  countCodes(email: string, since: Date): Promise<number> {
    return this.attempts.count({ kind: 'code', email, at: { $gt: since } });
  }

  /** A correct code: the user's wrong ones no longer count. */
  async forgetCodes(email: string): Promise<void> {
    await this.attempts.deleteMany({ kind: 'code', email });
  }

  async recordMail(email: string, client: string, at: Date): Promise<void> {
    await this.attempts.insert({ kind: 'mail', email, client, at });
  }

  /** Mails asked for since `since`: to this email (from anyone), and by this client (to anyone). */
  async countMails(email: string, client: string, since: Date): Promise<{ email: number; client: number }> {
    const at = { $gt: since };
    const [toEmail, byClient] = await Promise.all([
      this.attempts.count({ kind: 'mail', email, at }),
      this.attempts.count({ kind: 'mail', client, at }),
    ]);
    return { email: toEmail, client: byClient };
  }

  /** Signups of this client since `since`: admitted (or under way), and refused. */
  async countSignups(client: string, since: Date): Promise<{ admitted: number; refused: number }> {
    const at = { $gt: since };
    const [admitted, refused] = await Promise.all([
      this.attempts.count({ kind: 'signup', client, at }),
      this.attempts.count({ kind: 'signup_refused', client, at }),
    ]);
    return { admitted, refused };
  }

  /** When the client's `index`-th oldest attempt of this kind since `since` was made (0: the oldest). */
  async attemptAt(kind: AttemptKind, client: string, since: Date, index: number): Promise<Date | null> {
    const [attempt] = await this.attempts.find(
      { kind, client, at: { $gt: since } },
      { sort: { at: 1 }, skip: index, limit: 1, fields: ['at'] },
    );
    return attempt?.at ?? null;
  }

  /** A passkey verified: this client's attempts that named no email (its passkey answers) no longer count. */
  async forgetAddressLogins(client: string): Promise<void> {
    await this.attempts.deleteMany({ kind: 'login', email: null, client });
  }

  /** A correct password: the attempts of this email from this client no longer count. */
  async forgetLogins(email: string, client: string): Promise<void> {
    await this.attempts.deleteMany({ kind: 'login', email, client });
  }

  /**
   * Remembers that this client logged in to this email now. Most logins come from a known address:
   * the update comes first, so an ordinary login does not collide with the unique `_id` (each
   * collision is an ERROR line in the database's log); the insert, for a new address, still settles
   * two first logins at once.
   */
  async rememberAddress(email: string, client: string, at: Date): Promise<boolean> {
    const _id = knownId(email, client);
    if ((await this.known.updateOne({ _id }, { $set: { at } })).matched > 0) return false;
    try {
      await this.known.insert({ _id, at });
      return true;
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
      await this.known.updateOne({ _id }, { $set: { at } });
      return false;
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
