import { Injectable } from '@nestjs/common';
import { OnInProcessEvent } from '../in-process-events/in-process-events';
import { PROJECTS_DELETED, ProjectsDeletedEvent } from '../projects/projects.events';
import { SharingService } from './sharing.service';

@Injectable()
export class SharingListener {
  constructor(private readonly sharing: SharingService) {}

  /** Deleted projects take their share links and grants along: none is left pointing at nothing. */
  @OnInProcessEvent(PROJECTS_DELETED, { suppressErrors: false })
  async onProjectsDeleted(event: ProjectsDeletedEvent): Promise<void> {
    await this.sharing.removeForProjects(event.scope, event.projectIds);
  }
}
