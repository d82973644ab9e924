import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { ModuleRef } from '@nestjs/core';
import { eventsConfig } from '../config/events.config';
import { createHash, randomUUID } from 'node:crypto';
import { RecordProbe } from '../database/record-probe';
import { JobRunner, type JobHandle } from '../jobs/job-runner';
import type { AuditChanges, AuditContext, AuditDraft } from './audit-draft';
import { AuditChainsRepository } from './audit-chains.repository';
import { AuditEntriesRepository } from './audit-entries.repository';
import type { AuditEntry } from './audit-entry.schema';
import type { AuditExpectation, AuditIntent, RecordExpectation, RefundExpectation } from './audit-intent.schema';
import { AuditIntentsRepository } from './audit-intents.repository';
import { RefundSettlements } from './audit.ports';
import { scopeOfRecord } from '../tenancy/tenant-scope';
import { canonicalJson } from './canonical-json';
import { growingLru } from '../common/cache/growing-lru';

/** What a caller says of an action; the trail adds who, when, from where, its number and its hash. */
export type AuditInput = Pick<AuditDraft, 'accountId' | 'action' | 'target'> &
  Partial<Pick<AuditDraft, 'projectId' | 'entryId'>> & { changes?: AuditChanges | null };

/**
 * The entry id of an action that a retry may run again (a refund under an `Idempotency-Key`): the
 * same for every run, so however many runs there are, the log has one entry.
 */
export function auditEntryIdOf(actionKey: string): string {
  const hex = createHash('sha256').update(actionKey).digest('hex');
  return `aud_${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

export interface ChainCheck {
  valid: boolean;
  checked: number;
  firstBrokenSequence: number | null;
}

const APPEND_ATTEMPTS = 50;
/** Accounts whose newest entry this instance remembers, and for how long (far less than any retention). */
const HEADS_KEPT = 10_000;
const HEAD_KEPT_MS = 3_600_000;

/** What appending needs of an account's newest entry. */
interface ChainHead {
  sequence: number;
  hash: string;
}
const SWEEP_INTERVAL_MS = 15_000;
const SWEEP_GRACE_MS = 30_000;
/** Intents a sweep reads at a time, and at most how many times. */
const SWEEP_PAGE = 100;
const SWEEP_PAGES = 10;
const DAY_MS = 86_400_000;
const RETENTION_INTERVAL_MS = 3_600_000;
/** How long one instance holds retention at a time, renewed while it runs. */
const RETENTION_LEASE_MS = 60_000;

/**
 * The audit log's writer. An audited action and its entry succeed or fail together: the entry's
 * intent is written first, the action runs, then the entry is appended and the intent removed; an
 * action that fails drops its intent. An intent a stopped process left is settled by the sweep on any
 * instance, from the state the action leaves its record in (there, gone, these field values).
 *
 * Appending numbers the entry after the account's newest one under a unique index on (account,
 * number), retried on a clash, so concurrent appends on any instance neither share nor skip a number,
 * and chains it: `hash` = SHA-256 of the previous entry's hash and this entry's canonical JSON.
 * Each account's chain has a stored head, moved forward after every append, and an anchor, moved by
 * retention only, which removes entries from the start by number: so entries are numbered without
 * gaps from the anchor to at least the head, and anything else `verify` finds is a removal or an edit.
 */
@Injectable()
export class AuditTrail implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(AuditTrail.name);
  private readonly jobs: JobHandle[] = [];
  /**
   * The newest entry this instance appended or read, per account: the next append tries the number
   * after it at once, and the unique index refuses it when another instance got there first.
   */
  private readonly heads = growingLru<string, ChainHead>(HEADS_KEPT, { ttl: HEAD_KEPT_MS });

  constructor(
    private readonly entries: AuditEntriesRepository,
    private readonly intents: AuditIntentsRepository,
    private readonly probe: RecordProbe,
    private readonly chains: AuditChainsRepository,
    @Inject(eventsConfig.KEY) private readonly config: ConfigType<typeof eventsConfig>,
    private readonly modules: ModuleRef,
    private readonly runner: JobRunner,
  ) {}

  onModuleInit(): void {
    this.jobs.push(this.runner.register({ name: 'audit.sweep', everyMs: SWEEP_INTERVAL_MS, run: () => this.sweep() }));
    // Removing entries by number is one instance's work: the others would only race it.
    this.jobs.push(
      this.runner.register({
        name: 'audit.retention',
        everyMs: RETENTION_INTERVAL_MS,
        lease: { holdMs: RETENTION_LEASE_MS },
        run: () => this.expire(this.config.auditRetentionDays),
      }),
    );
  }

  async onModuleDestroy(): Promise<void> {
    await Promise.all(this.jobs.map((job) => job.stop()));
  }

  /** Runs the audited action; its entry is appended when, and only when, it succeeded. */
  async record<T>(
    context: AuditContext,
    input: AuditInput,
    expect: AuditExpectation,
    action: () => Promise<T>,
  ): Promise<T> {
    const draft = await this.draft(context, input);
    // An intent there already is an earlier run's of the same action, which this run must not drop.
    const own = await this.intents.insert(draft, expect);
    let result: T;
    try {
      result = await action();
    } catch (error) {
      if (own) await this.intents.remove(draft.entryId).catch(() => undefined);
      throw error;
    }
    try {
      await this.append(draft);
      await this.intents.remove(draft.entryId);
    } catch (error) {
      // The action stands; its entry is appended by the sweep.
      this.logger.warn(`Appending audit entry ${draft.entryId} failed, left to the sweep: ${(error as Error).message}`);
    }
    return result;
  }

  /** An entry for an action that is done already and leaves no record to check (a login). */
  async appendNow(context: AuditContext, input: AuditInput): Promise<void> {
    await this.append(await this.draft(context, input));
  }

  /** Appends the draft as the account's next entry; once only, however often it is asked. */
  async append(draft: AuditDraft): Promise<void> {
    const accountId = draft.accountId;
    let head = this.heads.get(accountId) ?? (await this.findHead(accountId));
    for (let attempt = 0; attempt < APPEND_ATTEMPTS; attempt++) {
      const sequence = (head?.sequence ?? 0) + 1;
      const entry = { ...entryFields(draft), sequence, previousHash: head?.hash ?? '' };
      const hash = hashOf(entry);
      const outcome = await this.entries.insert({ ...entry, hash } as unknown as Omit<AuditEntry, '_id'>);
      if (outcome === 'inserted') {
        this.heads.set(accountId, { sequence, hash });
        await this.chains.advanceHead(accountId, sequence, hash, entry.previousHash);
        return;
      }
      if (await this.entries.hasEntry(draft.entryId)) return;
      // Another append of this instance may have got further meanwhile: search on from there.
      const known = this.heads.get(accountId);
      head = await this.findHead(accountId, known && known.sequence > (head?.sequence ?? 0) ? known : head);
    }
    throw new Error(`No free audit sequence number for account ${accountId} after ${APPEND_ATTEMPTS} attempts`);
  }

  /**
   * The account's newest entry, by lookups of single numbers (sorting on FerretDB reads every entry
   * of the account): from `after`, known to exist, or from the stored head of the chain, or from the
   * first entry, onwards in doubling steps, then halving the gap between the last number found and
   * the first missing. Numbers have no gaps from the oldest kept entry on, so this finds the newest.
   * The stored head stands even when its entry is gone (retention dropped every entry, or someone
   * removed the newest): numbering goes on after it, and `verify` reports what went missing. Only an
   * account with no stored head (its log predates heads) and no entry number 1 has its entries sorted.
   */
  private async findHead(accountId: string, after?: ChainHead | null): Promise<ChainHead | null> {
    let found: ChainHead | null =
      after ?? (await this.storedHead(accountId)) ?? (await this.entries.atSequence(accountId, 1));
    if (!found) found = await this.entries.newest(accountId);
    if (!found) return null;
    let missing: number | undefined;
    for (let step = 1; missing === undefined; step *= 2) {
      const next = await this.entries.atSequence(accountId, found.sequence + step);
      if (next) found = next;
      else missing = found.sequence + step;
    }
    while (missing - found.sequence > 1) {
      const middle = Math.floor((found.sequence + missing) / 2);
      const entry = await this.entries.atSequence(accountId, middle);
      if (entry) found = entry;
      else missing = middle;
    }
    const head = { sequence: found.sequence, hash: found.hash };
    this.heads.set(accountId, head);
    return head;
  }

  /**
   * Settles intents older than `graceMs`: appends the entry when the action's record shows it
   * happened, else drops it; leaves one whose area has still to finish or undo its action (its
   * `undecidedWhile`), for a later sweep. Returns how many it settled.
   */
  async sweep(graceMs = SWEEP_GRACE_MS): Promise<number> {
    const cutoff = new Date(Date.now() - graceMs);
    const seen = new Set<string>();
    let settled = 0;
    let from: Date | undefined;
    // Undecided intents stay, oldest first: the pages go on past them, so they never hold up the rest.
    for (let page = 0; page < SWEEP_PAGES; page++) {
      const stale = (await this.intents.olderThan(cutoff, SWEEP_PAGE, from)).filter((intent) => !seen.has(intent._id));
      for (const intent of stale) {
        seen.add(intent._id);
        // One intent that cannot be judged now (its area's port unreachable) waits; the others are settled.
        const verdict = await this.verdict(intent).catch((error: Error) => {
          this.logger.warn(`Audit intent ${intent._id} left for a later sweep: ${error.message}`);
          return 'undecided' as const;
        });
        if (verdict === 'undecided') continue;
        if (verdict === 'happened')
          await this.append({ ...intent.draft, occurredAt: new Date(intent.draft.occurredAt) });
        await this.intents.remove(intent._id);
        settled++;
      }
      if (stale.length === 0) break;
      from = new Date(stale[stale.length - 1].createdAt);
    }
    return settled;
  }

  /**
   * Walks the account's entries in order, each hash recomputed: from the anchor (the first kept
   * number and the hash it follows) without a gap up to the stored head, which must be there with
   * its hash. An account whose log predates anchors starts at its oldest entry.
   */
  async verify(accountId: string): Promise<ChainCheck> {
    const chain = await this.chains.find(accountId);
    const anchor = chain?.anchorSequence ?? undefined;
    let checked = 0;
    let expectedSequence: number | undefined = anchor;
    let previousHash: string | undefined = anchor !== undefined ? (chain?.anchorPreviousHash ?? '') : undefined;
    const broken = (sequence: number) => ({ valid: false, checked, firstBrokenSequence: sequence });
    for await (const entry of this.entries.each(accountId)) {
      // Below the anchor: retention moved it and is removing these.
      if (anchor !== undefined && entry.sequence < anchor) continue;
      const intact =
        (expectedSequence === undefined || entry.sequence === expectedSequence) &&
        (previousHash === undefined || entry.previousHash === previousHash) &&
        hashOf(storedFields(entry)) === entry.hash &&
        (entry.sequence !== chain?.headSequence || entry.hash === chain.headHash);
      if (!intact)
        return broken(
          expectedSequence !== undefined && entry.sequence > expectedSequence ? expectedSequence : entry.sequence,
        );
      checked++;
      expectedSequence = entry.sequence + 1;
      previousHash = entry.hash;
    }
    // Entries removed from the end leave a chain valid as far as it goes: the head says how far it went.
    if (chain && (expectedSequence ?? 1) <= chain.headSequence) return broken(expectedSequence ?? 1);
    return { valid: true, checked, firstBrokenSequence: null };
  }

  /**
   * Drops entries older than `days`, by number: in each account, every entry numbered below its
   * first entry that is not that old (all of them when none is), so the chain loses its start and
   * never a piece of its middle (an entry the sweep appended late is numbered after younger ones).
   * The anchor is moved first: a stop in between leaves entries `verify` skips, not a false break.
   */
  async expire(days: number): Promise<number> {
    const cutoff = new Date(Date.now() - days * DAY_MS);
    let removed = 0;
    for (const accountId of await this.entries.accountsWithEntriesBefore(cutoff)) {
      const newest = await this.findHead(accountId);
      if (!newest) continue;
      const kept = await this.entries.firstSince(accountId, cutoff);
      const start = kept
        ? { sequence: kept.sequence, previousHash: kept.previousHash }
        : { sequence: newest.sequence + 1, previousHash: newest.hash };
      await this.chains.anchor(accountId, start.sequence, start.previousHash, newest);
      removed += await this.entries.deleteBefore(accountId, start.sequence);
    }
    return removed;
  }

  private async storedHead(accountId: string): Promise<ChainHead | null> {
    const chain = await this.chains.find(accountId);
    return chain ? { sequence: chain.headSequence, hash: chain.headHash } : null;
  }

  /** The draft, its user actor labelled by their email (read here: the routes know only the id). */
  private async draft(context: AuditContext, input: AuditInput): Promise<AuditDraft> {
    let actor = context.actor;
    if (actor.type === 'user' && !actor.label) {
      const user = await this.probe.find('users', actor.id);
      actor = { ...actor, label: typeof user?.email === 'string' ? user.email : null };
    }
    const { changes, ...rest } = input;
    const { entryId = `aud_${randomUUID()}`, ...fields } = rest;
    return {
      entryId,
      occurredAt: new Date(),
      projectId: null,
      ...context,
      actor,
      ...fields,
      changes: changes ? JSON.stringify(changes) : null,
    };
  }

  private async verdict(intent: AuditIntent): Promise<'happened' | 'not-happened' | 'undecided'> {
    const refund = refundOf(intent.expect);
    if (!refund) return (await this.happened(intent.expect as RecordExpectation)) ? 'happened' : 'not-happened';
    if (!intent.draft.projectId) throw new Error(`Audit intent ${intent._id} names a refund but no project`);
    // Resolved here, not at start: payments records to this log, and an application without payments never writes a refund's intent.
    const settlements = this.modules.get(RefundSettlements, { strict: false });
    const state = await settlements.refundState(
      scopeOfRecord({ accountId: intent.draft.accountId, projectId: intent.draft.projectId }),
      refund.paymentId,
      refund.refundId,
    );
    return state === 'applied' ? 'happened' : state === 'pending' ? 'undecided' : 'not-happened';
  }

  private async happened(expect: RecordExpectation): Promise<boolean> {
    const record = await this.probe.find(expect.collection, expect.id);
    if (expect.exists === false) return record === null;
    if (!record) return false;
    return (
      hasFields(record, expect.fields ?? {}) &&
      (expect.present ?? []).every((field) => record[field] !== null && record[field] !== undefined)
    );
  }
}

/**
 * The refund an intent expects, if any. An intent stored in the earlier form names the payment and
 * the refund record by collection (`listed.refundIds`, `undecidedWhile`): it is read as a refund's.
 */
function refundOf(expect: AuditExpectation): RefundExpectation['refund'] | null {
  if ('refund' in expect) return expect.refund;
  const earlier = expect as RecordExpectation & {
    listed?: { refundIds?: string };
    undecidedWhile?: { collection: string; id: string };
  };
  if (earlier.collection === 'payments' && earlier.listed?.refundIds)
    return { paymentId: earlier.id, refundId: earlier.listed.refundIds };
  return null;
}

function hasFields(record: Record<string, unknown>, fields: Record<string, unknown>): boolean {
  return Object.entries(fields).every(
    ([field, value]) => JSON.stringify(record[field] ?? null) === JSON.stringify(value ?? null),
  );
}

type Chained = ReturnType<typeof entryFields> & { sequence: number; previousHash: string };

function entryFields(draft: AuditDraft) {
  return {
    accountId: draft.accountId,
    entryId: draft.entryId,
    action: draft.action,
    occurredAt: new Date(draft.occurredAt),
    actor: draft.actor,
    target: draft.target,
    projectId: draft.projectId,
    changes: draft.changes,
    ip: draft.ip,
    userAgent: draft.userAgent,
    requestId: draft.requestId,
  };
}

/** The fields a stored entry's hash covers, read back as stored. */
function storedFields(entry: AuditEntry): Chained {
  return {
    ...entryFields({ ...entry, accountId: String(entry.accountId) } as unknown as AuditDraft),
    sequence: entry.sequence,
    previousHash: entry.previousHash,
  };
}

function hashOf(entry: Chained): string {
  const { previousHash, ...fields } = entry;
  return createHash('sha256')
    .update(previousHash)
    .update(canonicalJson({ ...fields, accountId: String(fields.accountId) }))
    .digest('hex');
}
