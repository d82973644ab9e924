import { ConflictException, Injectable, Logger, NotFoundException } from '@nestjs/common';
import { OnInProcessEvent } from '../in-process-events/in-process-events';
import { Types } from 'mongoose';
import type { AuditContext } from '../audit/audit-draft';
import type { AuditParty } from '../audit/audit-entry.schema';
import { AuditTrail } from '../audit/audit-trail';
import { toObjectId } from '../database/records';
import { Clock } from '../common/clock/clock';
import { Leases } from '../leases/leases.service';
import { RequestValidationException } from '../common/pipes/validation.pipe';
import { PlatformProject } from '../platform-projects/platform-project.schema';
import { PLATFORM_PROJECT_DELETED, PlatformProjectDeletedEvent } from '../platform-projects/platform-projects.events';
import { normaliseApis, PlatformProjectsService } from '../platform-projects/platform-projects.service';
import type { ApiName } from '../tenancy/api-names';
import type { Principal } from '../tenancy/principal';
import { type ApiKeyKind, generateApiKey, hasApiKeyForm, hashApiKey, kindOfKey } from './api-key-secret';
import { ApiKeysRepository, KeyCheck, KeyProject } from './api-keys.repository';
import { toApiKeyView, toCreatedApiKeyView } from './api-keys.mapper';
import { ApiKeyView, CreatedApiKeyView } from './dto/api-key.response';
import { CreateApiKeyDto } from './dto/create-api-key.dto';

export const API_KEY_NOT_FOUND = 'API key not found';
/** `lastUsedAt` is written at most this often per key. */
export const LAST_USED_RESOLUTION_MS = 60_000;
const HOUR_MS = 3_600_000;
const ROLL_BUSY = 'API key is being rolled by another request: try again';

type ApiKeyPrincipal = Extract<Principal, { kind: 'apiKey' }>;

/**
 * API keys of platform projects, secret and publishable: issued, listed, revoked and rolled by the account's admins inside
 * the token's account, and checked on every request that presents one. Nothing is cached: a revoked
 * or expired key fails at its next request on every instance.
 */
@Injectable()
export class ApiKeysService {
  private readonly logger = new Logger(ApiKeysService.name);

  constructor(
    private readonly keys: ApiKeysRepository,
    private readonly projects: PlatformProjectsService,
    private readonly clock: Clock,
    private readonly trail: AuditTrail,
    private readonly leases: Leases,
  ) {}

  async create(
    audit: AuditContext,
    accountId: string,
    projectId: string,
    dto: CreateApiKeyDto,
  ): Promise<CreatedApiKeyView> {
    const project = await this.projects.require(accountId, projectId);
    const kind = dto.kind ?? 'secret';
    if (kind === 'publishable' && dto.scopes) {
      throw new RequestValidationException([
        { field: 'scopes', messages: ['a publishable key takes no scopes: it reads the /viewer routes only'] },
      ]);
    }
    const scopes = dto.scopes ? normaliseApis(dto.scopes) : null;
    const disabled = (scopes ?? []).filter((api) => !project.enabledApis.includes(api));
    if (disabled.length > 0) {
      throw new RequestValidationException([
        { field: 'scopes', messages: [`scopes must be enabled in the project; not enabled: ${disabled.join(', ')}`] },
      ]);
    }
    const expiresAt = dto.expiresAt == null ? null : new Date(dto.expiresAt);
    if (expiresAt && expiresAt.getTime() <= this.clock.now().getTime()) {
      throw new RequestValidationException([{ field: 'expiresAt', messages: ['expiresAt must be in the future'] }]);
    }
    return this.issue(project, dto.name, kind, scopes, expiresAt, (key, run) =>
      this.trail.record(
        audit,
        { accountId, action: 'api_key.created', target: key, projectId },
        { collection: 'api_keys', id: key.id, exists: true },
        run,
      ),
    );
  }

  /** Newest first, revoked and expired ones included (their dates say so); never the key or its hash. */
  async list(accountId: string, projectId: string): Promise<ApiKeyView[]> {
    const project = await this.projects.require(accountId, projectId);
    const keys = await this.keys.listForProject(keyProject(project));
    return keys.map(toApiKeyView);
  }

  /** Stops the key at once. Revoking a revoked key changes nothing and answers the same. */
  async revoke(audit: AuditContext, accountId: string, projectId: string, keyId: string): Promise<void> {
    const project = await this.projects.require(accountId, projectId);
    const key = await this.keys.findInProject(keyProject(project), keyId);
    if (!key) throw new NotFoundException(API_KEY_NOT_FOUND);
    const target = { type: 'api_key', id: String(key._id), label: key.start };
    const revoked = await this.trail.record(
      audit,
      { accountId, action: 'api_key.revoked', target, projectId },
      { collection: 'api_keys', id: target.id, present: ['revokedAt'] },
      () => this.keys.revoke(keyProject(project), keyId, this.clock.now()),
    );
    if (!revoked) throw new NotFoundException(API_KEY_NOT_FOUND);
  }

  /**
   * A new key with the old one's name, scopes and own expiry (the one it was issued with, not a
   * grace end an earlier roll gave it: the newest key never expires unless asked); the old one keeps
   * working for `graceHours` more (never longer than it would have anyway: its end only ever moves
   * earlier). A key has one successor: rolling it again is 409. Rolls of one key run one at a time
   * under its lease (FerretDB does not apply a guarded update atomically; the lease's insert is), so
   * of two concurrent rolls the second finds the first's successor. The new key, which names the old
   * one, exists before the old one's end is moved, so a failure in between leaves the caller with a
   * working key and the old key with its successor.
   */
  async roll(
    audit: AuditContext,
    accountId: string,
    projectId: string,
    keyId: string,
    graceHours: number,
  ): Promise<CreatedApiKeyView> {
    const project = await this.projects.require(accountId, projectId);
    const found = await this.keys.findInProject(keyProject(project), keyId);
    if (!found) throw new NotFoundException(API_KEY_NOT_FOUND);
    return this.leases.withLease(`api-key-roll:${String(found._id)}`, ROLL_BUSY, async () => {
      const old = await this.keys.findInProject(keyProject(project), keyId);
      if (!old) throw new NotFoundException(API_KEY_NOT_FOUND);
      // Asked first: a roll that ended the key at once (no grace) leaves it expired as well.
      if (await this.keys.hasSuccessor(old._id))
        throw new ConflictException('API key was already rolled: roll its successor, or create a new key');
      const now = this.clock.now();
      if (old.revokedAt) throw new ConflictException('API key is revoked: create a new one');
      if (old.expiresAt && old.expiresAt.getTime() <= now.getTime())
        throw new ConflictException('API key has expired: create a new one');
      const graceEnd = new Date(now.getTime() + graceHours * HOUR_MS);
      const target = { type: 'api_key', id: String(old._id), label: old.start };
      return this.issue(
        project,
        old.name,
        old.kind ?? 'secret',
        old.scopes,
        old.ownExpiresAt === undefined ? old.expiresAt : old.ownExpiresAt,
        (key, run) =>
          this.trail.record(
            audit,
            { accountId, action: 'api_key.rolled', target, projectId, changes: { key: [target.label, key.label] } },
            { collection: 'api_keys', id: key.id, exists: true },
            async () => {
              const created = await run();
              await this.keys.shortenTo(old._id, graceEnd);
              return created;
            },
          ),
        old._id,
      );
    });
  }

  /**
   * The principal of a bearer token that is a live key of this service, else null. One indexed read
   * by the key's SHA-256, with only the fields checked here, straight from the collection (it runs on
   * every request a key makes); a token not of the issued form is refused without one.
   */
  async authenticate(token: string): Promise<ApiKeyPrincipal | null> {
    if (!hasApiKeyForm(token)) return null;
    const key = await this.keys.findKeyByHash(hashApiKey(token));
    if (!key || key.revokedAt) return null;
    const now = this.clock.now();
    if (key.expiresAt && key.expiresAt.getTime() <= now.getTime()) return null;
    // The prefix and the stored kind agree for every key issued; a token that says otherwise is no key.
    if ((key.kind ?? 'secret') !== kindOfKey(token)) return null;
    this.recordUse(key, now);
    return {
      kind: 'apiKey',
      publishable: key.kind === 'publishable',
      keyId: String(key._id),
      accountId: String(key.accountId),
      projectId: String(key.projectId),
      scopes: key.scopes ? [...key.scopes] : null,
    };
  }

  /** A deleted project's keys go with it. */
  @OnInProcessEvent(PLATFORM_PROJECT_DELETED, { suppressErrors: false })
  async onPlatformProjectDeleted(event: PlatformProjectDeletedEvent): Promise<void> {
    const accountId = toObjectId(event.accountId);
    const projectId = toObjectId(event.projectId);
    if (accountId && projectId) await this.keys.deleteForProject({ accountId, projectId });
  }

  /** Issues a key; `audited` runs the insert as the audited action, given the key as the log names it. */
  private async issue(
    project: PlatformProject,
    name: string,
    kind: ApiKeyKind,
    scopes: ApiName[] | null,
    expiresAt: Date | null,
    audited: (key: AuditParty, run: () => Promise<CreatedApiKeyView>) => Promise<CreatedApiKeyView>,
    rolledFrom?: Types.ObjectId,
  ): Promise<CreatedApiKeyView> {
    const secret = generateApiKey(kind);
    const _id = new Types.ObjectId();
    return audited({ type: 'api_key', id: String(_id), label: secret.start }, async () => {
      const created = await this.keys.insert({
        _id,
        hash: secret.hash,
        start: secret.start,
        name,
        kind,
        accountId: project.accountId,
        projectId: project._id,
        scopes,
        expiresAt,
        ownExpiresAt: expiresAt,
        ...(rolledFrom ? { rolledFrom } : {}),
      });
      return toCreatedApiKeyView(created, secret.key);
    });
  }

  /**
   * `lastUsedAt`, at most once a minute per key and off the request's path: not awaited, its
   * failure only logged. The guard in the filter keeps concurrent requests of one key from all
   * writing (on MongoDB; FerretDB may let a few through, which only rewrites the same minute).
   */
  private recordUse(key: Pick<KeyCheck, '_id' | 'lastUsedAt'>, now: Date): void {
    const cutoff = new Date(now.getTime() - LAST_USED_RESOLUTION_MS);
    if (key.lastUsedAt && key.lastUsedAt.getTime() >= cutoff.getTime()) return;
    this.keys
      .recordUse(key._id, now, cutoff)
      .catch((error: Error) =>
        this.logger.warn(`Recording the use of API key ${String(key._id)} failed: ${error.message}`),
      );
  }
}

function keyProject(project: PlatformProject): KeyProject {
  return { accountId: project.accountId, projectId: project._id };
}
