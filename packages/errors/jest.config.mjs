export { default } from '../../jest.base.mjs';
