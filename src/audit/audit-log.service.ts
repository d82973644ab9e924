import { ForbiddenException, Injectable, NotFoundException } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { MembershipLookup } from '../tenancy/tenancy-lookups';
import { AuditEntriesRepository, type AuditFilters } from './audit-entries.repository';
import type { AuditEntry } from './audit-entry.schema';
import { AuditTrail, type ChainCheck } from './audit-trail';
import type { AuditEntryResponse } from './dto/audit-entry.response';

export const ACCOUNT_NOT_FOUND = 'Account not found';
const ADMINS_ONLY = 'The audit log is for the account admins and its owner';
const CSV_COLUMNS = [
  'sequence',
  'id',
  'occurredAt',
  'action',
  'actorType',
  'actorId',
  'actorLabel',
  'targetType',
  'targetId',
  'targetLabel',
  'projectId',
  'changes',
  'ip',
  'userAgent',
  'requestId',
  'hash',
];

/** Reading an account's audit log: admins and the owner only; another account is as absent as a missing one. */
@Injectable()
export class AuditLogService {
  constructor(
    private readonly entries: AuditEntriesRepository,
    private readonly trail: AuditTrail,
    private readonly modules: ModuleRef,
  ) {}

  async page(accountId: string, userId: string, filters: AuditFilters, limit: number, startingAfter?: string) {
    await this.requireAdmin(accountId, userId);
    const cursor = startingAfter ? await this.entries.findByEntryId(accountId, startingAfter) : null;
    const rows = await this.entries.page(accountId, filters, limit, cursor?.sequence);
    return { data: rows.slice(0, limit).map(toEntryResponse), hasMore: rows.length > limit };
  }

  /** Every matching entry, oldest first, as JSON lines or CSV rows, one at a time. */
  async *export(
    accountId: string,
    userId: string,
    filters: AuditFilters,
    format: 'jsonl' | 'csv',
  ): AsyncGenerator<string> {
    await this.requireAdmin(accountId, userId);
    if (format === 'csv') yield `${CSV_COLUMNS.map(csvCell).join(',')}\n`;
    for await (const entry of this.entries.each(accountId, filters)) {
      const view = toEntryResponse(entry);
      if (format === 'jsonl') yield `${JSON.stringify(view)}\n`;
      else {
        const cells = [
          view.sequence,
          view.id,
          view.occurredAt,
          view.action,
          view.actor.type,
          view.actor.id,
          view.actor.label,
          view.target.type,
          view.target.id,
          view.target.label,
          view.projectId,
          view.changes ? JSON.stringify(view.changes) : null,
          view.ip,
          view.userAgent,
          view.requestId,
          view.hash,
        ];
        yield `${cells.map(csvCell).join(',')}\n`;
      }
    }
  }

  async verify(accountId: string, userId: string): Promise<ChainCheck> {
    await this.requireAdmin(accountId, userId);
    return this.trail.verify(accountId);
  }

  /**
   * An admin or the owner of the account, whichever account the caller's token acts in, as the other
   * account routes have it; not a member: 404. The membership is read through tenancy's lookup,
   * which the accounts module provides (resolved here, not imported: accounts records to this log).
   */
  private async requireAdmin(accountId: string, userId: string): Promise<void> {
    const membership = await this.modules.get(MembershipLookup, { strict: false }).find(accountId, userId);
    if (!membership) throw new NotFoundException(ACCOUNT_NOT_FOUND);
    if (!membership.owner && membership.role !== 'admin') throw new ForbiddenException(ADMINS_ONLY);
  }
}

function toEntryResponse(entry: AuditEntry): AuditEntryResponse {
  return {
    id: entry.entryId,
    sequence: entry.sequence,
    action: entry.action,
    occurredAt: new Date(entry.occurredAt).toISOString(),
    actor: entry.actor,
    target: entry.target,
    projectId: entry.projectId ?? null,
    changes: entry.changes ? (JSON.parse(entry.changes) as AuditEntryResponse['changes']) : null,
    ip: entry.ip ?? null,
    userAgent: entry.userAgent ?? null,
    requestId: entry.requestId ?? null,
    hash: entry.hash,
  };
}

const QUOTE = '"';
/** What a spreadsheet reads as the start of a formula (OWASP, CSV injection). */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * A CSV cell (RFC 4180), and never a formula a spreadsheet would run: every cell is quoted, so a
 * spreadsheet that splits on another separator (`;` in many locales) keeps it one cell, and one that
 * starts as a formula is led by `'`, which spreadsheets show as text.
 */
export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return QUOTE + QUOTE;
  let text = String(value);
  if (FORMULA_START.test(text)) text = `'${text}`;
  return QUOTE + text.split(QUOTE).join(QUOTE + QUOTE) + QUOTE;
}
