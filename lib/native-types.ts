// PLACEHOLDER written by the scaffold so the build can be tested; the real
// interface (owned by another engineer) replaces this file.
export interface NativeBinding {
  readonly engineVersion: string;
}
