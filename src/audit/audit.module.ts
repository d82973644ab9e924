import { Global, Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { RecordProbe } from '../database/record-probe';
import { AuditChain, AuditChainSchema } from './audit-chain.schema';
import { AuditChainsRepository } from './audit-chains.repository';
import { AuditEntriesRepository } from './audit-entries.repository';
import { AuditEntry, AuditEntrySchema } from './audit-entry.schema';
import { AuditIntent, AuditIntentSchema } from './audit-intent.schema';
import { AuditIntentsRepository } from './audit-intents.repository';
import { AuditLogController } from './audit-log.controller';
import { AuditLogService } from './audit-log.service';
import { AuditTrail } from './audit-trail';

/**
 * Each account's audit log: written through `AuditTrail` (global, so any module's service records
 * its actions), read, exported and verified by its routes. Invariants: an action and its entry
 * succeed or fail together (the entry's intent first, settled by a sweep after a crash); entries
 * are numbered without gaps per account and chained by SHA-256, with a stored head and anchor, so
 * `verify` finds any entry edited or removed; no route changes or deletes one, and retention
 * removes only the oldest. A stopped refund's entry is settled by asking the payments module where
 * the refund stands, through the `RefundSettlements` port declared here (audit.ports.ts), which
 * payments provides without this module importing it.
 */
@Global()
@Module({
  imports: [
    MongooseModule.forFeature([
      { name: AuditEntry.name, schema: AuditEntrySchema },
      { name: AuditIntent.name, schema: AuditIntentSchema },
      { name: AuditChain.name, schema: AuditChainSchema },
    ]),
  ],
  controllers: [AuditLogController],
  providers: [
    AuditEntriesRepository,
    AuditIntentsRepository,
    AuditChainsRepository,
    AuditTrail,
    AuditLogService,
    RecordProbe,
  ],
  exports: [AuditTrail],
})
export class AuditModule {}
