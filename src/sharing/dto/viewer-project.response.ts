import { ApiProperty, PickType } from '@nestjs/swagger';
import { PROJECT_CONTENT_FIELDS, ProjectResponse } from '../../projects/dto/project.response';

/** What a viewer reads of a project: where it sits in the tree, and the fields that show what it is. */
export const VIEWER_PROJECT_FIELDS = [
  'parentId',
  ...PROJECT_CONTENT_FIELDS,
] as const satisfies readonly (keyof ProjectResponse)[];

/**
 * A project as a viewer sees it: what it shows, never how it is managed (no channel, access,
 * status, or dates of editing). Every viewer answer is a published project the caller may see.
 */
export class ViewerProjectResponse extends PickType(ProjectResponse, VIEWER_PROJECT_FIELDS) {
  @ApiProperty({ example: '6650c0ffee0000000000d001' })
  id: string;
}
