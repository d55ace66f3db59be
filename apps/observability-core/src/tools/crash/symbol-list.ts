import { FIELD_LIMITS, sanitizeOptional, sanitizeText } from '@svc/tool-kit';
import { debugFileKind, SYMBOL_LIST_MAX, symbolList, symbolPlatform } from '@svc/tools-crash';
import { isoFromMs } from '../../storage/time';
import { listDebugFiles, USABLE_KINDS } from '../../symbolication/debug-files';
import { serve } from '../core-tool';

/**
 * symbol.list: the project's uploaded debug files, newest first. The tool takes no `limit`, so at
 * most SYMBOL_LIST_MAX come back and `has_more` says when there are more. Names and modules were
 * given by an uploader (or read from the file): returned as cleaned, capped data.
 */
export const symbolListQuery = serve(symbolList, async (ctx, input) => {
  const rows = await listDebugFiles(ctx.ch, ctx.projectId, {
    ...(input.platform ? { platform: input.platform } : {}),
    limit: SYMBOL_LIST_MAX + 1,
    offset: ctx.offset ?? 0,
    ...(ctx.signal ? { signal: ctx.signal } : {}),
  });
  // A stored file of a kind or platform no upload takes was never usable: it is not listed.
  const listable = rows.slice(0, SYMBOL_LIST_MAX).flatMap((r) => {
    const kind = debugFileKind.safeParse(r.kind);
    const platform = symbolPlatform.safeParse(r.platform);
    return kind.success && platform.success ? [{ ...r, kind: kind.data, platform: platform.data }] : [];
  });
  return {
    items: listable.map((r) => ({
      file_id: sanitizeText(r.file_id, FIELD_LIMITS.id),
      name: sanitizeText(r.name, FIELD_LIMITS.id),
      kind: r.kind,
      platform: r.platform,
      release: sanitizeOptional(r.release),
      debug_id: sanitizeOptional(r.debug_id),
      module: sanitizeOptional(r.module),
      usable: USABLE_KINDS.includes(r.kind) && Number(r.readable) === 1,
      size_bytes: Math.min(Number(r.size_bytes), Number.MAX_SAFE_INTEGER),
      sha256: sanitizeText(r.sha256, FIELD_LIMITS.id),
      uploaded_at: isoFromMs(r.uploaded_ms),
    })),
    limit: SYMBOL_LIST_MAX,
    has_more: rows.length > SYMBOL_LIST_MAX,
  };
});
