import { ApiPropertyOptional, OmitType, PartialType } from '@nestjs/swagger';
import { OBJECT_ID_PATTERN } from '../../common/pipes/object-id';
import { CreateProjectDto } from './create-project.dto';

/** Any subset of the project fields but its parent; `null` is refused wherever the create DTO refuses it. */
export class UpdateProjectDto extends PartialType(OmitType(CreateProjectDto, ['parentId'] as const), { skipNullProperties: false }) {
  @ApiPropertyOptional({
    pattern: OBJECT_ID_PATTERN,
    description: "Another existing channel moves the project there (404 when it does not exist); its id moves between the channels' projectIds",
  })
  declare channelId?: string;
}
