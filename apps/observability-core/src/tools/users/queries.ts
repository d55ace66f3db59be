import type { AnyCoreTool } from '../core-tool';
import { sessionDetailQuery } from './session-detail';
import { userDetailQuery } from './user-detail';

/** The user and session views as the core serves them (@svc/tools-users defines them). */
export const usersQueries: readonly AnyCoreTool[] = [userDetailQuery, sessionDetailQuery];
