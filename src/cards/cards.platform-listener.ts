import { Injectable } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { InjectModel } from '@nestjs/mongoose';
import { Model } from 'mongoose';
import { PLATFORM_PROJECT_DELETING, PlatformProjectDeletingEvent } from '../platform-projects/platform-projects.events';
import { inScope } from '../tenancy/tenant-scope';
import { Card } from './card.schema';

/**
 * The cards side of a platform project's delete: answers whether the project still holds any
 * (one indexed read). `suppressErrors: false`, so a failed read fails the delete instead of
 * passing for "empty".
 */
@Injectable()
export class CardsPlatformListener {
  constructor(@InjectModel(Card.name) private readonly records: Model<Card>) {}

  @OnEvent(PLATFORM_PROJECT_DELETING, { suppressErrors: false })
  async holdsRecords(event: PlatformProjectDeletingEvent): Promise<boolean> {
    return (await this.records.exists(inScope(event.scope, {})).exec()) !== null;
  }
}
