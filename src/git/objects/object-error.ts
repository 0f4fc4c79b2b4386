/**
 * Why an object could not be read. The byte-level readers throw it (a check at every field would
 * otherwise thread a `Result` through each varint and offset); the commit readers catch it at
 * their boundary and turn it into a per-branch warning, so it never reaches the wire as a throw.
 */
export class ObjectReadError extends Error {
  override readonly name = "ObjectReadError";
}

export function corrupt(message: string): never {
  throw new ObjectReadError(message);
}
