import type { OpenAPIObject } from '@nestjs/swagger';
import { OBJECT_ID_PATTERN } from '../pipes/object-id';

type Schema = Record<string, any>;
const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

function refName(ref: string): string {
  return ref.replace('#/components/schemas/', '');
}

/** Component schemas reachable from a schema through $ref, properties, items and compositions. */
function collectRefs(schema: Schema | undefined, schemas: Record<string, Schema>, seen: Set<string>): void {
  if (!schema || typeof schema !== 'object') return;
  if (typeof schema.$ref === 'string') {
    const name = refName(schema.$ref);
    if (seen.has(name)) return;
    seen.add(name);
    collectRefs(schemas[name], schemas, seen);
    return;
  }
  for (const key of ['items', 'additionalProperties']) collectRefs(schema[key], schemas, seen);
  for (const key of ['allOf', 'oneOf', 'anyOf'])
    (schema[key] ?? []).forEach((part: Schema) => collectRefs(part, schemas, seen));
  Object.values(schema.properties ?? {}).forEach((property) => collectRefs(property as Schema, schemas, seen));
}

/**
 * States in the document what the service enforces everywhere, so clients and contract tests see
 * the real rules: every path parameter is an ObjectId, request bodies take no unknown fields, and a
 * body is required exactly when its schema has required fields (a missing body validates as `{}`).
 */
export function applyServiceWideRules(document: OpenAPIObject): OpenAPIObject {
  const schemas = (document.components?.schemas ?? {}) as Record<string, Schema>;
  const requestSchemas = new Set<string>();

  for (const item of Object.values(document.paths ?? {})) {
    for (const method of METHODS) {
      const operation = (item as Record<string, any>)[method];
      if (!operation) continue;
      for (const parameter of operation.parameters ?? []) {
        // An ObjectId unless the route documents a form of its own (an event id). No example: an id
        // that names no record of the caller's answers 404 to anyone who tries it.
        if (parameter.in === 'path' && !parameter.schema?.pattern) {
          parameter.schema = { ...(parameter.schema ?? {}), type: 'string', pattern: OBJECT_ID_PATTERN };
        }
        boundObjectIds(parameter.schema);
      }
      const body = operation.requestBody?.content?.['application/json'];
      if (body?.schema && body.example === undefined && body.examples === undefined) {
        const example = exampleFromFields(body.schema, schemas);
        if (example !== undefined) body.example = example;
      }
      if (body?.schema) {
        const reachable = new Set<string>();
        collectRefs(body.schema, schemas, reachable);
        reachable.forEach((name) => requestSchemas.add(name));
        const root = body.schema.$ref ? schemas[refName(body.schema.$ref)] : body.schema;
        operation.requestBody.required = Array.isArray(root?.required) && root.required.length > 0;
      }
    }
  }
  for (const name of requestSchemas) {
    const schema = schemas[name];
    if (schema && (schema.type === 'object' || schema.properties)) schema.additionalProperties = false;
    boundObjectIds(schema);
  }
  return document;
}

/**
 * `allowNullWhereNullable` on every schema of the document: last, once the links are drawn (they
 * follow a nullable reference in the `allOf` form Nest writes).
 */
export function stateNullables(document: OpenAPIObject): OpenAPIObject {
  Object.values(document.components?.schemas ?? {}).forEach((schema) => allowNullWhereNullable(schema as Schema));
  return document;
}

/**
 * Says `null` where `nullable` means it, in the form OpenAPI 3.0.3 validators read: a nullable enum
 * lists `null` among its values, and a nullable reference to another schema (`allOf` of one `$ref`,
 * which that schema alone would refuse null through) is that schema or null (`anyOf`).
 */
export function allowNullWhereNullable(schema: Schema | undefined): void {
  if (!schema || typeof schema !== 'object') return;
  if (schema.nullable === true && Array.isArray(schema.enum) && !schema.enum.includes(null)) schema.enum.push(null);
  if (schema.nullable === true && schema.allOf?.length === 1 && typeof schema.allOf[0].$ref === 'string') {
    schema.anyOf = [schema.allOf[0], { type: schema.type ?? 'object', nullable: true, enum: [null] }];
    delete schema.allOf;
    delete schema.type;
    delete schema.nullable;
  }
  Object.values(schema.properties ?? {}).forEach((property) => allowNullWhereNullable(property as Schema));
  allowNullWhereNullable(schema.items);
}

/**
 * A body's example made of its fields' examples, and of nothing else. Swagger UI's "Try it out"
 * sends a body's example as it is; without one it fills every field, and a field without an example
 * (an id naming a record of the caller's: no example could) gets the word "string", a 400. None
 * when a required field has no example: the caller must fill that one in.
 */
function exampleFromFields(schema: Schema, schemas: Record<string, Schema>): Record<string, unknown> | undefined {
  const resolved = schema.$ref ? schemas[refName(schema.$ref)] : schema;
  if (!resolved?.properties) return undefined;
  const example: Record<string, unknown> = {};
  for (const [name, property] of Object.entries<Schema>(resolved.properties)) {
    const value = property.example ?? (property.$ref ? schemas[refName(property.$ref)]?.example : undefined);
    if (value !== undefined) example[name] = value;
    else if ((resolved.required ?? []).includes(name)) return undefined;
  }
  return example;
}

/**
 * An ObjectId is 24 characters: said as `minLength`/`maxLength` too, which the pattern already
 * enforces, so length checks (OWASP API4) see the bound without reading the pattern.
 */
function boundObjectIds(schema: Schema | undefined): void {
  if (!schema || typeof schema !== 'object') return;
  if (schema.type === 'string' && schema.pattern === OBJECT_ID_PATTERN) {
    schema.minLength ??= 24;
    schema.maxLength ??= 24;
  }
  boundObjectIds(schema.items);
  Object.values(schema.properties ?? {}).forEach((property) => boundObjectIds(property as Schema));
}
