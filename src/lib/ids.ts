import { randomBytesPooled } from './random.js';

/**
 * Ids are `<prefix>_` + 12 hex digits of the creation time in ms + 16 random hex digits,
 * so they sort by creation and serve as pagination cursors.
 */
export function newId(prefix: string): string {
  return `${prefix}_${Date.now().toString(16).padStart(12, '0')}${randomBytesPooled(8).toString('hex')}`;
}

export function hasPrefix(id: string, prefix: string): boolean {
  return id.startsWith(`${prefix}_`);
}
