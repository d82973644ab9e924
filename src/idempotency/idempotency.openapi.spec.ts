import type { OpenAPIObject } from '@nestjs/swagger';
import { documentIdempotency } from './idempotency.openapi';

function documentWith(paths: Record<string, unknown>): OpenAPIObject {
  return {
    openapi: '3.0.0',
    info: { title: 't', version: '1' },
    paths: paths as OpenAPIObject['paths'],
    components: { schemas: { ErrorResponseDto: { type: 'object' } } },
  };
}

describe('documentIdempotency', () => {
  it('adds the optional header to every POST, the replay header to its success responses, and 409/422', () => {
    const document = documentIdempotency(
      documentWith({
        '/things': {
          post: { responses: { '201': { description: 'created' }, '400': { description: 'bad' } } },
          get: { responses: { '200': { description: 'ok' } } },
        },
      }),
    );
    const post = document.paths['/things'].post as any;
    expect(post.parameters).toEqual([
      expect.objectContaining({
        name: 'Idempotency-Key',
        in: 'header',
        required: false,
        schema: expect.objectContaining({ maxLength: 255 }),
      }),
    ]);
    expect(post.responses['201'].headers['Idempotent-Replayed']).toBeDefined();
    expect(post.responses['400'].headers).toBeUndefined();
    expect(post.responses['409']).toBeDefined();
    expect(post.responses['422']).toBeDefined();
    expect((document.paths['/things'].get as any).parameters).toBeUndefined();
  });

  it('documents the header on anonymous POSTs as not replayed, without 409/422', () => {
    const document = documentIdempotency(
      documentWith({ '/login': { post: { security: [{}], responses: { '200': { description: 'ok' } } } } }),
    );
    const post = document.paths['/login'].post as any;
    expect(post.parameters[0].description).toMatch(/not stored or replayed/);
    expect(post.responses['200'].headers).toBeUndefined();
    expect(post.responses['422']).toBeUndefined();
  });

  it('keeps the existing description of a 409 and does not add the header twice', () => {
    const document = documentIdempotency(
      documentWith({
        '/x': {
          post: {
            parameters: [{ name: 'Idempotency-Key', in: 'header' }],
            responses: { '200': { description: 'ok' }, '409': { description: 'duplicate name' } },
          },
        },
      }),
    );
    const post = document.paths['/x'].post as any;
    expect(post.parameters).toHaveLength(1);
    expect(post.responses['409'].description).toBe('duplicate name');
  });
});
