import { PartialType } from '@nestjs/swagger';
import { CreateClientDto } from './create-client.dto';

/** Any subset of the fields; an explicit `null` is refused rather than stored. */
export class UpdateClientDto extends PartialType(CreateClientDto, { skipNullProperties: false }) {}
