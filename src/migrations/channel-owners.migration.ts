import { Injectable } from '@nestjs/common';
import { CollaboratorsService } from '../collaborators/collaborators.service';
import { scopeOfRecord } from '../tenancy/tenant-scope';
import { LegacyDataRepository } from './legacy-data.repository';

/**
 * Gives each channel made before collaborators existed its owner. A stored channel does not name
 * who created it, so the owner of its platform project's account, who could do everything to it
 * until then, becomes its owner. Only channels without any collaborator are touched: a second run
 * changes nothing, and neither does a run after collaborators were managed by hand.
 */
@Injectable()
export class ChannelOwnersMigration {
  constructor(
    private readonly legacy: LegacyDataRepository,
    private readonly collaborators: CollaboratorsService,
  ) {}

  /** How many channels got an owner. */
  async run(): Promise<number> {
    let added = 0;
    for (const channel of await this.legacy.ownerlessChannels()) {
      const scope = scopeOfRecord(channel);
      if (await this.collaborators.addOwnerUnlessPresent(scope, String(channel.channelId), String(channel.ownerId)))
        added += 1;
    }
    return added;
  }
}

export function describeChannelOwners(added: number): string[] {
  return added > 0
    ? [`Channels given their account's owner as their owner: ${added}.`]
    : ['Every channel has its collaborators already.'];
}
