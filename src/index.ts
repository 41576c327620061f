/**
 * pixfit: get images and files ready for large language models.
 * Runtime-neutral entry point: no `node:` imports, no `Buffer`.
 */
export { prepare, prepareDefaults, workerdMaxDecodePixels } from "./prepare.js";
export type { PrepareOptions, PreparedMedia } from "./prepare.js";
export { detect, detectUnsupported } from "./detect.js";
export { probe } from "./probe.js";
export { PixfitError, isPixfitError } from "./errors.js";
export type { ErrorCode } from "./errors.js";
export { fitWithin, resize, resizeFilters } from "./resize.js";
export type { ResizeFilter } from "./resize.js";
export { applyOrientation, orientedSize } from "./orient.js";
export { codecs } from "../codecs/index.js";
export type { Raster, ImageInfo, MediaType, ImageMediaType, Codec } from "./types.js";
export { targets, defineTarget, nativeSize, countedBytes, claudeVision, claudeVisionHighRes } from "./targets.js";
export type { Target, TargetApi, TargetOverrides, MediaPlacement, VisionModel } from "./targets.js";
export { jpegQualitySteps } from "./prepare.js";
export { toParts } from "./parts.js";
export type { ResultPart, TextPart, MediaPart, ToolResult, Attachment, ToolOutput, ToPartsOptions } from "./parts.js";
export { toAnthropicToolResult, toAnthropicContent, toOpenAIChatMessages, toOpenAIResponsesOutput, toGeminiParts, toBedrockToolResult, bedrockDocumentName, dataUrl } from "./serialize.js";
export type * from "./serialize.js";
export { fitRequest } from "./fit-request.js";
export type { FitRequestOptions, MessageWithParts } from "./fit-request.js";
export { serializeSession, parseSession } from "./session.js";
export type { SessionEntry, SessionLineError } from "./session.js";
export { estimateChars, estimateTokens, MEDIA_PART_CHARS } from "./estimate.js";
export type { EstimateTokensOptions } from "./estimate.js";
export { readAttachment } from "./attachment.js";
export type { ReadAttachmentOptions, AttachmentPart } from "./attachment.js";
export { encodeBase64, decodeBase64 } from "./base64.js";
