/**
 * Links into the Temporal Web UI: `temporal.ui_url` when the config gives one (a UI behind its own host name,
 * Temporal Cloud's https://cloud.temporal.io), else the embedded dev server's UI on the frontend's host and
 * `temporal.ui_port`.
 */
import type { Config } from '../config/schema';

export function uiBaseUrl(temporal: Config['temporal']): string {
  if (temporal.ui_url) return temporal.ui_url.replace(/\/+$/, '');
  const host = temporal.address.slice(0, temporal.address.lastIndexOf(':')) || '127.0.0.1';
  return `http://${host}:${temporal.ui_port}`;
}

export function workflowUiLink(temporal: Config['temporal'], workflowId: string): string {
  return `${uiBaseUrl(temporal)}/namespaces/${temporal.namespace}/workflows/${encodeURIComponent(workflowId)}`;
}
