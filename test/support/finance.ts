import type { HttpClient } from './http';

/** A test card's expiry year: a few years ahead, so it never expires under a test. */
export const FUTURE_YEAR = String(new Date().getUTCFullYear() + 3);

/** A customer made through the API; its id. */
export async function createCustomer(http: HttpClient, token: string, email: string): Promise<string> {
  const res = await http.post('/v1/customers', { email }, { token });
  expect(res.status).toBe(201);
  return res.body.data.id;
}

/** A Visa test card of `customer`, made through the API; its id. */
export async function createCard(http: HttpClient, token: string, customer: string): Promise<string> {
  const res = await http.post(
    '/v1/cards',
    { customer, cardNumber: '4242424242424242', expMonth: '12', expYear: FUTURE_YEAR, cvc: '123' },
    { token },
  );
  expect(res.status).toBe(201);
  return res.body.data.id;
}
