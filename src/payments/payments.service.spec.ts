import { validate } from 'class-validator';
import { plainToInstance } from 'class-transformer';
import { CreatePaymentDto } from './dto/create-payment.dto';
import { RefundPaymentDto } from './dto/refund-payment.dto';
import { toPaymentResponse } from './payments.mapper';
import { chargeOutcome, statusAfterRefund } from './payments.rules';
import { Types } from 'mongoose';

describe('chargeOutcome', () => {
  it('needs a payment method when the customer has no default card', () => {
    expect(chargeOutcome(null)).toEqual({ status: 'requires_payment_method', failureCode: null, card: null });
  });

  it('fails with the test card failure code', () => {
    expect(chargeOutcome({ cardId: 'c1', failureCode: 'insufficient_funds' })).toEqual({
      status: 'failed',
      failureCode: 'insufficient_funds',
      card: 'c1',
    });
  });

  it('succeeds with a card that charges', () => {
    expect(chargeOutcome({ cardId: 'c1', failureCode: null })).toEqual({
      status: 'succeeded',
      failureCode: null,
      card: 'c1',
    });
  });
});

describe('statusAfterRefund', () => {
  it('is refunded when nothing is left, else partially refunded', () => {
    expect(statusAfterRefund(30, 30)).toBe('refunded');
    expect(statusAfterRefund(30, 10)).toBe('partially_refunded');
    expect(() => statusAfterRefund(30, 31)).toThrow(RangeError);
  });
});

async function errorsOf(cls: new () => object, body: object): Promise<Record<string, string[]>> {
  const errors = await validate(plainToInstance(cls, body), { whitelist: true, forbidNonWhitelisted: true });
  return Object.fromEntries(errors.map((error) => [error.property, Object.values(error.constraints ?? {})]));
}

describe('CreatePaymentDto', () => {
  const base = { amount: 10, currency: 'usd', customer: '6650c0ffee0000000000f001' };

  it('accepts a valid payment and lower-cases the currency', async () => {
    expect(await errorsOf(CreatePaymentDto, { ...base, currency: 'USD' })).toEqual({});
    expect(plainToInstance(CreatePaymentDto, { ...base, currency: 'JpY' }).currency).toBe('jpy');
  });

  it.each([
    [{ amount: 10.005 }, 'amount', /more than 2 decimals/],
    [{ amount: 1.5, currency: 'jpy' }, 'amount', /whole number in JPY/],
    [{ amount: 0 }, 'amount', /greater than 0/],
    [{ amount: -1 }, 'amount', /greater than 0/],
    [{ amount: 100_000_000 }, 'amount', /must not exceed 99999999/],
    [{ amount: '10' }, 'amount', /must be a number/],
    [{ currency: 'xyz' }, 'currency', /ISO 4217/],
    [{ customer: 'nope' }, 'customer', /valid id/],
    [{ reciver: 'nope' }, 'reciver', /valid id/],
    [{ confirm: 'yes' }, 'confirm', /boolean/],
    [{ description: 'x'.repeat(1001) }, 'description', /shorter than or equal to 1000/],
  ])('refuses %p on %s', async (override, field, message) => {
    const errors = await errorsOf(CreatePaymentDto, { ...base, ...override });
    expect(errors[field]?.join('; ')).toMatch(message);
  });

  it('takes three decimals for KWD and whole amounts for JPY', async () => {
    expect(await errorsOf(CreatePaymentDto, { ...base, amount: 1.005, currency: 'kwd' })).toEqual({});
    expect(await errorsOf(CreatePaymentDto, { ...base, amount: 10, currency: 'jpy' })).toEqual({});
  });
});

describe('RefundPaymentDto', () => {
  it('takes no amount or a positive one', async () => {
    expect(await errorsOf(RefundPaymentDto, {})).toEqual({});
    expect(await errorsOf(RefundPaymentDto, { amount: 0.1 })).toEqual({});
    expect((await errorsOf(RefundPaymentDto, { amount: 0 })).amount.join()).toMatch(/greater than 0/);
  });
});

describe('toPaymentResponse', () => {
  it('returns the amounts in major units and the ids as strings, never the project', () => {
    const id = new Types.ObjectId();
    const customer = new Types.ObjectId();
    const now = new Date('2024-05-24T10:00:00.000Z');
    expect(
      toPaymentResponse({
        _id: id,
        projectId: new Types.ObjectId(),
        amountMinor: 1005,
        amountRefundedMinor: 5,
        currency: 'kwd',
        customer,
        reciver: null,
        description: null,
        status: 'partially_refunded',
        failureCode: null,
        card: null,
        createdAt: now,
        updatedAt: now,
      }),
    ).toEqual({
      id: String(id),
      amount: 1.005,
      amountRefunded: 0.005,
      currency: 'kwd',
      customer: String(customer),
      reciver: null,
      description: null,
      status: 'partially_refunded',
      failureCode: null,
      createdAt: '2024-05-24T10:00:00.000Z',
      updatedAt: '2024-05-24T10:00:00.000Z',
    });
  });
});
