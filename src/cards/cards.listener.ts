import { Injectable } from '@nestjs/common';
import { OnInProcessEvent } from '../in-process-events/in-process-events';
import { CUSTOMER_DELETING, CustomerDeletingEvent } from '../customers/customers.events';
import { CardsService } from './cards.service';

/**
 * The cards' side of the customer events. `suppressErrors: false` because the event-emitter module
 * swallows listener errors by default: a failure here must reach the customer request that emitted.
 */
@Injectable()
export class CardsListener {
  constructor(private readonly cards: CardsService) {}

  /** A deleted customer's cards go with it (in the customer's project). Idempotent: it runs twice per delete. */
  @OnInProcessEvent(CUSTOMER_DELETING, { suppressErrors: false })
  async onCustomerDeleting(event: CustomerDeletingEvent): Promise<void> {
    await this.cards.deleteAllOfCustomer(event.scope, event.customerId);
  }
}
