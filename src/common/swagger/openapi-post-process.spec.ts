import type { OpenAPIObject } from '@nestjs/swagger';
import { allowNullWhereNullable, applyServiceWideRules } from './openapi-post-process';

function documentWith(schema: Record<string, unknown>, content: Record<string, unknown> = {}): OpenAPIObject {
  return {
    openapi: '3.0.0',
    info: { title: 't', version: '1' },
    paths: {
      '/things': {
        post: {
          responses: {},
          requestBody: {
            content: { 'application/json': { schema: { $ref: '#/components/schemas/CreateThing' }, ...content } },
          },
        },
      },
    },
    components: { schemas: { CreateThing: schema } },
  } as unknown as OpenAPIObject;
}

const bodyOf = (document: OpenAPIObject) =>
  (document.paths['/things'].post!.requestBody as { content: Record<string, { example?: unknown }> }).content[
    'application/json'
  ];

describe('request body examples', () => {
  it("are made of the fields' examples, leaving out a field without one (an id of the caller's)", () => {
    const document = applyServiceWideRules(
      documentWith({
        type: 'object',
        required: ['name'],
        properties: {
          name: { type: 'string', example: 'Acme' },
          ownerId: { type: 'string' },
          tags: { type: 'array', example: ['a'] },
        },
      }),
    );
    expect(bodyOf(document).example).toEqual({ name: 'Acme', tags: ['a'] });
  });

  it('are left out when a required field has no example, and never replace one the route gives', () => {
    const required = applyServiceWideRules(
      documentWith({
        type: 'object',
        required: ['customer'],
        properties: { customer: { type: 'string' }, amount: { type: 'number', example: 5 } },
      }),
    );
    expect(bodyOf(required).example).toBeUndefined();
    const given = applyServiceWideRules(
      documentWith(
        { type: 'object', properties: { amount: { type: 'number', example: 5 } } },
        { examples: { one: { value: { amount: 7 } } } },
      ),
    );
    expect(bodyOf(given).example).toBeUndefined();
  });
});

describe('nullable schemas', () => {
  it('list null among a nullable enum, and make a nullable reference that schema or null', () => {
    const schema: Record<string, any> = {
      type: 'object',
      properties: {
        kind: { type: 'string', enum: ['a', 'b'], nullable: true },
        plain: { type: 'string', enum: ['a'] },
        error: { allOf: [{ $ref: '#/components/schemas/Error' }], nullable: true, type: 'object', description: 'd' },
        list: { type: 'array', items: { type: 'string', enum: ['x'], nullable: true } },
      },
    };
    allowNullWhereNullable(schema);
    expect(schema.properties.kind.enum).toEqual(['a', 'b', null]);
    expect(schema.properties.plain.enum).toEqual(['a']);
    expect(schema.properties.error).toEqual({
      anyOf: [{ $ref: '#/components/schemas/Error' }, { type: 'object', nullable: true, enum: [null] }],
      description: 'd',
    });
    expect(schema.properties.list.items.enum).toEqual(['x', null]);
  });
});
