import { Injectable } from '@nestjs/common';
import { LegacyDataRepository } from './legacy-data.repository';

/** Where earlier builds kept each webhook attempt's claim, one document per delivery and attempt. */
export const RETIRED_WEBHOOK_CLAIMS = 'webhook_attempt_claims';

/**
 * Drops the collection of webhook attempt claims: a claim is now kept in its delivery, written by one
 * insert or one update guarded on the attempt number and a fencing token, and no module reads the
 * collection any more. What those builds left needs nothing else. A delivery they left claimed (its
 * `claimedUntil` set, without a token) is another sender's claim to the current dispatcher: taken over
 * only once an instance has watched it stand for a whole claim's length, its attempt recorded as
 * abandoned, so it is neither sent twice at once nor stranded. A claim document whose delivery never
 * moved to it was never sent: the delivery, due, is claimed anew by its attempt number. Dropping it
 * is safe while instances of those builds still run: each of their claims is decided by the same
 * guarded update of the delivery, atomic per document, the claim document only saved a write to the
 * loser; a collection one of them writes again meanwhile goes with the next run.
 */
@Injectable()
export class WebhookClaimsMigration {
  constructor(private readonly legacy: LegacyDataRepository) {}

  async run(): Promise<string> {
    return (await this.legacy.dropCollection(RETIRED_WEBHOOK_CLAIMS))
      ? `Webhook attempt claims are kept in their delivery: ${RETIRED_WEBHOOK_CLAIMS} dropped.`
      : `Webhook attempt claims are kept in their delivery: no ${RETIRED_WEBHOOK_CLAIMS} left to drop.`;
  }
}
