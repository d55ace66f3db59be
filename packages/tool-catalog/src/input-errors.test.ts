import { parseInput, UserInputError } from '@svc/errors';
import { toolJsonSchema } from '@svc/tool-server';
import { allTools } from './catalog';

// Every 400 names the field and the form it expects: for every parameter of every tool, values of
// the wrong kind are refused with a message that says which field and what it wants, never zod's
// bare "Invalid input".

type Property = {
  type?: string | string[];
  enum?: unknown[];
  format?: string;
  pattern?: string;
  anyOf?: unknown[];
  minLength?: number;
};

/** Values that must be refused for a parameter of this JSON schema, each with a label. */
function badValues(p: Property): [string, unknown][] {
  const bad: [string, unknown][] = [];
  if (p.anyOf)
    return [
      ['a word', 'yesterday'],
      ['a number', 42],
    ];
  switch (p.type) {
    case 'string':
      bad.push(['a number', 12345]);
      if (p.enum) bad.push(['an unknown value', 'no-such-value']);
      if (p.format || p.pattern) bad.push(['a malformed string', 'not the right form']);
      if (p.minLength) bad.push(['an empty string', '']);
      break;
    case 'integer':
      bad.push(['a string', 'ten'], ['a fraction', 2.5], ['a huge number', 1e12], ['a negative number', -1]);
      break;
    case 'number':
      bad.push(['a string', 'ten']);
      break;
    case 'array':
      bad.push(['a string', 'a,b'], ['an empty array', []]);
      break;
    case 'boolean':
      bad.push(['a string', 'yes']);
      break;
    default:
      bad.push(['a number', 5]);
  }
  return bad;
}

const cases = allTools.flatMap((tool) => {
  const schema = toolJsonSchema(tool.input, 'input') as { properties: Record<string, Property> };
  return Object.entries(schema.properties).flatMap(([field, property]) =>
    badValues(property).map(([label, value]) => [tool.name, field, label, value, tool] as const),
  );
});

function refusal(tool: (typeof allTools)[number], input: Record<string, unknown>): UserInputError {
  try {
    parseInput(tool.input, input, tool.name);
  } catch (err) {
    if (err instanceof UserInputError) return err;
    throw err;
  }
  throw new Error(`${tool.name} accepted ${JSON.stringify(input)}`);
}

describe('input errors name the field and the expected form', () => {
  it.each(cases)('%s: %s given %s', (name, field, _label, value, tool) => {
    const err = refusal(tool, { ...tool.example, [field]: value });
    const details = err.details as { path: string; message: string }[];
    const mine = details.find((d) => d.path === field);
    expect(mine).toBeDefined();
    expect(mine!.message).not.toMatch(/^Invalid input/);
    expect(mine!.message).toMatch(/^(must|is)\b/);
    expect(err.message).toContain(`Invalid input for ${name}: `);
    expect(err.message).toContain(`${field} ${mine!.message}`);
  });

  it.each(allTools.map((t) => [t.name, t] as const))(
    '%s names an unknown field and project_id',
    (_n, tool) => {
      const err = refusal(tool, { ...tool.example, project_id: 'p', colour: 'red' });
      expect(err.details).toEqual(
        expect.arrayContaining([
          { path: 'project_id', message: 'is not accepted: the project comes from the token' },
          { path: 'colour', message: 'is not a parameter of this call' },
        ]),
      );
    },
  );
});
