import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Model, Types } from 'mongoose';
import { Records, toObjectId } from '../database/records';
import type { ApiName } from '../tenancy/api-names';
import { PlatformProject } from './platform-project.schema';

export interface NewPlatformProject {
  _id?: Types.ObjectId;
  accountId: Types.ObjectId;
  name: string;
  enabledApis: ApiName[];
  isDefault: boolean;
}

/**
 * The platform_projects collection. Every read and write names the account: a project of another
 * account is as absent as one that does not exist. A malformed id names no project.
 */
@Injectable()
export class PlatformProjectsRepository {
  private readonly records: Records<PlatformProject>;

  constructor(@InjectModel(PlatformProject.name) model: Model<PlatformProject>) {
    this.records = new Records(model);
  }

  /** Enables `apis` on every project made before they existed (no `eventApisOffered`); how many. */
  async offerEventApis(apis: readonly ApiName[]): Promise<number> {
    const result = await this.records.updateMany(
      { eventApisOffered: { $exists: false } },
      { $addToSet: { enabledApis: { $each: [...apis] } }, $set: { eventApisOffered: true } },
    );
    return result.modified;
  }

  insert(project: NewPlatformProject): Promise<PlatformProject> {
    return this.records.insert(project);
  }

  /** One read by the (account, _id) index. */
  findInAccount(accountId: string, projectId: string): Promise<PlatformProject | null> {
    const filter = inAccount(accountId, projectId);
    return filter ? this.records.findOne(filter) : Promise.resolve(null);
  }

  /** One read by the (account, isDefault) index. */
  findDefault(accountId: string): Promise<PlatformProject | null> {
    const account = toObjectId(accountId);
    return account ? this.records.findOne({ accountId: account, isDefault: true }) : Promise.resolve(null);
  }

  /** Oldest first, so the default project (made with the account) leads. */
  listForAccount(accountId: string): Promise<PlatformProject[]> {
    const account = toObjectId(accountId);
    return account
      ? this.records.find({ accountId: account }, { sort: { createdAt: 1, _id: 1 } })
      : Promise.resolve([]);
  }

  /** The project after the change (the schema's validators run); null when it is not the account's. */
  update(
    accountId: string,
    projectId: string,
    set: Partial<Pick<PlatformProject, 'name' | 'enabledApis'>>,
  ): Promise<PlatformProject | null> {
    const filter = inAccount(accountId, projectId);
    return filter ? this.records.updateAndGet(filter, { $set: set }, { validate: true }) : Promise.resolve(null);
  }

  /** Never the account's default project; true when one was deleted. */
  async deleteNonDefault(accountId: string, projectId: string): Promise<boolean> {
    const filter = inAccount(accountId, projectId);
    return filter ? this.records.deleteOne({ ...filter, isDefault: false }) : false;
  }
}

function inAccount(accountId: string, projectId: string): { _id: Types.ObjectId; accountId: Types.ObjectId } | null {
  const account = toObjectId(accountId);
  const _id = toObjectId(projectId);
  return account && _id ? { _id, accountId: account } : null;
}
