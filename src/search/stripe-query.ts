/**
 * The subset of Stripe's search query language the customers and payments search routes take:
 * clauses `field:'value'` (exact, any case), `field~'value'` (substring of 3 characters or more,
 * any case), `field>n`, `<`, `>=`, `<=`, `:` on numeric fields, `metadata['key']:'value'`, each
 * negated by a leading `-`, joined by `AND` or by `OR` (one of them in a query, as Stripe asks).
 */

/** `minorUnits`: a number, whole, as an amount in its currency's smallest unit is (1050 for 10.50 USD). */
export type FieldKind = 'text' | 'number' | 'minorUnits' | 'metadata';
export type Operator = ':' | '~' | '>' | '<' | '>=' | '<=';

export interface QueryClause {
  field: string;
  /** For `metadata['key']`. */
  key?: string;
  operator: Operator;
  value: string | number;
  negated: boolean;
}

export interface ParsedQuery {
  connector: 'AND' | 'OR';
  clauses: QueryClause[];
}

/** A query that does not parse: where (a 0-based character offset) and what was expected there. */
export class QuerySyntaxError extends Error {
  constructor(
    readonly position: number,
    readonly expected: string,
  ) {
    super(`The query does not parse at position ${position}: expected ${expected}`);
  }
}

/** A query that parses but names a field the resource has not, or uses one in a way it cannot be. */
export class QueryFieldError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

/** Substring values shorter than this match too much to be useful (Stripe's rule). */
export const MIN_SUBSTRING = 3;
/** Longest query read; a longer one is refused before parsing. */
export const MAX_QUERY_LENGTH = 1000;
/** Most clauses in one query. */
export const MAX_CLAUSES = 10;

const NAME = /[A-Za-z_][A-Za-z0-9_]*/y;
const NUMBER = /-?\d+(\.\d+)?/y;
const SPACE = /\s+/y;

/** Parses `query` for a resource whose fields are `fields` (name to kind). */
export function parseStripeQuery(query: string, fields: Readonly<Record<string, FieldKind>>): ParsedQuery {
  const parser = new Parser(query);
  const clauses: QueryClause[] = [];
  let connector: 'AND' | 'OR' | null = null;
  parser.skipSpace();
  for (;;) {
    clauses.push(parser.clause(fields));
    if (clauses.length > MAX_CLAUSES) throw new QueryFieldError('query', `A query has at most ${MAX_CLAUSES} clauses`);
    const spaced = parser.skipSpace();
    if (parser.done()) break;
    const at = parser.position;
    const word = parser.word();
    if (!spaced || (word !== 'AND' && word !== 'OR')) throw new QuerySyntaxError(at, 'AND, OR or the end of the query');
    if (connector && connector !== word)
      throw new QuerySyntaxError(at, `${connector}: AND and OR cannot be mixed in one query`);
    connector = word;
    if (!parser.skipSpace()) throw new QuerySyntaxError(parser.position, 'a space after ' + word);
  }
  return { connector: connector ?? 'AND', clauses };
}

class Parser {
  position = 0;

  constructor(private readonly text: string) {}

  done(): boolean {
    return this.position >= this.text.length;
  }

  skipSpace(): boolean {
    return this.match(SPACE) !== null;
  }

  word(): string | null {
    return this.match(NAME);
  }

  clause(fields: Readonly<Record<string, FieldKind>>): QueryClause {
    const negated = this.text[this.position] === '-';
    if (negated) this.position++;
    const fieldAt = this.position;
    const field = this.word();
    if (!field) throw new QuerySyntaxError(fieldAt, 'a field name');
    const kind = fields[field];
    if (!kind)
      throw new QueryFieldError(field, `Unknown search field ${field}: one of ${Object.keys(fields).join(', ')}`);
    let key: string | undefined;
    if (kind === 'metadata') {
      if (this.text[this.position] !== '[')
        throw new QuerySyntaxError(this.position, "[ and a quoted key, as in metadata['key']");
      this.position++;
      key = this.quoted();
      if (this.text[this.position] !== ']') throw new QuerySyntaxError(this.position, ']');
      this.position++;
    }
    const operatorAt = this.position;
    const operator = this.operator();
    if (!operator) throw new QuerySyntaxError(operatorAt, 'an operator (:, ~, >, <, >= or <=)');
    const numeric = kind === 'number' || kind === 'minorUnits';
    if (!numeric && operator !== ':' && operator !== '~') {
      throw new QueryFieldError(field, `${field} is not numeric: use : or ~`);
    }
    if (kind === 'metadata' && operator !== ':')
      throw new QueryFieldError(field, "metadata takes only :, as in metadata['key']:'value'");
    if (numeric) {
      if (operator === '~') throw new QueryFieldError(field, `${field} is numeric: use :, >, <, >= or <=`);
      const valueAt = this.position;
      const number =
        this.text[this.position] === "'" || this.text[this.position] === '"' ? this.quoted() : this.match(NUMBER);
      const value = number === null ? Number.NaN : Number(number);
      if (!Number.isFinite(value) || (typeof number === 'string' && !/^-?\d+(\.\d+)?$/.test(number)))
        throw new QuerySyntaxError(valueAt, 'a number');
      // A decimal would match nothing, silently: the amount copied from a payment (10.5) is refused instead.
      if (kind === 'minorUnits' && !Number.isInteger(value))
        throw new QueryFieldError(
          field,
          `${field} is in the currency's minor units, a whole number (1050 for 10.50 USD), not ${number}`,
        );
      return { field, key, operator, value, negated };
    }
    const valueAt = this.position;
    const value = this.quoted();
    if (operator === '~' && [...value].length < MIN_SUBSTRING) {
      throw new QuerySyntaxError(valueAt, `a substring of at least ${MIN_SUBSTRING} characters after ~`);
    }
    return { field, key, operator, value, negated };
  }

  private operator(): Operator | null {
    for (const candidate of ['>=', '<=', ':', '~', '>', '<'] as const) {
      if (this.text.startsWith(candidate, this.position)) {
        this.position += candidate.length;
        return candidate;
      }
    }
    return null;
  }

  /** A value in single or double quotes; a backslash escapes the quote or itself. */
  private quoted(): string {
    const quote = this.text[this.position];
    if (quote !== "'" && quote !== '"') throw new QuerySyntaxError(this.position, 'a quoted value');
    let value = '';
    for (let at = this.position + 1; at < this.text.length; at++) {
      const char = this.text[at];
      if (char === '\\' && (this.text[at + 1] === quote || this.text[at + 1] === '\\')) {
        value += this.text[++at];
      } else if (char === quote) {
        this.position = at + 1;
        return value;
      } else {
        value += char;
      }
    }
    throw new QuerySyntaxError(this.text.length, `the closing ${quote}`);
  }

  private match(pattern: RegExp): string | null {
    pattern.lastIndex = this.position;
    const found = pattern.exec(this.text);
    if (!found) return null;
    this.position += found[0].length;
    return found[0];
  }
}
