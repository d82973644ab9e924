import { Injectable } from '@nestjs/common';
import { InjectConnection } from '@nestjs/mongoose';
import { Connection, Types } from 'mongoose';
import { Account } from '../accounts/account.schema';
import { insertDocument } from '../database/insert-document';
import { type TenantCollection, WITHOUT_PROJECT } from './tenant-collections';

/** A user as the single-tenant build stored it: read raw, since the current schema no longer has its `role`. */
export interface StoredUser {
  _id: Types.ObjectId;
  role: string;
  defaultCompany?: string | null;
  createdAt?: Date;
}

const OLDEST_FIRST = { createdAt: 1, _id: 1 } as const;

/**
 * The data of the single-tenant build, as the migration reads and moves it: collections by name,
 * across every tenant, since the records it moves have no project yet; what earlier builds stored in
 * a shape since completed (a card's customer as a string, an event without its object's id); and
 * collections an earlier build kept that no module owns any more, which the migration drops. Only
 * the migrations and the start-up check for unmigrated records use it.
 */
@Injectable()
export class LegacyDataRepository {
  constructor(@InjectConnection() private readonly connection: Connection) {}

  /** Users without an account, oldest first. */
  usersWithoutAccount(): Promise<StoredUser[]> {
    return this.users().find({ defaultCompany: null }).sort(OLDEST_FIRST).toArray();
  }

  findUser(id: Types.ObjectId): Promise<StoredUser | null> {
    return this.users().findOne({ _id: id });
  }

  /** The earliest user with this role (any role when none is given), or null. */
  earliestUser(role?: string): Promise<StoredUser | null> {
    return this.users()
      .find(role ? { role } : {})
      .sort(OLDEST_FIRST)
      .limit(1)
      .next();
  }

  /** Sets `defaultCompany` on those of the users that still have none; how many changed. */
  async setDefaultCompany(userIds: Types.ObjectId[], accountId: string): Promise<number> {
    return (
      await this.users().updateMany(
        { _id: { $in: userIds }, defaultCompany: null },
        { $set: { defaultCompany: accountId } },
      )
    ).modifiedCount;
  }

  /** The account an earlier run of the migration made, if any. */
  migratedAccount(): Promise<Account | null> {
    return this.connection.collection<Account>('accounts').findOne({ migrated: true });
  }

  /** Through the Account model, so the document has exactly the schema's shape and timestamps. */
  createAccount(
    fields: Pick<Account, 'name' | 'type' | 'ownerId' | 'defaultProjectId' | 'migrated'>,
  ): Promise<Account> {
    return insertDocument(this.connection.model<Account>(Account.name), fields);
  }

  /** Whether the collection holds a record without a project. */
  async holdsUnmigrated(name: TenantCollection): Promise<boolean> {
    return (await this.connection.collection(name).countDocuments(WITHOUT_PROJECT, { limit: 1 })) > 0;
  }

  /** Puts every record of the collection without a project into `projectId`; how many moved. */
  async moveIntoProject(name: TenantCollection, projectId: Types.ObjectId): Promise<number> {
    return (await this.connection.collection(name).updateMany(WITHOUT_PROJECT, { $set: { projectId } })).modifiedCount;
  }

  /** Cards whose `customer` is still a string, one at a time. */
  cardsWithStringCustomer(): AsyncIterable<{ _id: Types.ObjectId; customer: string }> {
    return this.cards().find({ customer: { $type: 'string' } }, { projection: { customer: 1 } }) as AsyncIterable<{
      _id: Types.ObjectId;
      customer: string;
    }>;
  }

  /** Stores the card's customer as an ObjectId, only while it is still the string read; true when it did. */
  async convertCardCustomer(cardId: Types.ObjectId, customer: string): Promise<boolean> {
    return (
      (
        await this.cards().updateOne(
          { _id: cardId, customer },
          { $set: { customer: new Types.ObjectId(customer.toLowerCase()) } },
        )
      ).modifiedCount > 0
    );
  }

  /** Events stored without the id of their object beside the body, in id order. */
  eventsWithoutObject(): AsyncIterable<{ _id: string; body: string }> {
    return this.events().find({ objectId: { $exists: false } }, { projection: { body: 1 }, sort: { _id: 1 } });
  }

  /** Stores the id of the event's object, unless it has one already; true when it did. */
  async nameEventObject(eventId: string, objectId: string): Promise<boolean> {
    return (
      (await this.events().updateOne({ _id: eventId, objectId: { $exists: false } }, { $set: { objectId } }))
        .modifiedCount > 0
    );
  }

  /** The collection's indexes; none when it does not exist. */
  async indexesOf(name: TenantCollection): Promise<{ name?: string; key: Record<string, unknown> }[]> {
    try {
      return await this.connection.collection(name).listIndexes().toArray();
    } catch {
      return [];
    }
  }

  async dropIndex(name: TenantCollection, index: string): Promise<void> {
    await this.connection.collection(name).dropIndex(index);
  }

  /**
   * The channels of platform projects that have no collaborator at all, with the owner of the
   * project's account: stored channels do not name who created them.
   */
  async ownerlessChannels(): Promise<
    { channelId: Types.ObjectId; projectId: Types.ObjectId; accountId: Types.ObjectId; ownerId: Types.ObjectId }[]
  > {
    const staffed = new Set(
      (await this.connection.collection('channel_collaborators').distinct('channelId')).map(String),
    );
    const channels = await this.connection
      .collection<{ _id: Types.ObjectId; projectId: Types.ObjectId | null }>('channels')
      .find({ projectId: { $ne: null } }, { projection: { _id: 1, projectId: 1 } })
      .toArray();
    const ownerless = channels.filter(
      (channel): channel is { _id: Types.ObjectId; projectId: Types.ObjectId } =>
        channel.projectId !== null && !staffed.has(String(channel._id)),
    );
    const projectIds = [...new Set(ownerless.map((channel) => String(channel.projectId)))].map(
      (id) => new Types.ObjectId(id),
    );
    const projects = await this.connection
      .collection<{ _id: Types.ObjectId; accountId: Types.ObjectId }>('platform_projects')
      .find({ _id: { $in: projectIds } }, { projection: { accountId: 1 } })
      .toArray();
    const accounts = await this.connection
      .collection<Account & { _id: Types.ObjectId }>('accounts')
      .find({ _id: { $in: projects.map((project) => project.accountId) } }, { projection: { ownerId: 1 } })
      .toArray();
    const accountOf = new Map(projects.map((project) => [String(project._id), project.accountId]));
    const ownerOf = new Map(accounts.map((account) => [String(account._id), account.ownerId]));
    return ownerless.flatMap((channel) => {
      const accountId = accountOf.get(String(channel.projectId));
      const ownerId = accountId && ownerOf.get(String(accountId));
      return accountId && ownerId ? [{ channelId: channel._id, projectId: channel.projectId, accountId, ownerId }] : [];
    });
  }

  /** Drops the collection, when there is one; true when it dropped it. */
  async dropCollection(name: string): Promise<boolean> {
    const found = await this.connection.db!.listCollections({ name }, { nameOnly: true }).toArray();
    if (found.length === 0) return false;
    return this.connection.db!.dropCollection(name);
  }

  private users() {
    return this.connection.collection<StoredUser>('users');
  }

  private cards() {
    return this.connection.collection<{ _id: Types.ObjectId; customer: unknown }>('cards');
  }

  private events() {
    return this.connection.collection<{ _id: string; body: string; objectId?: string }>('events');
  }
}
