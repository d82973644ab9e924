import { BadRequestException, Injectable, type ArgumentMetadata, type PipeTransform } from '@nestjs/common';
import { EVENT_ID_PATTERN } from './dto/list-events.query';

const EVENT_ID = new RegExp(EVENT_ID_PATTERN, 'i');

/** Rejects a malformed event id with 400 at the edge. */
@Injectable()
export class EventIdPipe implements PipeTransform<string, string> {
  transform(value: string, metadata: ArgumentMetadata): string {
    if (!EVENT_ID.test(value))
      throw new BadRequestException(`${metadata.data ?? 'id'} must be an event id (evt_ and 24 hexadecimal digits)`);
    return value.toLowerCase();
  }
}
