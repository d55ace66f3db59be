export { usersTools } from './toolset';
