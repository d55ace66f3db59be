require('react-native');

const host = globalThis.__nativeHost;

exports.createAsyncStorage = (name) => {
  host.storage[name] ??= {};
  const db = host.storage[name];
  return {
    getItem: async (key) => (key in db ? db[key] : null),
    setItem: async (key, value) => {
      db[key] = value;
    },
    removeItem: async (key) => {
      delete db[key];
    },
    getAllKeys: async () => Object.keys(db),
  };
};
