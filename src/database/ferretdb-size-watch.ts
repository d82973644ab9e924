import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { InjectConnection } from '@nestjs/mongoose';
import type { Connection } from 'mongoose';
import { TENANT_FIELD } from '../common/database/tenant-field';
import { detectFerretdb } from './ferretdb';

/**
 * FerretDB 1.24 (the embedded default) hands a list's filter to PostgreSQL but sorts, skips and counts
 * in its own process, so every page of a tenant's list reads everything that tenant holds in that
 * collection, and the page's time grows with it. Past `RECORDS_PER_LIST_SECOND` records of one kind,
 * a tenant's lists take about a second or more (docs/operations.md, "The database"); on MongoDB an
 * index answers the same page at any size. This watch says so once per tenant and collection, in
 * the log, so the operator knows when to move to MongoDB. It runs only on FerretDB, a while after
 * the start and then rarely, and looks per tenant only in a collection whose whole size passes the
 * mark: no request ever waits for it.
 */
export const RECORDS_PER_LIST_SECOND = 4_000;
const FIRST_CHECK_MS = 60_000;
const CHECK_EVERY_MS = 15 * 60_000;

export interface LargeTenantCollection {
  collection: string;
  projectId: string;
  records: number;
}

@Injectable()
export class FerretdbSizeWatch implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Database');
  private readonly told = new Set<string>();
  private timer?: NodeJS.Timeout;

  constructor(@InjectConnection() private readonly connection: Connection) {}

  async onApplicationBootstrap(): Promise<void> {
    if (!(await detectFerretdb(this.connection))) return;
    const run = () => {
      this.check().catch((error: Error) => this.logger.debug(`Size check skipped: ${error.message}`));
    };
    this.timer = setTimeout(() => {
      run();
      this.timer = setInterval(run, CHECK_EVERY_MS);
      this.timer.unref();
    }, FIRST_CHECK_MS);
    this.timer.unref();
  }

  /** Whether checks are scheduled: on FerretDB only. */
  get watching(): boolean {
    return this.timer !== undefined;
  }

  onApplicationShutdown(): void {
    clearTimeout(this.timer);
    clearInterval(this.timer);
  }

  /** Tenants whose records of one kind passed `threshold` since the last check: each is logged once per process. */
  async check(threshold = RECORDS_PER_LIST_SECOND): Promise<LargeTenantCollection[]> {
    const found: LargeTenantCollection[] = [];
    for (const model of Object.values(this.connection.models)) {
      if (!model.schema.path(TENANT_FIELD)) continue;
      // The raw collection: this counts across tenants on purpose, which the tenant plugin refuses.
      const collection = this.connection.db!.collection(model.collection.collectionName);
      if ((await collection.estimatedDocumentCount()) < threshold) continue;
      const large = await collection
        .aggregate<{ _id: unknown; records: number }>([
          { $group: { _id: `$${TENANT_FIELD}`, records: { $sum: 1 } } },
          { $match: { records: { $gte: threshold } } },
        ])
        .toArray();
      for (const { _id, records } of large) {
        const key = `${collection.collectionName}:${String(_id)}`;
        if (this.told.has(key)) continue;
        this.told.add(key);
        found.push({ collection: collection.collectionName, projectId: String(_id), records });
        this.logger.warn(
          `Project ${String(_id)} holds ${records} records in ${collection.collectionName}: on FerretDB 1.24 every page of its ` +
            'lists there reads all of them, so they take a second or more and grow with it. ' +
            'Move to MongoDB (set MONGODB_URI; docs/operations.md, "The database").',
        );
      }
    }
    return found;
  }
}
