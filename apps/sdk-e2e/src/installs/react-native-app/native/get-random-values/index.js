require('react-native');

globalThis.crypto ??= {};
globalThis.crypto.getRandomValues = (array) => {
  for (let i = 0; i < array.length; i++) array[i] = Math.floor(Math.random() * 256);
  return array;
};
