import { crashBySignature } from '@svc/tools-crash';
import { serve } from '../core-tool';
import { equalsKey } from '../sql/filter';
import { crashPage, toSummary } from './crash-rows';

export const crashBySignatureQuery = serve(crashBySignature, (ctx, input) =>
  crashPage(ctx, equalsKey('signature', input.signature), input.limit, toSummary),
);
