/** OpenAPI `pattern` of an ObjectId hex string, as `@IsMongoId()` accepts it. */
export const OBJECT_ID_PATTERN = '^[0-9a-fA-F]{24}$';
