import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Types, type Model } from 'mongoose';
import { Records, toObjectId } from '../database/records';
import type { TenantScope } from '../tenancy/tenant-scope';
import { ProjectDeletion, type CascadeKind } from './project-deletion.schema';

/** The records of unfinished cascades: the only code that reads or writes them. */
@Injectable()
export class ProjectDeletionsRepository {
  private readonly records: Records<ProjectDeletion>;

  constructor(@InjectModel(ProjectDeletion.name) model: Model<ProjectDeletion>) {
    this.records = new Records(model);
  }

  /** Records the cascade unless one of the same root is recorded already (which then stands). */
  async record(
    scope: TenantScope,
    kind: CascadeKind,
    rootId: string,
    channelId: string,
    projectIds: readonly string[],
    dueAt: Date,
  ): Promise<void> {
    const _id = new Types.ObjectId(rootId);
    await this.records.insertUnlessExists(
      { _id },
      {
        kind,
        accountId: scope.accountId,
        projectId: new Types.ObjectId(scope.projectId),
        channelId: new Types.ObjectId(channelId),
        projectIds: projectIds.map((id) => new Types.ObjectId(id)),
        dueAt,
        attempts: 0,
        lastError: null,
      },
    );
  }

  /** The unfinished cascade of this root in the scope's platform project; null when there is none. */
  inScope(scope: TenantScope, rootId: string): Promise<ProjectDeletion | null> {
    const _id = toObjectId(rootId);
    return _id ? this.records.findOne({ _id, projectId: new Types.ObjectId(scope.projectId) }) : Promise.resolve(null);
  }

  find(rootId: Types.ObjectId): Promise<ProjectDeletion | null> {
    return this.records.findOne({ _id: rootId });
  }

  /** Cascades due for the sweep (their request stopped, or a try failed), oldest due first. */
  due(now: Date, limit: number): Promise<ProjectDeletion[]> {
    return this.records.find({ dueAt: { $lte: now } }, { sort: { dueAt: 1 }, limit });
  }

  /** A try failed: the next is due at `dueAt`. */
  async failed(rootId: Types.ObjectId, dueAt: Date, error: string): Promise<void> {
    await this.records.updateOne({ _id: rootId }, { $set: { dueAt, lastError: error }, $inc: { attempts: 1 } });
  }

  async done(rootId: Types.ObjectId): Promise<void> {
    await this.records.deleteOne({ _id: rootId });
  }
}
