/**
 * Node-only helpers (also work in Bun and Deno, which provide `node:` modules). Import from "pixfit/node".
 */
import { readFile, stat } from "node:fs/promises";
import { PixfitError } from "./errors.js";
import { prepare, prepareDefaults, type PrepareOptions, type PreparedMedia } from "./prepare.js";

/**
 * Reads a file and runs {@link prepare} on it. The file's size is checked against `maxInputBytes`
 * (default 20 MiB) before it is read, so an oversized file is refused without loading it.
 * @param path a file-system path.
 * @throws PixfitError `INPUT_TOO_LARGE` before reading; every error {@link prepare} throws; the file system's own
 * errors (ENOENT, EISDIR, EACCES) as thrown by `node:fs`.
 */
export async function prepareFile(path: string, options: PrepareOptions = {}): Promise<PreparedMedia> {
  const limit = options.maxInputBytes ?? prepareDefaults.maxInputBytes;
  const info = await stat(path);
  if (info.isDirectory()) throw Object.assign(new Error(`${path} is a directory`), { code: "EISDIR" });
  if (info.size > limit)
    throw new PixfitError("INPUT_TOO_LARGE", `${path} is ${info.size} bytes; the limit (maxInputBytes) is ${limit} bytes.`);
  const bytes = new Uint8Array(await readFile(path));
  return prepare(bytes, options);
}
