import { ApiPropertyOptional, PartialType } from '@nestjs/swagger';
import { OBJECT_ID_PATTERN } from '../../common/pipes/object-id';
import { CreateProjectDto } from './create-project.dto';

/** Any subset of the project fields; `null` is refused wherever the create DTO refuses it. */
export class UpdateProjectDto extends PartialType(CreateProjectDto, { skipNullProperties: false }) {
  @ApiPropertyOptional({
    pattern: OBJECT_ID_PATTERN,
    description:
      "Another existing channel moves the project there (404 when it does not exist); its id moves between the channels' projectIds",
  })
  declare channelId?: string;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    pattern: OBJECT_ID_PATTERN,
    description:
      'Another parent moves the project and its sub-projects under it; null makes it top-level. 422 for a parent in another channel, ' +
      'under the project itself (a cycle) or a tree deeper than 4 levels; 404 when it does not exist. Moving to another channel without ' +
      'a parentId makes the project top-level there; a project with sub-projects does not move to another channel (422).',
  })
  declare parentId?: string | null;
}
