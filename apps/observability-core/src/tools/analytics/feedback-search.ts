import { feedbackSearch } from '@svc/tools-analytics';
import { serve } from '../core-tool';
import { combine, equals } from '../sql/filter';
import { contains } from '../sql/text-match';
import { countFeedback, listFeedback } from './feedback-rows';

/** With only user_id this is the user's whole history, paged by limit, with its total. */
export const feedbackSearchQuery = serve(feedbackSearch, async (ctx, input) => {
  const filter = combine(
    equals('user_id', input.user_id),
    input.search === undefined ? undefined : contains('message', input.search),
  );
  const [page, total] = await Promise.all([
    listFeedback(ctx, filter, input.limit),
    countFeedback(ctx, filter),
  ]);
  return { ...page, total };
});
