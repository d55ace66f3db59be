import { z } from 'zod';

export interface CommaListOptions {
  /** What one item is, singular and plural, for the 400s ('version', 'versions'). */
  item: string;
  items: string;
  /** Most distinct items one call may name. */
  max: number;
  /** Most characters of one item (after trimming). */
  itemMax: number;
  description: string;
}

/**
 * A list a caller writes as one string, items separated by commas ("5.0.0, 5.1.0"): each item
 * trimmed, an empty item refused, a repeated item kept once where first named, at most `max`
 * distinct items of at most `itemMax` characters each. Parses to the array of items.
 *
 * Its JSON Schema is the string alone (one type: simplest for model clients). An array of strings
 * is also read, as the same list: it is what the parsed value is, so a gateway that forwards a
 * validated input to a backend (which validates it again with the same schema) is understood, and
 * callers that sent a list keep working. The array form is taken by a preprocess, which JSON Schema
 * does not show.
 */
export function commaList(options: CommaListOptions) {
  const { item, items, max, itemMax } = options;
  // Room for every item at its longest with ", " between: the text of any list that can pass.
  const textMax = max * (itemMax + 2);
  const text = z
    .string()
    .trim()
    .min(1)
    .max(textMax)
    .transform((value, ctx) => {
      const parts = value.split(',').map((part) => part.trim());
      const refuse = (message: string) => {
        ctx.issues.push({ code: 'custom', message, input: value });
        return z.NEVER;
      };
      if (parts.includes('')) {
        return refuse(`must not have an empty ${item} (two commas in a row, or a comma at the start or end)`);
      }
      const longest = Math.max(...parts.map((part) => part.length));
      if (longest > itemMax) {
        return refuse(`must list ${items} of at most ${itemMax} characters each, got one of ${longest}`);
      }
      const distinct = [...new Set(parts)];
      if (distinct.length > max) {
        return refuse(
          `must list at most ${max} ${items} (a repeated one counts once), got ${distinct.length}`,
        );
      }
      return distinct;
    });
  return z.preprocess(joinStrings, text).describe(options.description);
}

/** An array of strings as the comma-separated text it stands for; anything else as it came. */
function joinStrings(value: unknown): unknown {
  return Array.isArray(value) && value.every((v) => typeof v === 'string') ? value.join(',') : value;
}
