import { ArgumentMetadata, BadRequestException, Injectable, PipeTransform } from '@nestjs/common';
import { isValidObjectId } from './object-id';

/** Rejects a malformed id at the edge with 400, before it can reach a query as a CastError. */
@Injectable()
export class ParseObjectIdPipe implements PipeTransform<string, string> {
  transform(value: string, metadata: ArgumentMetadata): string {
    if (!isValidObjectId(value)) {
      throw new BadRequestException(`${metadata.data ?? 'id'} must be a valid id (24 hexadecimal characters)`);
    }
    return value.toLowerCase();
  }
}
