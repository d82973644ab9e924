import { Injectable } from '@nestjs/common';
import { OnInProcessEvent } from '../in-process-events/in-process-events';
import { USER_DELETED, type UserDeletedEvent } from '../identity/users/users.events';
import { SearchHistoryService } from './search-history.service';

/** What the users module asks of the search history. */
@Injectable()
export class SearchHistoryListener {
  constructor(private readonly history: SearchHistoryService) {}

  /** A deleted user's searches and settings go with them, in every account. */
  @OnInProcessEvent(USER_DELETED, { suppressErrors: false })
  async onUserDeleted(event: UserDeletedEvent): Promise<void> {
    await this.history.removeUser(event.userId);
  }
}
