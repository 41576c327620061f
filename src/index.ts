/**
 * pixfit: get images and files ready for large language models.
 * Runtime-neutral entry point: no `node:` imports, no `Buffer`.
 */
export { prepare, prepareDefaults } from "./prepare.js";
export type { PrepareOptions, PreparedMedia } from "./prepare.js";
export { detect, detectUnsupported } from "./detect.js";
export { probe } from "./probe.js";
export { PixfitError, isPixfitError } from "./errors.js";
export type { ErrorCode } from "./errors.js";
export { fitWithin, resize } from "./resize.js";
export type { ResizeFilter } from "./resize.js";
export { applyOrientation, orientedSize } from "./orient.js";
export { codecs } from "../codecs/index.js";
export type { Raster, ImageInfo, MediaType, ImageMediaType, Codec } from "./types.js";
