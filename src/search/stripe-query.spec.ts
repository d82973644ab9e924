import { parseStripeQuery, QueryFieldError, QuerySyntaxError, type FieldKind } from './stripe-query';

const CUSTOMERS: Record<string, FieldKind> = {
  email: 'text',
  name: 'text',
  phone: 'text',
  created: 'number',
  metadata: 'metadata',
};
const PAYMENTS: Record<string, FieldKind> = {
  amount: 'minorUnits',
  currency: 'text',
  customer: 'text',
  status: 'text',
  created: 'number',
  metadata: 'metadata',
};

function syntaxError(query: string, fields = CUSTOMERS): QuerySyntaxError {
  try {
    parseStripeQuery(query, fields);
  } catch (error) {
    if (error instanceof QuerySyntaxError) return error;
    throw error;
  }
  throw new Error(`${query} parsed`);
}

describe("Stripe's search query language (the subset)", () => {
  it("reads the examples of Stripe's documentation", () => {
    expect(parseStripeQuery("email:'jenny.rosen@example.com'", CUSTOMERS)).toEqual({
      connector: 'AND',
      clauses: [{ field: 'email', operator: ':', value: 'jenny.rosen@example.com', negated: false }],
    });
    expect(parseStripeQuery("name~'jen'", CUSTOMERS).clauses[0]).toEqual({
      field: 'name',
      operator: '~',
      value: 'jen',
      negated: false,
    });
    expect(parseStripeQuery('created>1690000000', CUSTOMERS).clauses[0]).toEqual({
      field: 'created',
      operator: '>',
      value: 1690000000,
      negated: false,
    });
    expect(parseStripeQuery("metadata['order_id']:'6735'", CUSTOMERS).clauses[0]).toEqual({
      field: 'metadata',
      key: 'order_id',
      operator: ':',
      value: '6735',
      negated: false,
    });
    expect(parseStripeQuery("amount>1000 AND currency:'usd'", PAYMENTS)).toEqual({
      connector: 'AND',
      clauses: [
        { field: 'amount', operator: '>', value: 1000, negated: false },
        { field: 'currency', operator: ':', value: 'usd', negated: false },
      ],
    });
    expect(parseStripeQuery("-status:'failed'", PAYMENTS).clauses[0]).toEqual({
      field: 'status',
      operator: ':',
      value: 'failed',
      negated: true,
    });
    expect(parseStripeQuery("status:'succeeded' OR status:'pending'", PAYMENTS).connector).toBe('OR');
    expect(parseStripeQuery('amount>=500 AND amount<=900', PAYMENTS).clauses.map((clause) => clause.operator)).toEqual([
      '>=',
      '<=',
    ]);
    expect(parseStripeQuery(`name:"O'Brien"`, CUSTOMERS).clauses[0].value).toBe("O'Brien");
    expect(parseStripeQuery("name:'O\\'Brien'", CUSTOMERS).clauses[0].value).toBe("O'Brien");
  });

  it('names the position where a query stops parsing, and what was expected there', () => {
    expect(syntaxError('email:jenny')).toMatchObject({ position: 6, expected: 'a quoted value' });
    expect(syntaxError("email:'jenny")).toMatchObject({ position: 12, expected: "the closing '" });
    expect(syntaxError("email='x'")).toMatchObject({ position: 5 });
    expect(syntaxError("email:'a' name:'b'")).toMatchObject({
      position: 10,
      expected: 'AND, OR or the end of the query',
    });
    expect(syntaxError("email:'a' AND name:'b' OR phone:'c'").expected).toContain('AND and OR cannot be mixed');
    expect(syntaxError("email:'a' AND name:'b' OR phone:'c'").position).toBe(23);
    expect(syntaxError("name~'je'")).toMatchObject({ position: 5 });
    expect(syntaxError('created>soon')).toMatchObject({ position: 8, expected: 'a number' });
    expect(syntaxError("metadata:'x'")).toMatchObject({ position: 8 });
    expect(syntaxError('')).toMatchObject({ position: 0, expected: 'a field name' });
    expect(syntaxError("email:'a' AND")).toMatchObject({ position: 13 });
    expect(syntaxError("email:'a' AND")).toBeInstanceOf(QuerySyntaxError);
  });

  it('refuses a field the resource has not, and an operator its field cannot take', () => {
    expect(() => parseStripeQuery("amount:'1'", CUSTOMERS)).toThrow(QueryFieldError);
    expect(() => parseStripeQuery("amount:'1'", CUSTOMERS)).toThrow(/Unknown search field amount/);
    expect(() => parseStripeQuery("email>'a'", CUSTOMERS)).toThrow(/email is not numeric/);
    expect(() => parseStripeQuery("amount~'100'", PAYMENTS)).toThrow(/amount is numeric/);
  });

  it('takes an amount in minor units, a whole number, and refuses a decimal one rather than match nothing', () => {
    expect(parseStripeQuery('amount>=1050', PAYMENTS).clauses[0]).toMatchObject({ operator: '>=', value: 1050 });
    expect(() => parseStripeQuery('amount:10.5', PAYMENTS)).toThrow(QueryFieldError);
    expect(() => parseStripeQuery("amount:'10.50'", PAYMENTS)).toThrow(
      /minor units, a whole number \(1050 for 10.50 USD\), not 10.50/,
    );
    expect(parseStripeQuery('created>1700000000.5', PAYMENTS).clauses[0]).toMatchObject({ value: 1700000000.5 });
  });
});
