import { ValidationArguments, ValidatorConstraint, ValidatorConstraintInterface } from 'class-validator';

/** bcrypt ignores everything past 72 bytes, so a longer password would be silently truncated. */
@ValidatorConstraint({ name: 'maxBytes' })
export class MaxBytes implements ValidatorConstraintInterface {
  validate(value: unknown, args: ValidationArguments): boolean {
    const [limit] = args.constraints as [number];
    return typeof value === 'string' && Buffer.byteLength(value, 'utf8') <= limit;
  }
}
