/**
 * Node-only helpers (also work in Bun and Deno, which provide `node:` modules). Import from "pixfit/node".
 */
import { readFileBytes } from "./attachment.js";
import { prepare, prepareDefaults, type PrepareOptions, type PreparedMedia } from "./prepare.js";

/**
 * Reads a file and runs {@link prepare} on it. The file's size is checked against `maxInputBytes`
 * (default 20 MiB) before it is read, so an oversized file is refused without loading it.
 * @param path a file-system path.
 * @throws PixfitError `INPUT_TOO_LARGE` before reading; every error {@link prepare} throws; the file system's own
 * errors (ENOENT, EISDIR, EACCES) as thrown by `node:fs`.
 */
export async function prepareFile(path: string, options: PrepareOptions = {}): Promise<PreparedMedia> {
  const bytes = await readFileBytes(path, options.maxInputBytes ?? prepareDefaults.maxInputBytes);
  return prepare(bytes, options);
}
