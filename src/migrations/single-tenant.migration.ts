import { Injectable } from '@nestjs/common';
import { InProcessEmitter } from '../in-process-events/in-process-events';
import { Types } from 'mongoose';
import { Account } from '../accounts/account.schema';
import { ACCOUNT_CREATED, AccountCreatedEvent } from '../accounts/accounts.events';
import { MembershipsService } from '../accounts/memberships.service';
import { USER_ROLES, type UserRole } from '../common/decorators/roles.decorator';
import { PlatformProjectsService } from '../platform-projects/platform-projects.service';
import { isValidObjectId } from '../common/pipes/object-id';
import { LegacyDataRepository, type StoredUser } from './legacy-data.repository';
import { LEGACY_INDEXES, TENANT_COLLECTIONS, type TenantCollection } from './tenant-collections';

export const MIGRATED_ACCOUNT_NAME = 'Migrated account';

/** What one run did. A run that finds everything migrated already reports `changed: false`. */
export interface MigrationReport {
  changed: boolean;
  /** The migrated account; null when there was nothing to migrate and no such account exists. */
  accountId: string | null;
  accountCreated: boolean;
  ownerId: string | null;
  defaultProjectId: string | null;
  defaultProjectCreated: boolean;
  membersAdded: number;
  defaultCompaniesSet: number;
  recordsMoved: Record<TenantCollection, number>;
  /** Cards whose `customer` was stored as a hex string (the single-tenant build's type), now an ObjectId. */
  cardCustomersConverted: number;
  legacyIndexesDropped: string[];
  /** Platform projects made before the events and webhooks APIs, now with both enabled. */
  eventApisEnabled: number;
}

/**
 * Moves the records of a single-tenant build into the platform: one account "Migrated account"
 * (type company, `migrated: true`) owned by the earliest admin (else the earliest user), its default
 * platform project, a membership for every user of that build with their old role, and the project
 * on every record that has none. Each step looks at what is stored before it writes, so a run that
 * stopped halfway is finished by the next one, and a run after a complete one changes nothing.
 *
 * Users of the single-tenant build are told apart by `defaultCompany`: that build never set it,
 * and every signup since sets it to the account it made or joined. So a user who joined through the
 * new signup, or who was migrated and has left the account since, is not (re-)added.
 *
 * It also converts what the current schemas store differently: `cards.customer`, a hex string in
 * the single-tenant build, is an ObjectId now.
 *
 * Tenant collections are written through the raw driver: the tenantOwned plugin refuses unscoped
 * Mongoose queries, and these filters are unscoped on purpose.
 */
@Injectable()
export class SingleTenantMigration {
  constructor(
    private readonly legacy: LegacyDataRepository,
    private readonly memberships: MembershipsService,
    private readonly platformProjects: PlatformProjectsService,
    private readonly events: InProcessEmitter,
  ) {}

  async run(): Promise<MigrationReport> {
    const legacyUsers = await this.legacy.usersWithoutAccount();
    const unmigrated = await this.countUnmigrated();
    const report: MigrationReport = {
      changed: false,
      accountId: null,
      accountCreated: false,
      ownerId: null,
      defaultProjectId: null,
      defaultProjectCreated: false,
      membersAdded: 0,
      defaultCompaniesSet: 0,
      recordsMoved: Object.fromEntries(TENANT_COLLECTIONS.map((name) => [name, 0])) as Record<TenantCollection, number>,
      cardCustomersConverted: await this.convertCardCustomers(),
      legacyIndexesDropped: await this.dropLegacyIndexes(),
      eventApisEnabled: await this.platformProjects.offerEventApis(),
    };

    let account = await this.legacy.migratedAccount();
    if (!account) {
      if (legacyUsers.length === 0 && unmigrated === 0) return finish(report);
      const owner = (await this.earliestOwner(legacyUsers)) ?? null;
      if (!owner)
        throw new Error(
          'Records without a project exist but there is no user to own them: sign up a user, then run the migration again.',
        );
      account = await this.createAccount(owner);
      report.accountCreated = true;
    }
    const accountId = String(account._id);
    report.accountId = accountId;
    report.ownerId = String(account.ownerId);
    report.defaultProjectId = String(account.defaultProjectId);

    if (!(await this.platformProjects.resolve(accountId, undefined))) {
      const event: AccountCreatedEvent = { accountId: account._id, defaultProjectId: account.defaultProjectId };
      await this.events.emitAsync(ACCOUNT_CREATED, event);
      report.defaultProjectCreated = true;
    }

    // The owner first, so the account has its owner's membership before anyone else's.
    const owner = await this.legacy.findUser(account.ownerId);
    if (owner && (await this.addMember(accountId, owner, true))) report.membersAdded += 1;
    for (const user of legacyUsers) {
      if (await this.addMember(accountId, user, false)) report.membersAdded += 1;
    }
    if (legacyUsers.length > 0) {
      report.defaultCompaniesSet = await this.legacy.setDefaultCompany(
        legacyUsers.map((user) => user._id),
        accountId,
      );
    }

    for (const name of TENANT_COLLECTIONS) {
      report.recordsMoved[name] = await this.legacy.moveIntoProject(name, account.defaultProjectId);
    }
    return finish(report);
  }

  private async countUnmigrated(): Promise<number> {
    const found = await Promise.all(TENANT_COLLECTIONS.map((name) => this.legacy.holdsUnmigrated(name)));
    return found.filter(Boolean).length;
  }

  /** The earliest admin of the single-tenant build, else its earliest user; with none, the earliest admin or user of all. */
  private async earliestOwner(legacyUsers: StoredUser[]): Promise<StoredUser | undefined> {
    const legacy = legacyUsers.find((user) => user.role === 'admin') ?? legacyUsers[0];
    if (legacy) return legacy;
    return (await this.legacy.earliestUser('admin')) ?? (await this.legacy.earliestUser()) ?? undefined;
  }

  /**
   * Through the Account model, so the document has exactly the schema's shape and timestamps. The
   * default project's id is chosen here, as AccountsService does, so the account never names a
   * missing one for long; the project itself is created by the ACCOUNT_CREATED handler.
   */
  private async createAccount(owner: StoredUser): Promise<Account> {
    return this.legacy.createAccount({
      name: MIGRATED_ACCOUNT_NAME,
      type: 'company',
      ownerId: owner._id,
      defaultProjectId: new Types.ObjectId(),
      migrated: true,
    });
  }

  /** Adds the membership unless the user has one in this account already; true when added. */
  private async addMember(accountId: string, user: StoredUser, owner: boolean): Promise<boolean> {
    if (await this.memberships.find(accountId, String(user._id))) return false;
    await this.memberships.add(accountId, user._id, roleOf(user), owner);
    return true;
  }

  /**
   * `cards.customer` was a hex string; it is an ObjectId now, like `customers._id` and
   * `payments.customer`, and a string no longer matches a customer's id. One guarded update per card:
   * FerretDB 1.24 has no pipeline updates to convert in place.
   */
  private async convertCardCustomers(): Promise<number> {
    let converted = 0;
    for await (const card of this.legacy.cardsWithStringCustomer()) {
      if (!isValidObjectId(card.customer)) continue;
      if (await this.legacy.convertCardCustomer(card._id, card.customer)) converted += 1;
    }
    return converted;
  }

  /** Drops what is left of the single-tenant build's indexes; returns them as `collection.index`. */
  private async dropLegacyIndexes(): Promise<string[]> {
    const dropped: string[] = [];
    for (const name of TENANT_COLLECTIONS) {
      const indexes = await this.legacy.indexesOf(name);
      for (const legacy of LEGACY_INDEXES[name]) {
        const found = indexes.find((index) => sameKey(index.key, legacy));
        if (!found?.name) continue;
        await this.legacy.dropIndex(name, found.name);
        dropped.push(`${name}.${found.name}`);
      }
    }
    return dropped;
  }
}

function finish(report: MigrationReport): MigrationReport {
  report.changed =
    report.accountCreated ||
    report.defaultProjectCreated ||
    report.membersAdded > 0 ||
    report.defaultCompaniesSet > 0 ||
    report.cardCustomersConverted > 0 ||
    report.legacyIndexesDropped.length > 0 ||
    report.eventApisEnabled > 0 ||
    Object.values(report.recordsMoved).some((count) => count > 0);
  return report;
}

/** The single-tenant role; anything else the old build could not have written becomes developer, the least. */
function roleOf(user: StoredUser): UserRole {
  return (USER_ROLES as readonly string[]).includes(user.role) ? (user.role as UserRole) : 'developer';
}

function sameKey(actual: Record<string, unknown>, expected: Record<string, number>): boolean {
  const a = Object.entries(actual);
  const e = Object.entries(expected);
  return (
    a.length === e.length && a.every(([field, direction], i) => field === e[i][0] && Number(direction) === e[i][1])
  );
}

/** The report as lines for a person. */
export function describeMigration(report: MigrationReport): string[] {
  const eventApis =
    report.eventApisEnabled > 0
      ? [`The events and webhooks APIs enabled on ${report.eventApisEnabled} platform project(s) made before them.`]
      : [];
  if (
    !report.changed ||
    (report.eventApisEnabled > 0 &&
      !report.accountId &&
      report.cardCustomersConverted === 0 &&
      report.legacyIndexesDropped.length === 0)
  ) {
    return [
      ...eventApis,
      report.accountId
        ? `Nothing to migrate: every record already belongs to a platform project ("${MIGRATED_ACCOUNT_NAME}" ${report.accountId}).`
        : 'Nothing to migrate: no records or users of a single-tenant build were found.',
    ];
  }
  const lines = report.accountId
    ? [
        `${report.accountCreated ? 'Created' : 'Using'} "${MIGRATED_ACCOUNT_NAME}" ${report.accountId}, owned by user ${report.ownerId}.`,
        `${report.defaultProjectCreated ? 'Created' : 'Using'} its default platform project ${report.defaultProjectId}.`,
        `Memberships added: ${report.membersAdded}; defaultCompany set for ${report.defaultCompaniesSet} user(s).`,
        `Records moved into the default project: ${TENANT_COLLECTIONS.map((name) => `${name} ${report.recordsMoved[name]}`).join(', ')}.`,
      ]
    : ['No records or users of a single-tenant build: no account was made.'];
  if (report.cardCustomersConverted > 0)
    lines.push(`Cards whose customer id was a string, now an ObjectId: ${report.cardCustomersConverted}.`);
  if (report.legacyIndexesDropped.length > 0)
    lines.push(`Single-tenant indexes dropped: ${report.legacyIndexesDropped.join(', ')}.`);
  return [...lines, ...eventApis];
}
