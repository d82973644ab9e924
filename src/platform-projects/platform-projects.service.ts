import { Injectable } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { InjectModel } from '@nestjs/mongoose';
import { Model, Types } from 'mongoose';
import { ACCOUNT_CREATED, AccountCreatedEvent } from '../accounts/accounts.events';
import { API_NAMES } from '../tenancy/api-names';
import { PlatformProject } from './platform-project.schema';

export const DEFAULT_PROJECT_NAME = 'Default project';

@Injectable()
export class PlatformProjectsService {
  constructor(@InjectModel(PlatformProject.name) private readonly projects: Model<PlatformProject>) {}

  /** Every new account gets its default project, with every API enabled, under the id the account already names. */
  @OnEvent(ACCOUNT_CREATED, { suppressErrors: false })
  async createDefault(event: AccountCreatedEvent): Promise<void> {
    await this.projects.create({
      _id: event.defaultProjectId,
      accountId: event.accountId,
      name: DEFAULT_PROJECT_NAME,
      enabledApis: [...API_NAMES],
      isDefault: true,
    });
  }

  /** The project a request acts in: the named one, else the account's default; null when it is not the account's. */
  resolve(accountId: string, projectId: string | undefined): Promise<PlatformProject | null> {
    if (projectId === undefined) {
      return this.projects.findOne({ accountId, isDefault: true }).lean<PlatformProject>().exec();
    }
    if (!Types.ObjectId.isValid(projectId) || !/^[0-9a-fA-F]{24}$/.test(projectId)) return Promise.resolve(null);
    return this.projects.findOne({ _id: projectId, accountId }).lean<PlatformProject>().exec();
  }
}
