import { OmitType, PartialType } from '@nestjs/swagger';
import { CreateChannelDto } from './create-channel.dto';

/** Any subset of the create fields except `clientId`: a channel never changes owner. */
export class UpdateChannelDto extends PartialType(OmitType(CreateChannelDto, ['clientId'] as const), {
  skipNullProperties: false,
}) {}
