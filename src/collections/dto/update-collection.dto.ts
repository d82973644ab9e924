import { PartialType } from '@nestjs/swagger';
import { CreateCollectionDto } from './create-collection.dto';

/** Any subset of the fields; an explicit `null` is refused rather than stored. */
export class UpdateCollectionDto extends PartialType(CreateCollectionDto, { skipNullProperties: false }) {}
