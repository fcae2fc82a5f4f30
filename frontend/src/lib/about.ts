// The About box's facts as text, for a bug report: what "Copy details" copies.
import { formatBytes } from './images';
import type { AboutInfo } from './types';

/** The database's size for people, with the exact count of bytes beside it. */
export function databaseSize(bytes: number): string {
  return bytes < 1024 ? formatBytes(bytes) : `${formatBytes(bytes)} (${bytes.toLocaleString('en-US')} bytes)`;
}

/**
 * Every fact of the About box, a line each, in plain text that reads the
 * same pasted into an issue, a mail or a chat. kind says where the app
 * runs: the desktop window, or a browser on `agentdeck serve`.
 */
export function aboutDetails(info: AboutInfo, kind: 'wails' | 'http'): string {
  const lines = [
    `Agentdeck ${info.version}`,
    `Commit: ${info.commit || 'unknown'}`,
    `Built with: ${info.go_version || 'unknown Go'} for ${info.os}/${info.arch}`,
    `Running in: ${kind === 'wails' ? 'the desktop window' : 'a browser (agentdeck serve)'}`,
    `Data folder: ${info.data_dir || 'none'}`,
    `Database: ${info.db_path || 'none'}, ${databaseSize(info.db_bytes)}`,
  ];
  if (info.db_error) lines.push(`Database error: ${info.db_error.message}`);
  if (info.log_path) lines.push(`Log: ${info.log_path}`);
  return lines.join('\n') + '\n';
}

/**
 * A path cut into pieces that each end at a separator, so a long path
 * shown with a line-break chance after each piece breaks between folders,
 * not inside a name. The pieces join back into the path.
 */
export function pathPieces(path: string): string[] {
  return path.match(/[^/\\]*(?:[/\\]|$)/g)?.filter((p) => p !== '') ?? [];
}
