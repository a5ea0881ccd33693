/**
 * Which text encoding a file's first bytes are in. Only the encodings open data portals actually receive
 * are told apart: UTF-8 (with or without BOM), UTF-16 (BOM, or the zero-byte pattern of mostly-ASCII text)
 * and, for anything that is not valid UTF-8, Windows-1252 (a superset of printable Latin-1 that decodes every
 * byte). Other legacy encodings (Big5, Shift-JIS, …) come out as Windows-1252 mojibake: guessing among them
 * from bytes alone misfires on ordinary Latin-1 text.
 */

export type TextEncoding = 'utf-8' | 'utf-16le' | 'utf-16be' | 'windows-1252';

export interface EncodingGuess {
  encoding: TextEncoding;
  bom: boolean;
}

const UTF8_BOM = [0xef, 0xbb, 0xbf];

export function hasUtf8Bom(bytes: Uint8Array): boolean {
  return UTF8_BOM.every((byte, index) => bytes[index] === byte);
}

/**
 * `complete` says `head` is the whole file; otherwise a multi-byte character cut by the end of the head
 * is not held against UTF-8.
 */
export function detectEncoding(head: Uint8Array, complete: boolean): EncodingGuess {
  if (hasUtf8Bom(head)) return { encoding: 'utf-8', bom: true };
  if (head[0] === 0xff && head[1] === 0xfe) return { encoding: 'utf-16le', bom: true };
  if (head[0] === 0xfe && head[1] === 0xff) return { encoding: 'utf-16be', bom: true };
  const utf16 = utf16ByZeroPattern(head);
  if (utf16) return { encoding: utf16, bom: false };
  return { encoding: isValidUtf8(head, complete) ? 'utf-8' : 'windows-1252', bom: false };
}

/**
 * ASCII in UTF-16 puts a zero in every other byte: odd bytes for little-endian, even ones for big-endian.
 * Demanding many zeros on one side and almost none on the other keeps binary files (zeros everywhere) out.
 */
function utf16ByZeroPattern(head: Uint8Array): TextEncoding | null {
  const length = Math.min(head.length, 4096) & ~1;
  if (length < 4) return null;
  let zerosAtEven = 0;
  let zerosAtOdd = 0;
  for (let i = 0; i < length; i += 2) {
    if (head[i] === 0) zerosAtEven++;
    if (head[i + 1] === 0) zerosAtOdd++;
  }
  const pairs = length / 2;
  if (zerosAtOdd / pairs > 0.3 && zerosAtEven / pairs < 0.05) return 'utf-16le';
  if (zerosAtEven / pairs > 0.3 && zerosAtOdd / pairs < 0.05) return 'utf-16be';
  return null;
}

export function isValidUtf8(bytes: Uint8Array, complete: boolean): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes, { stream: !complete });
    return true;
  } catch {
    return false;
  }
}

/** Decodes a head for inspection; a BOM is dropped, a character cut at the end of an incomplete head too. */
export function decodeHead(head: Uint8Array, encoding: TextEncoding, complete: boolean): string {
  return new TextDecoder(encoding).decode(head, { stream: !complete });
}

/**
 * Text has few control characters; compressed or binary data has about one byte in eight below 0x20.
 * A stray NUL in otherwise clean text (csvkit's null_byte.csv) stays text; NULs next to bytes that are
 * not UTF-8 do not.
 */
export function looksBinary(head: Uint8Array, guess: EncodingGuess): boolean {
  if (guess.encoding === 'utf-16le' || guess.encoding === 'utf-16be') {
    return controlShare(decodeHead(head, guess.encoding, false)) > 0.1;
  }
  if (head.length === 0) return false;
  let nuls = 0;
  let controls = 0;
  for (const byte of head) {
    if (byte === 0) nuls++;
    else if (isControlByte(byte, guess.encoding)) controls++;
  }
  const share = (nuls + controls) / head.length;
  return share > 0.1 || (nuls / head.length > 0.01 && guess.encoding !== 'utf-8');
}

// Tab, LF, VT, FF, CR, SUB (a DOS end-of-file mark) and ESC occur in real text files.
const TEXT_CONTROLS = new Set([0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x1a, 0x1b]);
// Bytes Windows-1252 leaves undefined: text in that encoding never has them.
const CP1252_UNDEFINED = new Set([0x81, 0x8d, 0x8f, 0x90, 0x9d]);

function isControlByte(byte: number, encoding: TextEncoding): boolean {
  if (byte < 0x20) return !TEXT_CONTROLS.has(byte);
  if (byte === 0x7f) return true;
  return encoding === 'windows-1252' && CP1252_UNDEFINED.has(byte);
}

function controlShare(text: string): number {
  if (text.length === 0) return 0;
  let controls = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if ((code < 0x20 && !TEXT_CONTROLS.has(code)) || code === 0x7f || code === 0xfffd) controls++;
  }
  return controls / text.length;
}
