import { z } from 'zod';

// A map whose keys a client chose (attributes, event properties, the fields of a device log line):
// every key is data, whatever its name. zod 4's z.record cannot be used for these: before it looks
// at a key it checks the object is "plain" by reading `o.constructor.prototype`, so an own key
// `constructor` holding a string makes it refuse the whole object ("expected record, received
// object"), and one stored attribute named `constructor` failed every read of a project.
//
// keyedRecord is an object of any keys (z.object({}).catchall) with each key checked by its own
// schema. A key `__proto__` is dropped before the values are copied: zod copies an object key by
// key, and assigning `__proto__` sets the copy's prototype (to an object the client sent) instead
// of adding a key. Dropping it is also what z.record did, so where a map was read through
// z.record, nothing changes for that key (docs/semantics.md, "Keys of maps").

const PROTO_KEY = '__proto__';

/** The object without its own `__proto__` key (a copy only when it has one); anything else as is. */
function withoutProtoKey(input: unknown): unknown {
  if (typeof input !== 'object' || input === null || !Object.hasOwn(input, PROTO_KEY)) return input;
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(input))
    if (key !== PROTO_KEY) copy[key] = (input as Record<string, unknown>)[key];
  return copy;
}

/** True for a bare z.string(): every JSON key passes it, so keys need no check. */
function acceptsEveryKey(key: z.ZodType<string>): boolean {
  const def = key._zod.def as { type: string; checks?: unknown[] };
  return def.type === 'string' && (def.checks ?? []).length === 0;
}

/**
 * `{[key]: value}` for client-chosen keys: any key is data (`constructor`, `toString`, ...), each
 * checked by `key` (an issue at that key: "Invalid key: ..."), each value by `value`; `__proto__`
 * keys dropped. JSON Schema: `{type: "object", additionalProperties: <value>}`.
 */
export function keyedRecord<V extends z.ZodType>(
  key: z.ZodType<string, string>,
  value: V,
): z.ZodType<Record<string, z.output<V>>, Record<string, z.input<V>>> {
  const object = z.object({}).catchall(value);
  const checked = acceptsEveryKey(key)
    ? object
    : object.superRefine((map, ctx) => {
        for (const name of Object.keys(map)) {
          const result = key.safeParse(name);
          if (!result.success)
            ctx.addIssue({
              code: 'custom',
              path: [name],
              input: name,
              message: `Invalid key: ${result.error.issues[0]?.message ?? 'not allowed'}`,
            });
        }
      });
  return z.preprocess(withoutProtoKey, checked) as unknown as z.ZodType<
    Record<string, z.output<V>>,
    Record<string, z.input<V>>
  >;
}
