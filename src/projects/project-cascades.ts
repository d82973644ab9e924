import { ConflictException, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { Types } from 'mongoose';
import { AssetsService } from '../assets/assets.service';
import { ChannelsService } from '../channels/channels.service';
import { CollaboratorsService } from '../collaborators/collaborators.service';
import { InProcessEmitter } from '../in-process-events/in-process-events';
import { JobRunner, type JobHandle, type JobStep } from '../jobs/job-runner';
import { Leases } from '../leases/leases.service';
import { scopeOfRecord, type TenantScope } from '../tenancy/tenant-scope';
import type { CascadeKind, ProjectDeletion } from './project-deletion.schema';
import { ProjectDeletionsRepository } from './project-deletions.repository';
import { PROJECTS_DELETED, type ProjectsDeletedEvent } from './projects.events';
import { ProjectsRepository } from './projects.repository';

/** How long one run of a cascade holds its lease at a time (renewed while it lives). */
const CASCADE_HOLD_MS = 15_000;
/** How long a request waits for another run of the same cascade (a request's, or the sweep's). */
const CASCADE_WAIT_MS = 20_000;
/** How long a fresh cascade is left to its own request before the sweep takes it as stopped. */
const CASCADE_GRACE_MS = 10_000;
/** How often every instance looks for cascades left unfinished. */
const SWEEP_INTERVAL_MS = 5_000;
/** Waits before the next try of a cascade that failed, by tries so far (the last repeats). */
const BACKOFF_MS = [5_000, 30_000, 120_000, 600_000];
const CASCADE_BUSY = 'This delete is in progress; retry the request';

const leaseOf = (rootId: string) => `project-cascade:${rootId}`;

/**
 * Cascades of content projects (a project and its subtree, a channel's projects), finished whatever
 * stops them. Invariant: a cascade is recorded (`project_deletions`, its root, tenant and members)
 * before anything of it is removed; its assets and then its projects are marked, so none of them is
 * read, served or built under from then on; then, in order, a channel's record (should its delete
 * have stopped before it), each asset's bytes and record, the share links and grants
 * (PROJECTS_DELETED), a channel's collaborators, each project deepest first (`project.deleted`),
 * the channel's `projectIds`, and the record last. Every step is a no-op once
 * done and records the same event however often it runs, so a run stopped anywhere is run again
 * from the start, by a retried delete or by any instance's sweep, one run at a time under the
 * cascade's lease.
 */
@Injectable()
export class ProjectCascades implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(ProjectCascades.name);
  private job?: JobHandle;

  constructor(
    private readonly deletions: ProjectDeletionsRepository,
    private readonly projects: ProjectsRepository,
    private readonly assets: AssetsService,
    private readonly channels: ChannelsService,
    private readonly collaborators: CollaboratorsService,
    private readonly leases: Leases,
    private readonly events: InProcessEmitter,
    private readonly jobs: JobRunner,
  ) {}

  /** Every instance sweeps, at start and then regularly; each cascade runs under its own lease. */
  onModuleInit(): void {
    this.job = this.jobs.register({
      name: 'projects.cascades',
      everyMs: SWEEP_INTERVAL_MS,
      firstAfterMs: 0,
      run: (step) => this.sweep(new Date(), step),
    });
  }

  async onModuleDestroy(): Promise<void> {
    await this.job?.stop();
  }

  /**
   * Records the cascade (unless one of this root is recorded already) and marks what it takes.
   * `projectIds` lists each project above its sub-projects. Run under the channel's tree lease, so
   * nothing is created under a project between its tree's read and its mark.
   */
  async begin(
    scope: TenantScope,
    kind: CascadeKind,
    rootId: string,
    channelId: string,
    projectIds: readonly string[],
  ): Promise<void> {
    await this.deletions.record(scope, kind, rootId, channelId, projectIds, new Date(Date.now() + CASCADE_GRACE_MS));
    await this.mark(scope, projectIds);
  }

  /** The unfinished cascade of this root in the scope's platform project, or null. */
  pending(scope: TenantScope, rootId: string): Promise<ProjectDeletion | null> {
    return this.deletions.inScope(scope, rootId);
  }

  /**
   * Runs the recorded cascade to its end for a request: waits for a run under way elsewhere, then
   * runs whatever is left (nothing when that run completed it). 409 when the other run outlasts the wait.
   */
  async finish(rootId: string): Promise<void> {
    const key = leaseOf(rootId);
    const lease = await this.leases.hold(key, { holdMs: CASCADE_HOLD_MS, waitMs: CASCADE_WAIT_MS });
    if (!lease) throw new ConflictException(CASCADE_BUSY);
    try {
      const deletion = await this.deletions.find(new Types.ObjectId(rootId));
      if (deletion) await this.run(deletion);
    } finally {
      await lease.release();
    }
  }

  /** One sweep: every due cascade that no other run holds is run here. */
  async sweep(now = new Date(), step?: Pick<JobStep, 'stopping'>): Promise<void> {
    for (const deletion of await this.deletions.due(now, 20)) {
      if (step?.stopping()) return;
      // A failed run is logged and backed off inside `run`; the sweep goes on with the next one.
      await this.leases.tryWithLease(leaseOf(String(deletion._id)), CASCADE_HOLD_MS, () =>
        this.run(deletion).catch(() => undefined),
      );
    }
  }

  private async run(deletion: ProjectDeletion): Promise<void> {
    const scope = scopeOfRecord(deletion);
    const channelId = String(deletion.channelId);
    try {
      // An empty list is not stored by every engine (a channel without projects).
      let ids = (deletion.projectIds ?? []).map(String);
      if (deletion.kind === 'channel') {
        // A stop between the cascade's record and the channel's delete left the channel: it goes first, as its delete does.
        await this.channels.deleteRecord(scope, channelId);
        // Whatever the channel still holds, a project linked while its delete began included.
        ids = [...new Set([...ids, ...(await this.projects.idsOfChannel(scope, channelId))])];
      }
      await this.mark(scope, ids);
      await this.assets.removeForProjects(scope, ids);
      const gone: ProjectsDeletedEvent = { scope, projectIds: ids };
      await this.events.emitAsync(PROJECTS_DELETED, gone);
      if (deletion.kind === 'channel') await this.collaborators.removeAllOfChannel(scope, channelId);
      for (const id of [...ids].reverse()) await this.projects.deleteOneById(scope, new Types.ObjectId(id));
      if (deletion.kind === 'project') await this.channels.removeProjects(scope, channelId, ids);
      await this.deletions.done(deletion._id);
    } catch (error) {
      const fresh = await this.deletions.find(deletion._id);
      const attempts = fresh?.attempts ?? deletion.attempts;
      const waitMs = BACKOFF_MS[Math.min(attempts, BACKOFF_MS.length - 1)];
      const message = (error as Error).message;
      this.logger.warn(
        `Cascade ${String(deletion._id)} (${deletion.kind}) failed (try ${attempts + 1}), tried again in ${waitMs} ms: ${message}`,
      );
      if (fresh) await this.deletions.failed(deletion._id, new Date(Date.now() + waitMs), message);
      throw error;
    }
  }

  /** Assets first, then their projects: no asset of a marked project is served. */
  private async mark(scope: TenantScope, projectIds: readonly string[]): Promise<void> {
    await this.assets.markForProjects(scope, projectIds);
    await this.projects.markDeleting(
      scope,
      projectIds.map((id) => new Types.ObjectId(id)),
    );
  }
}
