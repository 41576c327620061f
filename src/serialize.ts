/**
 * Serializers: a {@link ToolResult} as each model API's request JSON. Pure functions; plain objects out (Bedrock's
 * default holds `Uint8Array` bytes, as its SDK expects). The shapes follow each API's reference as of 2026 and are
 * checked against the official SDKs' request types in `test/sdk-types.test.ts`.
 *
 * Media a serializer cannot represent (a media type the API does not take; `toParts` never produces one for the
 * matching target) is replaced by a text note instead of producing a request the API would reject.
 */
import { decodeBase64 } from "./base64.js";
import type { MediaPart, ResultPart, ToolResult } from "./parts.js";
import type { Target } from "./targets.js";

// ---------------------------------------------------------------------------------------------------------------
// Anthropic Messages

/** `{ type: "text" }` block (Anthropic `TextBlockParam`). */
export interface AnthropicTextBlock {
  type: "text";
  text: string;
}
/** `{ type: "image" }` block with a base64 source (Anthropic `ImageBlockParam`). */
export interface AnthropicImageBlock {
  type: "image";
  source: { type: "base64"; media_type: "image/jpeg" | "image/png" | "image/gif" | "image/webp"; data: string };
}
/** `{ type: "document" }` block with a base64 PDF source (Anthropic `DocumentBlockParam`). */
export interface AnthropicDocumentBlock {
  type: "document";
  source: { type: "base64"; media_type: "application/pdf"; data: string };
}
export type AnthropicBlock = AnthropicTextBlock | AnthropicImageBlock | AnthropicDocumentBlock;
/** `{ type: "tool_result" }` block (Anthropic `ToolResultBlockParam`). */
export interface AnthropicToolResultBlock {
  type: "tool_result";
  tool_use_id: string;
  content: AnthropicBlock[];
  is_error?: boolean;
}

const ANTHROPIC_IMAGES = new Set(["image/jpeg", "image/png", "image/gif", "image/webp"]);

/**
 * Parts as Anthropic content blocks, usable in a `tool_result` or a user message: text → `text`; JPEG/PNG/GIF/WEBP →
 * `image` with a base64 source; PDF → `document` with a base64 source. Anthropic Messages API reference
 * ("Content blocks"), 2026.
 */
export function toAnthropicContent(parts: readonly ResultPart[]): AnthropicBlock[] {
  return parts.map((p): AnthropicBlock => {
    if (p.type === "text") return { type: "text", text: p.text };
    if (p.mediaType === "application/pdf") return { type: "document", source: { type: "base64", media_type: "application/pdf", data: p.data } };
    if (ANTHROPIC_IMAGES.has(p.mediaType))
      return { type: "image", source: { type: "base64", media_type: p.mediaType as AnthropicImageBlock["source"]["media_type"], data: p.data } };
    return { type: "text", text: notAccepted(p) };
  });
}

/**
 * `{ type: "tool_result", tool_use_id, content: [...], is_error? }` for the next user message. `is_error` is written
 * only when true.
 */
export function toAnthropicToolResult(result: ToolResult): AnthropicToolResultBlock {
  const block: AnthropicToolResultBlock = { type: "tool_result", tool_use_id: result.toolCallId, content: toAnthropicContent(result.parts) };
  if (result.isError) block.is_error = true;
  return block;
}

// ---------------------------------------------------------------------------------------------------------------
// OpenAI Chat Completions

/** Chat Completions `image_url` detail. */
export type OpenAIDetail = "low" | "high" | "auto";

export interface OpenAIChatTextPart {
  type: "text";
  text: string;
}
export interface OpenAIChatImagePart {
  type: "image_url";
  image_url: { url: string; detail?: OpenAIDetail };
}
export interface OpenAIChatFilePart {
  type: "file";
  file: { filename: string; file_data: string };
}
/** `role: "tool"` message (`ChatCompletionToolMessageParam`): text only. */
export interface OpenAIChatToolMessage {
  role: "tool";
  tool_call_id: string;
  content: string | OpenAIChatTextPart[];
}
/** `role: "user"` message (`ChatCompletionUserMessageParam`) carrying a tool result's media. */
export interface OpenAIChatUserMessage {
  role: "user";
  content: Array<OpenAIChatTextPart | OpenAIChatImagePart | OpenAIChatFilePart>;
}

const OPENAI_IMAGES = new Set(["image/jpeg", "image/png", "image/gif", "image/webp"]);

/** Options for the OpenAI serializers. */
export interface OpenAISerializeOptions {
  /** `detail` written on each image; omitted (the API's default, "auto") when not given. */
  detail?: OpenAIDetail;
}

/**
 * Chat Completions messages for a tool result. Images are not allowed in `role: "tool"` messages (their content is
 * text only — API reference `ChatCompletionToolMessageParam`), so:
 * 1. the `tool` message holds the text parts plus a one-line note, e.g. "[1 image attached in the next message]";
 * 2. when there is media, a `user` message follows with "[attachments from tool call <id>]", then `image_url` parts
 *    (data URLs, optional `detail`) and PDFs as `file` parts (`filename`, `file_data` as a data URL) —
 *    "Images and vision" and "File inputs" guides, 2025.
 * Returns `[toolMessage]` or `[toolMessage, userMessage]`; the tool message's content is `""` when it has no text.
 */
export function toOpenAIChatMessages(
  result: ToolResult, options: OpenAISerializeOptions = {},
): [OpenAIChatToolMessage] | [OpenAIChatToolMessage, OpenAIChatUserMessage] {
  const text: OpenAIChatTextPart[] = [];
  const media: Array<OpenAIChatImagePart | OpenAIChatFilePart> = [];
  let images = 0;
  let pdfs = 0;
  for (const p of result.parts) {
    if (p.type === "text") text.push({ type: "text", text: p.text });
    else if (p.mediaType === "application/pdf") {
      pdfs++;
      media.push({ type: "file", file: { filename: pdfName(p, pdfs), file_data: dataUrl(p) } });
    } else if (OPENAI_IMAGES.has(p.mediaType)) {
      images++;
      media.push({ type: "image_url", image_url: options.detail ? { url: dataUrl(p), detail: options.detail } : { url: dataUrl(p) } });
    } else text.push({ type: "text", text: notAccepted(p) });
  }
  if (media.length === 0) return [{ role: "tool", tool_call_id: result.toolCallId, content: text.length ? text : "" }];
  text.push({ type: "text", text: `[${attachedSummary(images, pdfs)} attached in the next message]` });
  return [
    { role: "tool", tool_call_id: result.toolCallId, content: text },
    { role: "user", content: [{ type: "text", text: `[attachments from tool call ${result.toolCallId}]` }, ...media] },
  ];
}

// ---------------------------------------------------------------------------------------------------------------
// OpenAI Responses

export interface OpenAIResponsesText {
  type: "input_text";
  text: string;
}
export interface OpenAIResponsesImage {
  type: "input_image";
  image_url: string;
  detail?: OpenAIDetail;
}
export interface OpenAIResponsesFile {
  type: "input_file";
  filename: string;
  file_data: string;
}
/** `function_call_output` input item (`ResponseInputItem.FunctionCallOutput`). */
export interface OpenAIResponsesFunctionCallOutput {
  type: "function_call_output";
  call_id: string;
  output: string | Array<OpenAIResponsesText | OpenAIResponsesImage | OpenAIResponsesFile>;
}

/**
 * Responses API `function_call_output` item: `output` is an array of `input_text`, `input_image` (`image_url` a data
 * URL, optional `detail`) and `input_file` (`filename`, `file_data` a data URL) — API reference
 * `ResponseFunctionCallOutputItemList`, 2025–2026. `output` is `""` for a result with no parts.
 */
export function toOpenAIResponsesOutput(result: ToolResult, options: OpenAISerializeOptions = {}): OpenAIResponsesFunctionCallOutput {
  let pdfs = 0;
  const output = result.parts.map((p): OpenAIResponsesText | OpenAIResponsesImage | OpenAIResponsesFile => {
    if (p.type === "text") return { type: "input_text", text: p.text };
    if (p.mediaType === "application/pdf") return { type: "input_file", filename: pdfName(p, ++pdfs), file_data: dataUrl(p) };
    if (OPENAI_IMAGES.has(p.mediaType))
      return options.detail ? { type: "input_image", image_url: dataUrl(p), detail: options.detail } : { type: "input_image", image_url: dataUrl(p) };
    return { type: "input_text", text: notAccepted(p) };
  });
  return { type: "function_call_output", call_id: result.toolCallId, output: output.length ? output : "" };
}

// ---------------------------------------------------------------------------------------------------------------
// Gemini

/** Inline bytes (`Blob`): base64 `data`. */
export interface GeminiInlineData {
  mimeType: string;
  data: string;
}
/** `functionResponse` (`FunctionResponse`); `parts` (Gemini 3+) holds media. */
export interface GeminiFunctionResponse {
  id: string;
  name: string;
  response: { output: string } | { error: string };
  parts?: Array<{ inlineData: GeminiInlineData }>;
}
export type GeminiPart = { text: string } | { inlineData: GeminiInlineData } | { functionResponse: GeminiFunctionResponse };

/**
 * Gemini parts for the user turn that answers a function call. The text parts, joined with "\n", become
 * `functionResponse.response.output` (`.error` when `isError`), the convention of the `FunctionResponse` reference.
 * - `target.mediaIn === "tool-result"` (Gemini 3+): media go in `functionResponse.parts[].inlineData` — Gemini 3
 *   guide, "Multimodal function responses", 2026;
 * - otherwise (Gemini 2.x, where function responses are JSON only): `[functionResponse, ...inlineData parts]`.
 * Media the target does not accept become a line in the output text. `name` is `result.name ?? result.toolCallId`.
 */
export function toGeminiParts(result: ToolResult, target: Target): GeminiPart[] {
  const lines: string[] = [];
  const media: GeminiInlineData[] = [];
  for (const p of result.parts) {
    if (p.type === "text") lines.push(p.text);
    else if (target.accepts.includes(p.mediaType)) media.push({ mimeType: p.mediaType, data: p.data });
    else lines.push(notAccepted(p));
  }
  const text = lines.join("\n");
  const fr: GeminiFunctionResponse = {
    id: result.toolCallId,
    name: result.name ?? result.toolCallId,
    response: result.isError ? { error: text } : { output: text },
  };
  if (target.mediaIn === "tool-result") {
    if (media.length) fr.parts = media.map((inlineData) => ({ inlineData }));
    return [{ functionResponse: fr }];
  }
  return [{ functionResponse: fr }, ...media.map((inlineData) => ({ inlineData }))];
}

// ---------------------------------------------------------------------------------------------------------------
// Bedrock Converse

export type BedrockImageFormat = "png" | "jpeg" | "gif" | "webp";
export type BedrockToolResultContent<B> =
  | { text: string }
  | { image: { format: BedrockImageFormat; source: { bytes: B } } }
  | { document: { format: "pdf"; name: string; source: { bytes: B } } };
/** A Converse `ContentBlock` holding a `toolResult`. */
export interface BedrockToolResultBlock<B = Uint8Array> {
  toolResult: { toolUseId: string; content: Array<BedrockToolResultContent<B>>; status?: "error" };
}

/** Options for {@link toBedrockToolResult}. */
export interface BedrockSerializeOptions {
  /** `"uint8array"` (default) for the AWS SDK, which base64-encodes on the wire; `"base64"` for hand-written HTTP JSON. */
  bytes?: "uint8array" | "base64";
}

const BEDROCK_IMAGES: Record<string, BedrockImageFormat> = { "image/png": "png", "image/jpeg": "jpeg", "image/gif": "gif", "image/webp": "webp" };

/**
 * Bedrock Converse `{ toolResult: { toolUseId, content, status? } }` content block: text → `{ text }`; images →
 * `{ image: { format, source: { bytes } } }`; PDFs → `{ document: { format: "pdf", name, source: { bytes } } }` —
 * API reference `ToolResultContentBlock`, `ImageBlock`, `DocumentBlock`, 2025–2026. Document names are reduced to what
 * Converse allows (letters, digits, single spaces, hyphens, parentheses, square brackets; the extension is dropped) and
 * made unique within the result. `status: "error"` is written only when `isError`.
 */
export function toBedrockToolResult(result: ToolResult, options?: { bytes?: "uint8array" }): BedrockToolResultBlock<Uint8Array>;
export function toBedrockToolResult(result: ToolResult, options: { bytes: "base64" }): BedrockToolResultBlock<string>;
export function toBedrockToolResult(result: ToolResult, options: BedrockSerializeOptions = {}): BedrockToolResultBlock<Uint8Array | string> {
  const raw = options.bytes !== "base64";
  const bytes = (p: MediaPart) => (raw ? decodeBase64(p.data) : p.data);
  const names = new Set<string>();
  const content = result.parts.map((p): BedrockToolResultContent<Uint8Array | string> => {
    if (p.type === "text") return { text: p.text };
    if (p.mediaType === "application/pdf") {
      let name = bedrockDocumentName(p.name ?? "document");
      for (let i = 2; names.has(name); i++) name = `${bedrockDocumentName(p.name ?? "document")} (${i})`;
      names.add(name);
      return { document: { format: "pdf", name, source: { bytes: bytes(p) } } };
    }
    const format = BEDROCK_IMAGES[p.mediaType];
    if (format) return { image: { format, source: { bytes: bytes(p) } } };
    return { text: notAccepted(p) };
  });
  const block: BedrockToolResultBlock<Uint8Array | string> = { toolResult: { toolUseId: result.toolCallId, content } };
  if (result.isError) block.toolResult.status = "error";
  return block;
}

/** A Converse-safe document name: extension dropped; only letters, digits, single spaces, `-`, `(`, `)`, `[`, `]`. */
export function bedrockDocumentName(name: string): string {
  const stem = name.replace(/\.[A-Za-z0-9]{1,5}$/, "");
  const safe = stem.replace(/[^A-Za-z0-9\s\-()[\]]+/g, "-").replace(/\s+/g, " ").trim();
  return /[A-Za-z0-9]/.test(safe) ? safe : "document";
}

// ---------------------------------------------------------------------------------------------------------------

/** `data:<mediaType>;base64,<data>` (RFC 2397). */
export function dataUrl(p: MediaPart): string {
  return `data:${p.mediaType};base64,${p.data}`;
}

function pdfName(p: MediaPart, index: number): string {
  const name = p.name ?? `document-${index}`;
  return /\.pdf$/i.test(name) ? name : `${name}.pdf`;
}

function attachedSummary(images: number, pdfs: number): string {
  const bits: string[] = [];
  if (images) bits.push(`${images} image${images === 1 ? "" : "s"}`);
  if (pdfs) bits.push(`${pdfs} PDF${pdfs === 1 ? "" : "s"}`);
  return bits.join(" and ");
}

function notAccepted(p: MediaPart): string {
  return `[${p.mediaType} attachment${p.name ? ` "${p.name}"` : ""} omitted: this API does not accept ${p.mediaType}]`;
}
