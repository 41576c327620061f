/**
 * `pixfit/vision`: a `vision` tool for agents whose own model cannot see images. The tool sends local images
 * (prepared by pixfit: upright, at most 2000 × 2000 pixels, PNG/JPEG/GIF/WEBP) to an OpenAI-compatible Chat
 * Completions endpoint and returns the model's answer as text.
 *
 * Register it in the pi coding agent (`~/.pi/agent/extensions/vision.ts`):
 *
 * ```ts
 * import { registerVisionTool } from "pixfit/vision";
 * export default function (pi) {
 *   registerVisionTool(pi); // reads VISION_API_KEY, VISION_BASE_URL, VISION_MODEL, ... from process.env
 * }
 * ```
 *
 * Or call it from any agent:
 *
 * ```ts
 * import { loadVisionConfig, runVision } from "pixfit/vision";
 * const config = loadVisionConfig(process.env);
 * const result = await runVision({ prompt: "What does the error dialog say?", images: ["shot.png"] }, config, { cwd: process.cwd() });
 * console.log(result.content[0].text, result.details.usage);
 * ```
 *
 * Everything here runs wherever `fetch` does, except {@link loadAndValidateImages} (and so the default image
 * loader of the tool), which reads files and needs Node, Bun or Deno.
 */
export { loadVisionConfig, visionDefaults } from "./config.js";
export type { VisionConfig, VisionEnv, ThinkingFormat } from "./config.js";
export { VisionError, isVisionError } from "./errors.js";
export type { VisionErrorCategory } from "./errors.js";
export { loadAndValidateImages, defaultVisionTarget } from "./images.js";
export type { LoadedImage, LoadImagesOptions, VisionImageMeta } from "./images.js";
export { buildRequestBody, imageDetails } from "./request.js";
export type { ChatCompletionRequest, ChatCompletionResponse, ChatCompletionUsage, ImageDetail, VisionRequest } from "./request.js";
export { createVisionClient } from "./client.js";
export type { VisionClient, VisionClientOptions } from "./client.js";
export { createVisionTool, runVision, visionParameters, visionToolText } from "./tool.js";
export type {
  AgentUsage,
  TextContent,
  ToolContextLike,
  VisionDetails,
  VisionParams,
  VisionTokenUsage,
  VisionToolDefinition,
  VisionToolOptions,
  VisionToolResult,
} from "./tool.js";
export { registerVisionTool } from "./extension.js";
export { default as visionExtension } from "./extension.js";
export type { ExtensionApiLike, RegisterVisionOptions } from "./extension.js";
