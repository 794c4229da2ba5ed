import type { Env } from '../../infra/config/env.js';

/** Dotted numeric versions compared part by part (0.24.10 > 0.24.9); a missing part counts as 0. */
export function compareVersions(a: string, b: string): number {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d) return Math.sign(d);
  }
  return 0;
}

/**
 * `GET /api/sdk/version-check`: what this server thinks of a client SDK version, from the operator's
 * SDK_MINIMUM_VERSION (below it: `blocked`) and SDK_LATEST_VERSION (below it: `deprecated`). The
 * Python client reads `status` and `message` once at start; an unreadable version is `ok`.
 */
export function versionCheck(env: Env, sdkVersion: string | undefined) {
  const base = {
    latest_version: env.SDK_LATEST_VERSION ?? null,
    minimum_version: env.SDK_MINIMUM_VERSION ?? null,
  };
  // The leading x.y.z: pre-releases and post-releases (0.23.0rc1, 0.24.5.post1) compare by it.
  const v = /^v?(\d+(?:\.\d+){0,2})/i.exec(sdkVersion?.trim() ?? '')?.[1];
  if (!v) return { status: 'ok' as const, message: 'No comparable sdk_version given.', ...base };
  if (env.SDK_MINIMUM_VERSION && compareVersions(v, env.SDK_MINIMUM_VERSION) < 0)
    return {
      status: 'blocked' as const,
      message: `SDK ${v} is no longer supported by this server; upgrade to ${env.SDK_LATEST_VERSION ?? env.SDK_MINIMUM_VERSION} or later.`,
      ...base,
    };
  if (env.SDK_LATEST_VERSION && compareVersions(v, env.SDK_LATEST_VERSION) < 0)
    return {
      status: 'deprecated' as const,
      message: `SDK ${v} still works, but ${env.SDK_LATEST_VERSION} is available; upgrade when you can.`,
      ...base,
    };
  return { status: 'ok' as const, message: `SDK ${v} is supported.`, ...base };
}

/** The client version a request's User-Agent names (`simmer-sdk/0.26.0 (python/3.11; …)`), else null. */
export const sdkVersionOf = (userAgent: string | undefined) =>
  /\bsimmer-sdk\/v?(\d+(?:\.\d+){0,2})/i.exec(userAgent ?? '')?.[1] ?? null;

/**
 * The briefing's `sdk_update`: whether the client that asked is older than SDK_LATEST_VERSION (the
 * operator's view of the latest release); unknown client or no latest set: no update to offer.
 */
export function sdkUpdate(env: Pick<Env, 'SDK_LATEST_VERSION'>, userAgent: string | undefined) {
  const current = sdkVersionOf(userAgent);
  const latest = env.SDK_LATEST_VERSION ?? null;
  return {
    update_available: Boolean(current && latest && compareVersions(current, latest) < 0),
    current_version: current,
    latest_version: latest,
  };
}
