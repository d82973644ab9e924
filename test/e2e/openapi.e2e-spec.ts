import SwaggerParser from '@apidevtools/swagger-parser';
import { createTestApp, TestApp } from '../support/test-app';

type Operation = { operationId?: string; security?: Record<string, string[]>[]; responses: Record<string, unknown> };
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

describe('OpenAPI document', () => {
  let t: TestApp;
  let document: any;

  beforeAll(async () => {
    t = await createTestApp();
    document = (await t.http.get('/docs-json')).body;
  });
  afterAll(() => t.close());

  function operations(): { path: string; method: string; operation: Operation }[] {
    return Object.entries(document.paths as Record<string, Record<string, Operation>>).flatMap(([path, item]) =>
      METHODS.filter((method) => item[method]).map((method) => ({ path, method, operation: item[method] })),
    );
  }

  it('is a valid OpenAPI 3 document', async () => {
    await expect(SwaggerParser.validate(structuredClone(document))).resolves.toBeDefined();
    expect(document.openapi).toMatch(/^3\./);
  });

  it('declares the bearer scheme and requires it by default', () => {
    expect(document.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(document.security).toEqual([{ bearer: [] }]);
  });

  it('gives every operation a unique operationId, a success response and its error statuses', () => {
    const ids = operations().map(({ operation }) => operation.operationId);
    expect(ids.every(Boolean)).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    for (const { path, method, operation } of operations()) {
      const statuses = Object.keys(operation.responses);
      expect({ path, method, success: statuses.some((s) => /^2\d\d$/.test(s)) }).toEqual({ path, method, success: true });
      expect({ path, method, has500: statuses.includes('500') }).toEqual({ path, method, has500: true });
      const isPublic = operation.security?.some((requirement) => Object.keys(requirement).length === 0);
      if (!isPublic) expect({ path, method, has401: statuses.includes('401') }).toEqual({ path, method, has401: true });
    }
  });

  it('documents the auth routes with the exact spec paths', () => {
    expect(document.paths['/api/v1/singup'].post).toBeDefined();
    expect(document.paths['/api/v1/signup'].post).toBeDefined();
    expect(document.paths['/api/v1/login'].post.responses['200']).toBeDefined();
    expect(document.paths['/health'].get.security).toEqual([{}]);
  });

  it('every operation that is not public rejects an anonymous call with 401', async () => {
    const protectedOperations = operations().filter(
      ({ operation }) => !operation.security?.some((requirement) => Object.keys(requirement).length === 0),
    );
    expect(protectedOperations.length).toBeGreaterThan(0);
    for (const { path, method } of protectedOperations) {
      const url = path.replace(/\{[^}]+\}/g, '6650c0ffee0000000000a001');
      const res = await t.http.request(method.toUpperCase(), url, ['post', 'put', 'patch'].includes(method) ? {} : undefined);
      expect({ method, path, status: res.status }).toEqual({ method, path, status: 401 });
    }
  });
});
