import { defineTool, identifier, limit, listOf, searchText } from '@svc/tool-kit';
import { z } from 'zod';
import { trackEvent } from './schemas';

export const trackRecentInput = z.strictObject({
  name: z.string().trim().min(1).max(200).describe('Exact event name.').optional(),
  user_id: identifier('end-user id the events belong to').optional(),
  search: searchText(
    'Text to find in the event name or the properties JSON text: case-insensitive literal substring.',
  ).optional(),
  limit: limit(20),
});
export const trackRecentOutput = listOf(trackEvent);

export const trackRecent = defineTool({
  name: 'track.recent',
  title: 'Recent tracking events',
  description:
    'The most recent raw behavior events, newest first, optionally one exact event name, one user, or' +
    ' a text found in the event name or the properties. Returns items {timestamp, event_name, ' +
    'properties, user_id, session_id, ...}. Call track.stats first for volumes and' +
    ' the top event names.',
  input: trackRecentInput,
  output: trackRecentOutput,
  capability: 'base',
  backend: 'core',
  example: { name: 'add_to_cart', limit: 20 },
});
