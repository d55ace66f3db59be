// React Native's own Metro defaults: the `react-native` export condition, Babel with
// @react-native/babel-preset, its polyfills and InitializeCore before the app.
const { getDefaultConfig } = require('@react-native/metro-config');

module.exports = getDefaultConfig(__dirname);
