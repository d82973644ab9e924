import { ArgumentMetadata, BadRequestException, ValidationError, ValidationPipe } from '@nestjs/common';

export interface FieldError {
  field: string;
  messages: string[];
}

export function flattenValidationErrors(errors: ValidationError[], parent = ''): FieldError[] {
  return errors.flatMap((error) => {
    const field = parent ? `${parent}.${error.property}` : error.property;
    const own = error.constraints ? [{ field, messages: Object.values(error.constraints) }] : [];
    return [...own, ...flattenValidationErrors(error.children ?? [], field)];
  });
}

/** Thrown for any DTO failure; the exception filter adds `errors` to the body. */
export class RequestValidationException extends BadRequestException {
  constructor(readonly fieldErrors: FieldError[]) {
    const summary = fieldErrors.flatMap((error) => error.messages);
    super(`Validation failed: ${summary.slice(0, 5).join('; ')}${summary.length > 5 ? '; ...' : ''}`);
  }
}

/**
 * A missing body validates as `{}` (so a DTO with required fields names them, and one without
 * accepts it); a body that is not a JSON object is refused outright.
 */
class BodyAwareValidationPipe extends ValidationPipe {
  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type === 'body' && metadata.metatype && metadata.metatype !== Object) {
      if (value === undefined) value = {};
      else if (value === null || typeof value !== 'object' || Array.isArray(value)) {
        throw new BadRequestException('Request body must be a JSON object');
      }
    }
    return super.transform(value, metadata);
  }
}

export function createValidationPipe(): ValidationPipe {
  return new BodyAwareValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    // A JSON `null` or a wrong type must not slip through an optional field by conversion.
    transformOptions: { enableImplicitConversion: false },
    validationError: { target: false, value: false },
    exceptionFactory: (errors) => new RequestValidationException(flattenValidationErrors(errors)),
  });
}
