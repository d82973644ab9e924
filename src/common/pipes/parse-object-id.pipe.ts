import { ArgumentMetadata, BadRequestException, Injectable, PipeTransform } from '@nestjs/common';
import { isValidObjectId } from './object-id';

/** Rejects a malformed id at the edge with 400, before it can reach a query as a CastError. */
@Injectable()
export class ParseObjectIdPipe implements PipeTransform<string, string> {
  /** The name the message gives the parameter, when it is not the route's own name for it. */
  private label?: string;

  static labelled(label: string): ParseObjectIdPipe {
    const pipe = new ParseObjectIdPipe();
    pipe.label = label;
    return pipe;
  }

  transform(value: string, metadata: ArgumentMetadata): string {
    if (!isValidObjectId(value)) {
      throw new BadRequestException(
        `${this.label ?? metadata.data ?? 'id'} must be a valid id (24 hexadecimal characters)`,
      );
    }
    return value.toLowerCase();
  }
}
