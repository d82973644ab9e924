import { registerDecorator, type ValidationOptions } from 'class-validator';

/** Marks a rule whose refusal is `422`: the value is well-formed, but not one the service accepts. */
export const UNPROCESSABLE = { unprocessable: true } as const;

/**
 * Unicode format characters (category Cf): the bidirectional overrides and isolates (U+202A-U+202E,
 * U+2066-U+2069) that show `evil\u202Egnp.exe` as `evilexe.png`, zero-width ones, the BOM; and the
 * controls the path rule leaves (C1, such as the terminal's U+009B) and the line and paragraph
 * separators (U+2028, U+2029), which break a name shown on one line.
 */
const FORMAT = /[\p{Cf}\p{Cc}\p{Zl}\p{Zp}]/u;
/** The names Windows reserves for devices, whatever follows a dot (`CON`, `con.txt`, `LPT1.tar.gz`). */
const DEVICE = /^(?:con|prn|aux|nul|com[0-9\u00b9\u00b2\u00b3]|lpt[0-9\u00b9\u00b2\u00b3])(?:\..*)?$/i;
/** Only whitespace and dots: a name that shows as nothing, or that Windows strips to nothing. */
const BLANK = /^[\s.]*$/u;

/** Why `name` is no file name to keep, or null when it is one. */
export function fileNameProblem(name: string): string | null {
  if (FORMAT.test(name))
    return 'must not hold format, bidirectional or control characters (U+202E, U+200B, U+009B, U+2028, ...)';
  if (BLANK.test(name)) return 'must hold more than spaces and dots';
  // Windows ignores trailing spaces and dots: `CON .` is `CON`.
  if (DEVICE.test(name.replace(/[\s.]+$/u, '')))
    return 'must not be a device name (CON, PRN, AUX, NUL, COM1-9, LPT1-9)';
  return null;
}

/**
 * A file name every system shows and stores as what it is: no format or bidirectional character, no
 * Windows device name, not only spaces or dots. Refused with 422 naming the field (the validation
 * pipe answers 422 when every failed rule is of this kind).
 */
export function IsSafeFileName(options: ValidationOptions = {}): PropertyDecorator {
  return (object: object, propertyName: string | symbol) =>
    registerDecorator({
      name: 'isSafeFileName',
      target: object.constructor,
      propertyName: String(propertyName),
      options: { context: UNPROCESSABLE, ...options },
      validator: {
        validate: (value: unknown) => typeof value !== 'string' || fileNameProblem(value) === null,
        defaultMessage: (args) =>
          `${args?.property ?? 'fileName'} ${fileNameProblem(String(args?.value)) ?? 'is not a safe file name'}`,
      },
    });
}
