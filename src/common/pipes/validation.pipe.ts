import { ArgumentMetadata, BadRequestException, HttpStatus, ValidationError, ValidationPipe } from '@nestjs/common';
import { memoiseValidationMetadata } from './validation-metadata-memo';

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
  constructor(
    readonly fieldErrors: FieldError[],
    /** 400 for a malformed value; 422 for a well-formed one the service refuses (a rule with the `unprocessable` context). */
    readonly answeredStatus: HttpStatus.BAD_REQUEST | HttpStatus.UNPROCESSABLE_ENTITY = HttpStatus.BAD_REQUEST,
  ) {
    const summary = fieldErrors.flatMap((error) => error.messages);
    super(`Validation failed: ${summary.slice(0, 5).join('; ')}${summary.length > 5 ? '; ...' : ''}`);
  }

  override getStatus(): number {
    return this.answeredStatus;
  }
}

/** Whether every rule that failed, at any depth, is marked `unprocessable` (file-name.ts): then the answer is 422, not 400. */
function onlyUnprocessable(errors: ValidationError[]): boolean {
  return errors.every(
    (error) =>
      Object.keys(error.constraints ?? {}).every(
        (rule) => (error.contexts?.[rule] as { unprocessable?: boolean } | undefined)?.unprocessable === true,
      ) && onlyUnprocessable(error.children ?? []),
  );
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
    if ((metadata.type === 'body' || metadata.type === 'query') && holdsNul(value))
      throw new BadRequestException(NUL_REFUSED);
    return super.transform(value, metadata);
  }
}

/** PostgreSQL (under FerretDB) cannot store U+0000 in text, and no field of the contract needs it. */
export const NUL_REFUSED = 'Text must not contain the NUL character (U+0000)';

function holdsNul(value: unknown, depth = 0): boolean {
  if (typeof value === 'string') return value.includes('\u0000');
  if (depth > 32 || value === null || typeof value !== 'object') return false;
  for (const key in value as Record<string, unknown>) {
    if (key.includes('\u0000') || holdsNul((value as Record<string, unknown>)[key], depth + 1)) return true;
  }
  return false;
}

export function createValidationPipe(): ValidationPipe {
  memoiseValidationMetadata();
  return new BodyAwareValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    // A JSON `null` or a wrong type must not slip through an optional field by conversion.
    transformOptions: { enableImplicitConversion: false },
    validationError: { target: false, value: false },
    exceptionFactory: (errors) =>
      new RequestValidationException(
        flattenValidationErrors(errors),
        onlyUnprocessable(errors) ? HttpStatus.UNPROCESSABLE_ENTITY : HttpStatus.BAD_REQUEST,
      ),
  });
}
