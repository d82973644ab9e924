import type { HttpResponse } from './http';

/** Asserts the contract's error body: status, reason phrase, a message, and nothing internal. */
export function expectError(response: HttpResponse, status: number, message?: string | RegExp): void {
  expect({ status: response.status, body: response.body }).toMatchObject({
    status,
    body: { statusCode: status, error: expect.any(String), message: expect.any(String) },
  });
  if (message instanceof RegExp) expect(response.body.message).toMatch(message);
  else if (message !== undefined) expect(response.body.message).toBe(message);
  expect(response.text).not.toMatch(/\bat .+\.(js|ts):\d+|MongoServerError|E11000|CastError/);
}

/** A 400 from validation, naming the field that is wrong. */
export function expectValidationError(response: HttpResponse, field: string, message?: string | RegExp): void {
  expectError(response, 400);
  expect(Array.isArray(response.body.errors)).toBe(true);
  const entry = (response.body.errors as { field: string; messages: string[] }[]).find(
    (error) => error.field === field,
  );
  if (!entry) throw new Error(`expected a validation error on "${field}", got ${JSON.stringify(response.body.errors)}`);
  if (message instanceof RegExp) expect(entry.messages.join('; ')).toMatch(message);
  else if (message !== undefined) expect(entry.messages).toContain(message);
}

export const expectNotFound = (response: HttpResponse, message?: string) => expectError(response, 404, message);
export const expectUnauthorized = (response: HttpResponse) => expectError(response, 401);
export const expectForbidden = (response: HttpResponse) => expectError(response, 403);
