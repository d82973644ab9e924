import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { LegacyDataRepository } from './legacy-data.repository';
import { TENANT_COLLECTIONS, type TenantCollection } from './tenant-collections';

/**
 * Records of a single-tenant build have no platform project, so no request finds them. At start the
 * service looks for one such record per collection (raw driver: the tenantOwned plugin refuses
 * unscoped queries) and warns while any is left.
 */
@Injectable()
export class UnmigratedDataCheck implements OnApplicationBootstrap {
  private readonly logger = new Logger('Migrations');

  constructor(private readonly legacy: LegacyDataRepository) {}

  async onApplicationBootstrap(): Promise<void> {
    try {
      const warning = await this.check();
      if (warning) this.logger.warn(warning);
    } catch (error) {
      // Never a reason not to start: the readiness probe reports the database.
      this.logger.debug(`Could not look for unmigrated records: ${(error as Error).message}`);
    }
  }

  /** The collections that still hold a record without a project. */
  async findUnmigrated(): Promise<TenantCollection[]> {
    const found = await Promise.all(
      TENANT_COLLECTIONS.map(async (name) => {
        return (await this.legacy.holdsUnmigrated(name)) ? name : null;
      }),
    );
    return found.filter((name): name is TenantCollection => name !== null);
  }

  /** The warning to log, or null when every record has its project. */
  async check(): Promise<string | null> {
    const collections = await this.findUnmigrated();
    if (collections.length === 0) return null;
    return (
      `Records written before accounts existed have no platform project and no request can see them ` +
      `(${collections.join(', ')}). Run \`npm run migrate\` to move them into a "Migrated account".`
    );
  }
}
