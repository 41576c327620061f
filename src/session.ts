/**
 * Sessions as JSON Lines: one entry per line, media inline as base64 (no sidecar files).
 *
 * Line format (version 2):
 * `{"v":2,"role":"tool","toolCallId":"c1","content":[{"type":"text","text":"..."},{"type":"image","mimeType":"image/png","data":"..."}]}`
 * with content items `{type:"text", text}`, `{type:"image", mimeType, data, name?, width?, height?}` and
 * `{type:"document", mimeType:"application/pdf", data, name?}`. Version-1 lines (text only: `content` is a single
 * string, no `v`) still parse.
 */
import type { ResultPart } from "./parts.js";
import type { MediaType } from "./types.js";

/** One conversation entry. */
export interface SessionEntry {
  role: "user" | "assistant" | "tool" | "system";
  parts: ResultPart[];
  toolCallId?: string;
  /** Tool name, for tool entries. */
  name?: string;
  isError?: boolean;
  /** Caller data kept verbatim (must be JSON-serializable). */
  meta?: Record<string, unknown>;
}

/** A line {@link parseSession} could not read. `line` is 1-based. */
export interface SessionLineError {
  line: number;
  message: string;
}

const ROLES = new Set(["user", "assistant", "tool", "system"]);
const MEDIA_TYPES = new Set<string>(["image/png", "image/jpeg", "image/gif", "image/bmp", "image/webp", "application/pdf"]);

/** Entries as JSON Lines (each line ends with "\n"). Never modifies `entries`. */
export function serializeSession(entries: readonly SessionEntry[]): string {
  let out = "";
  for (const e of entries) {
    const line: Record<string, unknown> = { v: 2, role: e.role };
    if (e.toolCallId !== undefined) line.toolCallId = e.toolCallId;
    if (e.name !== undefined) line.name = e.name;
    if (e.isError !== undefined) line.isError = e.isError;
    line.content = e.parts.map((p) => {
      if (p.type === "text") return { type: "text", text: p.text };
      const item: Record<string, unknown> = { type: p.mediaType === "application/pdf" ? "document" : "image", mimeType: p.mediaType, data: p.data };
      if (p.name !== undefined) item.name = p.name;
      if (p.width !== undefined) item.width = p.width;
      if (p.height !== undefined) item.height = p.height;
      return item;
    });
    if (e.meta !== undefined) line.meta = e.meta;
    out += JSON.stringify(line) + "\n";
  }
  return out;
}

/**
 * Reads JSON Lines written by {@link serializeSession} (version 2) or by the text-only version 1 (`content` a string).
 * Blank lines are skipped. A malformed line is reported in `errors` with its 1-based line number and skipped; every
 * other line is kept. Never throws.
 */
export function parseSession(text: string): { entries: SessionEntry[]; errors: SessionLineError[] } {
  const entries: SessionEntry[] = [];
  const errors: SessionLineError[] = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i].endsWith("\r") ? lines[i].slice(0, -1) : lines[i];
    if (raw.trim() === "") continue;
    try {
      entries.push(entryFrom(JSON.parse(raw)));
    } catch (err) {
      errors.push({ line: i + 1, message: `line ${i + 1}: ${err instanceof Error ? err.message : String(err)}` });
    }
  }
  return { entries, errors };
}

function entryFrom(v: unknown): SessionEntry {
  if (!isObject(v)) throw new Error("not a JSON object");
  if (typeof v.role !== "string" || !ROLES.has(v.role)) throw new Error(`"role" must be one of user, assistant, tool, system`);
  const entry: SessionEntry = { role: v.role as SessionEntry["role"], parts: contentFrom(v.content) };
  if (v.toolCallId !== undefined) {
    if (typeof v.toolCallId !== "string") throw new Error(`"toolCallId" must be a string`);
    entry.toolCallId = v.toolCallId;
  }
  if (v.name !== undefined) {
    if (typeof v.name !== "string") throw new Error(`"name" must be a string`);
    entry.name = v.name;
  }
  if (v.isError !== undefined) {
    if (typeof v.isError !== "boolean") throw new Error(`"isError" must be a boolean`);
    entry.isError = v.isError;
  }
  if (v.meta !== undefined) {
    if (!isObject(v.meta)) throw new Error(`"meta" must be an object`);
    entry.meta = v.meta;
  }
  return entry;
}

function contentFrom(c: unknown): ResultPart[] {
  if (c === undefined || c === null) return [];
  if (typeof c === "string") return [{ type: "text", text: c }]; // version 1
  if (!Array.isArray(c)) throw new Error(`"content" must be a string or an array`);
  return c.map((item, k): ResultPart => {
    if (!isObject(item)) throw new Error(`content[${k}] is not an object`);
    if (item.type === "text") {
      if (typeof item.text !== "string") throw new Error(`content[${k}].text must be a string`);
      return { type: "text", text: item.text };
    }
    if (item.type === "image" || item.type === "document") {
      if (typeof item.mimeType !== "string" || !MEDIA_TYPES.has(item.mimeType)) throw new Error(`content[${k}].mimeType is not a supported media type`);
      if ((item.type === "document") !== (item.mimeType === "application/pdf")) throw new Error(`content[${k}]: type "${item.type}" does not match ${item.mimeType}`);
      if (typeof item.data !== "string" || !/^[A-Za-z0-9+/]*={0,2}$/.test(item.data)) throw new Error(`content[${k}].data must be base64`);
      const part: ResultPart = { type: "media", mediaType: item.mimeType as MediaType, data: item.data };
      if (item.name !== undefined) {
        if (typeof item.name !== "string") throw new Error(`content[${k}].name must be a string`);
        part.name = item.name;
      }
      for (const key of ["width", "height"] as const) {
        const n = item[key];
        if (n === undefined) continue;
        if (typeof n !== "number" || !Number.isInteger(n) || n < 0) throw new Error(`content[${k}].${key} must be a non-negative integer`);
        part[key] = n;
      }
      return part;
    }
    throw new Error(`content[${k}].type must be "text", "image" or "document"`);
  });
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
