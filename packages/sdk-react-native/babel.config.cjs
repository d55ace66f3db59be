// Only for the React Native adapters' jest run (jest.rn.config.cjs); the rest uses SWC.
module.exports = { presets: ['module:@react-native/babel-preset'] };
