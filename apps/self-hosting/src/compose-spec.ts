import { readFileSync } from 'node:fs';
import Ajv from 'ajv';

// The Compose specification's JSON schema, vendored as src/compose-spec.schema.json: the file
// `schema/compose-spec.json` of github.com/compose-spec/compose-spec (Apache-2.0), as published in
// the npm package dclint@3.1.0 (`schemas/compose.schema.json`, unchanged). Update it by copying
// that file from a newer dclint (`npm pack dclint`).
export const COMPOSE_SPEC_SOURCE = 'compose-spec/compose-spec schema/compose-spec.json via dclint@3.1.0';

const schema = JSON.parse(readFileSync(new URL('./compose-spec.schema.json', import.meta.url), 'utf8'));

/** The errors of a compose document against the specification's schema; empty when it is valid. */
export function composeSpecErrors(document: unknown): string[] {
  // The schema names its draft as https://json-schema.org/draft-07/schema, a spelling Ajv does not
  // know; it is draft-07, which Ajv's default meta-schema is. Formats (durations such as "5s") are
  // compose's own, so they are not checked by Ajv.
  const ajv = new Ajv({ allErrors: true, strict: false, validateFormats: false });
  const validate = ajv.compile({ ...schema, $schema: 'http://json-schema.org/draft-07/schema#' });
  if (validate(document)) return [];
  return (validate.errors ?? []).map(
    (e) => `${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`,
  );
}
