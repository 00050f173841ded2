/**
 * Tool results as the text the model receives. MCP results are content blocks: text blocks are
 * joined; a result without text gives the JSON of its `structuredContent`; an image, audio clip or
 * binary resource becomes one line describing it (`[image image/png 48 KiB]`), since the chat API
 * takes only text back from a tool. Module tools return a string (as it is) or a JSON value (as JSON).
 * Every text is cut to 64 KiB with troupe's truncation marker, so one call cannot flood the history.
 * Pure.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { cutUtf8 } from '../core/text/utf8';

/**
 * Largest tool result, in UTF-8 bytes, marker included.
 * @internal exported for tests
 */
export const MAX_RESULT_BYTES = 64 * 1024;

/** Descriptions of blocks that are not text, so tests can pin them. */
const RESULT_TEXTS = {
  binary: (kind: string, mimeType: string | undefined, bytes: number) => `[${kind}${mimeType ? ` ${mimeType}` : ''} ${size(bytes)}]`,
  resourceLink: (uri: string, name: string | undefined) => `[resource link ${uri}${name && name !== uri ? ` (${name})` : ''}]`,
  unknownBlock: (type: string) => `[${type} content]`,
  notJson: (error: string) => `Error: the tool returned a value that is not JSON: ${error}`,
} as const;

/** `512 B`, `48 KiB`, `1.5 MiB`. */
function size(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KiB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

/** Bytes encoded by a base64 text. */
function base64Bytes(data: string): number {
  const clean = data.replace(/\s/g, '');
  const padding = clean.endsWith('==') ? 2 : clean.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((clean.length * 3) / 4) - padding);
}

type Block = CallToolResult['content'][number];

function describe(block: Block): { text: string; isText: boolean } {
  switch (block.type) {
    case 'text':
      return { text: block.text, isText: true };
    case 'image':
    case 'audio':
      return { text: RESULT_TEXTS.binary(block.type, block.mimeType, base64Bytes(block.data)), isText: false };
    case 'resource_link':
      return { text: RESULT_TEXTS.resourceLink(block.uri, block.name), isText: false };
    case 'resource': {
      const r = block.resource;
      // an embedded text resource is text the server chose to return: the model gets it
      if ('text' in r && typeof r.text === 'string') return { text: r.text, isText: true };
      const blob = 'blob' in r && typeof r.blob === 'string' ? r.blob : '';
      return { text: RESULT_TEXTS.binary(`resource ${r.uri}`, r.mimeType, base64Bytes(blob)), isText: false };
    }
    default: {
      const other = block as { type?: unknown };
      return { text: RESULT_TEXTS.unknownBlock(String(other.type)), isText: false };
    }
  }
}

/** The full (uncut) text of an MCP result. */
export function mcpResultText(result: CallToolResult): string {
  const parts = (result.content ?? []).map(describe);
  const hasText = parts.some((p) => p.isText);
  const lines = parts.map((p) => p.text);
  if (!hasText && result.structuredContent !== undefined) lines.unshift(JSON.stringify(result.structuredContent));
  return lines.join('\n');
}

/** The full (uncut) text of a module tool's return value, or why it has none. */
export function moduleResultText(value: unknown): { ok: true; text: string } | { ok: false; text: string } {
  if (typeof value === 'string') return { ok: true, text: value };
  if (value === undefined) return { ok: true, text: '' };
  try {
    const json = JSON.stringify(value);
    if (json === undefined) return { ok: false, text: RESULT_TEXTS.notJson(typeof value) };
    return { ok: true, text: json };
  } catch (e) {
    return { ok: false, text: RESULT_TEXTS.notJson((e as Error).message) };
  }
}

/** A result text cut to {@link MAX_RESULT_BYTES}; `truncatedBytes` is set only when something was cut. */
export function boundedText(text: string): { text: string; truncatedBytes?: number } {
  const cut = cutUtf8(text, MAX_RESULT_BYTES);
  return cut.droppedBytes > 0 ? { text: cut.text, truncatedBytes: cut.droppedBytes } : { text };
}
