// PLACEHOLDER written by the scaffold so the build can be tested; the real
// entry point (owned by another engineer) replaces this file.
export { bindingPath, native } from './binding.js';
export type { NativeBinding } from './native-types.js';
