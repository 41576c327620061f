/**
 * The Chat Completions request and response shapes the vision tool uses, and the request builder.
 * Shapes follow the OpenAI Chat Completions API (`openai` npm package 6.x, `ChatCompletionContentPartImage`,
 * `CompletionUsage`); only the fields pixfit reads or writes are declared.
 */
import type { ThinkingFormat, VisionConfig } from "./config.js";
import type { LoadedImage } from "./images.js";

/**
 * Image detail levels. `low`, `high` and `auto` are the Chat Completions values (`ImageURL.detail`);
 * `original` appears for image inputs in OpenAI's Responses API typings (openai-node 6.49). Endpoints that do not
 * know a value may reject the request with HTTP 400.
 */
export type ImageDetail = "low" | "high" | "original" | "auto";

/** The four {@link ImageDetail} literals, in the order the tool's schema lists them. */
export const imageDetails: readonly ImageDetail[] = ["low", "high", "original", "auto"];

/** A text part of a user message. */
export interface TextPart {
  type: "text";
  text: string;
}

/** An image part of a user message: a data URL, with `detail` only when the caller gave one. */
export interface ImageUrlPart {
  type: "image_url";
  image_url: { url: string; detail?: ImageDetail };
}

/** The body posted to `/chat/completions`. */
export interface ChatCompletionRequest {
  model: string;
  messages: [{ role: "user"; content: Array<TextPart | ImageUrlPart> }];
  max_tokens: number;
  stream: false;
  /** DeepSeek's thinking switch (`thinkingFormat: "deepseek"`). */
  thinking?: { type: "enabled" | "disabled" };
}

/** Token counts as Chat Completions reports them (`CompletionUsage`). */
export interface ChatCompletionUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  total_tokens?: number;
  completion_tokens_details?: { reasoning_tokens?: number } | null;
}

/** The parts of a Chat Completions answer the tool reads. `reasoning_content` is DeepSeek's thinking text; it is never returned to the model. */
export interface ChatCompletionResponse {
  id?: string;
  model?: string;
  choices?: Array<{
    index?: number;
    finish_reason?: string | null;
    message?: { role?: string; content?: string | Array<{ type?: string; text?: string }> | null; reasoning_content?: string | null } | null;
  }>;
  usage?: ChatCompletionUsage | null;
}

/** Input of {@link buildRequestBody}. */
export interface VisionRequest {
  /** The question or instruction for the vision model. */
  prompt: string;
  /** Images as loaded by `loadAndValidateImages` (only `dataUrl` is used). */
  images: ReadonlyArray<Pick<LoadedImage, "dataUrl">>;
  /** Detail level for every image; omitted from the body when undefined. */
  detail?: ImageDetail;
  /** Whether the model should think first. */
  thinking: boolean;
}

/**
 * Builds the Chat Completions body: one user message whose content is the prompt as a text part followed by one
 * `image_url` part per image (in order, with `detail` when given), `max_tokens` from the config, `stream: false`,
 * and the thinking switch in the form `config.thinkingFormat` names (`thinking: { type: "enabled" | "disabled" }`
 * for DeepSeek, always sent because DeepSeek thinks unless told not to; nothing for `"none"`).
 * Pure: no I/O, never throws.
 */
export function buildRequestBody(request: VisionRequest, config: Pick<VisionConfig, "model" | "maxTokens" | "thinkingFormat">): ChatCompletionRequest {
  const content: Array<TextPart | ImageUrlPart> = [{ type: "text", text: request.prompt }];
  for (const image of request.images) {
    const image_url: ImageUrlPart["image_url"] = { url: image.dataUrl };
    if (request.detail !== undefined) image_url.detail = request.detail;
    content.push({ type: "image_url", image_url });
  }
  const body: ChatCompletionRequest = {
    model: config.model,
    messages: [{ role: "user", content }],
    max_tokens: config.maxTokens,
    stream: false,
  };
  Object.assign(body, thinkingField(request.thinking, config.thinkingFormat));
  return body;
}

function thinkingField(thinking: boolean, format: ThinkingFormat): Partial<ChatCompletionRequest> {
  if (format === "deepseek") return { thinking: { type: thinking ? "enabled" : "disabled" } };
  return {};
}
