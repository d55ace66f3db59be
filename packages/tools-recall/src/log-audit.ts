import { defineTool, limit, listOf } from '@svc/tool-kit';
import { z } from 'zod';

export const RECALL_ACTIONS = ['trigger', 'download', 'view'] as const;

export const logAuditInput = z.strictObject({
  action: z.enum(RECALL_ACTIONS).describe('Only this kind of access.').optional(),
  file_id: z.string().trim().min(1).max(100).describe('Only accesses to this file.').optional(),
  limit: limit(100),
});

const auditRecord = z.strictObject({
  at: z.iso.datetime(),
  action: z
    .enum(RECALL_ACTIONS)
    .describe(
      'trigger: a recall was requested; download: a file was downloaded; view: its entries were read (log.file_entries).',
    ),
  via: z.enum(['console', 'mcp', 'rest', 'stdio']),
  user_id: z.string().nullable().describe('The person who acted (null for a token without a user).'),
  token_id: z.string().nullable().describe('The MCP token used, for views over MCP or REST.'),
  file_id: z.string().nullable(),
  device_id: z.string().nullable(),
  target_user_id: z.string().nullable().describe("The end user whose device's logs were concerned."),
});

export const logAuditOutput = listOf(auditRecord);

export const logAudit = defineTool({
  name: 'log.audit',
  title: 'Recall audit trail',
  description:
    'Who accessed recalled device logs and when, newest first: recall triggers and downloads (from ' +
    'the console) and views (log.file_entries calls). Append-only. Filters: action, file_id. Returns items ' +
    '{at, action, via, user_id, file_id, ...}.',
  input: logAuditInput,
  output: logAuditOutput,
  capability: 'vis_recall',
  backend: 'recall',
  example: { action: 'view', limit: 20 },
});
