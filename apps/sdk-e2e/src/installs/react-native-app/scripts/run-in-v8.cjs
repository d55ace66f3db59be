// The iPhone of the JavaScriptCore build: the bundle's JavaScript run as the engine gets it, in a
// fresh V8 context of Node (V8 and JavaScriptCore both name a frame by the bundle's line and
// column; only the text around them differs). The context has what an engine has and nothing of
// Node: React Native's native side is played by the app's native/ stand-ins, as under Hermes.
// Usage: node scripts/run-in-v8.cjs <bundle>
const { readFileSync } = require('node:fs');
const { basename } = require('node:path');
const vm = require('node:vm');

const bundle = process.argv[2];
const context = vm.createContext({
  print: (line) => process.stdout.write(`${line}\n`),
  setTimeout,
  clearTimeout,
  __hostConfig: { os: 'ios', osVersion: '17.4', release: '17.4' },
});
// The phone loads the bundle by its file name: frames name it so.
vm.runInContext(readFileSync(bundle, 'utf8'), context, { filename: basename(bundle) });
