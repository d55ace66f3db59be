import { defineTool, identifier, limit, searchText } from '@svc/tool-kit';
import { z } from 'zod';
import { feedbackItem } from './schemas';

export const feedbackSearchInput = z.strictObject({
  user_id: identifier('end-user id whose feedback to return').optional(),
  search: searchText(
    'Text to find in feedback messages: case-insensitive literal substring (%, _, * match themselves).',
  ).optional(),
  limit: limit(20),
});
export const feedbackSearchOutput = z.strictObject({
  items: z.array(feedbackItem),
  total: z.number().int().describe('All feedback matching the filters, beyond limit too.'),
  limit: z.number().int(),
  has_more: z.boolean().describe('True when more items matched than `limit`.'),
});

export const feedbackSearch = defineTool({
  name: 'feedback.search',
  title: 'Search user feedback',
  description:
    'User feedback newest first, by user_id and/or a text in the message. With only user_id: that ' +
    "user's whole history, paged by limit, total counting all of it. Returns {items: [{feedback_id, " +
    'timestamp, user_id, message, rating, ...}], total, limit, has_more}. For everything else about a' +
    ' user call user.detail.',
  input: feedbackSearchInput,
  output: feedbackSearchOutput,
  capability: 'base',
  backend: 'core',
  example: { search: 'checkout' },
});
