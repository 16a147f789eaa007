import { z } from 'zod';

export type Json = Record<string, unknown>;

/** JSON Schema of what a request may send (`io: 'input'`), without the bounds every integer has anyway. */
export const toJsonSchema = (schema: z.ZodType): Json => {
  const { $schema: _schema, $id: _id, ...json } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any', target: 'draft-2020-12' }) as Json;
  return withoutSafeIntegerBounds(json);
};

export function withoutSafeIntegerBounds<T>(value: T): T {
  if (Array.isArray(value)) return value.map(withoutSafeIntegerBounds) as T;
  if (!value || typeof value !== 'object') return value;
  const out: Json = {};
  for (const [k, v] of Object.entries(value)) {
    if ((k === 'minimum' || k === 'maximum') && Math.abs(v as number) === Number.MAX_SAFE_INTEGER) continue;
    out[k] = withoutSafeIntegerBounds(v);
  }
  return out as T;
}

