import { ApiProperty, PickType } from '@nestjs/swagger';
import { ProjectResponse } from '../../projects/dto/project.response';

/** The fields of a project that show what it is, as opposed to how it is managed. */
export const VIEWER_PROJECT_FIELDS = [
  'parentId',
  'projectTypeId',
  'subTypeId',
  'primaryTitle',
  'description',
  'portraitImg',
  'landscapeImg',
  'contentUploadType',
  'primaryLanguageId',
  'categoryId',
  'subCategoryId',
  'topicIds',
  'supportedFormats',
  'supportedModes',
  'supportedFeatures',
] as const satisfies readonly (keyof ProjectResponse)[];

/**
 * A project as a viewer sees it: what it shows, never how it is managed (no channel, access,
 * status, or dates of editing). Every viewer answer is a published project the caller may see.
 */
export class ViewerProjectResponse extends PickType(ProjectResponse, VIEWER_PROJECT_FIELDS) {
  @ApiProperty({ example: '6650c0ffee0000000000d001' })
  id: string;
}
