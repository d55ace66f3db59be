export {
  channelOf,
  SESSION_STATUSES,
  type SessionSummary,
  sessionSummary,
} from './schemas';
export { sessionDetail, sessionDetailInput, sessionDetailOutput } from './session-detail';
export { usersTools } from './toolset';
export { userDetail, userDetailInput, userDetailOutput } from './user-detail';
