import { PickType, PartialType } from '@nestjs/swagger';
import { CreateAssetDto } from './create-asset.dto';

export class UpdateAssetDto extends PartialType(PickType(CreateAssetDto, ['title', 'description'] as const)) {}
