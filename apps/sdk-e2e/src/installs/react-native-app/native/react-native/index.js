// React Native's modules the SDK uses, answered as a phone's native side would.
require('./Libraries/Core/InitializeCore');

const host = globalThis.__nativeHost;

module.exports = {
  AppState: {
    get currentState() {
      return host.appState;
    },
    addEventListener(_type, listener) {
      host.appStateListeners.push(listener);
      return { remove() {} };
    },
  },
  Platform: { OS: host.os, Version: host.osVersion, constants: { Release: host.release } },
};
